# plots/lstm-vs-cudnn-h200-time-forward.gp: figure 'time-forward' of experiment lstm-vs-cudnn, written by `logt plot experiments/lstm-vs-cudnn`
# from results/lstm-vs-cudnn-h200.h5 (commit b158314); y = median_ms against x = T, one curve per value of series (model,algo,math); where pass=forward, D=768, B=16
# Re-render without logt: gnuplot plots/lstm-vs-cudnn-h200-time-forward.gp  (writes the .png and .svg beside it)

$data << EOD
# index 0: lstm
256 5.335936069
1024 23.48512077
4096 98.6680603


# index 1: lstm-cudnn algo=standard math=fp32
256 5.21273613
1024 20.88931274
4096 80.55862427


# index 2: lstm-cudnn algo=standard math=tf32
256 4.121535778
1024 18.78367996
4096 68.09020996


# index 3: lstm-cudnn algo=persist_static math=fp32
256 4.719039917
1024 18.93628883
4096 75.15673828


# index 4: lstm-cudnn algo=persist_static math=tf32
256 4.406079769
1024 17.42127991
4096 69.8724823
EOD

out = "plots/lstm-vs-cudnn-h200-time-forward"
if (exists("ARG0") && strlen(ARG0) > 3 && ARG0[strlen(ARG0)-2:] eq ".gp") out = ARG0[1:strlen(ARG0)-3]
set title "forward only, D = 768, B = 16: median time vs T"
set xlabel "sequence length T"
set ylabel "median time per pass (ms)"
set grid
set key outside right top
set style data linespoints
set logscale x 2
set logscale y
set terminal pngcairo size 1000,600 font "sans,11" noenhanced
set output out.".png"
plot $data index 0 using 1:2 title "lstm", \
     $data index 1 using 1:2 title "lstm-cudnn algo=standard math=fp32", \
     $data index 2 using 1:2 title "lstm-cudnn algo=standard math=tf32", \
     $data index 3 using 1:2 title "lstm-cudnn algo=persist_static math=fp32", \
     $data index 4 using 1:2 title "lstm-cudnn algo=persist_static math=tf32"
set terminal svg size 1000,600 font "sans,11" noenhanced background rgb "white"
set output out.".svg"
replot
unset output

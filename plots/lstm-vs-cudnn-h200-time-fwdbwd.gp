# plots/lstm-vs-cudnn-h200-time-fwdbwd.gp: figure 'time-fwdbwd' of experiment lstm-vs-cudnn, written by `logt plot experiments/lstm-vs-cudnn`
# from results/lstm-vs-cudnn-h200.h5 (commit b158314); y = median_ms against x = T, one curve per value of series (model,algo,math); where pass=fwdbwd, D=768, B=16
# Re-render without logt: gnuplot plots/lstm-vs-cudnn-h200-time-fwdbwd.gp  (writes the .png and .svg beside it)

$data << EOD
# index 0: lstm
256 12.74822426
1024 48.36969757
4096 175.2036133


# index 1: lstm-cudnn algo=standard math=fp32
256 12.70262432
1024 50.17583847
4096 196.4632263


# index 2: lstm-cudnn algo=standard math=tf32
256 10.8068161
1024 39.90569687
4096 180.0100098


# index 3: lstm-cudnn algo=persist_static math=fp32
256 12.6871357
1024 49.91401672
4096 198.2887421


# index 4: lstm-cudnn algo=persist_static math=tf32
256 11.54630375
1024 45.08636856
4096 179.2487946
EOD

out = "plots/lstm-vs-cudnn-h200-time-fwdbwd"
if (exists("ARG0") && strlen(ARG0) > 3 && ARG0[strlen(ARG0)-2:] eq ".gp") out = ARG0[1:strlen(ARG0)-3]
set title "forward + backward, D = 768, B = 16: median time vs T"
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

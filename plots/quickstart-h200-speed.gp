# plots/quickstart-h200-speed.gp: figure 'speed' of experiment quickstart, written by `logt plot experiments/quickstart`
# from results/quickstart-h200.h5 (commit b158314); y = median_ms against x = T, one curve per value of series (model,pass)
# Re-render without logt: gnuplot plots/quickstart-h200-speed.gp  (writes the .png and .svg beside it)

$data << EOD
# index 0: lstm forward
64 1.500319958
256 5.941343784
1024 22.18844795
4096 91.3132782


# index 1: lstm fwdbwd
64 2.845247984
256 11.38988781
1024 46.3792305
4096 175.6974792


# index 2: lstm-cudnn forward
64 0.7197759748
256 3.770015955
1024 11.02425575
4096 51.51631927


# index 3: lstm-cudnn fwdbwd
64 2.285664082
256 8.192480087
1024 34.13695908
4096 112.270462
EOD

out = "plots/quickstart-h200-speed"
if (exists("ARG0") && strlen(ARG0) > 3 && ARG0[strlen(ARG0)-2:] eq ".gp") out = ARG0[1:strlen(ARG0)-3]
set title "quickstart: median time of one pass vs T"
set xlabel "sequence length T"
set ylabel "median time per pass (ms)"
set grid
set key outside right top
set style data linespoints
set logscale x 2
set logscale y
set terminal pngcairo size 1000,600 font "sans,11" noenhanced
set output out.".png"
plot $data index 0 using 1:2 title "lstm forward", \
     $data index 1 using 1:2 title "lstm fwdbwd", \
     $data index 2 using 1:2 title "lstm-cudnn forward", \
     $data index 3 using 1:2 title "lstm-cudnn fwdbwd"
set terminal svg size 1000,600 font "sans,11" noenhanced background rgb "white"
set output out.".svg"
replot
unset output

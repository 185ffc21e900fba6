# plots/gilr-vs-lstm-h200-speedup-auto.gp: figure 'speedup-auto' of experiment gilr-vs-lstm, written by `logt plot experiments/gilr-vs-lstm`
# from results/gilr-vs-lstm-h200.h5 (commit 7044ca6); y = median_ms against x = T, one curve per value of series (model,algo); where seed=1; as a ratio to the median_ms of baseline algo=auto (baseline / this)
# Re-render without logt: gnuplot plots/gilr-vs-lstm-h200-speedup-auto.gp  (writes the .png and .svg beside it)

$data << EOD
# index 0: gilr-lstm
16 0.7833109156
64 1.094507015
256 1.905947838
1024 7.065401524
4096 23.78431746
16384 26.31718207
32768 36.76766471


# index 1: lstm-cudnn algo=standard
16 0.9795612747
64 1.012822136
256 0.97698187
1024 0.9650731098
4096 0.86648023
16384 0.3409293312
32768 0.2332923699
EOD

out = "plots/gilr-vs-lstm-h200-speedup-auto"
if (exists("ARG0") && strlen(ARG0) > 3 && ARG0[strlen(ARG0)-2:] eq ".gp") out = ARG0[1:strlen(ARG0)-3]
set title "speedup over cuDNN's LSTM (algo = auto: its fastest algorithm) at b*T = 65536"
set xlabel "sequence length T (batch b = 65536 / T)"
set ylabel "speedup over cuDNN auto (its time / this time)"
set grid
set key outside right top
set style data linespoints
set logscale x 2
set logscale y
set arrow from graph 0, first 1 to graph 1, first 1 nohead dt 2
set terminal pngcairo size 1000,600 font "sans,11" noenhanced
set output out.".png"
plot $data index 0 using 1:2 title "gilr-lstm", \
     $data index 1 using 1:2 title "lstm-cudnn algo=standard"
set terminal svg size 1000,600 font "sans,11" noenhanced background rgb "white"
set output out.".svg"
replot
unset output

# plots/gilr-vs-lstm-h200-speedup-auto.gp: figure 'speedup-auto' of experiment gilr-vs-lstm, written by `logt plot experiments/gilr-vs-lstm`
# from results/gilr-vs-lstm-h200.h5 (commit 8f338e2); y = median_ms against x = T, one curve per value of series (model,algo); where seed=1; as a ratio to the median_ms of baseline algo=auto (baseline / this)
# Re-render without logt: gnuplot plots/gilr-vs-lstm-h200-speedup-auto.gp  (writes the .png and .svg beside it)

$data << EOD
# index 0: gilr-lstm
16 0.7855466428
64 1.058020029
256 2.008453582
1024 7.285400824
4096 24.50279856
16384 25.86713443
32768 36.19750925


# index 1: lstm-cudnn algo=standard
16 0.998485938
64 0.9811631601
256 0.9957980915
1024 1.019926847
4096 0.964835173
16384 0.310204703
32768 0.2552178925
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

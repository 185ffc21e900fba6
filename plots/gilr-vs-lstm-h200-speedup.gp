# plots/gilr-vs-lstm-h200-speedup.gp: figure 'speedup' of experiment gilr-vs-lstm, written by `logt plot experiments/gilr-vs-lstm`
# from results/gilr-vs-lstm-h200.h5 (commit 8f338e2); y = median_ms against x = T, one curve per value of series (model,algo); where seed=1; as a ratio to the median_ms of baseline algo=standard (baseline / this)
# Re-render without logt: gnuplot plots/gilr-vs-lstm-h200-speedup.gp  (writes the .png and .svg beside it)

$data << EOD
# index 0: gilr-lstm
16 0.7867378126
64 1.078332404
256 2.016928532
1024 7.143062115
4096 25.39583884
16384 83.38730582
32768 141.8298258


# index 1: lstm-cudnn algo=auto
16 1.001516358
64 1.019198479
256 1.004219639
1024 0.9804624739
4096 1.036446461
16384 3.223677753
32768 3.918220584
EOD

out = "plots/gilr-vs-lstm-h200-speedup"
if (exists("ARG0") && strlen(ARG0) > 3 && ARG0[strlen(ARG0)-2:] eq ".gp") out = ARG0[1:strlen(ARG0)-3]
set title "Martin & Cundy's Table 2: speedup over cuDNN's LSTM (algo = standard) at b*T = 65536"
set xlabel "sequence length T (batch b = 65536 / T)"
set ylabel "speedup over cuDNN STANDARD (its time / this time)"
set grid
set key outside right top
set style data linespoints
set logscale x 2
set logscale y
set arrow from graph 0, first 1 to graph 1, first 1 nohead dt 2
set terminal pngcairo size 1000,600 font "sans,11" noenhanced
set output out.".png"
plot $data index 0 using 1:2 title "gilr-lstm", \
     $data index 1 using 1:2 title "lstm-cudnn algo=auto"
set terminal svg size 1000,600 font "sans,11" noenhanced background rgb "white"
set output out.".svg"
replot
unset output

# plots/gilr-vs-lstm-h200-speedup.gp: figure 'speedup' of experiment gilr-vs-lstm, written by `logt plot experiments/gilr-vs-lstm`
# from results/gilr-vs-lstm-h200.h5 (commit 97beec4); y = median_ms against x = T, one curve per value of series (model,algo); where seed=1; as a ratio to the median_ms of baseline algo=standard (baseline / this)
# Re-render without logt: gnuplot plots/gilr-vs-lstm-h200-speedup.gp  (writes the .png and .svg beside it)

$data << EOD
# index 0: gilr-lstm
16 0.7766154998
64 1.072269379
256 1.942807102
1024 5.760209358
4096 17.61769457
16384 70.21113409
32768 152.6638298


# index 1: lstm-cudnn algo=auto
16 0.9995146955
64 1.007617935
256 1.000517272
1024 1.004349216
4096 0.9774062999
16384 2.702502038
32768 4.199895001
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

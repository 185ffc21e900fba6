# plots/flashrnn-T-h200-time.gp: figure 'time' of experiment flashrnn-T, written by `logt plot experiments/flashrnn-T`
# from results/flashrnn-T-h200.h5 (commit 8a9d501); y = median_ms against x = T, one curve per value of series (model,kernel,pass)
# Re-render without logt: gnuplot plots/flashrnn-T-h200-time.gp  (writes the .png and .svg beside it)

$data << EOD
# index 0: flashrnn kernel=fused forward
64 0.1145920008
256 0.3296959996
1024 1.152415991
4096 4.479616165
16384 17.62262344


# index 1: flashrnn kernel=alternating forward
64 0.9792640209
256 3.607487917
1024 14.49219227
4096 57.17478561
16384 193.1624298


# index 2: flashrnn kernel=fused fwdbwd
64 0.3007040024
256 0.8928959966
1024 3.191551924
4096 12.23257637
16384 48.62192154


# index 3: flashrnn kernel=alternating fwdbwd
64 1.961887956
256 7.372320175
1024 29.38886452
4096 114.6511993
16384 386.352417


# index 4: lstm-cudnn forward
64 0.7576320171
256 3.154367924
1024 12.39772797
4096 52.40111923
16384 187.6554871


# index 5: lstm-cudnn fwdbwd
64 1.791039944
256 7.28710413
1024 27.26700783
4096 151.8270721
16384 444.5292664
EOD

out = "plots/flashrnn-T-h200-time"
if (exists("ARG0") && strlen(ARG0) > 3 && ARG0[strlen(ARG0)-2:] eq ".gp") out = ARG0[1:strlen(ARG0)-3]
set title "lstm, D = 768 (dh = 64 for flashrnn), B = 16, bf16: median time vs T"
set xlabel "sequence length T"
set ylabel "median time per pass (ms)"
set grid
set key outside right top
set style data linespoints
set logscale x 2
set logscale y
set terminal pngcairo size 1000,600 font "sans,11" noenhanced
set output out.".png"
plot $data index 0 using 1:2 title "flashrnn kernel=fused forward", \
     $data index 1 using 1:2 title "flashrnn kernel=alternating forward", \
     $data index 2 using 1:2 title "flashrnn kernel=fused fwdbwd", \
     $data index 3 using 1:2 title "flashrnn kernel=alternating fwdbwd", \
     $data index 4 using 1:2 title "lstm-cudnn forward", \
     $data index 5 using 1:2 title "lstm-cudnn fwdbwd"
set terminal svg size 1000,600 font "sans,11" noenhanced background rgb "white"
set output out.".svg"
replot
unset output

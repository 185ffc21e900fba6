# plots/flashrnn-batch-h200-time.gp: figure 'time' of experiment flashrnn-batch, written by `logt plot experiments/flashrnn-batch`
# from results/flashrnn-batch-h200.h5 (commit ec5919b); y = median_ms against x = B, one curve per value of series (model,kernel,pass)
# Re-render without logt: gnuplot plots/flashrnn-batch-h200-time.gp  (writes the .png and .svg beside it)

$data << EOD
# index 0: flashrnn kernel=fused forward
1 1.056256056
2 1.145280004
4 1.172639966
8 1.195456028
16 1.199327946
32 1.260671973
64 1.505728006
128 2.774624109
256 5.587552071


# index 1: flashrnn kernel=alternating forward
1 14.97647953
2 12.20044804
4 12.23500824
8 11.97187233
16 12.31411171
32 11.71884823
64 11.41673565
128 14.72275162
256 12.19129562


# index 2: flashrnn kernel=fused fwdbwd
1 2.639296055
2 2.780639887
4 2.841536045
8 2.974783897
16 3.180927992
32 3.492543936
64 4.382880211
128 8.076800346
256 13.6075201


# index 3: flashrnn kernel=alternating fwdbwd
1 24.43155289
2 24.04124832
4 25.683424
8 26.01814461
16 24.3784008
32 25.5775032
64 32.08534241
128 33.51590347
256 29.58959961


# index 4: lstm-cudnn forward
1 12.5639677
2 12.05305576
4 13.53999996
8 12.65062428
16 12.52326393
32 11.79363155
64 12.45983982
128 13.10300827
256 17.13145638


# index 5: lstm-cudnn fwdbwd
1 27.76070404
2 28.68560028
4 27.18499184
8 27.01024055
16 28.80262375
32 27.91779137
64 28.1492157
128 31.58307266
256 37.96892929
EOD

out = "plots/flashrnn-batch-h200-time"
if (exists("ARG0") && strlen(ARG0) > 3 && ARG0[strlen(ARG0)-2:] eq ".gp") out = ARG0[1:strlen(ARG0)-3]
set title "lstm, D = 768 (dh = 64 for flashrnn), T = 1024, bf16: median time vs batch"
set xlabel "batch B"
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

# plots/flashrnn-T-h200-time.gp: figure 'time' of experiment flashrnn-T, written by `logt plot experiments/flashrnn-T`
# from results/flashrnn-T-h200.h5 (commit b5c0325); y = median_ms against x = T, one curve per value of series (model,kernel,pass)
# Re-render without logt: gnuplot plots/flashrnn-T-h200-time.gp  (writes the .png and .svg beside it)

$data << EOD
# index 0: flashrnn kernel=fused forward
64 0.1209599972
256 0.381152004
1024 1.377920032
4096 5.281888008
16384 20.87295914


# index 1: flashrnn kernel=alternating forward
64 1.136479974
256 4.399104118
1024 17.43055916
4096 67.59107208
16384 220.9472046


# index 2: flashrnn kernel=fused fwdbwd
64 0.3014400005
256 0.9578880072
1024 3.467839956
4096 13.40569592
16384 53.05244827


# index 3: flashrnn kernel=alternating fwdbwd
64 2.436736107
256 8.862848282
1024 34.78847885
4096 137.4113312
16384 388.4650879


# index 4: lstm-cudnn forward
64 0.8167999983
256 4.631328106
1024 17.08825684
4096 69.34502411
16384 214.609787


# index 5: lstm-cudnn fwdbwd
64 2.034751892
256 10.40832043
1024 40.63401413
4096 140.4606018
16384 581.4815063
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

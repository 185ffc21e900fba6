# plots/flashrnn-headdim-h200-time-forward.gp: figure 'time-forward' of experiment flashrnn-headdim, written by `logt plot experiments/flashrnn-headdim`
# from results/flashrnn-headdim-h200.h5 (commit a4d4cb1); y = median_ms against x = head_dim, one curve per value of series (model,kernel,cell,dtype); where pass=forward
# Re-render without logt: gnuplot plots/flashrnn-headdim-h200-time-forward.gp  (writes the .png and .svg beside it)

$data << EOD
# index 0: flashrnn kernel=fused lstm bf16
16 0.8253759742
32 0.7887359858
64 1.125184059
128 2.093919992
256 1.961696029
768 1.81564796


# index 1: flashrnn kernel=alternating lstm bf16
16 11.16268826
32 11.14256001
64 10.71376038
128 12.76131153
256 11.79872036
768 12.7885437


# index 2: flashrnn kernel=fused gru bf16
16 0.7618880272
32 0.7989760041
64 0.9691200256
128 2.051840067
256 1.734431982
768 2.129600048


# index 3: flashrnn kernel=alternating gru bf16
16 11.00403214
32 10.94265556
64 10.36659241
128 13.00720024
256 11.1736002
768 12.59657574


# index 4: flashrnn kernel=fused lstm f32
16 1.063231945
32 0.8764160275
64 1.641983986
128 1.774880052
256 2.176608086


# index 5: flashrnn kernel=alternating lstm f32
16 12.56915188
32 10.5847044
64 9.779135704
128 10.4742403
256 10.6968956
768 15.17862415


# index 6: flashrnn kernel=fused gru f32
16 0.9534080029
32 0.8085119724
64 1.375519991
128 1.704383969
256 2.091520071


# index 7: flashrnn kernel=alternating gru f32
16 12.81427193
32 12.3643837
64 9.84505558
128 10.28262424
256 10.6038084
768 15.65926361


# index 8: lstm-cudnn lstm bf16
768 12.58630371


# index 9: lstm-cudnn lstm f32
768 16.21827126


# index 10: lstm lstm f32
768 21.61513519
EOD

out = "plots/flashrnn-headdim-h200-time-forward"
if (exists("ARG0") && strlen(ARG0) > 3 && ARG0[strlen(ARG0)-2:] eq ".gp") out = ARG0[1:strlen(ARG0)-3]
set title "forward, D = 768, B = 16, T = 1024: median time vs head dim"
set xlabel "head dim dh (D = 768)"
set ylabel "median time per pass (ms)"
set grid
set key outside right top
set style data linespoints
set logscale x 10
set logscale y
set terminal pngcairo size 1000,600 font "sans,11" noenhanced
set output out.".png"
plot $data index 0 using 1:2 title "flashrnn kernel=fused lstm bf16", \
     $data index 1 using 1:2 title "flashrnn kernel=alternating lstm bf16", \
     $data index 2 using 1:2 title "flashrnn kernel=fused gru bf16", \
     $data index 3 using 1:2 title "flashrnn kernel=alternating gru bf16", \
     $data index 4 using 1:2 title "flashrnn kernel=fused lstm f32", \
     $data index 5 using 1:2 title "flashrnn kernel=alternating lstm f32", \
     $data index 6 using 1:2 title "flashrnn kernel=fused gru f32", \
     $data index 7 using 1:2 title "flashrnn kernel=alternating gru f32", \
     $data index 8 using 1:2 title "lstm-cudnn lstm bf16", \
     $data index 9 using 1:2 title "lstm-cudnn lstm f32", \
     $data index 10 using 1:2 title "lstm lstm f32"
set terminal svg size 1000,600 font "sans,11" noenhanced background rgb "white"
set output out.".svg"
replot
unset output

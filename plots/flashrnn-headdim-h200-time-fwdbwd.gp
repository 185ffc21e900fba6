# plots/flashrnn-headdim-h200-time-fwdbwd.gp: figure 'time-fwdbwd' of experiment flashrnn-headdim, written by `logt plot experiments/flashrnn-headdim`
# from results/flashrnn-headdim-h200.h5 (commit 39f616f); y = median_ms against x = head_dim, one curve per value of series (model,kernel,cell,dtype); where pass=fwdbwd
# Re-render without logt: gnuplot plots/flashrnn-headdim-h200-time-fwdbwd.gp  (writes the .png and .svg beside it)

$data << EOD
# index 0: flashrnn kernel=fused lstm bf16
16 2.894880056
32 2.764064074
64 3.267647982
128 5.256639957
256 5.012479782
768 6.795008183


# index 1: flashrnn kernel=alternating lstm bf16
16 22.97900772
32 35.45139313
64 23.27993584
128 23.87264061
256 27.78166389
768 29.12867165


# index 2: flashrnn kernel=fused gru bf16
16 2.422591925
32 2.436160088
64 2.931456089
128 4.826879978
256 4.664512157
768 6.390655994


# index 3: flashrnn kernel=alternating gru bf16
16 23.90896034
32 31.82393646
64 25.09366417
128 26.12960052
256 26.38447952
768 26.01103973


# index 4: flashrnn kernel=fused lstm f32
16 3.790496111
32 3.712991953
64 5.254528046
128 5.812767982
256 7.043807983


# index 5: flashrnn kernel=alternating lstm f32
16 35.27763367
32 23.24473572
64 28.74559975
128 23.11964798
256 27.65462494
768 37.59852982


# index 6: flashrnn kernel=fused gru f32
16 3.171200037
32 3.230560064
64 4.636991978
128 5.123295784
256 6.177631855


# index 7: flashrnn kernel=alternating gru f32
16 35.88515091
32 22.51529694
64 28.70972824
128 24.51043129
256 28.71657562
768 34.80595016


# index 8: lstm-cudnn lstm bf16
768 39.6966095


# index 9: lstm-cudnn lstm f32
768 50.00003052


# index 10: lstm lstm f32
768 44.09817505
EOD

out = "plots/flashrnn-headdim-h200-time-fwdbwd"
if (exists("ARG0") && strlen(ARG0) > 3 && ARG0[strlen(ARG0)-2:] eq ".gp") out = ARG0[1:strlen(ARG0)-3]
set title "forward + backward, D = 768, B = 16, T = 1024: median time vs head dim"
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

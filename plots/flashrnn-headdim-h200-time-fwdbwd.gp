# plots/flashrnn-headdim-h200-time-fwdbwd.gp: figure 'time-fwdbwd' of experiment flashrnn-headdim, written by `logt plot experiments/flashrnn-headdim`
# from results/flashrnn-headdim-h200.h5 (commit c23e009); y = median_ms against x = head_dim, one curve per value of series (model,kernel,cell,dtype); where pass=fwdbwd
# Re-render without logt: gnuplot plots/flashrnn-headdim-h200-time-fwdbwd.gp  (writes the .png and .svg beside it)

$data << EOD
# index 0: flashrnn kernel=fused lstm bf16
16 2.844032049
32 2.739743948
64 3.296128035
128 5.340223789
256 5.016320229
768 6.208703995


# index 1: flashrnn kernel=alternating lstm bf16
16 31.51894379
32 22.98684883
64 22.55007935
128 23.06771278
256 22.47315216
768 27.06425667


# index 2: flashrnn kernel=fused gru bf16
16 2.42463994
32 2.403039932
64 2.991391897
128 4.859136105
256 4.608255863
768 5.720384121


# index 3: flashrnn kernel=alternating gru bf16
16 30.54460716
32 24.1384964
64 22.01878357
128 22.0445118
256 22.41084862
768 24.64908791


# index 4: flashrnn kernel=fused lstm f32
16 3.78371191
32 3.780128002
64 5.313983917
128 5.920703888
256 7.181151867


# index 5: flashrnn kernel=alternating lstm f32
16 34.36915207
32 29.96928024
64 25.15151978
128 21.14009666
256 26.0206089
768 30.9607048


# index 6: flashrnn kernel=fused gru f32
16 3.202431917
32 3.265856028
64 4.706719875
128 5.123392105
256 6.163328171


# index 7: flashrnn kernel=alternating gru f32
16 33.92940903
32 29.31599998
64 25.6089592
128 21.52204895
256 25.71875191
768 31.87952042


# index 8: lstm-cudnn lstm bf16
768 26.21299171


# index 9: lstm-cudnn lstm f32
768 49.8283844


# index 10: lstm lstm f32
768 47.5070076
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

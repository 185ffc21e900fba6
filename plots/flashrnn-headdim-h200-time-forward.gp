# plots/flashrnn-headdim-h200-time-forward.gp: figure 'time-forward' of experiment flashrnn-headdim, written by `logt plot experiments/flashrnn-headdim`
# from results/flashrnn-headdim-h200.h5 (commit 118f4e5); y = median_ms against x = head_dim, one curve per value of series (model,kernel,cell,dtype); where pass=forward
# Re-render without logt: gnuplot plots/flashrnn-headdim-h200-time-forward.gp  (writes the .png and .svg beside it)

$data << EOD
# index 0: flashrnn kernel=fused lstm bf16
16 0.8171839714
32 0.7821120024
64 1.106976032
128 2.111327887
256 1.841824055
768 2.185888052


# index 1: flashrnn kernel=alternating lstm bf16
16 9.599328041
32 9.958399773
64 9.716223717
128 9.242143631
256 9.697312355
768 9.695615768


# index 2: flashrnn kernel=fused gru bf16
16 0.7564160228
32 0.7768959999
64 0.9376320243
128 1.992640018
256 1.733407974
768 2.153664112


# index 3: flashrnn kernel=alternating gru bf16
16 9.33024025
32 9.40076828
64 9.132351875
128 9.323840141
256 9.530079842
768 10.1431036


# index 4: flashrnn kernel=fused lstm f32
16 1.060191989
32 0.8673279881
64 1.602496028
128 1.759168029
256 2.144320011


# index 5: flashrnn kernel=alternating lstm f32
16 11.37862396
32 9.184512138
64 8.362431526
128 8.974752426
256 9.083423615
768 12.60889626


# index 6: flashrnn kernel=fused gru f32
16 0.9251840115
32 0.8031679988
64 1.361536026
128 1.687744021
256 2.064095974


# index 7: flashrnn kernel=alternating gru f32
16 11.50623989
32 8.993727684
64 8.56000042
128 9.451904297
256 8.910271645
768 13.2437439


# index 8: lstm-cudnn lstm bf16
768 9.87878418


# index 9: lstm-cudnn lstm f32
768 13.80492783


# index 10: lstm lstm f32
768 21.2694397
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

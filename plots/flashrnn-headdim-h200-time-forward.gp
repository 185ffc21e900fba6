# plots/flashrnn-headdim-h200-time-forward.gp: figure 'time-forward' of experiment flashrnn-headdim, written by `logt plot experiments/flashrnn-headdim`
# from results/flashrnn-headdim-h200.h5 (commit c23e009); y = median_ms against x = head_dim, one curve per value of series (model,kernel,cell,dtype); where pass=forward
# Re-render without logt: gnuplot plots/flashrnn-headdim-h200-time-forward.gp  (writes the .png and .svg beside it)

$data << EOD
# index 0: flashrnn kernel=fused lstm bf16
16 1.061344028
32 0.9494400024
64 1.28697598
128 2.318111897
256 1.923167944
768 2.517888069


# index 1: flashrnn kernel=alternating lstm bf16
16 10.96105576
32 11.41180801
64 13.96288013
128 13.0658884
256 10.79055977
768 10.81935978


# index 2: flashrnn kernel=fused gru bf16
16 0.8937280178
32 0.9025599957
64 1.149952054
128 2.167711973
256 1.956544042
768 2.246176004


# index 3: flashrnn kernel=alternating gru bf16
16 11.28217602
32 11.53395176
64 10.97593594
128 12.33107185
256 10.77206421
768 10.93452835


# index 4: flashrnn kernel=fused lstm f32
16 1.015648007
32 1.042047977
64 1.879840016
128 1.999359965
256 2.259903908


# index 5: flashrnn kernel=alternating lstm f32
16 12.74371243
32 13.77107239
64 11.89734364
128 12.94310379
256 10.16217613
768 15.69913578


# index 6: flashrnn kernel=fused gru f32
16 0.9222080112
32 0.9937599897
64 1.678527951
128 1.833472013
256 2.148960114


# index 7: flashrnn kernel=alternating gru f32
16 12.51606369
32 14.95055962
64 13.01152039
128 10.31062412
256 9.538559914
768 15.40169621


# index 8: lstm-cudnn lstm bf16
768 12.34396839


# index 9: lstm-cudnn lstm f32
768 18.74838448


# index 10: lstm lstm f32
768 21.68489647
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

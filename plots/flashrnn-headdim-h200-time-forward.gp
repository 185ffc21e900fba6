# plots/flashrnn-headdim-h200-time-forward.gp: figure 'time-forward' of experiment flashrnn-headdim, written by `logt plot experiments/flashrnn-headdim`
# from results/flashrnn-headdim-h200.h5 (commit 8a9d501); y = median_ms against x = head_dim, one curve per value of series (model,kernel,cell,dtype); where pass=forward
# Re-render without logt: gnuplot plots/flashrnn-headdim-h200-time-forward.gp  (writes the .png and .svg beside it)

$data << EOD
# index 0: flashrnn kernel=fused lstm bf16
16 0.9055039883
32 0.8922240138
64 1.149824023
128 2.239552021
256 1.803904057
768 2.331743956


# index 1: flashrnn kernel=alternating lstm bf16
16 13.05228806
32 10.84064007
64 10.82812786
128 11.08819199
256 15.57555199
768 10.44700813


# index 2: flashrnn kernel=fused gru bf16
16 0.8313279748
32 0.8524799943
64 1.015071988
128 2.091360092
256 1.799648046
768 2.21884799


# index 3: flashrnn kernel=alternating gru bf16
16 11.3709116
32 11.51385593
64 11.02662373
128 11.28054428
256 10.7063036
768 10.65107155


# index 4: flashrnn kernel=fused lstm f32
16 1.107615948
32 0.897759974
64 1.686015964
128 1.795071959
256 2.213471889


# index 5: flashrnn kernel=alternating lstm f32
16 16.11545563
32 10.20886421
64 9.694944382
128 9.964351654
256 9.572031975
768 14.12576008


# index 6: flashrnn kernel=fused gru f32
16 0.9866240025
32 0.8863999844
64 1.527776003
128 1.735136032
256 2.105792046


# index 7: flashrnn kernel=alternating gru f32
16 16.34614372
32 10.02624035
64 9.71926403
128 10.29849625
256 9.673567772
768 14.18780804


# index 8: lstm-cudnn lstm bf16
768 15.2936964


# index 9: lstm-cudnn lstm f32
768 18.64841652


# index 10: lstm lstm f32
768 21.73897552
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

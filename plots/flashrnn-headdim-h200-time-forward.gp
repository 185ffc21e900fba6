# plots/flashrnn-headdim-h200-time-forward.gp: figure 'time-forward' of experiment flashrnn-headdim, written by `logt plot experiments/flashrnn-headdim`
# from results/flashrnn-headdim-h200.h5 (commit 0b5fa11); y = median_ms against x = head_dim, one curve per value of series (model,kernel,cell,dtype); where pass=forward
# Re-render without logt: gnuplot plots/flashrnn-headdim-h200-time-forward.gp  (writes the .png and .svg beside it)

$data << EOD
# index 0: flashrnn kernel=fused lstm bf16
16 1.454848051
32 1.549056053
64 1.491392016
128 2.900768042
256 3.22198391
768 3.58671999


# index 1: flashrnn kernel=alternating lstm bf16
16 17.47331238
32 17.60761642
64 17.20332718
128 16.05715179
256 18.16412735
768 18.11664009


# index 2: flashrnn kernel=fused gru bf16
16 1.272799969
32 1.405279994
64 1.262879968
128 2.829119921
256 2.889535904
768 3.335616112


# index 3: flashrnn kernel=alternating gru bf16
16 17.63260841
32 17.06012726
64 17.03491211
128 18.80211258
256 18.18681526
768 17.72287941


# index 4: flashrnn kernel=fused lstm f32
16 1.408895969
32 1.513632059
64 1.840927958
128 3.393311977
256 3.469055891


# index 5: flashrnn kernel=alternating lstm f32
16 16.81388855
32 15.36492825
64 14.83523178
128 15.40278435
256 15.3362236
768 20.76723289


# index 6: flashrnn kernel=fused gru f32
16 1.407232046
32 1.508864045
64 1.602975965
128 3.140255928
256 3.179296017


# index 7: flashrnn kernel=alternating gru f32
16 21.09155273
32 15.63548756
64 14.85039997
128 15.31942368
256 15.37321568
768 23.20848083


# index 8: lstm-cudnn lstm bf16
768 18.13769531


# index 9: lstm-cudnn lstm f32
768 19.00323105


# index 10: lstm lstm f32
768 21.70783997
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

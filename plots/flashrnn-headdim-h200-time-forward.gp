# plots/flashrnn-headdim-h200-time-forward.gp: figure 'time-forward' of experiment flashrnn-headdim, written by `logt plot experiments/flashrnn-headdim`
# from results/flashrnn-headdim-h200.h5 (commit 39f616f); y = median_ms against x = head_dim, one curve per value of series (model,kernel,cell,dtype); where pass=forward
# Re-render without logt: gnuplot plots/flashrnn-headdim-h200-time-forward.gp  (writes the .png and .svg beside it)

$data << EOD
# index 0: flashrnn kernel=fused lstm bf16
16 1.02710402
32 0.9538879991
64 1.270400047
128 2.34387207
256 1.94848001
768 2.489120007


# index 1: flashrnn kernel=alternating lstm bf16
16 11.72508812
32 17.75503922
64 11.64931202
128 12.79334354
256 12.95820808
768 12.1104641


# index 2: flashrnn kernel=fused gru bf16
16 0.8886719942
32 0.9302080274
64 1.09168005
128 2.141119957
256 1.934496045
768 2.239583969


# index 3: flashrnn kernel=alternating gru bf16
16 11.76793575
32 17.79270363
64 11.96761608
128 14.87948799
256 13.01632023
768 12.32400036


# index 4: flashrnn kernel=fused lstm f32
16 1.031679988
32 1.042783976
64 1.937119961
128 2.026623964
256 2.260031939


# index 5: flashrnn kernel=alternating lstm f32
16 18.11027145
32 11.12880039
64 14.19859219
128 11.43008041
256 11.43939209
768 15.8792963


# index 6: flashrnn kernel=fused gru f32
16 0.9398080111
32 0.9366719723
64 1.709823966
128 1.830432057
256 2.174079895


# index 7: flashrnn kernel=alternating gru f32
16 19.13702393
32 11.08150387
64 10.57779217
128 11.02406406
256 12.85155201
768 16.09894371


# index 8: lstm-cudnn lstm bf16
768 17.88816071


# index 9: lstm-cudnn lstm f32
768 19.03055954


# index 10: lstm lstm f32
768 21.43305588
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

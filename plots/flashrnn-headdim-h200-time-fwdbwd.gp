# plots/flashrnn-headdim-h200-time-fwdbwd.gp: figure 'time-fwdbwd' of experiment flashrnn-headdim, written by `logt plot experiments/flashrnn-headdim`
# from results/flashrnn-headdim-h200.h5 (commit 0b5fa11); y = median_ms against x = head_dim, one curve per value of series (model,kernel,cell,dtype); where pass=fwdbwd
# Re-render without logt: gnuplot plots/flashrnn-headdim-h200-time-fwdbwd.gp  (writes the .png and .svg beside it)

$data << EOD
# index 0: flashrnn kernel=fused lstm bf16
16 5.35792017
32 5.075520039
64 5.679200172
128 8.905471802
256 10.54883194
768 12.2791996


# index 1: flashrnn kernel=alternating lstm bf16
16 36.69171143
32 36.03292847
64 36.15644836
128 37.0762558
256 36.64185715
768 35.35190582


# index 2: flashrnn kernel=fused gru bf16
16 4.452256203
32 4.39343977
64 4.787456036
128 8.341247559
256 9.540608406
768 11.05350399


# index 3: flashrnn kernel=alternating gru bf16
16 31.13500786
32 36.62713623
64 36.05948639
128 36.24972916
256 36.94652939
768 37.13471985


# index 4: flashrnn kernel=fused lstm f32
16 5.120704174
32 4.945119858
64 6.083424091
128 9.379487991
256 9.743904114


# index 5: flashrnn kernel=alternating lstm f32
16 36.42825699
32 32.72211075
64 30.82035255
128 31.30534363
256 39.97548676
768 47.47660828


# index 6: flashrnn kernel=fused gru f32
16 4.69046402
32 4.446784019
64 5.165887833
128 8.618559837
256 8.942367554


# index 7: flashrnn kernel=alternating gru f32
16 35.98156738
32 31.70006371
64 27.19241524
128 31.2268486
256 38.75289536
768 46.90460968


# index 8: lstm-cudnn lstm bf16
768 30.13843155


# index 9: lstm-cudnn lstm f32
768 50.04435349


# index 10: lstm lstm f32
768 44.77648163
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

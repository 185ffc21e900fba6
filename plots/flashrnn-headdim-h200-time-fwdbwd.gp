# plots/flashrnn-headdim-h200-time-fwdbwd.gp: figure 'time-fwdbwd' of experiment flashrnn-headdim, written by `logt plot experiments/flashrnn-headdim`
# from results/flashrnn-headdim-h200.h5 (commit 8a9d501); y = median_ms against x = head_dim, one curve per value of series (model,kernel,cell,dtype); where pass=fwdbwd
# Re-render without logt: gnuplot plots/flashrnn-headdim-h200-time-fwdbwd.gp  (writes the .png and .svg beside it)

$data << EOD
# index 0: flashrnn kernel=fused lstm bf16
16 2.718400002
32 2.71600008
64 3.189343929
128 5.27091217
256 4.878367901
768 5.82329607


# index 1: flashrnn kernel=alternating lstm bf16
16 28.0664959
32 21.47311974
64 21.53276825
128 22.99791908
256 22.12803268
768 25.6104641


# index 2: flashrnn kernel=fused gru bf16
16 2.408288002
32 2.35836792
64 2.863775969
128 4.820767879
256 4.484255791
768 5.447840214


# index 3: flashrnn kernel=alternating gru bf16
16 25.57878494
32 21.21622467
64 21.60086441
128 21.61545563
256 22.67775917
768 22.50163269


# index 4: flashrnn kernel=fused lstm f32
16 3.866240025
32 3.57791996
64 5.024352074
128 5.782911777
256 7.147647858


# index 5: flashrnn kernel=alternating lstm f32
16 30.27516747
32 21.54489517
64 20.66569519
128 22.27577591
256 24.93296051
768 37.44937515


# index 6: flashrnn kernel=fused gru f32
16 3.198335886
32 3.165695906
64 4.483391762
128 5.032351971
256 6.144864082


# index 7: flashrnn kernel=alternating gru f32
16 23.71798325
32 21.60188866
64 20.6332798
128 21.62224007
256 25.29552078
768 36.73708725


# index 8: lstm-cudnn lstm bf16
768 36.19168091


# index 9: lstm-cudnn lstm f32
768 49.3638382


# index 10: lstm lstm f32
768 44.73036957
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

# plots/flashrnn-headdim-h200-time-fwdbwd.gp: figure 'time-fwdbwd' of experiment flashrnn-headdim, written by `logt plot experiments/flashrnn-headdim`
# from results/flashrnn-headdim-h200.h5 (commit b5c0325); y = median_ms against x = head_dim, one curve per value of series (model,kernel,cell,dtype); where pass=fwdbwd
# Re-render without logt: gnuplot plots/flashrnn-headdim-h200-time-fwdbwd.gp  (writes the .png and .svg beside it)

$data << EOD
# index 0: flashrnn kernel=fused lstm bf16
16 2.912832022
32 2.836544037
64 3.516223907
128 7.417471886
256 6.986303806
768 9.595616341


# index 1: flashrnn kernel=alternating lstm bf16
16 35.3568306
32 32.60476685
64 33.47350311
128 23.98553658
256 33.02832031
768 29.86249542


# index 2: flashrnn kernel=fused gru bf16
16 2.548640013
32 2.551743984
64 3.02767992
128 6.616000175
256 6.394879818
768 8.547039986


# index 3: flashrnn kernel=alternating gru bf16
16 34.10054398
32 32.98531342
64 33.51395035
128 33.03308868
256 30.38876724
768 26.97635269


# index 4: flashrnn kernel=fused lstm f32
16 3.788511992
32 3.915296078
64 5.281760216
128 8.37449646
256 9.962656021


# index 5: flashrnn kernel=alternating lstm f32
16 35.9818573
32 29.97964859
64 28.16473579
128 24.02662468
256 33.43593597
768 33.9997139


# index 6: flashrnn kernel=fused gru f32
16 3.081631899
32 3.257184029
64 4.714816093
128 7.442080021
256 8.05779171


# index 7: flashrnn kernel=alternating gru f32
16 35.64627075
32 31.10390472
64 22.5883522
128 30.33983994
256 25.04953575
768 34.49423981


# index 8: lstm-cudnn lstm bf16
768 29.3812809


# index 9: lstm-cudnn lstm f32
768 49.96499252


# index 10: lstm lstm f32
768 49.89369583
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

# plots/flashrnn-headdim-h200-time-fwdbwd.gp: figure 'time-fwdbwd' of experiment flashrnn-headdim, written by `logt plot experiments/flashrnn-headdim`
# from results/flashrnn-headdim-h200.h5 (commit 118f4e5); y = median_ms against x = head_dim, one curve per value of series (model,kernel,cell,dtype); where pass=fwdbwd
# Re-render without logt: gnuplot plots/flashrnn-headdim-h200-time-fwdbwd.gp  (writes the .png and .svg beside it)

$data << EOD
# index 0: flashrnn kernel=fused lstm bf16
16 2.619040012
32 2.610656023
64 3.146912098
128 5.190080166
256 4.952352047
768 5.676864147


# index 1: flashrnn kernel=alternating lstm bf16
16 18.85356712
32 20.14240074
64 19.21772766
128 20.13692856
256 19.66684723
768 22.34294319


# index 2: flashrnn kernel=fused gru bf16
16 2.321248055
32 2.304512024
64 2.809151888
128 4.738783836
256 4.391520023
768 5.384448051


# index 3: flashrnn kernel=alternating gru bf16
16 19.89718437
32 21.46294403
64 19.07507133
128 19.43113518
256 19.7034874
768 20.02207947


# index 4: flashrnn kernel=fused lstm f32
16 3.761152029
32 3.527040005
64 4.947584152
128 5.684864044
256 7.11068821


# index 5: flashrnn kernel=alternating lstm f32
16 21.46528053
32 18.59353638
64 19.8161602
128 19.59990311
256 23.32825661
768 26.96118355


# index 6: flashrnn kernel=fused gru f32
16 3.190495968
32 3.080703974
64 4.317471981
128 4.979616165
256 6.074143887


# index 7: flashrnn kernel=alternating gru f32
16 21.61984062
32 18.42150307
64 19.14816093
128 19.2081604
256 22.40956879
768 25.88921547


# index 8: lstm-cudnn lstm bf16
768 23.25654411


# index 9: lstm-cudnn lstm f32
768 36.50956726


# index 10: lstm lstm f32
768 43.83228683
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

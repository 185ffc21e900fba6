# plots/flashrnn-headdim-h200-time-fwdbwd.gp: figure 'time-fwdbwd' of experiment flashrnn-headdim, written by `logt plot experiments/flashrnn-headdim`
# from results/flashrnn-headdim-h200.h5 (commit b44bbd0-dirty); y = median_ms against x = head_dim, one curve per value of series (model,kernel,cell,dtype); where pass=fwdbwd
# Re-render without logt: gnuplot plots/flashrnn-headdim-h200-time-fwdbwd.gp  (writes the .png and .svg beside it)

$data << EOD
# index 0: flashrnn kernel=fused lstm bf16
16 2.712480068
32 2.632352114
64 3.200544119
128 5.22480011
256 5.033696175
768 5.820576191


# index 1: flashrnn kernel=alternating lstm bf16
16 37.04320145
32 28.74726486
64 39.20281601
128 38.15020752
256 36.52627182
768 42.15561676


# index 2: flashrnn kernel=fused gru bf16
16 2.367712021
32 2.286047935
64 2.823071957
128 4.75744009
256 4.494719982
768 5.479519844


# index 3: flashrnn kernel=alternating gru bf16
16 36.80511856
32 29.65926361
64 39.26060867
128 37.14531326
256 36.49526215
768 36.51033783


# index 4: flashrnn kernel=fused lstm f32
16 3.852927923
32 3.596927881
64 5.016160011
128 5.741375923
256 7.210527897


# index 5: flashrnn kernel=alternating lstm f32
16 33.58883286
32 35.59120178
64 33.3902092
128 30.54348755
256 39.28102493
768 47.04099274


# index 6: flashrnn kernel=fused gru f32
16 3.26383996
32 3.101119995
64 4.372640133
128 5.033792019
256 6.193408012


# index 7: flashrnn kernel=alternating gru f32
16 38.91433716
32 35.97923279
64 31.45900726
128 30.21536064
256 40.06278229
768 46.03676987


# index 8: lstm-cudnn lstm bf16
768 46.58243179


# index 9: lstm-cudnn lstm f32
768 50.01184082


# index 10: lstm lstm f32
768 48.48499298
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

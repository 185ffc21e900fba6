# plots/flashrnn-headdim-h200-time-fwdbwd.gp: figure 'time-fwdbwd' of experiment flashrnn-headdim, written by `logt plot experiments/flashrnn-headdim`
# from results/flashrnn-headdim-h200.h5 (commit a4d4cb1); y = median_ms against x = head_dim, one curve per value of series (model,kernel,cell,dtype); where pass=fwdbwd
# Re-render without logt: gnuplot plots/flashrnn-headdim-h200-time-fwdbwd.gp  (writes the .png and .svg beside it)

$data << EOD
# index 0: flashrnn kernel=fused lstm bf16
16 2.666399956
32 2.643872023
64 3.163360119
128 5.287456036
256 5.08147192
768 5.311103821


# index 1: flashrnn kernel=alternating lstm bf16
16 22.65417671
32 21.58204842
64 21.56111908
128 23.54854393
256 23.19321632
768 28.90067291


# index 2: flashrnn kernel=fused gru bf16
16 2.371903896
32 2.280800104
64 2.815135956
128 4.761087894
256 4.417503834
768 5.344639778


# index 3: flashrnn kernel=alternating gru bf16
16 21.65379143
32 22.04115105
64 21.86700821
128 23.71116829
256 23.36227226
768 25.7001915


# index 4: flashrnn kernel=fused lstm f32
16 3.79222393
32 3.584255934
64 4.983039856
128 5.740064144
256 7.113855839


# index 5: flashrnn kernel=alternating lstm f32
16 23.93875122
32 22.08633614
64 21.2614727
128 22.20889664
256 28.65446472
768 31.69503975


# index 6: flashrnn kernel=fused gru f32
16 3.228032112
32 3.100127935
64 4.348608017
128 5.006432056
256 6.13638401


# index 7: flashrnn kernel=alternating gru f32
16 23.80169678
32 21.52809525
64 20.79644775
128 21.76524734
256 26.7712326
768 31.66032028


# index 8: lstm-cudnn lstm bf16
768 30.66124725


# index 9: lstm-cudnn lstm f32
768 38.79433441


# index 10: lstm lstm f32
768 44.56406403
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

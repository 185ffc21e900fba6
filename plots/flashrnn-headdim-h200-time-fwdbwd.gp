# plots/flashrnn-headdim-h200-time-fwdbwd.gp: figure 'time-fwdbwd' of experiment flashrnn-headdim, written by `logt plot experiments/flashrnn-headdim`
# from results/flashrnn-headdim-h200.h5 (commit ec5919b); y = median_ms against x = head_dim, one curve per value of series (model,kernel,cell,dtype); where pass=fwdbwd
# Re-render without logt: gnuplot plots/flashrnn-headdim-h200-time-fwdbwd.gp  (writes the .png and .svg beside it)

$data << EOD
# index 0: flashrnn kernel=fused lstm bf16
16 2.778208017
32 2.711776018
64 3.190720081
128 5.205567837
256 6.620192051
768 9.81139183


# index 1: flashrnn kernel=alternating lstm bf16
16 28.01465607
32 32.16368103
64 32.51379013
128 29.51881599
256 25.21209526
768 27.05183983


# index 2: flashrnn kernel=fused gru bf16
16 2.348671913
32 2.305088043
64 2.902816057
128 4.7408638
256 5.912447929
768 8.574655533


# index 3: flashrnn kernel=alternating gru bf16
16 31.88735962
32 24.54096031
64 30.29542351
128 28.73404884
256 25.17699242
768 25.25222397


# index 4: flashrnn kernel=fused lstm f32
16 3.599328041
32 3.751807928
64 5.235712051
128 7.157760143
256 9.82656002


# index 5: flashrnn kernel=alternating lstm f32
16 30.03734398
32 24.18265533
64 25.03209686
128 22.36633682
256 26.15673637
768 33.86624146


# index 6: flashrnn kernel=fused gru f32
16 2.940095901
32 2.979360104
64 4.369376183
128 6.048575878
256 8.187744141


# index 7: flashrnn kernel=alternating gru f32
16 33.77772903
32 23.97030449
64 25.34076881
128 22.85382462
256 25.44227219
768 32.48767853


# index 8: lstm-cudnn lstm bf16
768 28.31603241


# index 9: lstm-cudnn lstm f32
768 49.35968018


# index 10: lstm lstm f32
768 44.84934235
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

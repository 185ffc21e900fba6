# plots/flashrnn-T-h200-time.gp: figure 'time' of experiment flashrnn-T, written by `logt plot experiments/flashrnn-T`
# from results/flashrnn-T-h200.h5 (commit 118f4e5); y = median_ms against x = T, one curve per value of series (model,kernel,pass)
# Re-render without logt: gnuplot plots/flashrnn-T-h200-time.gp  (writes the .png and .svg beside it)

$data << EOD
# index 0: flashrnn kernel=fused forward
64 0.1018560007
256 0.3156799972
1024 1.096992016
4096 4.264992237
16384 16.77161598


# index 1: flashrnn kernel=alternating forward
64 0.621088028
256 2.273952007
1024 8.984127998
4096 46.66156769
16384 151.412384


# index 2: flashrnn kernel=fused fwdbwd
64 0.2921920121
256 0.870495975
1024 3.115488052
4096 11.99104023
16384 47.28284836


# index 3: flashrnn kernel=alternating fwdbwd
64 1.273599982
256 4.636415958
1024 19.22431946
4096 79.1934433
16384 316.9407654


# index 4: lstm-cudnn forward
64 0.6134399772
256 2.443552017
1024 10.51612759
4096 43.55142212
16384 176.3172455


# index 5: lstm-cudnn fwdbwd
64 1.565279961
256 5.548639774
1024 22.47743988
4096 95.83103943
16384 392.6369019
EOD

out = "plots/flashrnn-T-h200-time"
if (exists("ARG0") && strlen(ARG0) > 3 && ARG0[strlen(ARG0)-2:] eq ".gp") out = ARG0[1:strlen(ARG0)-3]
set title "lstm, D = 768 (dh = 64 for flashrnn), B = 16, bf16: median time vs T"
set xlabel "sequence length T"
set ylabel "median time per pass (ms)"
set grid
set key outside right top
set style data linespoints
set logscale x 2
set logscale y
set terminal pngcairo size 1000,600 font "sans,11" noenhanced
set output out.".png"
plot $data index 0 using 1:2 title "flashrnn kernel=fused forward", \
     $data index 1 using 1:2 title "flashrnn kernel=alternating forward", \
     $data index 2 using 1:2 title "flashrnn kernel=fused fwdbwd", \
     $data index 3 using 1:2 title "flashrnn kernel=alternating fwdbwd", \
     $data index 4 using 1:2 title "lstm-cudnn forward", \
     $data index 5 using 1:2 title "lstm-cudnn fwdbwd"
set terminal svg size 1000,600 font "sans,11" noenhanced background rgb "white"
set output out.".svg"
replot
unset output

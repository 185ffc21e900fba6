# plots/flashrnn-T-h200-time.gp: figure 'time' of experiment flashrnn-T, written by `logt plot experiments/flashrnn-T`
# from results/flashrnn-T-h200.h5 (commit b44bbd0-dirty); y = median_ms against x = T, one curve per value of series (model,kernel,pass)
# Re-render without logt: gnuplot plots/flashrnn-T-h200-time.gp  (writes the .png and .svg beside it)

$data << EOD
# index 0: flashrnn kernel=fused forward
64 0.1209919974
256 0.3313919902
1024 1.12547195
4096 4.37027216
16384 17.28489685


# index 1: flashrnn kernel=alternating forward
64 1.218783975
256 4.442975998
1024 18.15535927
4096 69.24707031
16384 280.4878845


# index 2: flashrnn kernel=fused fwdbwd
64 0.3060159981
256 0.9113919735
1024 3.174783945
4096 12.17875195
16384 48.44166565


# index 3: flashrnn kernel=alternating fwdbwd
64 2.370815992
256 9.378144264
1024 35.8208313
4096 140.4323578
16384 588.1641846


# index 4: lstm-cudnn forward
64 1.212064028
256 4.753407955
1024 19.05299187
4096 55.16614532
16384 222.2497253


# index 5: lstm-cudnn fwdbwd
64 2.864896059
256 11.09059238
1024 42.24464035
4096 164.4199371
16384 643.0346069
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

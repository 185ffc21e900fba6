# plots/flashrnn-T-h200-time.gp: figure 'time' of experiment flashrnn-T, written by `logt plot experiments/flashrnn-T`
# from results/flashrnn-T-h200.h5 (commit ec5919b); y = median_ms against x = T, one curve per value of series (model,kernel,pass)
# Re-render without logt: gnuplot plots/flashrnn-T-h200-time.gp  (writes the .png and .svg beside it)

$data << EOD
# index 0: flashrnn kernel=fused forward
64 0.1124479994
256 0.3400000036
1024 1.274080038
4096 4.640736103
16384 18.5813446


# index 1: flashrnn kernel=alternating forward
64 1.108479977
256 4.515967846
1024 16.80972862
4096 65.21849823
16384 264.1878967


# index 2: flashrnn kernel=fused fwdbwd
64 0.2850239873
256 0.8759359717
1024 3.207743883
4096 12.39257622
16384 49.0982399


# index 3: flashrnn kernel=alternating fwdbwd
64 2.555680037
256 8.183232307
1024 27.35369682
4096 135.6637726
16384 562.5950928


# index 4: lstm-cudnn forward
64 1.194687963
256 4.367199898
1024 18.95487976
4096 72.91641235
16384 302.517395


# index 5: lstm-cudnn fwdbwd
64 2.802464008
256 10.5342083
1024 42.58054352
4096 141.8790131
16384 452.9898376
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

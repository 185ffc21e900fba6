# plots/flashrnn-T-h200-time.gp: figure 'time' of experiment flashrnn-T, written by `logt plot experiments/flashrnn-T`
# from results/flashrnn-T-h200.h5 (commit a4d4cb1); y = median_ms against x = T, one curve per value of series (model,kernel,pass)
# Re-render without logt: gnuplot plots/flashrnn-T-h200-time.gp  (writes the .png and .svg beside it)

$data << EOD
# index 0: flashrnn kernel=fused forward
64 0.1128640026
256 0.3323839903
1024 1.147968054
4096 4.343743801
16384 16.98569679


# index 1: flashrnn kernel=alternating forward
64 1.033599973
256 4.071424007
1024 15.50457573
4096 61.96092987
16384 238.9163513


# index 2: flashrnn kernel=fused fwdbwd
64 0.3271999955
256 0.9185919762
1024 3.185600042
4096 12.12755203
16384 47.92595291


# index 3: flashrnn kernel=alternating fwdbwd
64 2.096447945
256 7.78681612
1024 32.00870514
4096 125.0212479
16384 488.717865


# index 4: lstm-cudnn forward
64 0.992832005
256 2.934592009
1024 12.14483166
4096 47.99222565
16384 197.2781067


# index 5: lstm-cudnn fwdbwd
64 2.280767918
256 6.505951881
1024 26.77187157
4096 111.6463699
16384 445.1413574
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

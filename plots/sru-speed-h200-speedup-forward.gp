# plots/sru-speed-h200-speedup-forward.gp: figure 'speedup-forward' of experiment sru-speed, written by `logt plot experiments/sru-speed`
# from results/sru-speed-h200.h5 (commit 5d483a3); y = median_ms against x = T, one curve per value of series (model,math,D); where pass=forward; as a ratio to the median_ms of baseline model=lstm-cudnn (baseline / this)
# Re-render without logt: gnuplot plots/sru-speed-h200-speedup-forward.gp  (writes the .png and .svg beside it)

$data << EOD
# index 0: sru math=fp32 D=256
32 18.10241022
64 22.75672277
128 26.11283393
256 27.35139348
512 29.04598217
1024 34.89096387
2048 29.85286556
4096 29.88958922


# index 1: sru math=tf32 D=256
32 29.8792621
64 31.97539279
128 40.3989206
256 50.74501747
512 50.59969469
1024 64.7204151
2048 57.19665621
4096 57.32530342


# index 2: sru math=fp32 D=512
32 12.29677391
64 14.64728858
128 15.64330539
256 19.28756326
512 19.8078358
1024 19.86605603
2048 19.58921475
4096 20.17555157


# index 3: sru math=tf32 D=512
32 24.8525562
64 37.22158962
128 50.77638362
256 59.27948474
512 65.40401469
1024 68.20741904
2048 69.85912783
4096 71.39804005


# index 4: lstm D=256
32 1.314523278
64 1.144240695
128 1.052479393
256 1.042183751
512 0.8876495453
1024 1.070999442
2048 0.7139397779
4096 0.860204582


# index 5: lstm D=512
32 1.412737268
64 1.503686865
128 1.449831426
256 1.408031457
512 1.240284675
1024 1.374642446
2048 1.211195425
4096 1.346427969
EOD

out = "plots/sru-speed-h200-speedup-forward"
if (exists("ARG0") && strlen(ARG0) > 3 && ARG0[strlen(ARG0)-2:] eq ".gp") out = ARG0[1:strlen(ARG0)-3]
set title "forward only, B = 32: speedup over cuDNN's LSTM (standard, fp32)"
set xlabel "sequence length T"
set ylabel "speedup over cuDNN LSTM (lstm-cudnn time / this time)"
set grid
set key outside right top
set style data linespoints
set logscale x 2
set arrow from graph 0, first 1 to graph 1, first 1 nohead dt 2
set terminal pngcairo size 1000,600 font "sans,11" noenhanced
set output out.".png"
plot $data index 0 using 1:2 title "sru math=fp32 D=256", \
     $data index 1 using 1:2 title "sru math=tf32 D=256", \
     $data index 2 using 1:2 title "sru math=fp32 D=512", \
     $data index 3 using 1:2 title "sru math=tf32 D=512", \
     $data index 4 using 1:2 title "lstm D=256", \
     $data index 5 using 1:2 title "lstm D=512"
set terminal svg size 1000,600 font "sans,11" noenhanced background rgb "white"
set output out.".svg"
replot
unset output

# plots/sru-speed-c54cc48-h200-speedup-forward.gp: figure 'speedup-forward' of experiment sru-speed, written by `logt plot experiments/sru-speed`
# from results/sru-speed-c54cc48-h200.h5 (commit c54cc48); y = median_ms against x = T, one curve per value of series (model,math,D); where pass=forward; as a ratio to the median_ms of baseline model=lstm-cudnn (baseline / this)
# Re-render without logt: gnuplot plots/sru-speed-c54cc48-h200-speedup-forward.gp  (writes the .png and .svg beside it)

$data << EOD
# index 0: sru math=fp32 D=256
32 12.95421118
64 22.57582916
128 22.34473742
256 24.05213844
512 37.4015296
1024 30.3287762
2048 33.04940904
4096 39.52692115


# index 1: sru math=tf32 D=256
32 18.21034536
64 27.26526329
128 30.60876067
256 42.66654874
512 67.5968859
1024 56.34278569
2048 63.14010585
4096 73.20511628


# index 2: sru math=3xtf32 D=256
32 12.29092306
64 20.62261162
128 25.88754811
256 32.11656611
512 46.30772917
1024 39.09716323
2048 42.52808412
4096 51.99659107


# index 3: sru math=fp32 D=512
32 11.35766752
64 13.00776989
128 14.41564452
256 18.74056793
512 19.33037345
1024 19.63789019
2048 19.19473284
4096 19.52713261


# index 4: sru math=tf32 D=512
32 21.19708625
64 28.1361351
128 43.55153263
256 52.80084382
512 60.94613535
1024 67.88335457
2048 69.9112571
4096 69.09726969


# index 5: sru math=3xtf32 D=512
32 13.56939116
64 19.29427575
128 25.83678626
256 29.36736978
512 32.86434605
1024 34.90542474
2048 35.54658861
4096 35.53136289
EOD

out = "plots/sru-speed-c54cc48-h200-speedup-forward"
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
     $data index 2 using 1:2 title "sru math=3xtf32 D=256", \
     $data index 3 using 1:2 title "sru math=fp32 D=512", \
     $data index 4 using 1:2 title "sru math=tf32 D=512", \
     $data index 5 using 1:2 title "sru math=3xtf32 D=512"
set terminal svg size 1000,600 font "sans,11" noenhanced background rgb "white"
set output out.".svg"
replot
unset output

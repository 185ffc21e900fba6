# plots/sru-speed-c54cc48-h200-speedup-fwdbwd.gp: figure 'speedup-fwdbwd' of experiment sru-speed, written by `logt plot experiments/sru-speed`
# from results/sru-speed-c54cc48-h200.h5 (commit c54cc48); y = median_ms against x = T, one curve per value of series (model,math,D); where pass=fwdbwd; as a ratio to the median_ms of baseline model=lstm-cudnn (baseline / this)
# Re-render without logt: gnuplot plots/sru-speed-c54cc48-h200-speedup-fwdbwd.gp  (writes the .png and .svg beside it)

$data << EOD
# index 0: sru math=fp32 D=256
32 14.97466074
64 20.92432871
128 18.8492787
256 21.22198991
512 28.3760181
1024 24.38313991
2048 24.56468372
4096 26.11587473


# index 1: sru math=tf32 D=256
32 22.55201151
64 31.21829325
128 29.60094324
256 36.71863321
512 49.73853447
1024 43.27537557
2048 45.80964388
4096 48.50307157


# index 2: sru math=3xtf32 D=256
32 11.85545433
64 17.50050036
128 17.26657139
256 19.31495544
512 24.50829106
1024 22.20612943
2048 22.79599332
4096 24.26773337


# index 3: sru math=fp32 D=512
32 8.676404528
64 10.5238833
128 11.41283099
256 12.45944865
512 13.09251648
1024 13.02749052
2048 13.18381633
4096 13.1589021


# index 4: sru math=tf32 D=512
32 17.86227794
64 25.13776811
128 30.64734249
256 35.07729095
512 38.05197692
1024 38.19524745
2048 40.17805085
4096 40.10701286


# index 5: sru math=3xtf32 D=512
32 9.536956591
64 12.49263261
128 14.16915524
256 14.98082976
512 15.36693106
1024 15.30462957
2048 15.41901572
4096 15.42270899
EOD

out = "plots/sru-speed-c54cc48-h200-speedup-fwdbwd"
if (exists("ARG0") && strlen(ARG0) > 3 && ARG0[strlen(ARG0)-2:] eq ".gp") out = ARG0[1:strlen(ARG0)-3]
set title "forward + backward, B = 32: speedup over cuDNN's LSTM (standard, fp32)"
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

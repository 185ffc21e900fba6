# plots/sru-speed-h200-speedup-fwdbwd.gp: figure 'speedup-fwdbwd' of experiment sru-speed, written by `logt plot experiments/sru-speed`
# from results/sru-speed-h200.h5 (commit 5a6cef7); y = median_ms against x = T, one curve per value of series (model,math,D); where pass=fwdbwd; as a ratio to the median_ms of baseline model=lstm-cudnn (baseline / this)
# Re-render without logt: gnuplot plots/sru-speed-h200-speedup-fwdbwd.gp  (writes the .png and .svg beside it)

$data << EOD
# index 0: sru math=fp32 D=256
32 12.10925519
64 20.2775804
128 22.84619328
256 20.73418986
512 26.22153618
1024 23.97917431
2048 24.7502186
4096 25.02088114


# index 1: sru math=tf32 D=256
32 18.10559598
64 33.40846872
128 39.17630056
256 37.29038886
512 47.12607613
1024 43.16161039
2048 45.80740721
4096 46.85256266


# index 2: sru math=3xtf32 D=256
32 10.17980402
64 17.84549347
128 22.50163345
256 21.14700188
512 26.78769319
1024 25.3221348
2048 27.52795063
4096 28.62263261


# index 3: sru math=fp32 D=512
32 9.701478364
64 10.61252454
128 11.32624506
256 12.74526132
512 13.26999694
1024 13.1717752
2048 13.24146636
4096 13.25489504


# index 4: sru math=tf32 D=512
32 22.75900454
64 27.64763177
128 32.80228937
256 36.64365358
512 39.12883213
1024 39.62351817
2048 40.58738106
4096 40.80544383


# index 5: sru math=3xtf32 D=512
32 10.85808197
64 12.82806683
128 14.90130197
256 15.97575889
512 17.40609629
1024 17.73915596
2048 18.22016315
4096 18.36496576


# index 6: lstm D=256
32 0.9987221748
64 1.018496975
128 0.9654367534
256 0.6983137348
512 0.8092428526
1024 0.7331025878
2048 0.93963926
4096 0.9661212923


# index 7: lstm D=512
32 1.470115183
64 1.26983829
128 1.168984489
256 1.056121187
512 0.9905752293
1024 0.9719573538
2048 1.152596618
4096 1.201326123
EOD

out = "plots/sru-speed-h200-speedup-fwdbwd"
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
     $data index 5 using 1:2 title "sru math=3xtf32 D=512", \
     $data index 6 using 1:2 title "lstm D=256", \
     $data index 7 using 1:2 title "lstm D=512"
set terminal svg size 1000,600 font "sans,11" noenhanced background rgb "white"
set output out.".svg"
replot
unset output

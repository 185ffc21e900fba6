# plots/sru-speed-h200-speedup-forward.gp: figure 'speedup-forward' of experiment sru-speed, written by `logt plot experiments/sru-speed`
# from results/sru-speed-h200.h5 (commit fa58a58); y = median_ms against x = T, one curve per value of series (model,math,D); where pass=forward; as a ratio to the median_ms of baseline model=lstm-cudnn (baseline / this)
# Re-render without logt: gnuplot plots/sru-speed-h200-speedup-forward.gp  (writes the .png and .svg beside it)

$data << EOD
# index 0: sru math=fp32 D=256
32 19.93200689
64 25.80239964
128 24.85900875
256 35.61968003
512 63.71543374
1024 58.82881577
2048 41.74747684
4096 50.21798309


# index 1: sru math=tf32 D=256
32 27.98370131
64 32.71542296
128 37.35818496
256 66.48555335
512 111.0586758
1024 97.72491496
2048 80.96035043
4096 94.6291354


# index 2: sru math=3xtf32 D=256
32 16.10046931
64 22.87595066
128 29.77971371
256 47.64496055
512 75.25686884
1024 76.40530717
2048 53.83944851
4096 66.82092473


# index 3: sru math=fp32 D=512
32 10.95626961
64 12.82707996
128 15.00215103
256 17.98866129
512 23.68971621
1024 24.40366164
2048 18.82416534
4096 20.97723605


# index 4: sru math=tf32 D=512
32 18.39176048
64 27.98168275
128 49.14279278
256 53.91041611
512 69.97714987
1024 82.94617938
2048 66.63538366
4096 75.11429525


# index 5: sru math=3xtf32 D=512
32 12.58482906
64 19.28362961
128 26.95131422
256 27.50358106
512 40.51194003
1024 43.04748322
2048 34.86941017
4096 38.99433963


# index 6: lstm D=256
32 0.9072655111
64 0.8223217179
128 0.6087373442
256 0.8061344494
512 1.178672607
1024 1.184750576
2048 0.7091684333
4096 0.892722965


# index 7: lstm D=512
32 0.9305313699
64 0.8957378828
128 0.9277322408
256 0.881719366
512 1.248926566
1024 1.193997654
2048 0.8559409415
4096 1.06200026
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

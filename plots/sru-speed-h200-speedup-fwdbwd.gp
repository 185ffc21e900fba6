# plots/sru-speed-h200-speedup-fwdbwd.gp: figure 'speedup-fwdbwd' of experiment sru-speed, written by `logt plot experiments/sru-speed`
# from results/sru-speed-h200.h5 (commit fa58a58); y = median_ms against x = T, one curve per value of series (model,math,D); where pass=fwdbwd; as a ratio to the median_ms of baseline model=lstm-cudnn (baseline / this)
# Re-render without logt: gnuplot plots/sru-speed-h200-speedup-fwdbwd.gp  (writes the .png and .svg beside it)

$data << EOD
# index 0: sru math=fp32 D=256
32 14.53416322
64 22.55901339
128 20.49299605
256 29.07487597
512 45.96719709
1024 45.01877578
2048 33.98210152
4096 37.22501337


# index 1: sru math=tf32 D=256
32 18.80340615
64 34.02677293
128 33.37582372
256 50.6965376
512 80.66042867
1024 78.69624241
2048 62.28274763
4096 69.19418749


# index 2: sru math=3xtf32 D=256
32 7.299552874
64 17.54095745
128 17.77257393
256 27.77695029
512 43.48008778
1024 45.83295001
2048 35.45926074
4096 41.21602685


# index 3: sru math=fp32 D=512
32 9.01263354
64 10.48619148
128 11.4187829
256 17.53774156
512 17.52528359
1024 13.83080937
2048 14.19045944
4096 13.73581248


# index 4: sru math=tf32 D=512
32 18.3169183
64 25.00876535
128 31.38208691
256 49.11490203
512 48.83482788
1024 41.76899541
2048 42.91068302
4096 41.76191596


# index 5: sru math=3xtf32 D=512
32 8.093720521
64 10.67678824
128 13.34346614
256 20.42873349
512 21.65283753
1024 17.66170034
2048 18.87899706
4096 18.51266474


# index 6: lstm D=256
32 0.7773611149
64 0.9340912398
128 0.684490231
256 0.87966764
512 1.263077438
1024 1.300604686
2048 0.8854433971
4096 1.22854156


# index 7: lstm D=512
32 0.8894107335
64 0.896385148
128 0.8836534981
256 1.265084946
512 1.273335358
1024 0.9838117307
2048 1.3043694
4096 1.158589981
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

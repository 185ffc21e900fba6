# plots/sru-speed-h200-speedup-forward.gp: figure 'speedup-forward' of experiment sru-speed, written by `logt plot experiments/sru-speed`
# from results/sru-speed-h200.h5 (commit 5a6cef7); y = median_ms against x = T, one curve per value of series (model,math,D); where pass=forward; as a ratio to the median_ms of baseline model=lstm-cudnn (baseline / this)
# Re-render without logt: gnuplot plots/sru-speed-h200-speedup-forward.gp  (writes the .png and .svg beside it)

$data << EOD
# index 0: sru math=fp32 D=256
32 15.63181803
64 19.49150038
128 26.1215781
256 30.69573762
512 27.67271859
1024 30.55093618
2048 32.05878897
4096 32.23271213


# index 1: sru math=tf32 D=256
32 25.66417872
64 31.74575304
128 46.58002031
256 62.84102002
512 52.15722803
1024 57.67412112
2048 62.14128872
4096 62.44460389


# index 2: sru math=3xtf32 D=256
32 14.87135132
64 18.34327331
128 27.54777298
256 41.29048671
512 33.54978379
1024 39.06925128
2048 42.30270986
4096 43.09667925


# index 3: sru math=fp32 D=512
32 14.66761127
64 15.25763294
128 15.75148707
256 19.55399377
512 19.27900955
1024 19.60600519
2048 19.43643418
4096 19.72477779


# index 4: sru math=tf32 D=512
32 38.00440617
64 46.2388317
128 59.65466738
256 63.74089727
512 65.94048969
1024 69.81740693
2048 70.95342538
4096 70.9664416


# index 5: sru math=3xtf32 D=512
32 17.00459967
64 21.15703763
128 25.30287961
256 30.50446939
512 33.04490467
1024 35.57944183
2048 36.28974087
4096 36.41844159


# index 6: lstm D=256
32 1.131668767
64 0.7739184013
128 0.7752435621
256 0.8172914521
512 0.5771582806
1024 0.6029609269
2048 0.6558070008
4096 0.8815165151


# index 7: lstm D=512
32 1.506241853
64 1.482616001
128 1.255558955
256 1.109014622
512 1.027425369
1024 1.040793696
2048 1.341263041
4096 1.273414812
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

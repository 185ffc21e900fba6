# plots/sru-speed-h200-speedup-fwdbwd.gp: figure 'speedup-fwdbwd' of experiment sru-speed, written by `logt plot experiments/sru-speed`
# from results/sru-speed-h200.h5 (commit 5d483a3); y = median_ms against x = T, one curve per value of series (model,math,D); where pass=fwdbwd; as a ratio to the median_ms of baseline model=lstm-cudnn (baseline / this)
# Re-render without logt: gnuplot plots/sru-speed-h200-speedup-fwdbwd.gp  (writes the .png and .svg beside it)

$data << EOD
# index 0: sru math=fp32 D=256
32 15.27122988
64 17.04485583
128 20.83587629
256 23.53959508
512 22.99870759
1024 25.55544767
2048 24.26949313
4096 24.79300655


# index 1: sru math=tf32 D=256
32 22.32263276
64 26.46404115
128 34.1180647
256 40.09307672
512 40.81260953
1024 45.51522634
2048 44.59840343
4096 46.33932401


# index 2: sru math=fp32 D=512
32 9.51245616
64 10.73353835
128 11.63980523
256 12.62581326
512 13.17750701
1024 13.21528115
2048 13.41188794
4096 13.46521856


# index 3: sru math=tf32 D=512
32 20.30248139
64 26.11661512
128 32.05575555
256 35.75024847
512 38.36892009
1024 39.74182973
2048 40.89723571
4096 40.67851528


# index 4: lstm D=256
32 1.27462431
64 1.098096505
128 1.155877752
256 1.144919407
512 1.051737561
1024 1.128014675
2048 1.043098197
4096 1.021813068


# index 5: lstm D=512
32 1.44339604
64 1.458890053
128 1.447730822
256 1.414676463
512 1.422800848
1024 1.374214711
2048 1.155963023
4096 1.283614325
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
     $data index 2 using 1:2 title "sru math=fp32 D=512", \
     $data index 3 using 1:2 title "sru math=tf32 D=512", \
     $data index 4 using 1:2 title "lstm D=256", \
     $data index 5 using 1:2 title "lstm D=512"
set terminal svg size 1000,600 font "sans,11" noenhanced background rgb "white"
set output out.".svg"
replot
unset output

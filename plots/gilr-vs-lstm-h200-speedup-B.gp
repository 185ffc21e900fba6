# plots/gilr-vs-lstm-h200-speedup-B.gp: figure 'speedup-B' of experiment gilr-vs-lstm, written by `logt plot experiments/gilr-vs-lstm`
# from results/gilr-vs-lstm-h200.h5 (commit 8f338e2); y = median_ms against x = B, one curve per value of series (model,algo); where T=16384; as a ratio to the median_ms of baseline algo=standard (baseline / this)
# Re-render without logt: gnuplot plots/gilr-vs-lstm-h200-speedup-B.gp  (writes the .png and .svg beside it)

$data << EOD
# index 0: gilr-lstm
1 323.4304855
2 165.3174541
4 83.38730582
8 55.52618254
16 26.8969152
32 13.92271036


# index 1: lstm-cudnn algo=auto
1 9.650770874
2 4.796555222
4 3.223677753
8 2.032696507
16 0.9692789794
32 0.9582893514
EOD

out = "plots/gilr-vs-lstm-h200-speedup-B"
if (exists("ARG0") && strlen(ARG0) > 3 && ARG0[strlen(ARG0)-2:] eq ".gp") out = ARG0[1:strlen(ARG0)-3]
set title "speedup over cuDNN's LSTM (algo = standard) vs batch at T = 16384"
set xlabel "batch B"
set ylabel "speedup over cuDNN STANDARD (its time / this time)"
set grid
set key outside right top
set style data linespoints
set logscale x 2
set logscale y
set arrow from graph 0, first 1 to graph 1, first 1 nohead dt 2
set terminal pngcairo size 1000,600 font "sans,11" noenhanced
set output out.".png"
plot $data index 0 using 1:2 title "gilr-lstm", \
     $data index 1 using 1:2 title "lstm-cudnn algo=auto"
set terminal svg size 1000,600 font "sans,11" noenhanced background rgb "white"
set output out.".svg"
replot
unset output

# plots/gilr-vs-lstm-h200-speedup-B.gp: figure 'speedup-B' of experiment gilr-vs-lstm, written by `logt plot experiments/gilr-vs-lstm`
# from results/gilr-vs-lstm-h200.h5 (commit 7044ca6); y = median_ms against x = B, one curve per value of series (model,algo); where T=16384; as a ratio to the median_ms of baseline algo=standard (baseline / this)
# Re-render without logt: gnuplot plots/gilr-vs-lstm-h200-speedup-B.gp  (writes the .png and .svg beside it)

$data << EOD
# index 0: gilr-lstm
1 246.1006001
2 157.5359876
4 77.19248437
8 49.91641345
16 23.95126276
32 14.51812035


# index 1: lstm-cudnn algo=auto
1 7.207836558
2 4.473859387
4 2.933159187
8 1.799975688
16 1.158910496
32 0.8931099845
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

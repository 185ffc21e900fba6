# plots/lsrnn-scan-speedup-h200-gilr-lstm.gp: figure 'gilr-lstm' of experiment lsrnn-scan-speedup, written by `logt plot experiments/lsrnn-scan-speedup`
# from results/lsrnn-scan-speedup-h200.h5 (commit 0318065); y = median_ms against x = T, one curve per value of series (model); where model=gilr-lstm; as a ratio to the median_ms of baseline scan=serial (baseline / this)
# Re-render without logt: gnuplot plots/lsrnn-scan-speedup-h200-gilr-lstm.gp  (writes the .png and .svg beside it)

$data << EOD
# index 0: gilr-lstm
16 0.9943027532
64 1.009127142
256 1.03615315
1024 1.166552874
4096 1.699726445
16384 3.787092324
65536 12.16236374
EOD

out = "plots/lsrnn-scan-speedup-h200-gilr-lstm"
if (exists("ARG0") && strlen(ARG0) > 3 && ARG0[strlen(ARG0)-2:] eq ".gp") out = ARG0[1:strlen(ARG0)-3]
set title "GILR-LSTM, 2 x 256, input 4, forward + backward: parallel scan over the serial kernel"
set xlabel "sequence length T (batch b = 65536 / T)"
set ylabel "speedup of the parallel scan (serial time / parallel time)"
set grid
set key outside right top
set style data linespoints
set logscale x 2
set arrow from graph 0, first 1 to graph 1, first 1 nohead dt 2
set terminal pngcairo size 1000,600 font "sans,11" noenhanced
set output out.".png"
plot $data index 0 using 1:2 title "gilr-lstm"
set terminal svg size 1000,600 font "sans,11" noenhanced background rgb "white"
set output out.".svg"
replot
unset output

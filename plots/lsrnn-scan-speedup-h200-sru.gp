# plots/lsrnn-scan-speedup-h200-sru.gp: figure 'sru' of experiment lsrnn-scan-speedup, written by `logt plot experiments/lsrnn-scan-speedup`
# from results/lsrnn-scan-speedup-h200.h5 (commit 0318065); y = median_ms against x = T, one curve per value of series (model); where model=sru; as a ratio to the median_ms of baseline route=loop (baseline / this)
# Re-render without logt: gnuplot plots/lsrnn-scan-speedup-h200-sru.gp  (writes the .png and .svg beside it)

$data << EOD
# index 0: sru
16 0.993949387
64 0.8124218206
256 0.7608740996
1024 0.8800289863
4096 1.680062714
16384 4.818390484
65536 17.21777496
EOD

out = "plots/lsrnn-scan-speedup-h200-sru"
if (exists("ARG0") && strlen(ARG0) > 3 && ARG0[strlen(ARG0)-2:] eq ".gp") out = ARG0[1:strlen(ARG0)-3]
set title "SRU (v = 0), 2 x 256, input 4, forward + backward: parallel scan over the serial loop"
set xlabel "sequence length T (batch b = 65536 / T)"
set ylabel "speedup of the parallel scan (loop time / scan time)"
set grid
set key outside right top
set style data linespoints
set logscale x 2
set arrow from graph 0, first 1 to graph 1, first 1 nohead dt 2
set terminal pngcairo size 1000,600 font "sans,11" noenhanced
set output out.".png"
plot $data index 0 using 1:2 title "sru"
set terminal svg size 1000,600 font "sans,11" noenhanced background rgb "white"
set output out.".svg"
replot
unset output

# plots/scan-table1-h200-speedup.gp: figure 'speedup' of experiment scan-table1, written by `logt plot experiments/scan-table1`
# from results/scan-table1-h200.h5 (commit 4de1022); y = median_ms against x = T, one curve per value of series (C); as a ratio to the median_ms of baseline model=scan-serial (baseline / this)
# Re-render without logt: gnuplot plots/scan-table1-h200-speedup.gp  (writes the .png and .svg beside it)

$data << EOD
# index 0: C=4
16 1.183333364
256 3.08538581
4096 30.42503278
65536 411.0022395


# index 1: C=32
16 1.307159378
256 6.06762299
4096 63.65130482
65536 650.3504185


# index 2: C=128
16 1.289822999
256 6.371069206
4096 60.94160467
65536 617.8373949
EOD

out = "plots/scan-table1-h200-speedup"
if (exists("ARG0") && strlen(ARG0) > 3 && ARG0[strlen(ARG0)-2:] eq ".gp") out = ARG0[1:strlen(ARG0)-3]
set title "scan-table1: parallel scan over the serial kernel, batch 1, m = C channels"
set xlabel "sequence length T"
set ylabel "speedup of scan over scan-serial (serial time / scan time)"
set grid
set key outside right top
set style data linespoints
set logscale x 2
set logscale y
set arrow from graph 0, first 1 to graph 1, first 1 nohead dt 2
set terminal pngcairo size 1000,600 font "sans,11" noenhanced
set output out.".png"
plot $data index 0 using 1:2 title "C=4", \
     $data index 1 using 1:2 title "C=32", \
     $data index 2 using 1:2 title "C=128"
set terminal svg size 1000,600 font "sans,11" noenhanced background rgb "white"
set output out.".svg"
replot
unset output

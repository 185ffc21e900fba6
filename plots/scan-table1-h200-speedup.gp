# plots/scan-table1-h200-speedup.gp: figure 'speedup' of experiment scan-table1, written by `logt plot experiments/scan-table1`
# from results/scan-table1-h200.h5 (commit 8f338e2); y = median_ms against x = T, one curve per value of series (C); as a ratio to the median_ms of baseline model=scan-serial (baseline / this)
# Re-render without logt: gnuplot plots/scan-table1-h200-speedup.gp  (writes the .png and .svg beside it)

$data << EOD
# index 0: C=4
16 1.110169498
256 2.850903705
4096 29.58808586
65536 391.8426055


# index 1: C=32
16 1.314533585
256 5.759690335
4096 56.65846827
65536 620.9896655


# index 2: C=128
16 1.188405817
256 6.445378301
4096 58.5946716
65536 598.3997515
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

# plots/deer-speedup-h200-time-T100000.gp: figure 'time-T100000' of experiment deer-speedup, written by `logt plot experiments/deer-speedup`
# from results/deer-speedup-h200.h5 (commit c500fbd); y = median_ms against x = D, one curve per value of series (solver); where T=100000
# Re-render without logt: gnuplot plots/deer-speedup-h200-time-T100000.gp  (writes the .png and .svg beside it)

$data << EOD
# index 0: solver=newton
1 0.2043839991
2 0.7048640251
4 1.13625598
8 6.391359806
16 35.39043045
32 233.9645081
64 765.9386597


# index 1: solver=launch
1 502.9728088
2 497.9997864
4 555.2683105
8 1063.127563
16 2925.500244
32 11070.51953


# index 2: solver=fused
1 87.66146851
2 102.2069778
4 131.2606964
8 181.7410278
16 242.5499268
32 320.8539734
EOD

out = "plots/deer-speedup-h200-time-T100000"
if (exists("ARG0") && strlen(ARG0) > 3 && ARG0[strlen(ARG0)-2:] eq ".gp") out = ARG0[1:strlen(ARG0)-3]
set title "GRU forward, B = 16, T = 100000: quasi-DEER vs sequential"
set xlabel "hidden size D (T = 100000)"
set ylabel "median time per pass (ms)"
set grid
set key outside right top
set style data linespoints
set logscale x 2
set logscale y
set terminal pngcairo size 1000,600 font "sans,11" noenhanced
set output out.".png"
plot $data index 0 using 1:2 title "solver=newton", \
     $data index 1 using 1:2 title "solver=launch", \
     $data index 2 using 1:2 title "solver=fused"
set terminal svg size 1000,600 font "sans,11" noenhanced background rgb "white"
set output out.".svg"
replot
unset output

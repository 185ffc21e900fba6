# plots/deer-speedup-h200-time-D1.gp: figure 'time-D1' of experiment deer-speedup, written by `logt plot experiments/deer-speedup`
# from results/deer-speedup-h200.h5 (commit c500fbd); y = median_ms against x = T, one curve per value of series (solver); where D=1
# Re-render without logt: gnuplot plots/deer-speedup-h200-time-D1.gp  (writes the .png and .svg beside it)

$data << EOD
# index 0: solver=newton
1000 0.06166400015
10000 0.1021760032
100000 0.2043839991


# index 1: solver=launch
1000 5.144639969
10000 37.07401657
100000 502.9728088


# index 2: solver=fused
1000 0.9342079759
10000 8.819231987
100000 87.66146851
EOD

out = "plots/deer-speedup-h200-time-D1"
if (exists("ARG0") && strlen(ARG0) > 3 && ARG0[strlen(ARG0)-2:] eq ".gp") out = ARG0[1:strlen(ARG0)-3]
set title "GRU forward, B = 16, D = 1: quasi-DEER vs sequential"
set xlabel "sequence length T (D = 1)"
set ylabel "median time per pass (ms)"
set grid
set key outside right top
set style data linespoints
set logscale x 10
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

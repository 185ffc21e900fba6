# plots/deer-speedup-h200-time-T100000.gp: figure 'time-T100000' of experiment deer-speedup, written by `logt plot experiments/deer-speedup`
# from results/deer-speedup-h200.h5 (commit 62157fb); y = median_ms against x = D, one curve per value of series (solver); where T=100000
# Re-render without logt: gnuplot plots/deer-speedup-h200-time-T100000.gp  (writes the .png and .svg beside it)

$data << EOD
# index 0: solver=newton
1 0.3953279853
2 1.134143949
4 1.53619206
8 5.928383827
16 35.97148895
32 231.9986267
64 760.7227173


# index 1: solver=launch
1 345.433075
2 369.0323486
4 564.4314575
8 1090.543213
16 3080.588623
32 11681.28613


# index 2: solver=fused
1 87.051651
2 101.206337
4 127.5263367
8 169.7025299
16 219.6410828
32 273.6139526
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

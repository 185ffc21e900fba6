# plots/deer-convergence-cpu-iterations-D.gp: figure 'iterations-D' of experiment deer-convergence, written by `logt plot experiments/deer-convergence`
# from results/deer-convergence-cpu.h5 (commit d85a639); y = iterations against x = D, one curve per value of series (mode,cell,r_scale); where T=10000, seed=1
# Re-render without logt: gnuplot plots/deer-convergence-cpu-iterations-D.gp  (writes the .png and .svg beside it)

$data << EOD
# index 0: mode=full gru r_scale=1
1 4
2 5
4 4
8 4
16 4


# index 1: mode=quasi gru r_scale=1
1 4
2 17
4 14
8 17
16 17


# index 2: mode=damped gru r_scale=1
1 12
2 20
4 17
8 21
16 20


# index 3: mode=full gru r_scale=3
1 5
2 16
4 5
8 25
16 6


# index 4: mode=quasi gru r_scale=3
1 5
2 59
4 48
8 44
16 116


# index 5: mode=damped gru r_scale=3
1 12
2 57
4 50
8 50
16 107


# index 6: mode=full lstm r_scale=1
1 4
2 4
4 4
8 4
16 4


# index 7: mode=quasi lstm r_scale=1
1 24
2 37
4 34
8 28
16 29


# index 8: mode=damped lstm r_scale=1
1 25
2 37
4 36
8 31
16 32


# index 9: mode=full lstm r_scale=3
1 5
2 5
4 5
8 9
16 7


# index 10: mode=quasi lstm r_scale=3
1 44
2 119
8 207
16 148


# index 11: mode=damped lstm r_scale=3
1 42
2 103
4 386
16 150
EOD

out = "plots/deer-convergence-cpu-iterations-D"
if (exists("ARG0") && strlen(ARG0) > 3 && ARG0[strlen(ARG0)-2:] eq ".gp") out = ARG0[1:strlen(ARG0)-3]
set title "DEER iterations vs D, T = 10000, random weights (seed 1)"
set xlabel "hidden size D (T = 10000)"
set ylabel "Newton iterations to max residual <= 1e-10"
set grid
set key outside right top
set style data linespoints
set logscale x 2
set terminal pngcairo size 1000,600 font "sans,11" noenhanced
set output out.".png"
plot $data index 0 using 1:2 title "mode=full gru r_scale=1", \
     $data index 1 using 1:2 title "mode=quasi gru r_scale=1", \
     $data index 2 using 1:2 title "mode=damped gru r_scale=1", \
     $data index 3 using 1:2 title "mode=full gru r_scale=3", \
     $data index 4 using 1:2 title "mode=quasi gru r_scale=3", \
     $data index 5 using 1:2 title "mode=damped gru r_scale=3", \
     $data index 6 using 1:2 title "mode=full lstm r_scale=1", \
     $data index 7 using 1:2 title "mode=quasi lstm r_scale=1", \
     $data index 8 using 1:2 title "mode=damped lstm r_scale=1", \
     $data index 9 using 1:2 title "mode=full lstm r_scale=3", \
     $data index 10 using 1:2 title "mode=quasi lstm r_scale=3", \
     $data index 11 using 1:2 title "mode=damped lstm r_scale=3"
set terminal svg size 1000,600 font "sans,11" noenhanced background rgb "white"
set output out.".svg"
replot
unset output

# plots/deer-convergence-cpu-iterations-T.gp: figure 'iterations-T' of experiment deer-convergence, written by `logt plot experiments/deer-convergence`
# from results/deer-convergence-cpu.h5 (commit d85a639); y = iterations against x = T, one curve per value of series (mode,cell,r_scale); where D=16, seed=1
# Re-render without logt: gnuplot plots/deer-convergence-cpu-iterations-T.gp  (writes the .png and .svg beside it)

$data << EOD
# index 0: mode=full gru r_scale=1
100 4
1000 4
10000 4


# index 1: mode=quasi gru r_scale=1
100 17
1000 17
10000 17


# index 2: mode=damped gru r_scale=1
100 20
1000 20
10000 20


# index 3: mode=full gru r_scale=3
100 5
1000 6
10000 6


# index 4: mode=quasi gru r_scale=3
100 62
1000 110
10000 116


# index 5: mode=damped gru r_scale=3
100 65
1000 93
10000 107


# index 6: mode=full lstm r_scale=1
100 3
1000 4
10000 4


# index 7: mode=quasi lstm r_scale=1
100 28
1000 29
10000 29


# index 8: mode=damped lstm r_scale=1
100 31
1000 32
10000 32


# index 9: mode=full lstm r_scale=3
100 6
1000 7
10000 7


# index 10: mode=quasi lstm r_scale=3
100 84
1000 148
10000 148


# index 11: mode=damped lstm r_scale=3
100 88
1000 150
10000 150
EOD

out = "plots/deer-convergence-cpu-iterations-T"
if (exists("ARG0") && strlen(ARG0) > 3 && ARG0[strlen(ARG0)-2:] eq ".gp") out = ARG0[1:strlen(ARG0)-3]
set title "DEER iterations vs T, D = 16, random weights (seed 1)"
set xlabel "sequence length T (D = 16)"
set ylabel "Newton iterations to max residual <= 1e-10"
set grid
set key outside right top
set style data linespoints
set logscale x 10
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

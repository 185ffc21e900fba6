# plots/deer-convergence-cpu-iterations-T.gp: figure 'iterations-T' of experiment deer-convergence, written by `logt plot experiments/deer-convergence`
# from results/deer-convergence-cpu.h5 (commit e6170ed-dirty); y = iterations against x = T, one curve per value of series (mode,cell,r_scale); where D=16
# Re-render without logt: gnuplot plots/deer-convergence-cpu-iterations-T.gp  (writes the .png and .svg beside it)

$data << EOD
# index 0: mode=full gru r_scale=1
100 4
100 4
1000 4
1000 4
10000 4
10000 4


# index 1: mode=quasi gru r_scale=1
100 17
100 16
1000 17
1000 16
10000 17
10000 17


# index 2: mode=damped gru r_scale=1
100 19
100 19
1000 19
1000 19
10000 19
10000 19


# index 3: mode=full gru r_scale=3
100 5
100 6
1000 6
1000 6
10000 6
10000 6


# index 4: mode=quasi gru r_scale=3
100 62
100 63
1000 110
1000 125
10000 116
10000 126


# index 5: mode=damped gru r_scale=3
100 64
100 62
1000 92
1000 114
10000 99
10000 114


# index 6: mode=full lstm r_scale=1
100 3
100 3
1000 4
1000 4
10000 4
10000 4


# index 7: mode=quasi lstm r_scale=1
100 28
100 24
1000 29
1000 25
10000 29
10000 25


# index 8: mode=damped lstm r_scale=1
100 30
100 26
1000 31
1000 27
10000 31
10000 27


# index 9: mode=full lstm r_scale=3
100 6
100 5
1000 7
1000 5
10000 7
10000 6


# index 10: mode=quasi lstm r_scale=3
100 84
100 85
1000 148
1000 109
10000 148
10000 115


# index 11: mode=damped lstm r_scale=3
100 87
100 86
1000 149
1000 110
10000 149
10000 116
EOD

out = "plots/deer-convergence-cpu-iterations-T"
if (exists("ARG0") && strlen(ARG0) > 3 && ARG0[strlen(ARG0)-2:] eq ".gp") out = ARG0[1:strlen(ARG0)-3]
set title "DEER iterations vs T, D = 16, random weights"
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

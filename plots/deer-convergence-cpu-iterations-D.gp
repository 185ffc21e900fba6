# plots/deer-convergence-cpu-iterations-D.gp: figure 'iterations-D' of experiment deer-convergence, written by `logt plot experiments/deer-convergence`
# from results/deer-convergence-cpu.h5 (commit e6170ed-dirty); y = iterations against x = D, one curve per value of series (mode,cell,r_scale); where T=10000
# Re-render without logt: gnuplot plots/deer-convergence-cpu-iterations-D.gp  (writes the .png and .svg beside it)

$data << EOD
# index 0: mode=full gru r_scale=1
1 4
1 3
2 5
2 4
4 4
4 4
8 4
8 4
16 4
16 4


# index 1: mode=quasi gru r_scale=1
1 4
1 3
2 17
2 9
4 14
4 12
8 17
8 22
16 17
16 17


# index 2: mode=damped gru r_scale=1
1 11
1 10
2 19
2 12
4 16
4 15
8 20
8 19
16 19
16 19


# index 3: mode=full gru r_scale=3
1 5
1 5
2 16
2 9
4 5
4 6
8 25
8 6
16 6
16 6


# index 4: mode=quasi gru r_scale=3
1 5
1 5
2 59
2 17
4 48
4 25
8 44
16 116
16 126


# index 5: mode=damped gru r_scale=3
1 11
1 12
2 56
4 49
4 28
8 49
16 99
16 114


# index 6: mode=full lstm r_scale=1
1 4
1 4
2 4
2 4
4 4
4 4
8 4
8 4
16 4
16 4


# index 7: mode=quasi lstm r_scale=1
1 24
1 16
2 37
2 27
4 34
4 20
8 28
8 30
16 29
16 25


# index 8: mode=damped lstm r_scale=1
1 24
1 18
2 36
2 29
4 35
4 22
8 30
8 32
16 31
16 27


# index 9: mode=full lstm r_scale=3
1 5
1 5
2 5
2 12
4 5
4 5
8 9
8 14
16 7
16 6


# index 10: mode=quasi lstm r_scale=3
1 44
1 23
2 119
2 71
4 38
8 207
8 74
16 148
16 115


# index 11: mode=damped lstm r_scale=3
1 42
1 26
2 103
2 79
4 322
4 39
8 209
8 76
16 149
16 116
EOD

out = "plots/deer-convergence-cpu-iterations-D"
if (exists("ARG0") && strlen(ARG0) > 3 && ARG0[strlen(ARG0)-2:] eq ".gp") out = ARG0[1:strlen(ARG0)-3]
set title "DEER iterations vs D, T = 10000, random weights"
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

# plots/scan-table1-h200-time.gp: figure 'time' of experiment scan-table1, written by `logt plot experiments/scan-table1`
# from results/scan-table1-h200.h5 (commit 97beec4); y = median_ms against x = T, one curve per value of series (model,C)
# Re-render without logt: gnuplot plots/scan-table1-h200-time.gp  (writes the .png and .svg beside it)

$data << EOD
# index 0: scan C=4
16 0.007536000106
256 0.009935999755
4096 0.01225600019
65536 0.01439999975


# index 1: scan-serial C=4
16 0.008255999535
256 0.02988800034
4096 0.3736640066
65536 5.8566401


# index 2: scan C=32
16 0.007039999822
256 0.007968000136
4096 0.01134400023
65536 0.01665600017


# index 3: scan-serial C=32
16 0.009264000226
256 0.04715200141
4096 0.6632959843
65536 10.58329582


# index 4: scan C=128
16 0.00735999993
256 0.007679999806
4096 0.01107199956
65536 0.04196799919


# index 5: scan-serial C=128
16 0.008880000096
256 0.04848000035
4096 0.6683840156
65536 24.77689552
EOD

out = "plots/scan-table1-h200-time"
if (exists("ARG0") && strlen(ARG0) > 3 && ARG0[strlen(ARG0)-2:] eq ".gp") out = ARG0[1:strlen(ARG0)-3]
set title "scan-table1: median time per call, batch 1, f32"
set xlabel "sequence length T"
set ylabel "median time per pass (ms)"
set grid
set key outside right top
set style data linespoints
set logscale x 2
set logscale y
set terminal pngcairo size 1000,600 font "sans,11" noenhanced
set output out.".png"
plot $data index 0 using 1:2 title "scan C=4", \
     $data index 1 using 1:2 title "scan-serial C=4", \
     $data index 2 using 1:2 title "scan C=32", \
     $data index 3 using 1:2 title "scan-serial C=32", \
     $data index 4 using 1:2 title "scan C=128", \
     $data index 5 using 1:2 title "scan-serial C=128"
set terminal svg size 1000,600 font "sans,11" noenhanced background rgb "white"
set output out.".svg"
replot
unset output

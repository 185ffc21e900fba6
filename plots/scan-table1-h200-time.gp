# plots/scan-table1-h200-time.gp: figure 'time' of experiment scan-table1, written by `logt plot experiments/scan-table1`
# from results/scan-table1-h200.h5 (commit 8f338e2); y = median_ms against x = T, one curve per value of series (model,C)
# Re-render without logt: gnuplot plots/scan-table1-h200-time.gp  (writes the .png and .svg beside it)

$data << EOD
# index 0: scan C=4
16 0.007551999995
256 0.01062399987
4096 0.0126240002
65536 0.01494400017


# index 1: scan-serial C=4
16 0.008384000044
256 0.03028800059
4096 0.3735200018
65536 5.855695963


# index 2: scan C=32
16 0.007376000052
256 0.008255999535
4096 0.01171200024
65536 0.0170400003


# index 3: scan-serial C=32
16 0.00969599979
256 0.04755200073
4096 0.6635839939
65536 10.58166409


# index 4: scan C=128
16 0.007727999939
256 0.007616000017
4096 0.01140799979
65536 0.04142400064


# index 5: scan-serial C=128
16 0.009184000082
256 0.04908800125
4096 0.6684480011
65536 24.78811169
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

# plots/scan-table1-h200-time.gp: figure 'time' of experiment scan-table1, written by `logt plot experiments/scan-table1`
# from results/scan-table1-h200.h5 (commit 4de1022); y = median_ms against x = T, one curve per value of series (model,C)
# Re-render without logt: gnuplot plots/scan-table1-h200-time.gp  (writes the .png and .svg beside it)

$data << EOD
# index 0: scan C=4
16 0.007680000039
256 0.009744000155
4096 0.01227200031
65536 0.01423999993


# index 1: scan-serial C=4
16 0.009088000283
256 0.03006399982
4096 0.3733760118
65536 5.852671862


# index 2: scan C=32
16 0.006927999901
256 0.007807999849
4096 0.01041600015
65536 0.01625599992


# index 3: scan-serial C=32
16 0.009056000039
256 0.04737599939
4096 0.6629920006
65536 10.57209635


# index 4: scan C=128
16 0.007231999887
256 0.007631999906
4096 0.0109600001
65536 0.04004799947


# index 5: scan-serial C=128
16 0.009327999782
256 0.04862399958
4096 0.6679199934
65536 24.74315166
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

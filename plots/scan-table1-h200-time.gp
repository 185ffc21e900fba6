# plots/scan-table1-h200-time.gp: figure 'time' of experiment scan-table1, written by `logt plot experiments/scan-table1`
# from results/scan-table1-h200.h5 (commit 025abc1); y = median_ms against x = T, one curve per value of series (model,C)
# Re-render without logt: gnuplot plots/scan-table1-h200-time.gp  (writes the .png and .svg beside it)

$data << EOD
# index 0: scan C=4
16 0.007376000052
256 0.01150400005
4096 0.0143840001
65536 0.0144799999


# index 1: scan-serial C=4
16 0.008063999936
256 0.02958399989
4096 0.3740959913
65536 5.857023954


# index 2: scan C=32
16 0.007424000185
256 0.01108800014
4096 0.01721600071
65536 0.01951999962


# index 3: scan-serial C=32
16 0.009088000283
256 0.04726399854
4096 0.6642400026
65536 10.58587217


# index 4: scan C=128
16 0.007824000204
256 0.01142400037
4096 0.01659199968
65536 0.04529600032


# index 5: scan-serial C=128
16 0.009616000112
256 0.04878399894
4096 0.6689119935
65536 24.77756786
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

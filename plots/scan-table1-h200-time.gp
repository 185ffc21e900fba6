# plots/scan-table1-h200-time.gp: figure 'time' of experiment scan-table1, written by `logt plot experiments/scan-table1`
# from results/scan-table1-h200.h5 (commit 6dce4c3); y = median_ms against x = T, one curve per value of series (model,C)
# Re-render without logt: gnuplot plots/scan-table1-h200-time.gp  (writes the .png and .svg beside it)

$data << EOD
# index 0: scan C=4
16 0.007007999811
256 0.01881599985
4096 0.0227359999
65536 0.0248159999


# index 1: scan-serial C=4
16 0.008239999879
256 0.02936000004
4096 0.3746240139
65536 5.858256102


# index 2: scan C=32
16 0.007871999871
256 0.01523200003
4096 0.01991999988
65536 0.02289600018


# index 3: scan-serial C=32
16 0.009632000234
256 0.04822400026
4096 0.663424015
65536 10.57811213


# index 4: scan C=128
16 0.007456000196
256 0.01571200043
4096 0.02020800021
65536 0.04812800139


# index 5: scan-serial C=128
16 0.009360000025
256 0.04915199988
4096 0.6692000031
65536 25.62759972
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

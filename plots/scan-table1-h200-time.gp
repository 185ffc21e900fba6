# plots/scan-table1-h200-time.gp: figure 'time' of experiment scan-table1, written by `logt plot experiments/scan-table1`
# from results/scan-table1-h200.h5 (commit ac831a4); y = median_ms against x = T, one curve per value of series (model,C)
# Re-render without logt: gnuplot plots/scan-table1-h200-time.gp  (writes the .png and .svg beside it)

$data << EOD
# index 0: scan C=4
16 0.006064000074
256 0.01033600001
4096 0.01238400023
65536 0.01516800001


# index 1: scan-serial C=4
16 0.006623999914
256 0.02854400035
4096 0.3714240044
65536 5.852432013


# index 2: scan C=32
16 0.006112000206
256 0.00974399969
4096 0.01478399988
65536 0.0207360005


# index 3: scan-serial C=32
16 0.007823999971
256 0.04588799924
4096 0.6637760103
65536 10.57340813


# index 4: scan C=128
16 0.00636800006
256 0.009920000099
4096 0.01624000072
65536 0.04772800021


# index 5: scan-serial C=128
16 0.00800000038
256 0.04723200016
4096 0.6680480242
65536 24.75556755
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

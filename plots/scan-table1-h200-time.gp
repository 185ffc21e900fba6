# plots/scan-table1-h200-time.gp: figure 'time' of experiment scan-table1, written by `logt plot experiments/scan-table1`
# from results/scan-table1-h200.h5 (commit 7044ca6); y = median_ms against x = T, one curve per value of series (model,C)
# Re-render without logt: gnuplot plots/scan-table1-h200-time.gp  (writes the .png and .svg beside it)

$data << EOD
# index 0: scan C=4
16 0.006591999903
256 0.009024000261
4096 0.01207999978
65536 0.01305599976


# index 1: scan-serial C=4
16 0.00728000002
256 0.02939200029
4096 0.3730719984
65536 5.857680082


# index 2: scan C=32
16 0.00675200019
256 0.006959999911
4096 0.01083200006
65536 0.0171360001


# index 3: scan-serial C=32
16 0.008576000109
256 0.04641599953
4096 0.6624480188
65536 10.58712006


# index 4: scan C=128
16 0.006223999895
256 0.007055999944
4096 0.01070400001
65536 0.04020799883


# index 5: scan-serial C=128
16 0.008688000031
256 0.04771199822
4096 0.6677760184
65536 25.63460732
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

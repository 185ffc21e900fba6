# plots/scan-table1-h200-time.gp: figure 'time' of experiment scan-table1, written by `logt plot experiments/scan-table1`
# from results/scan-table1-h200.h5 (commit 95a088e); y = median_ms against x = T, one curve per value of series (model,C)
# Re-render without logt: gnuplot plots/scan-table1-h200-time.gp  (writes the .png and .svg beside it)

$data << EOD
# index 0: scan C=4
16 0.006544000003
256 0.01083200006
4096 0.01515199989
65536 0.01604800019


# index 1: scan-serial C=4
16 0.007408000063
256 0.029232
4096 0.3724479973
65536 5.850944042


# index 2: scan C=32
16 0.006944000022
256 0.01057599997
4096 0.01395200007
65536 0.02392000053


# index 3: scan-serial C=32
16 0.008719999809
256 0.04606400058
4096 0.6616480052
65536 10.56742382


# index 4: scan C=128
16 0.006672000047
256 0.009888000321
4096 0.01363199996
65536 0.06513600051


# index 5: scan-serial C=128
16 0.008896000218
256 0.04787199944
4096 0.6661120057
65536 24.73814392
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

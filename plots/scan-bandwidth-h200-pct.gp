# plots/scan-bandwidth-h200-pct.gp: figure 'pct' of experiment scan-bandwidth, written by `logt plot experiments/scan-bandwidth`
# from results/scan-bandwidth-h200.h5 (commit e93fb8f); y = pct_of_copy against x = T, one curve per value of series (model,dtype)
# Re-render without logt: gnuplot plots/scan-bandwidth-h200-pct.gp  (writes the .png and .svg beside it)

$data << EOD
# index 0: scan f32
1024 95.7147238
16384 90.10671562
1048576 66.66054463
4194304 64.92658562


# index 1: scan-reverse f32
1024 96.2284141
16384 90.26079299
1048576 62.65741133
4194304 62.9075736


# index 2: scan bf16
1024 63.56671632
16384 57.10383557
1048576 24.32292967
4194304 23.24086197


# index 3: scan-reverse bf16
1024 55.91276552
16384 50.34648018
1048576 15.21591282
4194304 14.56655006
EOD

out = "plots/scan-bandwidth-h200-pct"
if (exists("ARG0") && strlen(ARG0) > 3 && ARG0[strlen(ARG0)-2:] eq ".gp") out = ARG0[1:strlen(ARG0)-3]
set title "scan-bandwidth: effective bandwidth as % of the same run's device-to-device copy"
set xlabel "T (one shape per T: C = 65536, 65536, 1024, 32 on cuda)"
set ylabel "effective bandwidth, % of the same run's copy"
set grid
set key outside right top
set style data linespoints
set logscale x 2
set terminal pngcairo size 1000,600 font "sans,11" noenhanced
set output out.".png"
plot $data index 0 using 1:2 title "scan f32", \
     $data index 1 using 1:2 title "scan-reverse f32", \
     $data index 2 using 1:2 title "scan bf16", \
     $data index 3 using 1:2 title "scan-reverse bf16"
set terminal svg size 1000,600 font "sans,11" noenhanced background rgb "white"
set output out.".svg"
replot
unset output

# plots/scan-bandwidth-h200-pct.gp: figure 'pct' of experiment scan-bandwidth, written by `logt plot experiments/scan-bandwidth`
# from results/scan-bandwidth-h200.h5 (commit 994ce63); y = pct_of_copy against x = T, one curve per value of series (model,dtype)
# Re-render without logt: gnuplot plots/scan-bandwidth-h200-pct.gp  (writes the .png and .svg beside it)

$data << EOD
# index 0: scan f32
1024 94.23661509
16384 90.12884698
1048576 91.68352251
4194304 83.62264203


# index 1: scan-reverse f32
1024 95.18014458
16384 90.39676865
1048576 90.67962058
4194304 82.03990994


# index 2: scan bf16
1024 61.33735073
16384 56.7473081
1048576 49.12875237
4194304 62.56161775


# index 3: scan-reverse bf16
1024 53.41740931
16384 49.87010695
1048576 48.66907161
4194304 60.29688088
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

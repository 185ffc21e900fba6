# plots/scan-bandwidth-h200-pct.gp: figure 'pct' of experiment scan-bandwidth, written by `logt plot experiments/scan-bandwidth`
# from results/scan-bandwidth-h200.h5 (commit 6dce4c3); y = pct_of_copy against x = T, one curve per value of series (model,dtype)
# Re-render without logt: gnuplot plots/scan-bandwidth-h200-pct.gp  (writes the .png and .svg beside it)

$data << EOD
# index 0: scan f32
1024 94.47064762
16384 91.38986892
1048576 86.69811943
4194304 78.0297459


# index 1: scan-reverse f32
1024 95.68576308
16384 91.58135258
1048576 82.27548962
4194304 75.46875357


# index 2: scan bf16
1024 61.55742699
16384 56.73253634
1048576 31.63387555
4194304 30.85244774


# index 3: scan-reverse bf16
1024 53.58064993
16384 49.74457501
1048576 22.98289693
4194304 22.70297341
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

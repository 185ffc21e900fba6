# plots/scan-bandwidth-h200-pct.gp: figure 'pct' of experiment scan-bandwidth, written by `logt plot experiments/scan-bandwidth`
# from results/scan-bandwidth-h200.h5 (commit ac3b6e5); y = pct_of_copy against x = T, one curve per value of series (model,dtype)
# Re-render without logt: gnuplot plots/scan-bandwidth-h200-pct.gp  (writes the .png and .svg beside it)

$data << EOD
# index 0: scan f32
1024 94.7228825
16384 90.6555005
1048576 88.48265078
4194304 80.431597


# index 1: scan-reverse f32
1024 95.88981972
16384 90.27631065
1048576 82.06575471
4194304 75.35260255


# index 2: scan bf16
1024 63.09547507
16384 57.12629353
1048576 52.34084192
4194304 51.9649108


# index 3: scan-reverse bf16
1024 54.71370084
16384 50.28573506
1048576 32.80292914
4194304 32.85575709
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

# plots/scan-bandwidth-h200-pct.gp: figure 'pct' of experiment scan-bandwidth, written by `logt plot experiments/scan-bandwidth`
# from results/scan-bandwidth-h200.h5 (commit ac831a4); y = pct_of_copy against x = T, one curve per value of series (model,dtype)
# Re-render without logt: gnuplot plots/scan-bandwidth-h200-pct.gp  (writes the .png and .svg beside it)

$data << EOD
# index 0: scan f32
1024 95.01996511
16384 90.42514539
1048576 88.4922761
4194304 80.44575692


# index 1: scan-reverse f32
1024 95.08960037
16384 90.49018893
1048576 81.88639159
4194304 75.12016405


# index 2: scan bf16
1024 61.74817821
16384 57.18112017
1048576 40.09956835
4194304 40.33244516


# index 3: scan-reverse bf16
1024 53.63723813
16384 50.23625232
1048576 23.26673116
4194304 22.51712454
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

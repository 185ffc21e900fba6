# plots/scan-bandwidth-h200-gbps.gp: figure 'gbps' of experiment scan-bandwidth, written by `logt plot experiments/scan-bandwidth`
# from results/scan-bandwidth-h200.h5 (commit ac3b6e5); y = gbps against x = T, one curve per value of series (model,dtype)
# Re-render without logt: gnuplot plots/scan-bandwidth-h200-gbps.gp  (writes the .png and .svg beside it)

$data << EOD
# index 0: scan f32
1024 3868.986671
16384 3875.76467
1048576 3797.414807
4194304 3354.883993


# index 1: scan-reverse f32
1024 3966.87019
16384 3885.357356
1048576 3526.446444
4194304 3176.199631


# index 2: scan bf16
1024 2456.64043
16384 2425.037196
1048576 2226.928548
4194304 2097.501649


# index 3: scan-reverse bf16
1024 2186.62128
16384 2136.544542
1048576 1398.00425
4194304 1354.202544
EOD

out = "plots/scan-bandwidth-h200-gbps"
if (exists("ARG0") && strlen(ARG0) > 3 && ARG0[strlen(ARG0)-2:] eq ".gp") out = ARG0[1:strlen(ARG0)-3]
set title "scan-bandwidth: effective bandwidth 3·T·C·bytes / median time"
set xlabel "T (one shape per T: C = 65536, 65536, 1024, 32 on cuda)"
set ylabel "effective bandwidth (GB/s: bytes / median time)"
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

# plots/scan-bandwidth-h200-gbps.gp: figure 'gbps' of experiment scan-bandwidth, written by `logt plot experiments/scan-bandwidth`
# from results/scan-bandwidth-h200.h5 (commit ac831a4); y = gbps against x = T, one curve per value of series (model,dtype)
# Re-render without logt: gnuplot plots/scan-bandwidth-h200-gbps.gp  (writes the .png and .svg beside it)

$data << EOD
# index 0: scan f32
1024 3865.124122
16384 3872.577487
1048576 3794.55201
4194304 3343.629081


# index 1: scan-reverse f32
1024 3973.446647
16384 3880.377528
1048576 3527.435039
4194304 3162.429581


# index 2: scan bf16
1024 2481.347287
16384 2420.780045
1048576 1715.48371
4194304 1673.259578


# index 3: scan-reverse bf16
1024 2208.303233
16384 2135.320821
1048576 992.0131424
4194304 949.7791864
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

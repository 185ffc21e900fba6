# plots/scan-bandwidth-h200-gbps.gp: figure 'gbps' of experiment scan-bandwidth, written by `logt plot experiments/scan-bandwidth`
# from results/scan-bandwidth-h200.h5 (commit e93fb8f); y = gbps against x = T, one curve per value of series (model,dtype)
# Re-render without logt: gnuplot plots/scan-bandwidth-h200-gbps.gp  (writes the .png and .svg beside it)

$data << EOD
# index 0: scan f32
1024 3841.230896
16384 3881.574416
1048576 2870.650147
4194304 2726.968096


# index 1: scan-reverse f32
1024 3950.67876
16384 3889.241577
1048576 2699.299599
4194304 2659.813419


# index 2: scan bf16
1024 2440.440583
16384 2425.08105
1048576 1042.04422
4194304 970.3047483


# index 3: scan-reverse bf16
1024 2186.62128
16384 2134.834036
1048576 648.9601896
4194304 613.4190575
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

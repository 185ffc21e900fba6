# plots/scan-bandwidth-h200-gbps.gp: figure 'gbps' of experiment scan-bandwidth, written by `logt plot experiments/scan-bandwidth`
# from results/scan-bandwidth-h200.h5 (commit 025abc1); y = gbps against x = T, one curve per value of series (model,dtype)
# Re-render without logt: gnuplot plots/scan-bandwidth-h200-gbps.gp  (writes the .png and .svg beside it)

$data << EOD
# index 0: scan f32
1024 3880.620636
16384 3875.093248
1048576 3802.47116
4194304 3363.40326


# index 1: scan-reverse f32
1024 3967.495588
16384 3881.537059
1048576 3364.274478
4194304 3169.499275


# index 2: scan bf16
1024 2466.995863
16384 2429.969206
1048576 1717.151686
4194304 1674.985793


# index 3: scan-reverse bf16
1024 2201.541735
16384 2138.053412
1048576 996.3185869
4194304 957.8587884
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

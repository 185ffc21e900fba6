# plots/scan-bandwidth-h200-gbps.gp: figure 'gbps' of experiment scan-bandwidth, written by `logt plot experiments/scan-bandwidth`
# from results/scan-bandwidth-h200.h5 (commit 6dce4c3); y = gbps against x = T, one curve per value of series (model,dtype)
# Re-render without logt: gnuplot plots/scan-bandwidth-h200-gbps.gp  (writes the .png and .svg beside it)

$data << EOD
# index 0: scan f32
1024 3892.324499
16384 3900.978852
1048576 3699.564364
4194304 3219.680038


# index 1: scan-reverse f32
1024 3987.928708
16384 3909.121308
1048576 3515.117414
4194304 3145.728034


# index 2: scan bf16
1024 2432.890935
16384 2398.687011
1048576 1339.124121
4194304 1258.952161


# index 3: scan-reverse bf16
1024 2166.106389
16384 2103.231649
1048576 973.9402327
4194304 931.0502851
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

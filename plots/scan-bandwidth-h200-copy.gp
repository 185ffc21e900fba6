# plots/scan-bandwidth-h200-copy.gp: figure 'copy' of experiment scan-bandwidth, written by `logt plot experiments/scan-bandwidth`
# from results/scan-bandwidth-h200.h5 (commit 4de1022); y = copy_gbps against x = T, one curve per value of series (dtype); where model=scan
# Re-render without logt: gnuplot plots/scan-bandwidth-h200-copy.gp  (writes the .png and .svg beside it)

$data << EOD
# index 0: f32
1024 4112.062644
16384 4303.229431
1048576 4272.817035
4194304 4138.690509


# index 1: bf16
1024 3911.684718
16384 4231.928591
1048576 4272.341013
4194304 4118.624345
EOD

out = "plots/scan-bandwidth-h200-copy"
if (exists("ARG0") && strlen(ARG0) > 3 && ARG0[strlen(ARG0)-2:] eq ".gp") out = ARG0[1:strlen(ARG0)-3]
set title "scan-bandwidth: the yardstick, cudaMemcpyAsync device to device (2N / median time)"
set xlabel "T (one shape per T: C = 65536, 65536, 1024, 32 on cuda)"
set ylabel "device-to-device copy in the same run (GB/s: 2N / median time)"
set grid
set key outside right top
set style data linespoints
set logscale x 2
set terminal pngcairo size 1000,600 font "sans,11" noenhanced
set output out.".png"
plot $data index 0 using 1:2 title "f32", \
     $data index 1 using 1:2 title "bf16"
set terminal svg size 1000,600 font "sans,11" noenhanced background rgb "white"
set output out.".svg"
replot
unset output

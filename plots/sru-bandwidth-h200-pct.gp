# plots/sru-bandwidth-h200-pct.gp: figure 'pct' of experiment sru-bandwidth, written by `logt plot experiments/sru-bandwidth`
# from results/sru-bandwidth-h200.h5 (commit aa555d6); y = pct_of_copy against x = C, one curve per value of series (B)
# Re-render without logt: gnuplot plots/sru-bandwidth-h200-pct.gp  (writes the .png and .svg beside it)

$data << EOD
# index 0: B=16
12288 42.58736176
32768 88.34278278
65536 92.45562467


# index 1: B=32
24576 70.48505931
65536 92.79167345
131072 92.57563651


# index 2: B=64
49152 94.59847768
131072 94.71433812
262144 91.72160852
EOD

out = "plots/sru-bandwidth-h200-pct"
if (exists("ARG0") && strlen(ARG0) > 3 && ARG0[strlen(ARG0)-2:] eq ".gp") out = ARG0[1:strlen(ARG0)-3]
set title "sru-bandwidth: SRU recurrence kernel as % of the same run's copy bandwidth, T = 1024, f32"
set xlabel "channels B·D"
set ylabel "effective bandwidth, % of the same run's copy"
set grid
set key outside right top
set style data linespoints
set logscale x 10
set terminal pngcairo size 1000,600 font "sans,11" noenhanced
set output out.".png"
plot $data index 0 using 1:2 title "B=16", \
     $data index 1 using 1:2 title "B=32", \
     $data index 2 using 1:2 title "B=64"
set terminal svg size 1000,600 font "sans,11" noenhanced background rgb "white"
set output out.".svg"
replot
unset output

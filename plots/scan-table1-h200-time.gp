# plots/scan-table1-h200-time.gp: figure 'time' of experiment scan-table1, written by `logt plot experiments/scan-table1`
# from results/scan-table1-h200.h5 (commit e93fb8f); y = median_ms against x = T, one curve per value of series (model,C)
# Re-render without logt: gnuplot plots/scan-table1-h200-time.gp  (writes the .png and .svg beside it)

$data << EOD
# index 0: scan C=4
16 0.006927999901
256 0.01075199991
4096 0.01388800004
65536 0.01435199985


# index 1: scan-serial C=4
16 0.007647999795
256 0.0295199994
4096 0.3723839968
65536 5.853967905


# index 2: scan C=32
16 0.006591999903
256 0.01051199995
4096 0.01518400013
65536 0.02359999996


# index 3: scan-serial C=32
16 0.008752000052
256 0.04667199962
4096 0.661920011
65536 10.57548761


# index 4: scan C=128
16 0.006559999892
256 0.01043199981
4096 0.01556800026
65536 0.05420800112


# index 5: scan-serial C=128
16 0.008752000052
256 0.04785599932
4096 0.666960001
65536 24.76516819
EOD

out = "plots/scan-table1-h200-time"
if (exists("ARG0") && strlen(ARG0) > 3 && ARG0[strlen(ARG0)-2:] eq ".gp") out = ARG0[1:strlen(ARG0)-3]
set title "scan-table1: median time per call, batch 1, f32"
set xlabel "sequence length T"
set ylabel "median time per pass (ms)"
set grid
set key outside right top
set style data linespoints
set logscale x 2
set logscale y
set terminal pngcairo size 1000,600 font "sans,11" noenhanced
set output out.".png"
plot $data index 0 using 1:2 title "scan C=4", \
     $data index 1 using 1:2 title "scan-serial C=4", \
     $data index 2 using 1:2 title "scan C=32", \
     $data index 3 using 1:2 title "scan-serial C=32", \
     $data index 4 using 1:2 title "scan C=128", \
     $data index 5 using 1:2 title "scan-serial C=128"
set terminal svg size 1000,600 font "sans,11" noenhanced background rgb "white"
set output out.".svg"
replot
unset output

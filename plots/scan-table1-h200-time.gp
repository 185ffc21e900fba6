# plots/scan-table1-h200-time.gp: figure 'time' of experiment scan-table1, written by `logt plot experiments/scan-table1`
# from results/scan-table1-h200.h5 (commit 0b2b0c8); y = median_ms against x = T, one curve per value of series (model,C)
# Re-render without logt: gnuplot plots/scan-table1-h200-time.gp  (writes the .png and .svg beside it)

$data << EOD
# index 0: scan C=4
16 0.01174400002
256 0.01152000017
4096 0.01670400053
65536 0.01764800027


# index 1: scan-serial C=4
16 0.007824000204
256 0.02825599909
4096 0.3657120019
65536 5.70289588


# index 2: scan C=32
16 0.01097599976
256 0.01142399991
4096 0.01377599966
65536 0.02352000028


# index 3: scan-serial C=32
16 0.008559999987
256 0.0466880016
4096 0.6400159895
65536 10.18777609


# index 4: scan C=128
16 0.01124799997
256 0.01161599997
4096 0.01564800041
65536 0.06404799968


# index 5: scan-serial C=128
16 0.009039999917
256 0.04617600143
4096 0.6447519958
65536 24.33404827
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

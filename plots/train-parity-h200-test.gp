# plots/train-parity-h200-test.gp: figure 'test' of experiment train-parity, written by `logt plot experiments/train-parity`
# from results/train-parity-h200.h5 (commit 4fadd96); y = test_acc against x = T, one curve per value of series (model)
# Re-render without logt: gnuplot plots/train-parity-h200-test.gp  (writes the .png and .svg beside it)

$data << EOD
# index 0: lstm
16 0.4736328125
64 0.517578125


# index 1: flashrnn
16 0.4736328125
64 0.482421875


# index 2: deer
16 0.5263671875
64 0.517578125


# index 3: gilr
16 0.4736328125
64 0.482421875


# index 4: sru
16 0.4990234375
64 0.482421875
EOD

out = "plots/train-parity-h200-test"
if (exists("ARG0") && strlen(ARG0) > 3 && ARG0[strlen(ARG0)-2:] eq ".gp") out = ARG0[1:strlen(ARG0)-3]
set title "train-parity: test accuracy after the last step"
set xlabel "T"
set ylabel "test accuracy (the test split, after the last step)"
set grid
set key outside right top
set style data linespoints
set logscale x 2
set terminal pngcairo size 1000,600 font "sans,11" noenhanced
set output out.".png"
plot $data index 0 using 1:2 title "lstm", \
     $data index 1 using 1:2 title "flashrnn", \
     $data index 2 using 1:2 title "deer", \
     $data index 3 using 1:2 title "gilr", \
     $data index 4 using 1:2 title "sru"
set terminal svg size 1000,600 font "sans,11" noenhanced background rgb "white"
set output out.".svg"
replot
unset output

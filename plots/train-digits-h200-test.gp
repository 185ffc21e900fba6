# plots/train-digits-h200-test.gp: figure 'test' of experiment train-digits, written by `logt plot experiments/train-digits`
# from results/train-digits-h200.h5 (commit 4fadd96); y = test_acc against x = T, one curve per value of series (model)
# Re-render without logt: gnuplot plots/train-digits-h200-test.gp  (writes the .png and .svg beside it)

$data << EOD
# index 0: lstm
64 0.9427083333


# index 1: lstm-cudnn
64 0.953125


# index 2: gilr
64 0.578125


# index 3: gilr-lstm
64 0.8020833333


# index 4: sru
64 0.5677083333


# index 5: flashrnn
64 0.9322916667


# index 6: deer
64 0.5572916667
EOD

out = "plots/train-digits-h200-test"
if (exists("ARG0") && strlen(ARG0) > 3 && ARG0[strlen(ARG0)-2:] eq ".gp") out = ARG0[1:strlen(ARG0)-3]
set title "train-digits: test accuracy after the last step"
set xlabel "T"
set ylabel "test accuracy (the test split, after the last step)"
set grid
set key outside right top
set style data linespoints
set terminal pngcairo size 1000,600 font "sans,11" noenhanced
set output out.".png"
plot $data index 0 using 1:2 title "lstm", \
     $data index 1 using 1:2 title "lstm-cudnn", \
     $data index 2 using 1:2 title "gilr", \
     $data index 3 using 1:2 title "gilr-lstm", \
     $data index 4 using 1:2 title "sru", \
     $data index 5 using 1:2 title "flashrnn", \
     $data index 6 using 1:2 title "deer"
set terminal svg size 1000,600 font "sans,11" noenhanced background rgb "white"
set output out.".svg"
replot
unset output

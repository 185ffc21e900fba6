# plots/train-adding-h200-test.gp: figure 'test' of experiment train-adding, written by `logt plot experiments/train-adding`
# from results/train-adding-h200.h5 (commit 52835e9); y = test_loss against x = T, one curve per value of series (model)
# Re-render without logt: gnuplot plots/train-adding-h200-test.gp  (writes the .png and .svg beside it)

$data << EOD
# index 0: lstm
100 0.0009101437238
1000 0.1678280876


# index 1: lstm-cudnn
100 0.0009407566155
1000 0.1678280873


# index 2: gilr
100 0.009548671199
1000 0.1676615713


# index 3: gilr-lstm
100 0.002468513984
1000 0.1681036246


# index 4: sru
100 0.002821652263
1000 0.06241627175


# index 5: flashrnn
100 0.001437531217
1000 0.1678616895


# index 6: deer
100 0.0002694209537
EOD

out = "plots/train-adding-h200-test"
if (exists("ARG0") && strlen(ARG0) > 3 && ARG0[strlen(ARG0)-2:] eq ".gp") out = ARG0[1:strlen(ARG0)-3]
set title "train-adding: test MSE after the last step (bar: 0.01 at T = 1000)"
set xlabel "T"
set ylabel "test loss (the test split, after the last step)"
set grid
set key outside right top
set style data linespoints
set logscale x 10
set logscale y
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

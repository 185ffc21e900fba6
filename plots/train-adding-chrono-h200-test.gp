# plots/train-adding-chrono-h200-test.gp: figure 'test' of experiment train-adding, written by `logt plot experiments/train-adding`
# from results/train-adding-chrono-h200.h5 (commit 224e980); y = test_loss against x = T, one curve per value of series (model)
# Re-render without logt: gnuplot plots/train-adding-chrono-h200-test.gp  (writes the .png and .svg beside it)

$data << EOD
# index 0: lstm
1000 0.001002619446


# index 1: lstm-cudnn
1000 0.00106807742


# index 2: gilr
1000 0.003989448419


# index 3: gilr-lstm
1000 0.001315734165


# index 4: sru
1000 0.001457330501


# index 5: flashrnn
1000 0.001496436109


# index 6: deer
1000 0.0006487550402
EOD

out = "plots/train-adding-chrono-h200-test"
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

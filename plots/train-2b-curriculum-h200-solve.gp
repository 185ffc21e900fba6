# plots/train-2b-curriculum-h200-solve.gp: figure 'solve' of experiment train-2b, written by `logt plot experiments/train-2b`
# from results/train-2b-curriculum-h200.h5 (commit 2b6a7db); y = solve_s against x = T, one curve per value of series (model,B,D,seed)
# Re-render without logt: gnuplot plots/train-2b-curriculum-h200-solve.gp  (writes the .png and .svg beside it)

$data << EOD
# index 0: gilr-lstm B=8 D=16 seed=1
65536 1.705794325
1048576 11.45931939


# index 1: lstm B=8 D=16 seed=1
65536 112.5177716


# index 2: gilr-lstm B=8 D=16 seed=2
65536 1.555890661


# index 3: gilr-lstm B=8 D=16 seed=3
65536 1.482599047


# index 4: gilr-lstm B=32 D=64 seed=1
65536 8.238126963
EOD

out = "plots/train-2b-curriculum-h200-solve"
if (exists("ARG0") && strlen(ARG0) > 3 && ARG0[strlen(ARG0)-2:] eq ".gp") out = ARG0[1:strlen(ARG0)-3]
set title "train-2b: time to solve (validation accuracy 99%), seconds of training"
set xlabel "T"
set ylabel "time to solve: training seconds until validation accuracy >= solve_acc"
set grid
set key outside right top
set style data linespoints
set logscale x 2
set logscale y
set terminal pngcairo size 1000,600 font "sans,11" noenhanced
set output out.".png"
plot $data index 0 using 1:2 title "gilr-lstm B=8 D=16 seed=1", \
     $data index 1 using 1:2 title "lstm B=8 D=16 seed=1", \
     $data index 2 using 1:2 title "gilr-lstm B=8 D=16 seed=2", \
     $data index 3 using 1:2 title "gilr-lstm B=8 D=16 seed=3", \
     $data index 4 using 1:2 title "gilr-lstm B=32 D=64 seed=1"
set terminal svg size 1000,600 font "sans,11" noenhanced background rgb "white"
set output out.".svg"
replot
unset output

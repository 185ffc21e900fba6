# plots/train-2b-h200-solve.gp: figure 'solve' of experiment train-2b, written by `logt plot experiments/train-2b`
# from results/train-2b-h200.h5 (commit baa2976); y = solve_s against x = T, one curve per value of series (model,B,D,seed)
# Re-render without logt: gnuplot plots/train-2b-h200-solve.gp  (writes the .png and .svg beside it)

$data << EOD
# index 0: gilr-lstm B=32 D=64 seed=1
1024 1.227348802
8192 26.64462606


# index 1: lstm B=32 D=64 seed=1
1024 21.44627778


# index 2: lstm-cudnn B=32 D=64 seed=1
1024 22.38375452
EOD

out = "plots/train-2b-h200-solve"
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
plot $data index 0 using 1:2 title "gilr-lstm B=32 D=64 seed=1", \
     $data index 1 using 1:2 title "lstm B=32 D=64 seed=1", \
     $data index 2 using 1:2 title "lstm-cudnn B=32 D=64 seed=1"
set terminal svg size 1000,600 font "sans,11" noenhanced background rgb "white"
set output out.".svg"
replot
unset output

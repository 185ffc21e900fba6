# plots/gilr-vs-lstm-h200-throughput-B.gp: figure 'throughput-B' of experiment gilr-vs-lstm, written by `logt plot experiments/gilr-vs-lstm`
# from results/gilr-vs-lstm-h200.h5 (commit 025abc1); y = tokens_per_s against x = B, one curve per value of series (model,algo); where T=16384
# Re-render without logt: gnuplot plots/gilr-vs-lstm-h200-throughput-B.gp  (writes the .png and .svg beside it)

$data << EOD
# index 0: gilr-lstm
1 4711858.714
2 5168923.756
4 5425711.732
8 5786724.951
16 6036525.715
32 6174489.115


# index 1: lstm-cudnn algo=standard
1 19284.03026
2 41167.8273
4 75964.3889
8 156626.6789
16 273648.7381
32 422974.6717


# index 2: lstm-cudnn algo=auto
1 141829.4767
2 150801.734
4 210042.6943
8 212184.9164
16 285920.9899
32 470105.3204
EOD

out = "plots/gilr-vs-lstm-h200-throughput-B"
if (exists("ARG0") && strlen(ARG0) > 3 && ARG0[strlen(ARG0)-2:] eq ".gp") out = ARG0[1:strlen(ARG0)-3]
set title "throughput vs batch at T = 16384, forward + backward, 2 layers of 256, f32"
set xlabel "batch B"
set ylabel "tokens per second (T·B / median)"
set grid
set key outside right top
set style data linespoints
set logscale x 2
set logscale y
set terminal pngcairo size 1000,600 font "sans,11" noenhanced
set output out.".png"
plot $data index 0 using 1:2 title "gilr-lstm", \
     $data index 1 using 1:2 title "lstm-cudnn algo=standard", \
     $data index 2 using 1:2 title "lstm-cudnn algo=auto"
set terminal svg size 1000,600 font "sans,11" noenhanced background rgb "white"
set output out.".svg"
replot
unset output

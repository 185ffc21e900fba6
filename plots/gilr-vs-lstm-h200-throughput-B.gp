# plots/gilr-vs-lstm-h200-throughput-B.gp: figure 'throughput-B' of experiment gilr-vs-lstm, written by `logt plot experiments/gilr-vs-lstm`
# from results/gilr-vs-lstm-h200.h5 (commit 5f5aaed); y = tokens_per_s against x = B, one curve per value of series (model,algo); where T=16384
# Re-render without logt: gnuplot plots/gilr-vs-lstm-h200-throughput-B.gp  (writes the .png and .svg beside it)

$data << EOD
# index 0: gilr-lstm
1 4685984.275
2 5136333.373
4 5406190.067
8 5741793.358
16 6008411.03
32 6180108.616


# index 1: lstm-cudnn algo=standard
1 16249.58684
2 34484.38978
4 60992.1032
8 116813.1524
16 229462.0448
32 429212.8911


# index 2: lstm-cudnn algo=auto
1 141570.4457
2 150241.9945
4 209784.4248
8 212309.6698
16 224928.5406
32 375913.2307
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

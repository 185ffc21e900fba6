# plots/gilr-vs-lstm-h200-throughput-B.gp: figure 'throughput-B' of experiment gilr-vs-lstm, written by `logt plot experiments/gilr-vs-lstm`
# from results/gilr-vs-lstm-h200.h5 (commit 0b2b0c8); y = tokens_per_s against x = B, one curve per value of series (model,algo); where T=16384
# Re-render without logt: gnuplot plots/gilr-vs-lstm-h200-throughput-B.gp  (writes the .png and .svg beside it)

$data << EOD
# index 0: gilr-lstm
1 3293536.296
2 3417947.581
4 3484474.587
8 3630871.004
16 3699353.369
32 3742872.135


# index 1: lstm-cudnn algo=standard
1 16094.21571
2 30826.48463
4 79179.62456
8 110069.5772
16 229079.8524
32 447742.6454


# index 2: lstm-cudnn algo=auto
1 141367.737
2 150369.3827
4 210156.7961
8 212269.4818
16 278365.6278
32 477615.9649
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

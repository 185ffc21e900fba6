# plots/gilr-vs-lstm-h200-throughput-B.gp: figure 'throughput-B' of experiment gilr-vs-lstm, written by `logt plot experiments/gilr-vs-lstm`
# from results/gilr-vs-lstm-h200.h5 (commit 7044ca6); y = tokens_per_s against x = B, one curve per value of series (model,algo); where T=16384
# Re-render without logt: gnuplot plots/gilr-vs-lstm-h200-throughput-B.gp  (writes the .png and .svg beside it)

$data << EOD
# index 0: gilr-lstm
1 4693372.428
2 5167958.559
4 5419208.095
8 5772957.783
16 6034764.684
32 6196531.335


# index 1: lstm-cudnn algo=standard
1 19070.95076
2 32804.9396
4 70203.83059
8 115652.4955
16 251960.1887
32 426813.6085


# index 2: lstm-cudnn algo=auto
1 137460.2961
2 146764.687
4 205919.0106
8 208171.6802
16 291999.3074
32 381191.4953
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

# plots/gilr-vs-lstm-h200-throughput-B.gp: figure 'throughput-B' of experiment gilr-vs-lstm, written by `logt plot experiments/gilr-vs-lstm`
# from results/gilr-vs-lstm-h200.h5 (commit ac831a4); y = tokens_per_s against x = B, one curve per value of series (model,algo); where T=16384
# Re-render without logt: gnuplot plots/gilr-vs-lstm-h200-throughput-B.gp  (writes the .png and .svg beside it)

$data << EOD
# index 0: gilr-lstm
1 4683026.906
2 5147254.526
4 5426531.355
8 5773437.46
16 6030140.643
32 6183484.117


# index 1: lstm-cudnn algo=standard
1 18267.80495
2 38636.74854
4 78775.01545
8 137290.5567
16 215147.0969
32 460426.0325


# index 2: lstm-cudnn algo=auto
1 142096.9412
2 150499.8137
4 210217.5666
8 212331.9004
16 289687.5894
32 501242.5303
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

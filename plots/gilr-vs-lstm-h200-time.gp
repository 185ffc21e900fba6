# plots/gilr-vs-lstm-h200-time.gp: figure 'time' of experiment gilr-vs-lstm, written by `logt plot experiments/gilr-vs-lstm`
# from results/gilr-vs-lstm-h200.h5 (commit 7044ca6); y = median_ms against x = T, one curve per value of series (model,algo); where seed=1
# Re-render without logt: gnuplot plots/gilr-vs-lstm-h200-time.gp  (writes the .png and .svg beside it)

$data << EOD
# index 0: gilr-lstm
16 12.01574421
64 12.01823997
256 12.05459213
1024 12.09811211
4096 12.05580807
16384 12.09327984
32768 12.13113594
65536 12.11878395


# index 1: lstm-cudnn algo=standard
16 9.608448029
64 12.98752022
256 23.51673508
1024 88.57154846
4096 330.9240723
16384 933.5103149
32768 1911.907959


# index 2: lstm-cudnn algo=auto
16 9.412063599
64 13.15404797
256 22.97542381
1024 85.47801971
4096 286.7391663
16384 318.2610474
32768 446.0335388
EOD

out = "plots/gilr-vs-lstm-h200-time"
if (exists("ARG0") && strlen(ARG0) > 3 && ARG0[strlen(ARG0)-2:] eq ".gp") out = ARG0[1:strlen(ARG0)-3]
set title "forward + backward at b*T = 65536, 2 layers of 256, input 4, f32"
set xlabel "sequence length T (batch b = 65536 / T)"
set ylabel "median time per pass (ms)"
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

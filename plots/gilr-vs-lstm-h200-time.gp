# plots/gilr-vs-lstm-h200-time.gp: figure 'time' of experiment gilr-vs-lstm, written by `logt plot experiments/gilr-vs-lstm`
# from results/gilr-vs-lstm-h200.h5 (commit 025abc1); y = median_ms against x = T, one curve per value of series (model,algo); where seed=1
# Re-render without logt: gnuplot plots/gilr-vs-lstm-h200-time.gp  (writes the .png and .svg beside it)

$data << EOD
# index 0: gilr-lstm
16 11.9551363
64 11.97635174
256 11.96240044
1024 12.04944038
4096 12.06028843
16384 12.07878399
32768 12.12041569
65536 12.14102364


# index 1: lstm-cudnn algo=standard
16 9.546848297
64 13.02339172
256 23.90121651
1024 73.72783661
4096 250.628418
16384 862.7200317
32768 1830.445068


# index 2: lstm-cudnn algo=auto
16 9.521887779
64 12.92732811
256 23.64313507
1024 70.43151855
4096 226.8920593
16384 312.0127563
32768 437.8717346
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

# plots/gilr-vs-lstm-h200-time.gp: figure 'time' of experiment gilr-vs-lstm, written by `logt plot experiments/gilr-vs-lstm`
# from results/gilr-vs-lstm-h200.h5 (commit 5f5aaed); y = median_ms against x = T, one curve per value of series (model,algo); where seed=1
# Re-render without logt: gnuplot plots/gilr-vs-lstm-h200-time.gp  (writes the .png and .svg beside it)

$data << EOD
# index 0: gilr-lstm
16 12.01887989
64 11.94223976
256 11.98524761
1024 12.11334419
4096 12.08047962
16384 12.12240028
32768 12.20774364
65536 12.18150425


# index 1: lstm-cudnn algo=standard
16 9.146335602
64 12.6927042
256 24.91024017
1024 89.87519836
4096 327.4938965
16384 1074.499756
32768 2133.583496


# index 2: lstm-cudnn algo=auto
16 9.266592026
64 12.57590389
256 24.76976013
1024 72.43001556
4096 307.9786072
16384 312.3968811
32768 437.4877014
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

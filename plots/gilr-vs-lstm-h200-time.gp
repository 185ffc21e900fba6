# plots/gilr-vs-lstm-h200-time.gp: figure 'time' of experiment gilr-vs-lstm, written by `logt plot experiments/gilr-vs-lstm`
# from results/gilr-vs-lstm-h200.h5 (commit ac831a4); y = median_ms against x = T, one curve per value of series (model,algo); where seed=1
# Re-render without logt: gnuplot plots/gilr-vs-lstm-h200-time.gp  (writes the .png and .svg beside it)

$data << EOD
# index 0: gilr-lstm
16 11.88780785
64 11.98012829
256 11.96630383
1024 12.09299183
4096 12.05452824
16384 12.07695961
32768 12.08371162
65536 12.15027237


# index 1: lstm-cudnn algo=standard
16 9.216768265
64 13.00492764
256 23.60835266
1024 84.39612579
4096 294.1179199
16384 831.9389038
32768 1884.900024


# index 2: lstm-cudnn algo=auto
16 9.536224365
64 12.92441559
256 23.23401642
1024 85.94115448
4096 275.7117004
16384 311.7532043
32768 436.9473877
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

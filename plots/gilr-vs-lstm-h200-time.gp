# plots/gilr-vs-lstm-h200-time.gp: figure 'time' of experiment gilr-vs-lstm, written by `logt plot experiments/gilr-vs-lstm`
# from results/gilr-vs-lstm-h200.h5 (commit 0b2b0c8); y = median_ms against x = T, one curve per value of series (model,algo); where seed=1
# Re-render without logt: gnuplot plots/gilr-vs-lstm-h200-time.gp  (writes the .png and .svg beside it)

$data << EOD
# index 0: gilr-lstm
16 18.46044731
64 18.47427177
256 18.50310326
1024 18.75942421
4096 18.70422363
16384 18.80800056
32768 18.80326462
65536 18.8091526


# index 1: lstm-cudnn algo=standard
16 9.53366375
64 12.86975956
256 22.73913574
1024 81.1606369
4096 273.8338318
16384 827.6876831
32768 1659.135132


# index 2: lstm-cudnn algo=auto
16 9.44192028
64 13.09196758
256 22.98054314
1024 76.26332855
4096 214.4740143
16384 311.8433533
32768 437.0415955
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

# plots/flashrnn-batch-h200-time.gp: figure 'time' of experiment flashrnn-batch, written by `logt plot experiments/flashrnn-batch`
# from results/flashrnn-batch-h200.h5 (commit a4d4cb1); y = median_ms against x = B, one curve per value of series (model,kernel,pass)
# Re-render without logt: gnuplot plots/flashrnn-batch-h200-time.gp  (writes the .png and .svg beside it)

$data << EOD
# index 0: flashrnn kernel=fused forward
1 1.019647956
2 1.11311996
4 1.126911998
8 1.153184056
16 1.105087996
32 1.075232029
64 1.515519977
128 2.737024069
256 5.620031834


# index 1: flashrnn kernel=alternating forward
1 15.02009583
2 14.71062374
4 11.77552032
8 11.30668831
16 10.9143362
32 11.43641567
64 11.36668777
128 11.2782402
256 15.43375969


# index 2: flashrnn kernel=fused fwdbwd
1 2.63696003
2 2.818367958
4 2.883519888
8 2.986399889
16 3.151488066
32 3.34204793
64 4.399104118
128 8.074111938
256 13.66099167


# index 3: flashrnn kernel=alternating fwdbwd
1 25.30822372
2 24.12169647
4 22.8752327
8 21.89254379
16 24.89711952
32 23.93081665
64 23.86252785
128 26.54876709
256 35.7735672


# index 4: lstm-cudnn forward
1 16.42848015
2 17.02128029
4 16.48822403
8 16.68927956
16 11.92716789
32 12.21238422
64 12.41363239
128 12.85033607
256 12.81760025


# index 5: lstm-cudnn fwdbwd
1 39.23667145
2 39.60188675
4 38.92220688
8 38.05107117
16 26.87382317
32 27.88649559
64 43.38153458
128 32.01542282
256 32.56464005
EOD

out = "plots/flashrnn-batch-h200-time"
if (exists("ARG0") && strlen(ARG0) > 3 && ARG0[strlen(ARG0)-2:] eq ".gp") out = ARG0[1:strlen(ARG0)-3]
set title "lstm, D = 768 (dh = 64 for flashrnn), T = 1024, bf16: median time vs batch"
set xlabel "batch B"
set ylabel "median time per pass (ms)"
set grid
set key outside right top
set style data linespoints
set logscale x 2
set logscale y
set terminal pngcairo size 1000,600 font "sans,11" noenhanced
set output out.".png"
plot $data index 0 using 1:2 title "flashrnn kernel=fused forward", \
     $data index 1 using 1:2 title "flashrnn kernel=alternating forward", \
     $data index 2 using 1:2 title "flashrnn kernel=fused fwdbwd", \
     $data index 3 using 1:2 title "flashrnn kernel=alternating fwdbwd", \
     $data index 4 using 1:2 title "lstm-cudnn forward", \
     $data index 5 using 1:2 title "lstm-cudnn fwdbwd"
set terminal svg size 1000,600 font "sans,11" noenhanced background rgb "white"
set output out.".svg"
replot
unset output

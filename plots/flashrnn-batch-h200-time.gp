# plots/flashrnn-batch-h200-time.gp: figure 'time' of experiment flashrnn-batch, written by `logt plot experiments/flashrnn-batch`
# from results/flashrnn-batch-h200.h5 (commit 118f4e5); y = median_ms against x = B, one curve per value of series (model,kernel,pass)
# Re-render without logt: gnuplot plots/flashrnn-batch-h200-time.gp  (writes the .png and .svg beside it)

$data << EOD
# index 0: flashrnn kernel=fused forward
1 0.992832005
2 1.098144054
4 1.089984059
8 1.138975978
16 1.105471969
32 1.066367984
64 1.507328033
128 2.730335951
256 5.531455994


# index 1: flashrnn kernel=alternating forward
1 8.967295647
2 9.262911797
4 9.116512299
8 9.261407852
16 10.41017628
32 9.284992218
64 9.860447884
128 9.91593647
256 11.9881916


# index 2: flashrnn kernel=fused fwdbwd
1 2.583456039
2 2.72281599
4 2.820352077
8 2.908735991
16 3.115551949
32 3.325088024
64 4.370656013
128 8.035743713
256 13.45209599


# index 3: flashrnn kernel=alternating fwdbwd
1 19.5659523
2 20.00671959
4 18.88662338
8 19.56003189
16 19.39443207
32 21.45376015
64 21.62265587
128 22.04710388
256 27.1968956


# index 4: lstm-cudnn forward
1 9.511455536
2 10.36835194
4 9.747136116
8 9.319840431
16 10.11324787
32 10.55599976
64 11.101408
128 10.82079983
256 13.07628822


# index 5: lstm-cudnn fwdbwd
1 23.22297668
2 23.80652809
4 22.78825569
8 21.91542435
16 23.15254402
32 25.44428825
64 26.21820831
128 26.78508759
256 37.17081451
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

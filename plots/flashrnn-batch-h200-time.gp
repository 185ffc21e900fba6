# plots/flashrnn-batch-h200-time.gp: figure 'time' of experiment flashrnn-batch, written by `logt plot experiments/flashrnn-batch`
# from results/flashrnn-batch-h200.h5 (commit b44bbd0-dirty); y = median_ms against x = B, one curve per value of series (model,kernel,pass)
# Re-render without logt: gnuplot plots/flashrnn-batch-h200-time.gp  (writes the .png and .svg beside it)

$data << EOD
# index 0: flashrnn kernel=fused forward
1 1.048799992
2 1.13084805
4 1.178815961
8 1.231040001
16 1.138592005
32 1.10502398
64 1.520671964
128 2.803807974
256 5.569632053


# index 1: flashrnn kernel=alternating forward
1 17.27769661
2 16.75279999
4 18.27296066
8 17.92387199
16 16.02435112
32 17.05120087
64 16.62400055
128 17.28681564
256 16.96540833


# index 2: flashrnn kernel=fused fwdbwd
1 2.680768013
2 2.855871916
4 2.901087999
8 3.072607994
16 3.233279943
32 3.367680073
64 4.407904148
128 8.100799561
256 13.55641556


# index 3: flashrnn kernel=alternating fwdbwd
1 36.2036171
2 31.55116844
4 36.83289719
8 34.70428848
16 37.22102356
32 36.09260941
64 36.55721664
128 36.67542267
256 38.53868866


# index 4: lstm-cudnn forward
1 17.7254715
2 16.70704079
4 17.68604851
8 17.14230347
16 17.84857559
32 17.42000008
64 18.57129669
128 18.00300789
256 18.66579247


# index 5: lstm-cudnn fwdbwd
1 42.24214554
2 42.84966278
4 41.27471924
8 39.98527908
16 39.58768082
32 38.7071991
64 43.03686523
128 44.80108643
256 45.66675186
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

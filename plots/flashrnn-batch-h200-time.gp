# plots/flashrnn-batch-h200-time.gp: figure 'time' of experiment flashrnn-batch, written by `logt plot experiments/flashrnn-batch`
# from results/flashrnn-batch-h200.h5 (commit b5c0325); y = median_ms against x = B, one curve per value of series (model,kernel,pass)
# Re-render without logt: gnuplot plots/flashrnn-batch-h200-time.gp  (writes the .png and .svg beside it)

$data << EOD
# index 0: flashrnn kernel=fused forward
1 1.163903952
2 1.231583953
4 1.262207985
8 1.342432022
16 1.36943996
32 1.386399984
64 1.621024013
128 2.95542407
256 5.770720005


# index 1: flashrnn kernel=alternating forward
1 12.47724819
2 12.02710438
4 12.63910389
8 12.12025642
16 11.82246399
32 16.88934326
64 16.85305595
128 16.51203156
256 14.39356804


# index 2: flashrnn kernel=fused fwdbwd
1 2.883104086
2 3.053407907
4 3.115456104
8 3.23801589
16 3.487519979
32 3.806047916
64 4.620895863
128 8.510335922
256 13.69184017


# index 3: flashrnn kernel=alternating fwdbwd
1 24.00726318
2 24.31622314
4 24.77324867
8 28.70240021
16 24.0468483
32 33.95148849
64 35.77008057
128 33.16966248
256 35.75350571


# index 4: lstm-cudnn forward
1 12.34985638
2 12.01884842
4 12.31968021
8 17.95536041
16 15.87664032
32 14.76294422
64 14.00995159
128 13.06387234
256 15.32038403


# index 5: lstm-cudnn fwdbwd
1 37.35087967
2 50.96588898
4 41.40515137
8 40.51219177
16 35.60742569
32 29.82518387
64 30.30838394
128 37.23641586
256 36.09856033
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

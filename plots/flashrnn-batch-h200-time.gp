# plots/flashrnn-batch-h200-time.gp: figure 'time' of experiment flashrnn-batch, written by `logt plot experiments/flashrnn-batch`
# from results/flashrnn-batch-h200.h5 (commit 0b5fa11); y = median_ms against x = B, one curve per value of series (model,kernel,pass)
# Re-render without logt: gnuplot plots/flashrnn-batch-h200-time.gp  (writes the .png and .svg beside it)

$data << EOD
# index 0: flashrnn kernel=fused forward
1 1.270143986
2 1.32259202
4 1.358687997
8 1.404960036
16 1.459231973
32 1.501440048
64 1.711647987
128 2.451999903
256 4.269855976


# index 1: flashrnn kernel=alternating forward
1 14.11315155
2 12.44348812
4 15.66528034
8 12.67644787
16 12.84358406
32 13.16985607
64 13.19097614
128 12.36489582
256 12.26825619


# index 2: flashrnn kernel=fused fwdbwd
1 3.957535982
2 4.149472237
4 4.433599949
8 4.828767776
16 5.619103909
32 7.09139204
64 10.6927042
128 18.6066246
256 33.86883163


# index 3: flashrnn kernel=alternating fwdbwd
1 25.91644859
2 30.49407959
4 25.81676865
8 26.39468765
16 26.86751938
32 27.74636841
64 30.20963287
128 36.8979187
256 49.42073441


# index 4: lstm-cudnn forward
1 14.13459206
2 13.30604839
4 13.33993626
8 17.59603119
16 17.14048004
32 14.29299164
64 13.0944643
128 16.85055923
256 17.45129585


# index 5: lstm-cudnn fwdbwd
1 31.95171165
2 31.84675217
4 30.49894333
8 42.13977432
16 30.67487907
32 31.40678406
64 31.95062447
128 49.455616
256 43.11340714
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

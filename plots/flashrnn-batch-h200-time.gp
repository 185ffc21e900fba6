# plots/flashrnn-batch-h200-time.gp: figure 'time' of experiment flashrnn-batch, written by `logt plot experiments/flashrnn-batch`
# from results/flashrnn-batch-h200.h5 (commit e92967e); y = median_ms against x = B, one curve per value of series (model,kernel,pass)
# Re-render without logt: gnuplot plots/flashrnn-batch-h200-time.gp  (writes the .png and .svg beside it)

$data << EOD
# index 0: flashrnn kernel=fused forward
1 1.099040031
2 1.154592037
4 1.208735943
8 1.245056033
16 1.275647998
32 1.337087989
64 1.564607978
128 2.846879959
256 5.775072098


# index 1: flashrnn kernel=alternating forward
1 14.70448017
2 13.07759953
4 13.81590366
8 11.4972477
16 15.49267197
32 15.39084816
64 15.40051174
128 16.07833672
256 15.76585579


# index 2: flashrnn kernel=fused fwdbwd
1 2.692415953
2 2.817055941
4 2.883552074
8 3.005280018
16 3.26553607
32 3.555615902
64 4.392320156
128 8.072992325
256 13.64412785


# index 3: flashrnn kernel=alternating fwdbwd
1 23.99497604
2 26.58937645
4 24.37948799
8 22.49456024
16 31.53769684
32 31.12236786
64 33.38793564
128 35.11897659
256 37.6276474


# index 4: lstm-cudnn forward
1 16.93424034
2 16.46934319
4 16.54371262
8 16.78160095
16 17.20288086
32 16.76377678
64 17.46985626
128 17.27497673
256 17.79923248


# index 5: lstm-cudnn fwdbwd
1 40.65407944
2 40.59267044
4 39.63660812
8 39.55116653
16 40.62505722
32 41.37238312
64 42.62374496
128 37.67695999
256 38.20409775
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

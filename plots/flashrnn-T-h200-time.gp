# plots/flashrnn-T-h200-time.gp: figure 'time' of experiment flashrnn-T, written by `logt plot experiments/flashrnn-T`
# from results/flashrnn-T-h200.h5 (commit 0b5fa11); y = median_ms against x = T, one curve per value of series (model,kernel,pass)
# Re-render without logt: gnuplot plots/flashrnn-T-h200-time.gp  (writes the .png and .svg beside it)

$data << EOD
# index 0: flashrnn kernel=fused forward
64 0.1265919954
256 0.399616003
1024 1.522112012
4096 5.740511894
16384 22.82153511


# index 1: flashrnn kernel=alternating forward
64 0.9507520199
256 4.149504185
1024 13.16150379
4096 61.79763031
16384 203.3176575


# index 2: flashrnn kernel=fused fwdbwd
64 0.4524160028
256 1.522655964
1024 5.696640015
4096 22.97929573
16384 90.93933105


# index 3: flashrnn kernel=alternating fwdbwd
64 1.861631989
256 7.212255955
1024 27.66780853
4096 136.2747498
16384 491.1222534


# index 4: lstm-cudnn forward
64 0.8364800215
256 3.43484807
1024 13.37215996
4096 69.58640289
16384 272.5907898


# index 5: lstm-cudnn fwdbwd
64 2.006623983
256 7.524384022
1024 41.25814438
4096 156.3138885
16384 562.4819336
EOD

out = "plots/flashrnn-T-h200-time"
if (exists("ARG0") && strlen(ARG0) > 3 && ARG0[strlen(ARG0)-2:] eq ".gp") out = ARG0[1:strlen(ARG0)-3]
set title "lstm, D = 768 (dh = 64 for flashrnn), B = 16, bf16: median time vs T"
set xlabel "sequence length T"
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

# plots/flashrnn-T-h200-time.gp: figure 'time' of experiment flashrnn-T, written by `logt plot experiments/flashrnn-T`
# from results/flashrnn-T-h200.h5 (commit e92967e); y = median_ms against x = T, one curve per value of series (model,kernel,pass)
# Re-render without logt: gnuplot plots/flashrnn-T-h200-time.gp  (writes the .png and .svg beside it)

$data << EOD
# index 0: flashrnn kernel=fused forward
64 0.1199039966
256 0.3532800078
1024 1.297664046
4096 4.919392109
16384 19.44358444


# index 1: flashrnn kernel=alternating forward
64 1.108351946
256 4.169280052
1024 17.09705544
4096 61.39011383
16384 244.9901428


# index 2: flashrnn kernel=fused fwdbwd
64 0.2923839986
256 0.8864319921
1024 3.28611207
4096 12.61359978
16384 50.27539062


# index 3: flashrnn kernel=alternating fwdbwd
64 2.284768105
256 6.741983891
1024 34.48112106
4096 131.6380157
16384 467.7189331


# index 4: lstm-cudnn forward
64 0.8753280044
256 3.394399881
1024 15.84201622
4096 71.05078125
16384 289.7492981


# index 5: lstm-cudnn fwdbwd
64 2.272095919
256 9.257375717
1024 32.45900726
4096 129.0103607
16384 533.3232422
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

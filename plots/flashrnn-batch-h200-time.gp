# plots/flashrnn-batch-h200-time.gp: figure 'time' of experiment flashrnn-batch, written by `logt plot experiments/flashrnn-batch`
# from results/flashrnn-batch-h200.h5 (commit 8a9d501); y = median_ms against x = B, one curve per value of series (model,kernel,pass)
# Re-render without logt: gnuplot plots/flashrnn-batch-h200-time.gp  (writes the .png and .svg beside it)

$data << EOD
# index 0: flashrnn kernel=fused forward
1 1.062271953
2 1.140128016
4 1.149407983
8 1.17612803
16 1.155040026
32 1.133471966
64 1.565343976
128 2.811007977
256 5.797247887


# index 1: flashrnn kernel=alternating forward
1 11.47561646
2 11.54806423
4 11.92435169
8 11.46751976
16 11.14608002
32 13.42956829
64 11.11436844
128 11.38009644
256 16.05625534


# index 2: flashrnn kernel=fused fwdbwd
1 2.665983915
2 2.814016104
4 2.890592098
8 3.005824089
16 3.180223942
32 3.408128023
64 4.462016106
128 8.237440109
256 13.90579224


# index 3: flashrnn kernel=alternating fwdbwd
1 22.72656059
2 24.35840034
4 23.0206089
8 23.77955246
16 22.18371201
32 24.04950333
64 23.31535912
128 26.04188728
256 35.56790543


# index 4: lstm-cudnn forward
1 16.90156746
2 17.65679932
4 18.13273621
8 11.97084808
16 13.49708843
32 11.74406433
64 12.43814373
128 12.2506876
256 12.91878414


# index 5: lstm-cudnn fwdbwd
1 41.634655
2 42.65862274
4 48.68025589
8 27.14313507
16 34.66281509
32 39.35942459
64 29.32352066
128 31.12960052
256 34.90985489
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

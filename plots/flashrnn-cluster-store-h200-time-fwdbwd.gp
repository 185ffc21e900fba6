# plots/flashrnn-cluster-store-h200-time-fwdbwd.gp: figure 'time-fwdbwd' of experiment flashrnn-cluster-store, written by `logt plot experiments/flashrnn-cluster-store`
# from results/flashrnn-cluster-store-h200.h5 (commit ec5919b); y = median_ms against x = head_dim, one curve per value of series (cluster_store,cell,dtype); where pass=fwdbwd
# Re-render without logt: gnuplot plots/flashrnn-cluster-store-h200-time-fwdbwd.gp  (writes the .png and .svg beside it)

$data << EOD
# index 0: cluster_store=cell lstm bf16
128 5.260384083
256 6.210783958


# index 1: cluster_store=copy lstm bf16
128 5.18166399
256 6.573152065


# index 2: cluster_store=cell gru bf16
128 4.820608139
256 5.482272148


# index 3: cluster_store=copy gru bf16
128 4.737952232
256 5.934368134


# index 4: cluster_store=cell lstm f32
128 8.515520096
256 12.61708832


# index 5: cluster_store=copy lstm f32
128 7.156735897
256 9.845600128


# index 6: cluster_store=cell gru f32
128 7.055295944
256 10.51235199


# index 7: cluster_store=copy gru f32
128 6.06089592
256 8.207360268
EOD

out = "plots/flashrnn-cluster-store-h200-time-fwdbwd"
if (exists("ARG0") && strlen(ARG0) > 3 && ARG0[strlen(ARG0)-2:] eq ".gp") out = ARG0[1:strlen(ARG0)-3]
set title "fused forward + backward, clusters, D = 768, B = 16, T = 1024: cell stores vs block copy"
set xlabel "head dim dh (series: how a block's part reaches the cluster)"
set ylabel "median time per pass (ms)"
set grid
set key outside right top
set style data linespoints
set terminal pngcairo size 1000,600 font "sans,11" noenhanced
set output out.".png"
plot $data index 0 using 1:2 title "cluster_store=cell lstm bf16", \
     $data index 1 using 1:2 title "cluster_store=copy lstm bf16", \
     $data index 2 using 1:2 title "cluster_store=cell gru bf16", \
     $data index 3 using 1:2 title "cluster_store=copy gru bf16", \
     $data index 4 using 1:2 title "cluster_store=cell lstm f32", \
     $data index 5 using 1:2 title "cluster_store=copy lstm f32", \
     $data index 6 using 1:2 title "cluster_store=cell gru f32", \
     $data index 7 using 1:2 title "cluster_store=copy gru f32"
set terminal svg size 1000,600 font "sans,11" noenhanced background rgb "white"
set output out.".svg"
replot
unset output

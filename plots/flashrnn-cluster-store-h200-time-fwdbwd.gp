# plots/flashrnn-cluster-store-h200-time-fwdbwd.gp: figure 'time-fwdbwd' of experiment flashrnn-cluster-store, written by `logt plot experiments/flashrnn-cluster-store`
# from results/flashrnn-cluster-store-h200.h5 (commit 39f616f); y = median_ms against x = head_dim, one curve per value of series (cluster_store,cell,dtype); where pass=fwdbwd
# Re-render without logt: gnuplot plots/flashrnn-cluster-store-h200-time-fwdbwd.gp  (writes the .png and .svg beside it)

$data << EOD
# index 0: cluster_store=cell lstm bf16
128 5.448095798
256 4.973599911


# index 1: cluster_store=copy lstm bf16
128 5.154687881
256 6.060927868


# index 2: cluster_store=cell gru bf16
128 4.923071861
256 4.618400097


# index 3: cluster_store=copy gru bf16
128 4.786015987
256 5.374847889


# index 4: cluster_store=cell lstm f32
128 5.774112225
256 7.016863823


# index 5: cluster_store=copy lstm f32
128 6.521408081
256 8.41097641


# index 6: cluster_store=cell gru f32
128 5.12432003
256 6.168255806


# index 7: cluster_store=copy gru f32
128 5.806911945
256 7.122432232
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

# plots/flashrnn-cluster-store-h200-time-forward.gp: figure 'time-forward' of experiment flashrnn-cluster-store, written by `logt plot experiments/flashrnn-cluster-store`
# from results/flashrnn-cluster-store-h200.h5 (commit 39f616f); y = median_ms against x = head_dim, one curve per value of series (cluster_store,cell,dtype); where pass=forward
# Re-render without logt: gnuplot plots/flashrnn-cluster-store-h200-time-forward.gp  (writes the .png and .svg beside it)

$data << EOD
# index 0: cluster_store=cell lstm bf16
128 2.321120024
256 1.958592057


# index 1: cluster_store=copy lstm bf16
128 2.232703924
256 2.256864071


# index 2: cluster_store=cell gru bf16
128 2.165855885
256 1.913056016


# index 3: cluster_store=copy gru bf16
128 2.08998394
256 2.138592005


# index 4: cluster_store=cell lstm f32
128 1.99574399
256 2.264352083


# index 5: cluster_store=copy lstm f32
128 2.205696106
256 2.63779211


# index 6: cluster_store=cell gru f32
128 1.853503942
256 2.166624069


# index 7: cluster_store=copy gru f32
128 2.048415899
256 2.47516799
EOD

out = "plots/flashrnn-cluster-store-h200-time-forward"
if (exists("ARG0") && strlen(ARG0) > 3 && ARG0[strlen(ARG0)-2:] eq ".gp") out = ARG0[1:strlen(ARG0)-3]
set title "fused forward, clusters, D = 768, B = 16, T = 1024: cell stores vs block copy"
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

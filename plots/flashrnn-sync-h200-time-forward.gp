# plots/flashrnn-sync-h200-time-forward.gp: figure 'time-forward' of experiment flashrnn-sync, written by `logt plot experiments/flashrnn-sync`
# from results/flashrnn-sync-h200.h5 (commit 39f616f); y = median_ms against x = head_dim, one curve per value of series (head_sync,cell,dtype); where pass=forward
# Re-render without logt: gnuplot plots/flashrnn-sync-h200-time-forward.gp  (writes the .png and .svg beside it)

$data << EOD
# index 0: head_sync=grid lstm bf16
128 2.426879883
256 2.089312077
768 2.523839951


# index 1: head_sync=cluster lstm bf16
128 2.304768085
256 1.954463959


# index 2: head_sync=grid gru bf16
128 2.196192026
256 1.900287986
768 2.295936108


# index 3: head_sync=cluster gru bf16
128 2.174655914
256 1.957631946


# index 4: head_sync=grid lstm f32
128 2.113951921
256 2.278208017


# index 5: head_sync=cluster lstm f32
128 2.002624035
256 2.302239895


# index 6: head_sync=grid gru f32
128 1.862879992
256 2.041791916


# index 7: head_sync=cluster gru f32
128 1.858687997
256 2.206815958
EOD

out = "plots/flashrnn-sync-h200-time-forward"
if (exists("ARG0") && strlen(ARG0) > 3 && ARG0[strlen(ARG0)-2:] eq ".gp") out = ARG0[1:strlen(ARG0)-3]
set title "fused forward, D = 768, B = 16, T = 1024: cluster vs global memory"
set xlabel "head dim dh (series: how a split head's blocks meet)"
set ylabel "median time per pass (ms)"
set grid
set key outside right top
set style data linespoints
set terminal pngcairo size 1000,600 font "sans,11" noenhanced
set output out.".png"
plot $data index 0 using 1:2 title "head_sync=grid lstm bf16", \
     $data index 1 using 1:2 title "head_sync=cluster lstm bf16", \
     $data index 2 using 1:2 title "head_sync=grid gru bf16", \
     $data index 3 using 1:2 title "head_sync=cluster gru bf16", \
     $data index 4 using 1:2 title "head_sync=grid lstm f32", \
     $data index 5 using 1:2 title "head_sync=cluster lstm f32", \
     $data index 6 using 1:2 title "head_sync=grid gru f32", \
     $data index 7 using 1:2 title "head_sync=cluster gru f32"
set terminal svg size 1000,600 font "sans,11" noenhanced background rgb "white"
set output out.".svg"
replot
unset output

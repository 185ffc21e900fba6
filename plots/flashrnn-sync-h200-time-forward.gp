# plots/flashrnn-sync-h200-time-forward.gp: figure 'time-forward' of experiment flashrnn-sync, written by `logt plot experiments/flashrnn-sync`
# from results/flashrnn-sync-h200.h5 (commit c23e009); y = median_ms against x = head_dim, one curve per value of series (head_sync,cell,dtype); where pass=forward
# Re-render without logt: gnuplot plots/flashrnn-sync-h200-time-forward.gp  (writes the .png and .svg beside it)

$data << EOD
# index 0: head_sync=grid lstm bf16
128 2.37353611
256 2.075903893
768 2.512160063


# index 1: head_sync=cluster lstm bf16
128 2.278975964
256 1.920799971


# index 2: head_sync=grid gru bf16
128 2.164416075
256 1.869663954
768 2.254528046


# index 3: head_sync=cluster gru bf16
128 2.119424105
256 1.943583965


# index 4: head_sync=grid lstm f32
128 2.087199926
256 2.250751972


# index 5: head_sync=cluster lstm f32
128 1.955135942
256 2.268863916


# index 6: head_sync=grid gru f32
128 1.821663976
256 2.006848097


# index 7: head_sync=cluster gru f32
128 1.810912013
256 2.142112017
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

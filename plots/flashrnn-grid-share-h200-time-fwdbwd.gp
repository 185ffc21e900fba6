# plots/flashrnn-grid-share-h200-time-fwdbwd.gp: figure 'time-fwdbwd' of experiment flashrnn-grid-share, written by `logt plot experiments/flashrnn-grid-share`
# from results/flashrnn-grid-share-h200.h5 (commit c23e009); y = median_ms against x = head_dim, one curve per value of series (grid_share,grad_overlap,cell); where pass=fwdbwd
# Re-render without logt: gnuplot plots/flashrnn-grid-share-h200-time-fwdbwd.gp  (writes the .png and .svg beside it)

$data << EOD
# index 0: grid_share=off grad_overlap=off lstm
256 5.547264099
768 6.923264027


# index 1: grid_share=off grad_overlap=auto lstm
256 5.565055847
768 6.913440228


# index 2: grid_share=auto grad_overlap=off lstm
256 5.515647888
768 6.306816101


# index 3: grid_share=auto grad_overlap=auto lstm
256 5.5219841
768 6.181087971


# index 4: grid_share=off grad_overlap=off gru
256 5.130752087
768 6.347743988


# index 5: grid_share=off grad_overlap=auto gru
256 5.141280174
768 6.449791908


# index 6: grid_share=auto grad_overlap=off gru
256 5.128128052
768 5.953728199


# index 7: grid_share=auto grad_overlap=auto gru
256 5.148352146
768 5.810815811
EOD

out = "plots/flashrnn-grid-share-h200-time-fwdbwd"
if (exists("ARG0") && strlen(ARG0) > 3 && ARG0[strlen(ARG0)-2:] eq ".gp") out = ARG0[1:strlen(ARG0)-3]
set title "fused forward + backward, head_sync = grid, D = 768, B = 16, T = 1024, bf16"
set xlabel "head dim dh (series: the backward's reload shared, the gradients beside it)"
set ylabel "median time per pass (ms)"
set grid
set key outside right top
set style data linespoints
set terminal pngcairo size 1000,600 font "sans,11" noenhanced
set output out.".png"
plot $data index 0 using 1:2 title "grid_share=off grad_overlap=off lstm", \
     $data index 1 using 1:2 title "grid_share=off grad_overlap=auto lstm", \
     $data index 2 using 1:2 title "grid_share=auto grad_overlap=off lstm", \
     $data index 3 using 1:2 title "grid_share=auto grad_overlap=auto lstm", \
     $data index 4 using 1:2 title "grid_share=off grad_overlap=off gru", \
     $data index 5 using 1:2 title "grid_share=off grad_overlap=auto gru", \
     $data index 6 using 1:2 title "grid_share=auto grad_overlap=off gru", \
     $data index 7 using 1:2 title "grid_share=auto grad_overlap=auto gru"
set terminal svg size 1000,600 font "sans,11" noenhanced background rgb "white"
set output out.".svg"
replot
unset output

# plots/flashrnn-grid-share-h200-time-fwdbwd.gp: figure 'time-fwdbwd' of experiment flashrnn-grid-share, written by `logt plot experiments/flashrnn-grid-share`
# from results/flashrnn-grid-share-h200.h5 (commit 8a9d501); y = median_ms against x = head_dim, one curve per value of series (grid_share,grad_overlap,cell); where pass=fwdbwd
# Re-render without logt: gnuplot plots/flashrnn-grid-share-h200-time-fwdbwd.gp  (writes the .png and .svg beside it)

$data << EOD
# index 0: grid_share=off grad_overlap=off lstm
256 5.167007923
768 6.525951862


# index 1: grid_share=off grad_overlap=auto lstm
256 5.170048237
768 6.522016048


# index 2: grid_share=auto grad_overlap=off lstm
256 5.176640034
768 5.961440086


# index 3: grid_share=auto grad_overlap=auto lstm
256 5.168447971
768 5.814559937


# index 4: grid_share=off grad_overlap=off gru
256 4.740608215
768 6.038847923


# index 5: grid_share=off grad_overlap=auto gru
256 4.761631966
768 6.037856102


# index 6: grid_share=auto grad_overlap=off gru
256 4.73731184
768 5.577824116


# index 7: grid_share=auto grad_overlap=auto gru
256 4.722752094
768 5.450463772
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

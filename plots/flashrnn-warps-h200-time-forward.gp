# plots/flashrnn-warps-h200-time-forward.gp: figure 'time-forward' of experiment flashrnn-warps, written by `logt plot experiments/flashrnn-warps`
# from results/flashrnn-warps-h200.h5 (commit b5c0325); y = median_ms against x = head_dim, one curve per value of series (warps_k,cell_split,cell); where pass=forward
# Re-render without logt: gnuplot plots/flashrnn-warps-h200-time-forward.gp  (writes the .png and .svg beside it)

$data << EOD
# index 0: warps_k=0 cell_split=1 lstm
32 1.431776047
64 1.466688037
128 2.851648092


# index 1: warps_k=0 cell_split=2 lstm
32 1.00467205
64 1.373759985
128 2.84700799


# index 2: warps_k=1 cell_split=1 lstm
32 1.423679948
64 1.460096002


# index 3: warps_k=1 cell_split=2 lstm
32 0.9890879989
64 1.353088021


# index 4: warps_k=2 cell_split=1 lstm
32 1.654144049
64 1.830943942
128 2.866015911


# index 5: warps_k=2 cell_split=2 lstm
32 1.307904005
64 1.787008047
128 2.807615995


# index 6: warps_k=0 cell_split=1 gru
32 1.249472022
64 1.343647957
128 2.756671906


# index 7: warps_k=0 cell_split=2 gru
32 0.9113919735
64 1.09651196
128 2.655008078


# index 8: warps_k=1 cell_split=1 gru
32 1.231999993
64 1.355360031


# index 9: warps_k=1 cell_split=2 gru
32 0.9126719832
64 1.096608043


# index 10: warps_k=2 cell_split=1 gru
32 1.446400046
64 1.521056056
128 2.770688057


# index 11: warps_k=2 cell_split=2 gru
32 1.208287954
64 1.505792022
128 2.648832083


# index 12: warps_k=4 cell_split=1 lstm
64 2.407936096
128 2.993887901


# index 13: warps_k=4 cell_split=2 lstm
64 2.79008007
128 2.733376026


# index 14: warps_k=4 cell_split=1 gru
64 2.902368069
128 2.764384031


# index 15: warps_k=4 cell_split=2 gru
64 2.696576118
128 2.609472036
EOD

out = "plots/flashrnn-warps-h200-time-forward"
if (exists("ARG0") && strlen(ARG0) > 3 && ARG0[strlen(ARG0)-2:] eq ".gp") out = ARG0[1:strlen(ARG0)-3]
set title "fused forward, D = 768, B = 16, T = 1024, bf16: time vs dh and warps_k"
set xlabel "head dim dh (series: warps_k; 0 is the tuner's choice)"
set ylabel "median time per pass (ms)"
set grid
set key outside right top
set style data linespoints
set terminal pngcairo size 1000,600 font "sans,11" noenhanced
set output out.".png"
plot $data index 0 using 1:2 title "warps_k=0 cell_split=1 lstm", \
     $data index 1 using 1:2 title "warps_k=0 cell_split=2 lstm", \
     $data index 2 using 1:2 title "warps_k=1 cell_split=1 lstm", \
     $data index 3 using 1:2 title "warps_k=1 cell_split=2 lstm", \
     $data index 4 using 1:2 title "warps_k=2 cell_split=1 lstm", \
     $data index 5 using 1:2 title "warps_k=2 cell_split=2 lstm", \
     $data index 6 using 1:2 title "warps_k=0 cell_split=1 gru", \
     $data index 7 using 1:2 title "warps_k=0 cell_split=2 gru", \
     $data index 8 using 1:2 title "warps_k=1 cell_split=1 gru", \
     $data index 9 using 1:2 title "warps_k=1 cell_split=2 gru", \
     $data index 10 using 1:2 title "warps_k=2 cell_split=1 gru", \
     $data index 11 using 1:2 title "warps_k=2 cell_split=2 gru", \
     $data index 12 using 1:2 title "warps_k=4 cell_split=1 lstm", \
     $data index 13 using 1:2 title "warps_k=4 cell_split=2 lstm", \
     $data index 14 using 1:2 title "warps_k=4 cell_split=1 gru", \
     $data index 15 using 1:2 title "warps_k=4 cell_split=2 gru"
set terminal svg size 1000,600 font "sans,11" noenhanced background rgb "white"
set output out.".svg"
replot
unset output

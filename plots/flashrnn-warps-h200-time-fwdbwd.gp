# plots/flashrnn-warps-h200-time-fwdbwd.gp: figure 'time-fwdbwd' of experiment flashrnn-warps, written by `logt plot experiments/flashrnn-warps`
# from results/flashrnn-warps-h200.h5 (commit b5c0325); y = median_ms against x = head_dim, one curve per value of series (warps_k,cell_split,cell); where pass=fwdbwd
# Re-render without logt: gnuplot plots/flashrnn-warps-h200-time-fwdbwd.gp  (writes the .png and .svg beside it)

$data << EOD
# index 0: warps_k=0 cell_split=1 lstm
32 3.678911924
64 3.793535948
128 7.523551941


# index 1: warps_k=0 cell_split=2 lstm
32 2.805023909
64 3.466752052
128 7.414624214


# index 2: warps_k=1 cell_split=1 lstm
32 3.678560019
64 3.795680046


# index 3: warps_k=1 cell_split=2 lstm
32 2.787679911
64 3.467168093


# index 4: warps_k=2 cell_split=1 lstm
32 3.707103968
64 4.224383831
128 7.560095787


# index 5: warps_k=2 cell_split=2 lstm
32 3.228032112
64 4.209280014
128 7.440735817


# index 6: warps_k=0 cell_split=1 gru
32 3.170752048
64 3.447040081
128 6.861248016


# index 7: warps_k=0 cell_split=2 gru
32 2.469664097
64 2.961152077
128 6.666975975


# index 8: warps_k=1 cell_split=1 gru
32 3.154815912
64 3.458944082


# index 9: warps_k=1 cell_split=2 gru
32 2.466880083
64 2.972448111


# index 10: warps_k=2 cell_split=1 gru
32 3.292448044
64 3.673311949
128 6.868671894


# index 11: warps_k=2 cell_split=2 gru
32 2.848160028
64 3.634815931
128 6.644544125


# index 12: warps_k=4 cell_split=1 lstm
64 5.381216049
128 7.554336071


# index 13: warps_k=4 cell_split=2 lstm
64 7.241375923
128 7.109792233


# index 14: warps_k=4 cell_split=1 gru
64 5.483679771
128 6.782112122


# index 15: warps_k=4 cell_split=2 gru
64 6.553919792
128 6.430528164
EOD

out = "plots/flashrnn-warps-h200-time-fwdbwd"
if (exists("ARG0") && strlen(ARG0) > 3 && ARG0[strlen(ARG0)-2:] eq ".gp") out = ARG0[1:strlen(ARG0)-3]
set title "fused forward + backward, D = 768, B = 16, T = 1024, bf16: time vs dh and warps_k"
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

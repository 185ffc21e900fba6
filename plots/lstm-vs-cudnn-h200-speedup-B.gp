# plots/lstm-vs-cudnn-h200-speedup-B.gp: figure 'speedup-B' of experiment lstm-vs-cudnn, written by `logt plot experiments/lstm-vs-cudnn`
# from results/lstm-vs-cudnn-h200.h5 (commit b158314); y = median_ms against x = B, one curve per value of series (algo,D); where pass=fwdbwd, T=1024, math=fp32; divided into the median_ms value of baseline model=lstm
# Re-render without logt: gnuplot plots/lstm-vs-cudnn-h200-speedup-B.gp  (writes the .png and .svg beside it)

$data << EOD
# index 0: algo=standard D=256
1 1.089324497
16 1.640750551
64 0.9671020158


# index 1: algo=persist_static D=256
1 9.338325865
16 1.195896642
64 0.4087770266


# index 2: algo=standard D=768
1 1.040593219
16 0.9640037724
64 0.8168382338


# index 3: algo=persist_static D=768
1 5.532663684
16 0.9690604112
64 0.4843448722


# index 4: algo=standard D=1024
1 0.8295837087
16 0.824737487
64 0.7664612392


# index 5: algo=persist_static D=1024
1 2.237256138
16 0.4314946889
64 0.2256681913
EOD

out = "plots/lstm-vs-cudnn-h200-speedup-B"
if (exists("ARG0") && strlen(ARG0) > 3 && ARG0[strlen(ARG0)-2:] eq ".gp") out = ARG0[1:strlen(ARG0)-3]
set title "cuDNN's speedup over our LSTM vs batch, forward + backward, T = 1024, fp32"
set xlabel "batch B"
set ylabel "speedup of cuDNN over lstm (lstm time / cuDNN time)"
set grid
set key outside right top
set style data linespoints
set logscale x 2
set arrow from graph 0, first 1 to graph 1, first 1 nohead dt 2
set terminal pngcairo size 1000,600 font "sans,11" noenhanced
set output out.".png"
plot $data index 0 using 1:2 title "algo=standard D=256", \
     $data index 1 using 1:2 title "algo=persist_static D=256", \
     $data index 2 using 1:2 title "algo=standard D=768", \
     $data index 3 using 1:2 title "algo=persist_static D=768", \
     $data index 4 using 1:2 title "algo=standard D=1024", \
     $data index 5 using 1:2 title "algo=persist_static D=1024"
set terminal svg size 1000,600 font "sans,11" noenhanced background rgb "white"
set output out.".svg"
replot
unset output

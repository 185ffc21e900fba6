# plots/lstm-vs-cudnn-h200-speedup-T.gp: figure 'speedup-T' of experiment lstm-vs-cudnn, written by `logt plot experiments/lstm-vs-cudnn`
# from results/lstm-vs-cudnn-h200.h5 (commit b158314); y = median_ms against x = T, one curve per value of series (algo,math,pass); where D=768, B=16; divided into the median_ms value of baseline model=lstm
# Re-render without logt: gnuplot plots/lstm-vs-cudnn-h200-speedup-T.gp  (writes the .png and .svg beside it)

$data << EOD
# index 0: algo=standard math=fp32 forward
256 1.023634409
1024 1.124264884
4096 1.224798229


# index 1: algo=standard math=tf32 forward
256 1.294647519
1024 1.250293916
4096 1.449078515


# index 2: algo=persist_static math=fp32 forward
256 1.130724928
1024 1.24021771
4096 1.312830527


# index 3: algo=persist_static math=tf32 forward
256 1.21103937
1024 1.348070917
4096 1.412116144


# index 4: algo=standard math=fp32 fwdbwd
256 1.003589804
1024 0.9640037724
4096 0.891788334


# index 5: algo=standard math=tf32 fwdbwd
256 1.179646636
1024 1.21210006
4096 0.9732992821


# index 6: algo=persist_static math=fp32 fwdbwd
256 1.004815
1024 0.9690604112
4096 0.8835782176


# index 7: algo=persist_static math=tf32 fwdbwd
256 1.104095695
1024 1.072823097
4096 0.9774325887
EOD

out = "plots/lstm-vs-cudnn-h200-speedup-T"
if (exists("ARG0") && strlen(ARG0) > 3 && ARG0[strlen(ARG0)-2:] eq ".gp") out = ARG0[1:strlen(ARG0)-3]
set title "cuDNN's speedup over our LSTM, D = 768, B = 16"
set xlabel "sequence length T"
set ylabel "speedup of cuDNN over lstm (lstm time / cuDNN time)"
set grid
set key outside right top
set style data linespoints
set logscale x 2
set arrow from graph 0, first 1 to graph 1, first 1 nohead dt 2
set terminal pngcairo size 1000,600 font "sans,11" noenhanced
set output out.".png"
plot $data index 0 using 1:2 title "algo=standard math=fp32 forward", \
     $data index 1 using 1:2 title "algo=standard math=tf32 forward", \
     $data index 2 using 1:2 title "algo=persist_static math=fp32 forward", \
     $data index 3 using 1:2 title "algo=persist_static math=tf32 forward", \
     $data index 4 using 1:2 title "algo=standard math=fp32 fwdbwd", \
     $data index 5 using 1:2 title "algo=standard math=tf32 fwdbwd", \
     $data index 6 using 1:2 title "algo=persist_static math=fp32 fwdbwd", \
     $data index 7 using 1:2 title "algo=persist_static math=tf32 fwdbwd"
set terminal svg size 1000,600 font "sans,11" noenhanced background rgb "white"
set output out.".svg"
replot
unset output

# plots/sru-speed-c54cc48-h200-time-fwdbwd.gp: figure 'time-fwdbwd' of experiment sru-speed, written by `logt plot experiments/sru-speed`
# from results/sru-speed-c54cc48-h200.h5 (commit c54cc48); y = median_ms against x = T, one curve per value of series (model,math,D); where pass=fwdbwd
# Re-render without logt: gnuplot plots/sru-speed-c54cc48-h200-time-fwdbwd.gp  (writes the .png and .svg beside it)

$data << EOD
# index 0: sru math=fp32 D=256
32 0.09219200164
64 0.1336320043
128 0.2237759978
256 0.3967039883
512 0.7216640115
1024 1.399968028
2048 2.762495995
4096 5.431359768


# index 1: sru math=tf32 D=256
32 0.06121600047
64 0.08956799656
128 0.1424960047
256 0.229279995
512 0.4117119908
1024 0.7888000011
2048 1.481343985
4096 2.924448013


# index 2: sru math=3xtf32 D=256
32 0.1164480001
64 0.1597760022
128 0.2442879975
256 0.4358719885
512 0.8355519772
1024 1.537215948
2048 2.976831913
4096 5.844992161


# index 3: sru math=fp32 D=512
32 0.1851200014
64 0.3068160117
128 0.5721279979
256 1.017567992
512 1.93244803
1024 3.799455881
2048 7.388768196
4096 14.64835167


# index 4: sru math=tf32 D=512
32 0.08991999924
64 0.1284479946
128 0.2130559981
256 0.3614400029
512 0.6648960114
1024 1.29590404
2048 2.424511909
4096 4.806047916


# index 5: sru math=3xtf32 D=512
32 0.1684159935
64 0.2584640086
128 0.4608319998
256 0.8463039994
512 1.646432042
1024 3.234143972
2048 6.317664146
4096 12.49820805


# index 6: lstm-cudnn math=fp32 D=256
32 1.380543947
64 2.796159983
128 4.218016148
256 8.418848038
512 20.47795105
1024 34.1356163
2048 67.85984039
4096 141.8447113


# index 7: lstm-cudnn math=fp32 D=512
32 1.606176019
64 3.228895903
128 6.529600143
256 12.67833614
512 25.30060768
1024 49.49737549
2048 97.41216278
4096 192.7562256
EOD

out = "plots/sru-speed-c54cc48-h200-time-fwdbwd"
if (exists("ARG0") && strlen(ARG0) > 3 && ARG0[strlen(ARG0)-2:] eq ".gp") out = ARG0[1:strlen(ARG0)-3]
set title "forward + backward, B = 32: median time of one batch vs T"
set xlabel "sequence length T"
set ylabel "median time per pass (ms)"
set grid
set key outside right top
set style data linespoints
set logscale x 2
set logscale y
set terminal pngcairo size 1000,600 font "sans,11" noenhanced
set output out.".png"
plot $data index 0 using 1:2 title "sru math=fp32 D=256", \
     $data index 1 using 1:2 title "sru math=tf32 D=256", \
     $data index 2 using 1:2 title "sru math=3xtf32 D=256", \
     $data index 3 using 1:2 title "sru math=fp32 D=512", \
     $data index 4 using 1:2 title "sru math=tf32 D=512", \
     $data index 5 using 1:2 title "sru math=3xtf32 D=512", \
     $data index 6 using 1:2 title "lstm-cudnn math=fp32 D=256", \
     $data index 7 using 1:2 title "lstm-cudnn math=fp32 D=512"
set terminal svg size 1000,600 font "sans,11" noenhanced background rgb "white"
set output out.".svg"
replot
unset output

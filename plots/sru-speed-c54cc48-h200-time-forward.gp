# plots/sru-speed-c54cc48-h200-time-forward.gp: figure 'time-forward' of experiment sru-speed, written by `logt plot experiments/sru-speed`
# from results/sru-speed-c54cc48-h200.h5 (commit c54cc48); y = median_ms against x = T, one curve per value of series (model,math,D); where pass=forward
# Re-render without logt: gnuplot plots/sru-speed-c54cc48-h200-time-forward.gp  (writes the .png and .svg beside it)

$data << EOD
# index 0: sru math=fp32 D=256
32 0.03913599998
64 0.05507199839
128 0.08604799956
256 0.1601919979
512 0.2635520101
1024 0.5031039715
2048 0.966975987
4096 1.938143969


# index 1: sru math=tf32 D=256
32 0.02783999965
64 0.04560000077
128 0.06281600147
256 0.09030400217
512 0.1458240002
1024 0.2708159983
2048 0.5061439872
4096 1.046496034


# index 2: sru math=3xtf32 D=256
32 0.04124800116
64 0.06028800085
128 0.0742719993
256 0.1199679971
512 0.2128639966
1024 0.3902719915
2048 0.7514560223
4096 1.473343968


# index 3: sru math=fp32 D=512
32 0.06969600171
64 0.123552002
128 0.2241919935
256 0.3417919874
512 0.6593279839
1024 1.284031987
2048 2.562367916
4096 4.990623951


# index 4: sru math=tf32 D=512
32 0.03734400123
64 0.05711999908
128 0.07420799881
256 0.1213119999
512 0.2091200054
1024 0.3714559972
2048 0.70352
4096 1.410367966


# index 5: sru math=3xtf32 D=512
32 0.05833600089
64 0.08329600096
128 0.1250880063
256 0.2181120068
512 0.3878079951
1024 0.7224000096
2048 1.383648038
4096 2.742719889


# index 6: lstm-cudnn math=fp32 D=256
32 0.5069760084
64 1.243296027
128 1.922719955
256 3.85296011
512 9.857248306
1024 15.25852776
2048 31.95798492
4096 76.60886383


# index 7: lstm-cudnn math=fp32 D=512
32 0.7915840149
64 1.607136011
128 3.231872082
256 6.405375957
512 12.74505615
1024 25.21567917
2048 49.18396759
4096 97.45257568
EOD

out = "plots/sru-speed-c54cc48-h200-time-forward"
if (exists("ARG0") && strlen(ARG0) > 3 && ARG0[strlen(ARG0)-2:] eq ".gp") out = ARG0[1:strlen(ARG0)-3]
set title "forward only, B = 32: median time of one batch vs T"
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

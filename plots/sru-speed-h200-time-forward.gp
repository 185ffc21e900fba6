# plots/sru-speed-h200-time-forward.gp: figure 'time-forward' of experiment sru-speed, written by `logt plot experiments/sru-speed`
# from results/sru-speed-h200.h5 (commit 5a6cef7); y = median_ms against x = T, one curve per value of series (model,math,D); where pass=forward
# Re-render without logt: gnuplot plots/sru-speed-h200-time-forward.gp  (writes the .png and .svg beside it)

$data << EOD
# index 0: sru math=fp32 D=256
32 0.02816000022
64 0.04140799865
128 0.0754080005
256 0.1456640065
512 0.2476160005
1024 0.4848479927
2048 0.9599040151
4096 1.90051198


# index 1: sru math=tf32 D=256
32 0.01715200022
64 0.02542399988
128 0.04228800163
256 0.07115199789
512 0.1313759983
1024 0.2568320036
2048 0.4952159971
4096 0.9810079932


# index 2: sru math=3xtf32 D=256
32 0.02960000001
64 0.04399999976
128 0.07150400057
256 0.1082879975
512 0.2042400017
1024 0.379136011
2048 0.7274560034
4096 1.421424031


# index 3: sru math=fp32 D=512
32 0.05646400154
64 0.1063839979
128 0.2070560008
256 0.3267039955
512 0.6418719888
1024 1.26937598
2048 2.511919975
4096 4.923791885


# index 4: sru math=tf32 D=512
32 0.02179200016
64 0.03510400094
128 0.05467199907
256 0.1002240032
512 0.1876640022
1024 0.3564639986
2048 0.6880959868
4096 1.368544042


# index 5: sru math=3xtf32 D=512
32 0.04870400019
64 0.07672000304
128 0.128895998
256 0.2094239965
512 0.3744800091
1024 0.6994879842
2048 1.345360041
4096 2.666800022


# index 6: lstm-cudnn math=fp32 D=256
32 0.4401919991
64 0.8071040213
128 1.969775975
256 4.471264124
512 6.852207899
1024 14.81256008
2048 30.77336025
4096 61.25865555


# index 7: lstm-cudnn math=fp32 D=512
32 0.8281920254
64 1.623167992
128 3.261439919
256 6.388367891
512 12.3746562
1024 24.88739204
2048 48.82276726
4096 97.12070084


# index 8: lstm D=256
32 0.3889760077
64 1.042879999
128 2.540847898
256 5.470831871
512 11.87232018
1024 24.5663681
2048 46.92441559
4096 69.49235153


# index 9: lstm D=512
32 0.5498400033
64 1.094799995
128 2.597599983
256 5.760400057
512 12.04433584
1024 23.91193581
2048 36.4005909
4096 76.26792145
EOD

out = "plots/sru-speed-h200-time-forward"
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
     $data index 7 using 1:2 title "lstm-cudnn math=fp32 D=512", \
     $data index 8 using 1:2 title "lstm D=256", \
     $data index 9 using 1:2 title "lstm D=512"
set terminal svg size 1000,600 font "sans,11" noenhanced background rgb "white"
set output out.".svg"
replot
unset output

# plots/sru-speed-h200-time-fwdbwd.gp: figure 'time-fwdbwd' of experiment sru-speed, written by `logt plot experiments/sru-speed`
# from results/sru-speed-h200.h5 (commit 5a6cef7); y = median_ms against x = T, one curve per value of series (model,math,D); where pass=fwdbwd
# Re-render without logt: gnuplot plots/sru-speed-h200-time-fwdbwd.gp  (writes the .png and .svg beside it)

$data << EOD
# index 0: sru math=fp32 D=256
32 0.07952000201
64 0.1213920005
128 0.2121120021
256 0.3868640065
512 0.7116159797
1024 1.377503991
2048 2.709375978
4096 5.36750412


# index 1: sru math=tf32 D=256
32 0.05318399891
64 0.07368000224
128 0.1236960031
256 0.2151039988
512 0.3959520012
1024 0.7652960122
2048 1.463904023
4096 2.866431952


# index 2: sru math=3xtf32 D=256
32 0.09459199756
64 0.1379360035
128 0.2153600007
256 0.3793120086
512 0.6965759993
1024 1.304448009
2048 2.435984015
4096 4.692080021


# index 3: sru math=fp32 D=512
32 0.1688319966
64 0.2956160009
128 0.554527998
256 0.9994239807
512 1.912672043
1024 3.732688069
2048 7.361760139
4096 14.5437603


# index 4: sru math=tf32 D=512
32 0.07196799666
64 0.1134719998
128 0.1914720014
256 0.3476159871
512 0.6486560106
1024 1.240831971
2048 2.401744008
4096 4.724272013


# index 5: sru math=3xtf32 D=512
32 0.1508480012
64 0.2445600033
128 0.4214880019
256 0.7973279953
512 1.458176017
1024 2.771615982
2048 5.350144148
4096 10.49694395


# index 6: lstm-cudnn math=fp32 D=256
32 0.9629279971
64 2.46153605
128 4.845951796
256 8.02131176
512 18.65966415
1024 33.03140831
2048 67.05764771
4096 134.2996826


# index 7: lstm-cudnn math=fp32 D=512
32 1.637919962
64 3.137232065
128 6.280719995
256 12.73791981
512 25.38115215
1024 49.16612816
2048 97.48049927
4096 192.7760162


# index 8: lstm D=256
32 0.9641600251
64 2.41683197
128 5.019439936
256 11.48668766
512 23.05817604
1024 45.05700684
2048 71.36531067
4096 139.0091324


# index 9: lstm D=512
32 1.114143968
64 2.470576048
128 5.372800112
256 12.06103992
512 25.62263966
1024 50.58465576
2048 84.57468796
4096 160.4693451
EOD

out = "plots/sru-speed-h200-time-fwdbwd"
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
     $data index 7 using 1:2 title "lstm-cudnn math=fp32 D=512", \
     $data index 8 using 1:2 title "lstm D=256", \
     $data index 9 using 1:2 title "lstm D=512"
set terminal svg size 1000,600 font "sans,11" noenhanced background rgb "white"
set output out.".svg"
replot
unset output

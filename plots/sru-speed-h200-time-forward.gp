# plots/sru-speed-h200-time-forward.gp: figure 'time-forward' of experiment sru-speed, written by `logt plot experiments/sru-speed`
# from results/sru-speed-h200.h5 (commit 5d483a3); y = median_ms against x = T, one curve per value of series (model,math,D); where pass=forward
# Re-render without logt: gnuplot plots/sru-speed-h200-time-forward.gp  (writes the .png and .svg beside it)

$data << EOD
# index 0: sru math=fp32 D=256
32 0.03718400002
64 0.05116799846
128 0.08252800256
256 0.1518079937
512 0.2560960054
1024 0.4951040149
2048 0.972383976
4096 1.908511996


# index 1: sru math=tf32 D=256
32 0.02252800018
64 0.03641600162
128 0.05334400013
256 0.0818239972
512 0.1470080018
1024 0.2669120133
2048 0.50752002
4096 0.9951040149


# index 2: sru math=fp32 D=512
32 0.06447999924
64 0.1144960001
128 0.2145919949
256 0.3360640109
512 0.658272028
1024 1.280287981
2048 2.520992041
4096 4.930367947


# index 3: sru math=tf32 D=512
32 0.03190400079
64 0.04505600035
128 0.06611199677
256 0.1093439981
512 0.1993599981
1024 0.3728959858
2048 0.7069119811
4096 1.393216014


# index 4: lstm-cudnn math=fp32 D=256
32 0.6731200218
64 1.164415956
128 2.155040026
256 4.152160168
512 7.438560009
1024 17.2746563
2048 29.0284481
4096 57.04463959


# index 5: lstm-cudnn math=fp32 D=512
32 0.7928959727
64 1.677055955
128 3.35692811
256 6.481855869
512 13.03894424
1024 25.43427277
2048 49.38425446
4096 99.47289276


# index 6: lstm D=256
32 0.5120639801
64 1.017632008
128 2.047584057
256 3.98409605
512 8.380064011
1024 16.12947273
2048 40.6595192
4096 66.31520081


# index 7: lstm D=512
32 0.5612480044
64 1.115296006
128 2.315392017
256 4.603487968
512 10.51286411
1024 18.50246429
2048 40.7731514
4096 73.87910461
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
     $data index 2 using 1:2 title "sru math=fp32 D=512", \
     $data index 3 using 1:2 title "sru math=tf32 D=512", \
     $data index 4 using 1:2 title "lstm-cudnn math=fp32 D=256", \
     $data index 5 using 1:2 title "lstm-cudnn math=fp32 D=512", \
     $data index 6 using 1:2 title "lstm D=256", \
     $data index 7 using 1:2 title "lstm D=512"
set terminal svg size 1000,600 font "sans,11" noenhanced background rgb "white"
set output out.".svg"
replot
unset output

# plots/sru-speed-h200-time-forward.gp: figure 'time-forward' of experiment sru-speed, written by `logt plot experiments/sru-speed`
# from results/sru-speed-h200.h5 (commit fa58a58); y = median_ms against x = T, one curve per value of series (model,math,D); where pass=forward
# Re-render without logt: gnuplot plots/sru-speed-h200-time-forward.gp  (writes the .png and .svg beside it)

$data << EOD
# index 0: sru math=fp32 D=256
32 0.03859199956
64 0.05603199825
128 0.08579199761
256 0.1570879966
512 0.2585279942
1024 0.5387520194
2048 1.004768014
4096 1.954496026


# index 1: sru math=tf32 D=256
32 0.02748800069
64 0.04419200122
128 0.05708799884
256 0.08416000009
512 0.1483200043
1024 0.3243199885
2048 0.5181120038
4096 1.037215948


# index 2: sru math=3xtf32 D=256
32 0.04777599871
64 0.06319999695
128 0.07161600143
256 0.1174400002
512 0.2188799977
1024 0.4148159921
2048 0.7791039944
4096 1.468863964


# index 3: sru math=fp32 D=512
32 0.07171200216
64 0.1219519973
128 0.2231680006
256 0.3415040076
512 0.7033600211
1024 1.333791971
2048 2.564575911
4096 4.980512142


# index 4: sru math=tf32 D=512
32 0.04272000119
64 0.055904001
128 0.06812799722
256 0.1139520034
512 0.2381120026
1024 0.3924160004
2048 0.7244799733
4096 1.390912056


# index 5: sru math=3xtf32 D=512
32 0.06243199855
64 0.08111999929
128 0.1242239997
256 0.223360002
512 0.41129601
1024 0.7561280131
2048 1.38448
4096 2.679296017


# index 6: lstm-cudnn math=fp32 D=256
32 0.769216001
64 1.445760012
128 2.13270402
256 5.595424175
512 16.47222328
1024 31.6941433
2048 41.94652939
4096 98.15084839


# index 7: lstm-cudnn math=fp32 D=512
32 0.7856960297
64 1.56428802
128 3.34800005
256 6.143199921
512 16.66239929
1024 32.54940796
2048 48.27600098
4096 104.4773788


# index 8: lstm D=256
32 0.8478400111
64 1.758144021
128 3.503488064
256 6.941055775
512 13.97523212
1024 26.75174332
2048 59.14889526
4096 109.9454727


# index 9: lstm D=512
32 0.8443520069
64 1.746368051
128 3.608799934
256 6.967296124
512 13.3413763
1024 27.26086426
2048 56.40108871
4096 98.37792206
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

# plots/sru-speed-h200-time-fwdbwd.gp: figure 'time-fwdbwd' of experiment sru-speed, written by `logt plot experiments/sru-speed`
# from results/sru-speed-h200.h5 (commit fa58a58); y = median_ms against x = T, one curve per value of series (model,math,D); where pass=fwdbwd
# Re-render without logt: gnuplot plots/sru-speed-h200-time-fwdbwd.gp  (writes the .png and .svg beside it)

$data << EOD
# index 0: sru math=fp32 D=256
32 0.08991999924
64 0.138815999
128 0.2215999961
256 0.3978880048
512 0.7227839828
1024 1.453727961
2048 2.728512049
4096 5.446815968


# index 1: sru math=tf32 D=256
32 0.06950400025
64 0.09203200042
128 0.136063993
256 0.2281920016
512 0.4119040072
1024 0.8316159844
2048 1.488703966
4096 2.930272102


# index 2: sru math=3xtf32 D=256
32 0.1790399998
64 0.1785279959
128 0.2555199862
256 0.4164800048
512 0.7641280293
1024 1.42790401
2048 2.614847898
4096 4.919392109


# index 3: sru math=fp32 D=512
32 0.1848960072
64 0.3047359884
128 0.5646079779
256 1.022528052
512 1.977504015
1024 3.779295921
2048 7.466591835
4096 14.67305565


# index 4: sru math=tf32 D=512
32 0.09097599983
64 0.1277759969
128 0.2054399997
256 0.3651199937
512 0.7096639872
1024 1.251423955
2048 2.469183922
4096 4.826079845


# index 5: sru math=3xtf32 D=512
32 0.2058880031
64 0.2992959917
128 0.4831680059
256 0.8778240085
512 1.600543976
1024 2.95955205
2048 5.612287998
4096 10.88694382


# index 6: lstm-cudnn math=fp32 D=256
32 1.306911945
64 3.131551981
128 4.541247845
256 11.56854439
512 33.22435379
1024 65.4450531
2048 92.72057343
4096 202.7577972


# index 7: lstm-cudnn math=fp32 D=512
32 1.666399956
64 3.195519924
128 6.447135925
256 17.93283272
512 34.65631866
1024 52.27072144
2048 105.9543686
4096 201.5463409


# index 8: lstm D=256
32 1.681216002
64 3.352511883
128 6.634496212
256 13.15104008
512 26.30428886
1024 50.31894302
2048 104.7165451
4096 165.0394287


# index 9: lstm D=512
32 1.873600006
64 3.564896107
128 7.296000004
256 14.17520046
512 27.21696091
1024 53.13081741
2048 81.23033905
4096 173.9582977
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

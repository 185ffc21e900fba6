# plots/sru-speed-h200-time-fwdbwd.gp: figure 'time-fwdbwd' of experiment sru-speed, written by `logt plot experiments/sru-speed`
# from results/sru-speed-h200.h5 (commit 5d483a3); y = median_ms against x = T, one curve per value of series (model,math,D); where pass=fwdbwd
# Re-render without logt: gnuplot plots/sru-speed-h200-time-fwdbwd.gp  (writes the .png and .svg beside it)

$data << EOD
# index 0: sru math=fp32 D=256
32 0.08742400259
64 0.1312640011
128 0.2201279998
256 0.3911679983
512 0.7178879976
1024 1.386816025
2048 2.706111908
4096 5.34601593


# index 1: sru math=tf32 D=256
32 0.05980800092
64 0.08454400301
128 0.1344320029
256 0.2296639979
512 0.4045439959
1024 0.7786560059
2048 1.47260797
4096 2.860287905


# index 2: sru math=fp32 D=512
32 0.1734080017
64 0.3017919958
128 0.5595200062
256 1.007840037
512 1.933087945
1024 3.749504089
2048 7.362783909
4096 14.52838421


# index 3: sru math=tf32 D=512
32 0.08124800026
64 0.1240319982
128 0.2031680048
256 0.3559359908
512 0.6639040112
1024 1.246816039
2048 2.41456008
4096 4.809120178


# index 4: lstm-cudnn math=fp32 D=256
32 1.335072041
64 2.237375975
128 4.586559772
256 9.207936287
512 16.51049614
1024 35.44070435
2048 65.67596436
4096 132.543808


# index 5: lstm-cudnn math=fp32 D=512
32 1.649536014
64 3.239295959
128 6.512703896
256 12.72480011
512 25.47327995
1024 49.55075073
2048 98.7488327
4096 195.6278687


# index 6: lstm D=256
32 1.047423959
64 2.037503958
128 3.968031883
256 8.042431831
512 15.69830418
1024 31.4186554
2048 62.96239853
4096 129.7143402


# index 7: lstm D=512
32 1.142815948
64 2.220383883
128 4.498559952
256 8.994848251
512 17.90361595
1024 36.05750275
2048 85.42559814
4096 152.4039307
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

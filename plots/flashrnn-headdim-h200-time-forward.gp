# plots/flashrnn-headdim-h200-time-forward.gp: figure 'time-forward' of experiment flashrnn-headdim, written by `logt plot experiments/flashrnn-headdim`
# from results/flashrnn-headdim-h200.h5 (commit b5c0325); y = median_ms against x = head_dim, one curve per value of series (model,kernel,cell,dtype); where pass=forward
# Re-render without logt: gnuplot plots/flashrnn-headdim-h200-time-forward.gp  (writes the .png and .svg beside it)

$data << EOD
# index 0: flashrnn kernel=fused lstm bf16
16 1.160832047
32 1.011615992
64 1.401280046
128 2.824127913
256 2.650592089
768 3.562943935


# index 1: flashrnn kernel=alternating lstm bf16
16 16.40524864
32 15.79404831
64 16.11641693
128 12.04268837
256 16.63708878
768 10.97935963


# index 2: flashrnn kernel=fused gru bf16
16 0.9687359929
32 0.9489600062
64 1.12390399
128 2.642751932
256 2.534431934
768 3.408256054


# index 3: flashrnn kernel=alternating gru bf16
16 16.05311966
32 16.34297562
64 16.25103951
128 12.33014393
256 16.55337524
768 12.41689587


# index 4: flashrnn kernel=fused lstm f32
16 1.073215961
32 1.131296039
64 1.860800028
128 2.97913599
256 3.360991955


# index 5: flashrnn kernel=alternating lstm f32
16 19.16783905
32 14.74457645
64 11.03577614
128 14.48646355
256 12.81824017
768 15.82115173


# index 6: flashrnn kernel=fused gru f32
16 0.9475200176
32 1.037215948
64 1.744992018
128 2.79817605
256 3.232928038


# index 7: flashrnn kernel=alternating gru f32
16 19.31779289
32 15.02118397
64 14.02230358
128 10.80291176
256 13.03964806
768 17.05574417


# index 8: lstm-cudnn lstm bf16
768 13.24227238


# index 9: lstm-cudnn lstm f32
768 18.77692795


# index 10: lstm lstm f32
768 21.79865646
EOD

out = "plots/flashrnn-headdim-h200-time-forward"
if (exists("ARG0") && strlen(ARG0) > 3 && ARG0[strlen(ARG0)-2:] eq ".gp") out = ARG0[1:strlen(ARG0)-3]
set title "forward, D = 768, B = 16, T = 1024: median time vs head dim"
set xlabel "head dim dh (D = 768)"
set ylabel "median time per pass (ms)"
set grid
set key outside right top
set style data linespoints
set logscale x 10
set logscale y
set terminal pngcairo size 1000,600 font "sans,11" noenhanced
set output out.".png"
plot $data index 0 using 1:2 title "flashrnn kernel=fused lstm bf16", \
     $data index 1 using 1:2 title "flashrnn kernel=alternating lstm bf16", \
     $data index 2 using 1:2 title "flashrnn kernel=fused gru bf16", \
     $data index 3 using 1:2 title "flashrnn kernel=alternating gru bf16", \
     $data index 4 using 1:2 title "flashrnn kernel=fused lstm f32", \
     $data index 5 using 1:2 title "flashrnn kernel=alternating lstm f32", \
     $data index 6 using 1:2 title "flashrnn kernel=fused gru f32", \
     $data index 7 using 1:2 title "flashrnn kernel=alternating gru f32", \
     $data index 8 using 1:2 title "lstm-cudnn lstm bf16", \
     $data index 9 using 1:2 title "lstm-cudnn lstm f32", \
     $data index 10 using 1:2 title "lstm lstm f32"
set terminal svg size 1000,600 font "sans,11" noenhanced background rgb "white"
set output out.".svg"
replot
unset output

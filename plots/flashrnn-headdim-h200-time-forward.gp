# plots/flashrnn-headdim-h200-time-forward.gp: figure 'time-forward' of experiment flashrnn-headdim, written by `logt plot experiments/flashrnn-headdim`
# from results/flashrnn-headdim-h200.h5 (commit b44bbd0-dirty); y = median_ms against x = head_dim, one curve per value of series (model,kernel,cell,dtype); where pass=forward
# Re-render without logt: gnuplot plots/flashrnn-headdim-h200-time-forward.gp  (writes the .png and .svg beside it)

$data << EOD
# index 0: flashrnn kernel=fused lstm bf16
16 0.8450559974
32 0.7977600098
64 1.151039958
128 2.125632048
256 1.898687959
768 2.293504


# index 1: flashrnn kernel=alternating lstm bf16
16 19.32540894
32 19.26835251
64 19.46732712
128 18.71539116
256 16.98988724
768 17.94729614


# index 2: flashrnn kernel=fused gru bf16
16 0.7807040215
32 0.7964479923
64 0.9671999812
128 2.026079893
256 1.764096022
768 2.229887962


# index 3: flashrnn kernel=alternating gru bf16
16 19.63990402
32 19.00422478
64 18.99875259
128 19.54563141
256 18.04895973
768 18.22751999


# index 4: flashrnn kernel=fused lstm f32
16 1.077023983
32 0.8840960264
64 1.627712011
128 1.770943999
256 2.207391977


# index 5: flashrnn kernel=alternating lstm f32
16 21.60364723
32 14.35321617
64 15.68201637
128 15.16256046
256 15.00278378
768 22.30003166


# index 6: flashrnn kernel=fused gru f32
16 0.9520959854
32 0.8300799727
64 1.390272021
128 1.712448001
256 2.125152111


# index 7: flashrnn kernel=alternating gru f32
16 21.81225586
32 14.37132835
64 16.47577667
128 15.06188774
256 14.70358372
768 22.38361549


# index 8: lstm-cudnn lstm bf16
768 17.94697571


# index 9: lstm-cudnn lstm f32
768 18.96175957


# index 10: lstm lstm f32
768 26.84086418
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

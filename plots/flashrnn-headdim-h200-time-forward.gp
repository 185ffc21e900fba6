# plots/flashrnn-headdim-h200-time-forward.gp: figure 'time-forward' of experiment flashrnn-headdim, written by `logt plot experiments/flashrnn-headdim`
# from results/flashrnn-headdim-h200.h5 (commit ec5919b); y = median_ms against x = head_dim, one curve per value of series (model,kernel,cell,dtype); where pass=forward
# Re-render without logt: gnuplot plots/flashrnn-headdim-h200-time-forward.gp  (writes the .png and .svg beside it)

$data << EOD
# index 0: flashrnn kernel=fused lstm bf16
16 1.103232026
32 0.9900479913
64 1.209951997
128 2.18876791
256 2.481888056
768 3.602112055


# index 1: flashrnn kernel=alternating lstm bf16
16 11.96815968
32 13.95254421
64 12.83967972
128 15.89023972
256 13.90339184
768 11.22883224


# index 2: flashrnn kernel=fused gru bf16
16 0.907679975
32 0.876767993
64 1.043936014
128 2.129695892
256 2.410784006
768 3.190560102


# index 3: flashrnn kernel=alternating gru bf16
16 15.45872021
32 15.71673584
64 12.6736002
128 14.50096035
256 14.72700787
768 11.38137627


# index 4: flashrnn kernel=fused lstm f32
16 1.03676796
32 1.042752028
64 1.88460803
128 2.495071888
256 3.336544037


# index 5: flashrnn kernel=alternating lstm f32
16 15.58928013
32 12.74678421
64 11.95820808
128 12.93100834
256 10.20313644
768 15.06310368


# index 6: flashrnn kernel=fused gru f32
16 0.9503679872
32 0.9432640076
64 1.661183953
128 2.209055901
256 3.096735954


# index 7: flashrnn kernel=alternating gru f32
16 16.36579132
32 11.94163227
64 12.53494358
128 10.92364788
256 9.850432396
768 14.93945599


# index 8: lstm-cudnn lstm bf16
768 12.41071987


# index 9: lstm-cudnn lstm f32
768 18.44633675


# index 10: lstm lstm f32
768 21.75200081
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

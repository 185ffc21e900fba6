# plots/flashrnn-sync-h200-time-fwdbwd.gp: figure 'time-fwdbwd' of experiment flashrnn-sync, written by `logt plot experiments/flashrnn-sync`
# from results/flashrnn-sync-h200.h5 (commit c23e009); y = median_ms against x = head_dim, one curve per value of series (head_sync,cell,dtype); where pass=fwdbwd
# Re-render without logt: gnuplot plots/flashrnn-sync-h200-time-fwdbwd.gp  (writes the .png and .svg beside it)

$data << EOD
# index 0: head_sync=grid lstm bf16
128 6.029952049
256 5.539103985
768 6.172192097


# index 1: head_sync=cluster lstm bf16
128 5.276063919
256 4.975359917


# index 2: head_sync=grid gru bf16
128 5.532063961
256 5.161312103
768 5.702720165


# index 3: head_sync=cluster gru bf16
128 4.844511986
256 4.607999802


# index 4: head_sync=grid lstm f32
128 6.663839817
256 6.120800018


# index 5: head_sync=cluster lstm f32
128 5.89455986
256 7.246240139


# index 6: head_sync=grid gru f32
128 5.859424114
256 5.441152096


# index 7: head_sync=cluster gru f32
128 5.113887787
256 6.166560173
EOD

out = "plots/flashrnn-sync-h200-time-fwdbwd"
if (exists("ARG0") && strlen(ARG0) > 3 && ARG0[strlen(ARG0)-2:] eq ".gp") out = ARG0[1:strlen(ARG0)-3]
set title "fused forward + backward, D = 768, B = 16, T = 1024: cluster vs global memory"
set xlabel "head dim dh (series: how a split head's blocks meet)"
set ylabel "median time per pass (ms)"
set grid
set key outside right top
set style data linespoints
set terminal pngcairo size 1000,600 font "sans,11" noenhanced
set output out.".png"
plot $data index 0 using 1:2 title "head_sync=grid lstm bf16", \
     $data index 1 using 1:2 title "head_sync=cluster lstm bf16", \
     $data index 2 using 1:2 title "head_sync=grid gru bf16", \
     $data index 3 using 1:2 title "head_sync=cluster gru bf16", \
     $data index 4 using 1:2 title "head_sync=grid lstm f32", \
     $data index 5 using 1:2 title "head_sync=cluster lstm f32", \
     $data index 6 using 1:2 title "head_sync=grid gru f32", \
     $data index 7 using 1:2 title "head_sync=cluster gru f32"
set terminal svg size 1000,600 font "sans,11" noenhanced background rgb "white"
set output out.".svg"
replot
unset output

# plots/lsrnn-scan-speedup-h200-time.gp: figure 'time' of experiment lsrnn-scan-speedup, written by `logt plot experiments/lsrnn-scan-speedup`
# from results/lsrnn-scan-speedup-h200.h5 (commit 0318065); y = median_ms against x = T, one curve per value of series (model,scan,route)
# Re-render without logt: gnuplot plots/lsrnn-scan-speedup-h200-time.gp  (writes the .png and .svg beside it)

$data << EOD
# index 0: gilr-lstm scan=parallel
16 18.96787262
64 18.87299156
256 18.83103943
1024 19.07478333
4096 19.01040077
16384 19.19782448
65536 19.30179214


# index 1: gilr-lstm scan=serial
16 18.85980797
64 19.04524803
256 19.51184082
1024 22.25174332
4096 32.31248093
16384 72.70393372
65536 234.7554169


# index 2: sru route=scan
16 3.675647974
64 3.682816029
256 3.682879925
1024 3.794784069
4096 3.778239965
16384 3.811775923
65536 3.859103918


# index 3: sru route=loop
16 3.653408051
64 2.992000103
256 2.802207947
1024 3.339519978
4096 6.347680092
16384 18.36662483
65536 66.4451828
EOD

out = "plots/lsrnn-scan-speedup-h200-time"
if (exists("ARG0") && strlen(ARG0) > 3 && ARG0[strlen(ARG0)-2:] eq ".gp") out = ARG0[1:strlen(ARG0)-3]
set title "median forward + backward time at b*T = 65536"
set xlabel "sequence length T (batch b = 65536 / T)"
set ylabel "median time per pass (ms)"
set grid
set key outside right top
set style data linespoints
set logscale x 2
set logscale y
set terminal pngcairo size 1000,600 font "sans,11" noenhanced
set output out.".png"
plot $data index 0 using 1:2 title "gilr-lstm scan=parallel", \
     $data index 1 using 1:2 title "gilr-lstm scan=serial", \
     $data index 2 using 1:2 title "sru route=scan", \
     $data index 3 using 1:2 title "sru route=loop"
set terminal svg size 1000,600 font "sans,11" noenhanced background rgb "white"
set output out.".svg"
replot
unset output

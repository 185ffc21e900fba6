# plots/train-adding-T10000-h200-valid-wall.gp: figure 'valid-wall' of experiment train-adding, written by `logt plot experiments/train-adding`
# from results/train-adding-T10000-h200.h5 (commit 2b6a7db); y = eval_loss against x = wall_s, one curve per run (model,T
# Re-render without logt: gnuplot plots/train-adding-T10000-h200-valid-wall.gp  (writes the .png and .svg beside it)

$data << EOD
# index 0: lstm T=10000
45.16324007 0.1910401197


# index 1: lstm-cudnn T=10000
45.10783868 0.190233601


# index 2: gilr T=10000
3.425016216 0.1888557019
6.799829217 0.1899003015
10.07353414 0.1885575448
13.37584868 0.1872472503
16.5790264 0.110543298
19.9388213 0.01486040084
23.31431494 0.008984554992
26.72271989 0.005898389694


# index 3: gilr-lstm T=10000
4.918586636 0.1886337672
9.798332489 0.1925619612
13.95177369 0.192273668
17.76620356 0.1890933324
22.16313876 0.0487739405
26.99365828 0.00479515797
31.54111163 0.00148705417
35.6937957 0.0009424612638


# index 4: sru T=10000
3.627757728 0.1888916129
7.174250461 0.1885175707
10.77482798 0.1872985096
14.3514258 0.1771119849
17.97626233 0.006762810418
21.65452606 0.004016107568
25.3033624 0.002995074711
28.86106971 0.002303080191


# index 5: flashrnn T=10000
12.23072843 0.1887187687
24.55224353 0.193057863
36.57400463 0.1899791333
45.0117475 0.1891839408


# index 6: deer T=10000
45.16792875 0.1899797689
EOD

out = "plots/train-adding-T10000-h200-valid-wall"
if (exists("ARG0") && strlen(ARG0) > 3 && ARG0[strlen(ARG0)-2:] eq ".gp") out = ARG0[1:strlen(ARG0)-3]
set title "train-adding: validation loss against training time"
set xlabel "training time (s)"
set ylabel "validation loss"
set grid
set key outside right top
set style data lines
set logscale y
set terminal pngcairo size 1000,600 font "sans,11" noenhanced
set output out.".png"
plot $data index 0 using 1:2 title "lstm T=10000", \
     $data index 1 using 1:2 title "lstm-cudnn T=10000", \
     $data index 2 using 1:2 title "gilr T=10000", \
     $data index 3 using 1:2 title "gilr-lstm T=10000", \
     $data index 4 using 1:2 title "sru T=10000", \
     $data index 5 using 1:2 title "flashrnn T=10000", \
     $data index 6 using 1:2 title "deer T=10000"
set terminal svg size 1000,600 font "sans,11" noenhanced background rgb "white"
set output out.".svg"
replot
unset output

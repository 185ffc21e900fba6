# plots/train-charlm-h200-bpc.gp: figure 'bpc' of experiment train-charlm, written by `logt plot experiments/train-charlm`
# from results/train-charlm-h200.h5 (commit 4fadd96); y = eval_bpc against x = step, one curve per run (model
# Re-render without logt: gnuplot plots/train-charlm-h200-bpc.gp  (writes the .png and .svg beside it)

$data << EOD
# index 0: lstm
23 4.674238672


# index 1: lstm-cudnn
20 4.687668673


# index 2: gilr
18 5.705266064


# index 3: gilr-lstm
21 4.766566202


# index 4: sru
24 5.991976805


# index 5: flashrnn
22 4.676808963


# index 6: deer
13 4.763444825
EOD

out = "plots/train-charlm-h200-bpc"
if (exists("ARG0") && strlen(ARG0) > 3 && ARG0[strlen(ARG0)-2:] eq ".gp") out = ARG0[1:strlen(ARG0)-3]
set title "train-charlm: validation bits per character"
set xlabel "step"
set ylabel "validation bits per character"
set grid
set key outside right top
set style data lines
set terminal pngcairo size 1000,600 font "sans,11" noenhanced
set output out.".png"
plot $data index 0 using 1:2 title "lstm", \
     $data index 1 using 1:2 title "lstm-cudnn", \
     $data index 2 using 1:2 title "gilr", \
     $data index 3 using 1:2 title "gilr-lstm", \
     $data index 4 using 1:2 title "sru", \
     $data index 5 using 1:2 title "flashrnn", \
     $data index 6 using 1:2 title "deer"
set terminal svg size 1000,600 font "sans,11" noenhanced background rgb "white"
set output out.".svg"
replot
unset output

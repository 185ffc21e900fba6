# plots/train-digits-h200-acc.gp: figure 'acc' of experiment train-digits, written by `logt plot experiments/train-digits`
# from results/train-digits-h200.h5 (commit 4fadd96); y = eval_acc against x = step, one curve per run (model
# Re-render without logt: gnuplot plots/train-digits-h200-acc.gp  (writes the .png and .svg beside it)

$data << EOD
# index 0: lstm
250 0.578125
500 0.7239583333
750 0.875
1000 0.8697916667
1250 0.90625
1500 0.9166666667
1750 0.9427083333
2000 0.9479166667
2250 0.9583333333
2500 0.953125
2750 0.9479166667
3000 0.9479166667


# index 1: lstm-cudnn
250 0.5729166667
500 0.7708333333
750 0.828125
1000 0.8333333333
1250 0.8854166667
1500 0.8802083333
1750 0.890625
2000 0.9427083333
2250 0.9375
2500 0.9375
2750 0.9635416667
3000 0.9635416667


# index 2: gilr
250 0.234375
500 0.3489583333
750 0.421875
1000 0.4010416667
1250 0.46875
1500 0.5052083333
1750 0.5260416667
2000 0.5364583333
2250 0.5208333333
2500 0.53125
2750 0.5572916667
3000 0.5729166667


# index 3: gilr-lstm
250 0.390625
500 0.546875
750 0.5833333333
1000 0.6822916667
1250 0.7760416667
1500 0.78125
1750 0.8125
2000 0.8072916667
2250 0.8072916667
2500 0.8385416667
2750 0.8854166667
3000 0.828125


# index 4: sru
250 0.2395833333
500 0.3229166667
750 0.375
1000 0.4270833333
1250 0.453125
1500 0.5104166667
1750 0.5208333333
2000 0.5572916667
2250 0.5729166667
2500 0.5729166667
2750 0.5989583333
3000 0.6145833333


# index 5: flashrnn
250 0.5572916667
500 0.7135416667
750 0.7708333333
1000 0.8385416667
1250 0.8541666667
1500 0.859375
1750 0.9010416667
2000 0.9322916667
2250 0.9270833333
2500 0.9322916667
2750 0.9322916667
3000 0.9479166667


# index 6: deer
250 0.546875
272 0.5260416667
EOD

out = "plots/train-digits-h200-acc"
if (exists("ARG0") && strlen(ARG0) > 3 && ARG0[strlen(ARG0)-2:] eq ".gp") out = ARG0[1:strlen(ARG0)-3]
set title "train-digits: validation accuracy (chance 0.1)"
set xlabel "step"
set ylabel "validation accuracy"
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

# plots/train-digits-perm-h200-acc.gp: figure 'acc' of experiment train-digits, written by `logt plot experiments/train-digits`
# from results/train-digits-perm-h200.h5 (commit 2b6a7db); y = eval_acc against x = step, one curve per run (model
# Re-render without logt: gnuplot plots/train-digits-perm-h200-acc.gp  (writes the .png and .svg beside it)

$data << EOD
# index 0: lstm
250 0.4791666667
500 0.6458333333
750 0.7864583333
1000 0.8645833333
1250 0.8802083333
1500 0.8802083333
1750 0.8802083333
2000 0.9010416667
2250 0.875
2500 0.90625
2750 0.921875
3000 0.8958333333


# index 1: lstm-cudnn
250 0.4479166667
500 0.6458333333
750 0.78125
1000 0.875
1250 0.859375
1500 0.8958333333
1750 0.90625
2000 0.9114583333
2250 0.9010416667
2500 0.9114583333
2750 0.9166666667
3000 0.8854166667


# index 2: gilr
250 0.203125
500 0.2760416667
750 0.2864583333
1000 0.3020833333
1250 0.3177083333
1500 0.3645833333
1750 0.375
2000 0.390625
2250 0.4114583333
2500 0.4166666667
2750 0.4322916667
3000 0.4270833333


# index 3: gilr-lstm
250 0.2708333333
500 0.5260416667
750 0.5989583333
1000 0.7083333333
1250 0.75
1500 0.8229166667
1750 0.75
2000 0.84375
2250 0.8125
2500 0.8385416667
2750 0.8489583333
3000 0.8645833333


# index 4: sru
250 0.203125
500 0.203125
750 0.2447916667
1000 0.2552083333
1250 0.3229166667
1500 0.3385416667
1750 0.3854166667
2000 0.4270833333
2250 0.4479166667
2500 0.453125
2750 0.46875
3000 0.515625


# index 5: flashrnn
250 0.4010416667
500 0.6197916667
750 0.7864583333
1000 0.8229166667
1250 0.8802083333
1500 0.875
1750 0.8958333333
2000 0.8854166667
2250 0.9114583333
2500 0.921875
2750 0.9270833333
3000 0.9166666667


# index 6: deer
250 0.5364583333
348 0.6458333333
EOD

out = "plots/train-digits-perm-h200-acc"
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

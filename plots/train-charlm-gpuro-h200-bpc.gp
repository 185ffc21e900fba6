# plots/train-charlm-gpuro-h200-bpc.gp: figure 'bpc' of experiment train-charlm, written by `logt plot experiments/train-charlm`
# from results/train-charlm-gpuro-h200.h5 (commit 2b6a7db); y = eval_bpc against x = step, one curve per run (model
# Re-render without logt: gnuplot plots/train-charlm-gpuro-h200-bpc.gp  (writes the .png and .svg beside it)

$data << EOD
# index 0: lstm
250 3.384229014
500 3.036694149
750 2.869813386
1000 2.749701013
1250 2.661416232
1500 2.588974229
1750 2.525418278
2000 2.465976426
2250 2.425671456
2500 2.390676668
2750 2.354986334
3000 2.32209638


# index 1: lstm-cudnn
250 3.390694985
500 3.047588933
750 2.875449822
1000 2.761866127
1250 2.67687422
1500 2.604612154
1750 2.541154904
2000 2.484526064
2250 2.441384965
2500 2.404323775
2750 2.370897803
3000 2.343656484


# index 2: gilr
250 3.584640725
500 3.346615474
750 3.155294415
1000 3.033294345
1250 2.956682145
1500 2.903995744
1750 2.865094239
2000 2.834530315
2250 2.813103864
2500 2.792853857
2750 2.777456579
3000 2.764906549


# index 3: gilr-lstm
250 3.347555676
500 3.063709089
750 2.893410634
1000 2.769730865
1250 2.682659109
1500 2.616573986
1750 2.549927209
2000 2.50943683
2250 2.461251281
2500 2.433550325
2750 2.408718811
3000 2.382165855


# index 4: sru
250 3.491672279
500 3.18359383
750 2.982241272
1000 2.86190207
1250 2.781667312
1500 2.724148731
1750 2.680682327
2000 2.647765692
2250 2.619878859
2500 2.598160327
2750 2.581409511
3000 2.56891685


# index 5: flashrnn
250 3.398404143
500 3.024605442
750 2.846420488
1000 2.722620761
1250 2.642890184
1500 2.572031626
1750 2.502934199
2000 2.44726113
2250 2.409397601
2500 2.374305453
2750 2.338821039
3000 2.320310151


# index 6: deer
33 4.592832892
EOD

out = "plots/train-charlm-gpuro-h200-bpc"
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

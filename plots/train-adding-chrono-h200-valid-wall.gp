# plots/train-adding-chrono-h200-valid-wall.gp: figure 'valid-wall' of experiment train-adding, written by `logt plot experiments/train-adding`
# from results/train-adding-chrono-h200.h5 (commit 224e980); y = eval_loss against x = wall_s, one curve per run (model,T
# Re-render without logt: gnuplot plots/train-adding-chrono-h200-valid-wall.gp  (writes the .png and .svg beside it)

$data << EOD
# index 0: lstm T=1000
8.250314901 0.1635603492
16.02339185 0.1619515147
24.87933862 0.1610127537
34.5300475 0.1327870834
44.14255986 0.004382305402
53.97767387 0.002023935628
63.15376464 0.003004087471
73.68138807 0.000881091131


# index 1: lstm-cudnn T=1000
11.72536693 0.1635603424
22.99484892 0.1619515172
34.7030964 0.1610127592
46.36949269 0.1328040838
57.41292321 0.004174143723
67.71334817 0.001940602822
77.80220882 0.002860052099
88.70113892 0.0009543137354


# index 2: gilr T=1000
0.301645717 0.1614369358
0.615768535 0.1685937163
0.99383987 0.1576941218
1.284607534 0.02821606506
1.573384488 0.01086360353
1.859878386 0.006837561934
2.153911768 0.004586109397
2.466495386 0.003634264143


# index 3: gilr-lstm T=1000
0.964916801 0.163837552
1.985475038 0.1614704997
3.013784114 0.1212027898
4.074521195 0.007393246996
5.151914139 0.00257798293
6.231439237 0.001374601279
7.320354581 0.003027474394
8.410116511 0.00111208467


# index 4: sru T=1000
0.536973481 0.161143408
1.069852212 0.1633018997
1.601894402 0.1154645007
2.137858877 0.00513028999
2.669064343 0.002677331077
3.19984965 0.001723105502
3.729563634 0.001297940432
4.192244004 0.001154021468


# index 5: flashrnn T=1000
1.255555163 0.1643759966
2.524382887 0.161821581
3.806983782 0.1610410643
5.033372951 0.3576409021
6.290753238 0.006309465191
7.574781797 0.002174949947
8.85100623 0.001253209391
10.15784712 0.001252643822
EOD

out = "plots/train-adding-chrono-h200-valid-wall"
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
plot $data index 0 using 1:2 title "lstm T=1000", \
     $data index 1 using 1:2 title "lstm-cudnn T=1000", \
     $data index 2 using 1:2 title "gilr T=1000", \
     $data index 3 using 1:2 title "gilr-lstm T=1000", \
     $data index 4 using 1:2 title "sru T=1000", \
     $data index 5 using 1:2 title "flashrnn T=1000"
set terminal svg size 1000,600 font "sans,11" noenhanced background rgb "white"
set output out.".svg"
replot
unset output

# plots/deer-train-T16384-h200-iterations.gp: figure 'iterations' of experiment deer-train, written by `logt plot experiments/deer-train`
# from results/deer-train-T16384-h200.h5 (commit d06df5e); y = newton_iterations against x = step, one curve per run (model,T,D,knobs
# Re-render without logt: gnuplot plots/deer-train-T16384-h200-iterations.gp  (writes the .png and .svg beside it)

$data << EOD
# index 0: deer T=16384 D=16 mode=quasi,solver=newton,tol=1e-6
1 10
2 10
3 10
4 10
5 10
6 11
7 11
8 12
9 12
10 12
11 11
12 11
13 11
14 12
15 13
16 14
17 15
18 16
19 17
20 18
21 18
22 18
23 18
24 18
25 18
26 18
27 17
28 17
29 17
30 16
31 16
32 16
33 16
34 16
35 16
36 16
37 16
38 16
39 16
40 16
41 16
42 16
43 16
44 16
45 16
46 16
47 16
48 16
49 16
50 16
51 16
52 16
53 16
54 16
55 16
56 16
57 16
58 16
59 15
60 15
61 15
62 15
63 15
64 15
65 15
66 15
67 15
68 15
69 15
70 15
71 15
72 15
73 15
74 15
75 15
76 15
77 15
78 15
79 15
80 15
81 15
82 15
83 15
84 15
85 15
86 15
87 15
88 15
89 15
90 15
91 15
92 15
93 15
94 14
95 14
96 14
97 14
98 14
99 14
100 14
EOD

out = "plots/deer-train-T16384-h200-iterations"
if (exists("ARG0") && strlen(ARG0) > 3 && ARG0[strlen(ARG0)-2:] eq ".gp") out = ARG0[1:strlen(ARG0)-3]
set title "deer-train: Newton iterations of each step's forward, from random to trained weights"
set xlabel "step"
set ylabel "Newton iterations of the step's forward (first layer)"
set grid
set key outside right top
set style data lines
set terminal pngcairo size 1000,600 font "sans,11" noenhanced
set output out.".png"
plot $data index 0 using 1:2 title "deer T=16384 D=16 mode=quasi,solver=newton,tol=1e-6"
set terminal svg size 1000,600 font "sans,11" noenhanced background rgb "white"
set output out.".svg"
replot
unset output

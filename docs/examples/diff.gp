# topdown 0.1.0: A = h100_td_bench.topdown.json (NVIDIA H100 80GB HBM3), B = h100_td_bench_64mb.topdown.json (NVIDIA H100 80GB HBM3), level 2. Restyle freely, then run in this folder:
#   gnuplot diff.gp
# Data: diff.dat (tab-separated, % of issue slots; first line names the columns).
if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {
    set terminal pngcairo size 1300,752 font 'Sans,10' noenhanced
} else {
    set terminal png size 1300,752 noenhanced
}
set output 'diff.png'
set datafile separator '\t'
set title 'topdown diff - A = h100_td_bench.topdown.json (NVIDIA H100 80GB HBM3), B = h100_td_bench_64mb.topdown.json (NVIDIA H100 80GB HBM3) (level 2)' noenhanced
set ylabel '% of issue slots'
set yrange [0:100]
set ytics 10
set grid ytics lc rgb '#dddddd'
set key outside right top invert noenhanced  # top entry = top segment
set style fill solid 0.9 border rgb '#404040'
set style data histograms
set style histogram rowstacked
set boxwidth 0.75
set xtics norotate nomirror noenhanced
set bmargin 8
set style histogram rowstacked title offset 0,-1
set label '#1 bench_ifetch' at graph 0.000, screen 0.0426 left noenhanced
set label '#2 bench_constant' at graph 0.000, screen 0.0213 left noenhanced
set label '#3 bench_divergence' at graph 0.333, screen 0.0426 left noenhanced
set label '#4 bench_retire' at graph 0.333, screen 0.0213 left noenhanced
set label '#5 bench_math_pipe' at graph 0.667, screen 0.0426 left noenhanced
set label '#6 bench_dependency' at graph 0.667, screen 0.0213 left noenhanced
plot newhistogram 'application', 'diff.dat' index 0 using 2:xtic(1) title 'Retire' lc rgb '#2ca02c', \
     '' index 0 using 3 title 'Divergence.Branch' lc rgb '#b294c7', \
     '' index 0 using 4 title 'Divergence.Replay' lc rgb '#6a3d9a', \
     '' index 0 using 5 title 'Frontend.Fetch' lc rgb '#3182bd', \
     '' index 0 using 6 title 'Frontend.Decode' lc rgb '#17becf', \
     '' index 0 using 7 title 'Backend.Memory_Bound' lc rgb '#cb181d', \
     '' index 0 using 8 title 'Backend.Core_Bound' lc rgb '#ff7f0e', \
     newhistogram '#1', 'diff.dat' index 1 using 2:xtic(1) notitle lc rgb '#2ca02c', \
     '' index 1 using 3 notitle lc rgb '#b294c7', \
     '' index 1 using 4 notitle lc rgb '#6a3d9a', \
     '' index 1 using 5 notitle lc rgb '#3182bd', \
     '' index 1 using 6 notitle lc rgb '#17becf', \
     '' index 1 using 7 notitle lc rgb '#cb181d', \
     '' index 1 using 8 notitle lc rgb '#ff7f0e', \
     newhistogram '#2', 'diff.dat' index 2 using 2:xtic(1) notitle lc rgb '#2ca02c', \
     '' index 2 using 3 notitle lc rgb '#b294c7', \
     '' index 2 using 4 notitle lc rgb '#6a3d9a', \
     '' index 2 using 5 notitle lc rgb '#3182bd', \
     '' index 2 using 6 notitle lc rgb '#17becf', \
     '' index 2 using 7 notitle lc rgb '#cb181d', \
     '' index 2 using 8 notitle lc rgb '#ff7f0e', \
     newhistogram '#3', 'diff.dat' index 3 using 2:xtic(1) notitle lc rgb '#2ca02c', \
     '' index 3 using 3 notitle lc rgb '#b294c7', \
     '' index 3 using 4 notitle lc rgb '#6a3d9a', \
     '' index 3 using 5 notitle lc rgb '#3182bd', \
     '' index 3 using 6 notitle lc rgb '#17becf', \
     '' index 3 using 7 notitle lc rgb '#cb181d', \
     '' index 3 using 8 notitle lc rgb '#ff7f0e', \
     newhistogram '#4', 'diff.dat' index 4 using 2:xtic(1) notitle lc rgb '#2ca02c', \
     '' index 4 using 3 notitle lc rgb '#b294c7', \
     '' index 4 using 4 notitle lc rgb '#6a3d9a', \
     '' index 4 using 5 notitle lc rgb '#3182bd', \
     '' index 4 using 6 notitle lc rgb '#17becf', \
     '' index 4 using 7 notitle lc rgb '#cb181d', \
     '' index 4 using 8 notitle lc rgb '#ff7f0e', \
     newhistogram '#5', 'diff.dat' index 5 using 2:xtic(1) notitle lc rgb '#2ca02c', \
     '' index 5 using 3 notitle lc rgb '#b294c7', \
     '' index 5 using 4 notitle lc rgb '#6a3d9a', \
     '' index 5 using 5 notitle lc rgb '#3182bd', \
     '' index 5 using 6 notitle lc rgb '#17becf', \
     '' index 5 using 7 notitle lc rgb '#cb181d', \
     '' index 5 using 8 notitle lc rgb '#ff7f0e', \
     newhistogram '#6', 'diff.dat' index 6 using 2:xtic(1) notitle lc rgb '#2ca02c', \
     '' index 6 using 3 notitle lc rgb '#b294c7', \
     '' index 6 using 4 notitle lc rgb '#6a3d9a', \
     '' index 6 using 5 notitle lc rgb '#3182bd', \
     '' index 6 using 6 notitle lc rgb '#17becf', \
     '' index 6 using 7 notitle lc rgb '#cb181d', \
     '' index 6 using 8 notitle lc rgb '#ff7f0e'

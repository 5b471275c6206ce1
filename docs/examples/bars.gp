# topdown 0.1.0: share of issue slots per kernel, level 2. Restyle freely, then run in this folder:
#   gnuplot bars.gp
# Data: bars.dat (tab-separated, % of issue slots; first line names the columns).
if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {
    set terminal pngcairo size 1200,730 font 'Sans,10' noenhanced
} else {
    set terminal png size 1200,730 noenhanced
}
set output 'bars.png'
set datafile separator '\t'
set title 'h100_td_bench.topdown.json (NVIDIA H100 80GB HBM3) - share of issue slots per kernel (level 2)' noenhanced
set ylabel '% of issue slots'
set yrange [0:100]
set ytics 10
set grid ytics lc rgb '#dddddd'
set key outside right top invert noenhanced  # top entry = top segment
set style fill solid 0.9 border rgb '#404040'
set style data histograms
set style histogram rowstacked
set boxwidth 0.75
set xtics rotate by 45 right nomirror noenhanced
set bmargin 12
set lmargin 14
plot 'bars.dat' using 2:xtic(1) title 'Retire' lc rgb '#2ca02c', \
     '' using 3 title 'Divergence.Branch' lc rgb '#b294c7', \
     '' using 4 title 'Divergence.Replay' lc rgb '#6a3d9a', \
     '' using 5 title 'Frontend.Fetch' lc rgb '#3182bd', \
     '' using 6 title 'Frontend.Decode' lc rgb '#17becf', \
     '' using 7 title 'Backend.Memory_Bound' lc rgb '#cb181d', \
     '' using 8 title 'Backend.Core_Bound' lc rgb '#ff7f0e'

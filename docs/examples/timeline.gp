# topdown 0.1.0: bench_l1_bound #8 over its invocations, level 3. Restyle freely, then run in this folder:
#   gnuplot timeline.gp
# Data: timeline.dat (tab-separated, % of issue slots; first line names the columns).
if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {
    set terminal pngcairo size 1200,620 font 'Sans,10' noenhanced
} else {
    set terminal png size 1200,620 noenhanced
}
set output 'timeline.png'
set datafile separator '\t'
set title 'h100_td_bench.topdown.json (NVIDIA H100 80GB HBM3) - bench_l1_bound #8 over its invocations (level 3)' noenhanced
set ylabel '% of issue slots'
set yrange [0:100]
set ytics 10
set grid ytics lc rgb '#dddddd'
set key outside right top invert noenhanced  # top entry = top segment
set style fill solid 0.9 border rgb '#404040'
set xlabel 'invocation (points: the 3 measured of 3; the areas join them)'
set xrange [0:2]
set tmargin 5
set title offset 0,1
set style fill solid 0.9 noborder
set xtics 1
plot 'timeline.dat' using 1:(0):2 with filledcurves title 'Retire' lc rgb '#2ca02c', \
     '' using 1:(sum [c=2:2] column(c)):(sum [c=2:3] column(c)) with filledcurves title 'Frontend.Fetch.Instruction_Fetch' lc rgb '#08519c', \
     '' using 1:(sum [c=2:3] column(c)):(sum [c=2:4] column(c)) with filledcurves title 'Frontend.Fetch.Branch_Resolving' lc rgb '#4292c6', \
     '' using 1:(sum [c=2:4] column(c)):(sum [c=2:5] column(c)) with filledcurves title 'Backend.Memory_Bound.L1_Bound' lc rgb '#a50f15', \
     '' using 1:(sum [c=2:5] column(c)):(sum [c=2:6] column(c)) with filledcurves title 'Backend.Memory_Bound.Constant_Memory' lc rgb '#fc9272', \
     '' using 1:(sum [c=2:6] column(c)):(sum [c=2:7] column(c)) with filledcurves title 'Backend.Core_Bound.Dependency_Wait' lc rgb '#fdae6b', \
     '' using 1:(sum [c=2:2] column(c)) with points pt 7 ps 0.6 lc rgb '#202020' title 'measured', \
     '' using 1:(sum [c=2:3] column(c)) with points pt 7 ps 0.6 lc rgb '#202020' notitle, \
     '' using 1:(sum [c=2:4] column(c)) with points pt 7 ps 0.6 lc rgb '#202020' notitle, \
     '' using 1:(sum [c=2:5] column(c)) with points pt 7 ps 0.6 lc rgb '#202020' notitle, \
     '' using 1:(sum [c=2:6] column(c)) with points pt 7 ps 0.6 lc rgb '#202020' notitle

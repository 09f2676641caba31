set terminal pngcairo size 800,500
set output 'qps.png'
set title 'exec: aggregate QPS against processes'
set xlabel 'processes'
set ylabel 'aggregate queries/s'
set logscale x 2
set key left top
set grid
set yrange [0:*]
plot 'qps.dat' using 1:2:3:4 with yerrorlines title 'aggregate QPS in the common window (min/max over repeats)', 120 with lines dashtype 2 title '1 process (ratio 1.0)'
set output 'series.png'
set title 'completions per 100 ms bin, 8 processes (repeat 2)'
set xlabel 'ms into the window'
set ylabel 'queries'
unset logscale x
set key outside right
plot for [i=2:9] 'series.dat' using 1:i with steps title sprintf('worker %d', i-2)

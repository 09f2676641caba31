set terminal pngcairo size 800,500
set output 'qps.png'
set title 'latency: aggregate QPS against processes'
set xlabel 'processes'
set ylabel 'aggregate queries/s'
set logscale x 2
set key left top
set grid
set yrange [0:*]
plot 'qps.dat' using 1:2:3:4 with yerrorlines title 'aggregate QPS in the common window (min/max over repeats)', 505.5 with lines dashtype 2 title '1 process (ratio 1.0)'
set output 'breakdown.png'
set title 'where the throughput goes (GPU-stamped kernels)'
set ylabel 'fraction / factor'
set yrange [0:*]
plot 'qps.dat' using 1:5 with linespoints title 'some kernel resident (fraction)', '' using 1:6 with linespoints title 'kernel concurrency', '' using 1:7 with linespoints title 'kernel time vs 1 process'
set output 'series.png'
set title 'completions per 100 ms bin, 4 processes (repeat 2)'
set xlabel 'ms into the window'
set ylabel 'queries'
unset logscale x
set key outside right
plot for [i=2:5] 'series.dat' using 1:i with steps title sprintf('worker %d', i-2)

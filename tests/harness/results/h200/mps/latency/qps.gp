set terminal pngcairo size 800,500
set output 'qps.png'
set title 'latency: aggregate QPS against processes'
set xlabel 'processes'
set ylabel 'aggregate queries/s'
set logscale x 2
set key left top
set grid
set yrange [0:*]
plot 'qps.dat' using 1:2:3:4 with yerrorlines title 'aggregate QPS (min/max over repeats)', 36031.7 with lines dashtype 2 title '1 process (ratio 1.0)'

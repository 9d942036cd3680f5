#!/bin/sh
# plot.sh - renders the benchmark plots from bench/results/*.tsv with gnuplot.
#
#   sh bench/plot.sh [RESULTS_DIR] [OUT_DIR] [PREFIX]
#
# (defaults bench/results, docs/plots, no prefix; PREFIX quick- plots the
# results of make bench-quick).
#
# docs/plots/plan_time.svg: planning time against op count (log-log), with
# the time to load the native JSON file as the floor; docs/plots/xlb.svg:
# geometric mean xLB per algorithm and K without caps, and the share of
# feasible plans per cap level. Each SVG is written to a temporary name and
# renamed into place, so a failed run leaves the old one.
set -eu
RES=${1:-bench/results}
OUT=${2:-docs/plots}
PRE=${3:-}
command -v gnuplot >/dev/null 2>&1 || {
	echo "plot.sh: gnuplot is needed (Debian: apt-get install gnuplot-nox)" >&2
	exit 1
}
for f in "$RES/${PRE}scale_plot.tsv" "$RES/${PRE}quality_plot.tsv"; do
	[ -f "$f" ] || { echo "plot.sh: $f is missing: run make bench first" >&2; exit 1; }
done
mkdir -p "$OUT"
tmp1="$OUT/.plan_time.svg.tmp$$"
tmp2="$OUT/.xlb.svg.tmp$$"
trap 'rm -f "$tmp1" "$tmp2"' EXIT INT TERM

gnuplot <<GP
data = "$RES/${PRE}scale_plot.tsv"
stats data using 1 nooutput
nblocks = STATS_blocks
# series 1-7: each algorithm at the first K without caps; 8 on: pardnn in
# the other configurations, in shades of pardnn's red with other points
# (solid lines: some SVG renderers draw dashes badly)
colors = "#d62728 #1f77b4 #ff7f0e #2ca02c #9467bd #8c564b #17becf #ff9896 #8b0000 #e377c2 #d62728 #d62728"
points = "7 7 7 7 7 7 7 5 9 13 11 15"
set terminal svg size 900,600 dynamic font "sans,12" background rgb "white"
set output "$tmp1"
set title "dnnpart: planning time against graph size (dnnpart gen --seed 1; link pardnn, port contention)"
set logscale xy
set xrange [5000:2000000]
set xtics ("1k" 1000, "10k" 10000, "100k" 100000, "1M" 1000000, "10M" 10000000)
set format y "%g"
set xlabel "ops"
set ylabel "seconds (median)"
set key outside right top
set grid
plot data index 0 using 1:2 with linespoints lw 4 pt 6 lc rgb "gray70" \
	title columnheader(2), \
     for [i=1:nblocks-1] data index i using 1:2 with linespoints \
	lw (i == 1 || i > 7 ? 2.5 : 1.5) pt int(word(points, i)) ps 1 \
	lc rgb word(colors, i) title columnheader(2)
GP

gnuplot <<GP
data = "$RES/${PRE}quality_plot.tsv"
set terminal svg size 1100,500 dynamic font "sans,12" background rgb "white"
set output "$tmp2"
set multiplot layout 1,2 title "dnnpart: quality on the real and sample graphs (link pardnn, port contention)"
set style data histogram
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set boxwidth 0.9
set grid ytics
set key below horizontal
set xtics nomirror
set title "geometric mean makespan / lower bound, no caps (lower is better)"
set yrange [1:*]
stats data index 0 using 2 nooutput
ncols = STATS_columns
plot for [c=2:ncols] data index 0 using c:xtic(1) title columnheader(c)
set title "feasible plans (%) per cap level (higher is better)"
set yrange [0:105]
stats data index 1 using 2 nooutput
ncols = STATS_columns
plot for [c=2:ncols] data index 1 using c:xtic(1) title columnheader(c)
unset multiplot
GP

mv -f "$tmp1" "$OUT/plan_time.svg"
mv -f "$tmp2" "$OUT/xlb.svg"
echo "wrote $OUT/plan_time.svg $OUT/xlb.svg"

# compare on the diamond (2 x 8 MiB, 10 GB/s, 5 us from the file's machine
# block): one row per listed algorithm, the best feasible one marked. The
# plan-time column changes from run to run and is normalised here.
set -e
$DNNPART compare tests/cli/data/diamond.json \
	--algos single,mtopo,metf,heft,metis,contig |
	sed -E 's/ +[0-9.]+ (ns|us|ms|s)$/ (normalised)/'

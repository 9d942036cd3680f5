# 1 KiB per device cannot hold the diamond: every row is infeasible, no row
# is marked, and --strict makes the exit status 1 (the table still prints).
$DNNPART compare tests/cli/data/diamond.json --mem 1KiB \
	--algos metf,heft,metis,contig --strict --contention none >"$TMP/s.out"
rc=$?
sed -E 's/ +[0-9.]+ (ns|us|ms|s)$/ (normalised)/' "$TMP/s.out"
exit $rc

# fit -o on a graph that takes no lever (no roles): the plain search's
# answer, rerun at its K and written; eval --strict finds it within the caps
D="$TMP/fit_out_plain"
mkdir -p "$D"
set -e
$DNNPART fit tests/cli/data/blocks6.json --mem 25MiB --algo mtopo \
	-o "$D/p.json" | tail -n 2
$DNNPART eval --strict tests/cli/data/blocks6.json "$D/p.json" --mem 25MiB |
	grep -E '^(machine|memory) '

# fit -o without --levers: the lever search's plan, written; eval --strict
# with the levers the message names finds it within the caps (exit 0)
D="$TMP/fit_out_eval"
mkdir -p "$D"
set -e
$DNNPART fit tests/data/levers_tiny.json --mem 5KiB --max-k 4 \
	-o "$D/plan.json" | tail -n 3
$DNNPART eval --strict tests/data/levers_tiny.json "$D/plan.json" \
	--mem 5KiB --precision bf16 --recompute none --fuse attention |
	grep -E '^(levers|memory) '

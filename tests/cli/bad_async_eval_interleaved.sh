# eval --schedule stash of an interleaved strategy: no interleaved
# asynchronous schedule exists (exit 2, naming the option)
D="$TMP/bad_async_eval_interleaved"
mkdir -p "$D"
$DNNPART plan tests/cli/data/pipe4.json -k 2 --algo 1f1b -M 4 \
	--virtual-stages 2 -o "$D/v.json" >/dev/null || exit 9
$DNNPART eval tests/cli/data/pipe4.json "$D/v.json" --schedule stash
echo "eval: $?"

# a plan made with --recompute auto records the layers it chose in its file
# ("levers": "bf16+auto:2"); eval gives them back with --recompute
# auto:LAYERS and passes --strict, and refuses plain auto (no machine to
# choose with before the file is read) naming both lever sets
D="$TMP/eval_recompute_auto"
mkdir -p "$D"
$DNNPART plan tests/data/gpt2_tiny.json --algo single --precision bf16 \
	--recompute auto --mem 2.12MiB -o "$D/p.json" >/dev/null || exit 9
grep '"levers"' "$D/p.json"
$DNNPART eval --strict tests/data/gpt2_tiny.json "$D/p.json" --mem 2.12MiB \
	--precision bf16 --recompute auto:2 | grep -E '^(levers|memory)'
echo "auto:2: $?"
$DNNPART eval --strict tests/data/gpt2_tiny.json "$D/p.json" --mem 2.12MiB \
	--precision bf16 --recompute auto
echo "auto: $?"

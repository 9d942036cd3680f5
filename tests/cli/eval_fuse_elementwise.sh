# a plan made with fused element-wise chains records them in its file
# ("levers": "bf16+elementwise"); eval --strict with the same levers passes,
# without them it is refused naming both
D="$TMP/eval_fuse_elementwise"
mkdir -p "$D"
$DNNPART plan tests/data/levers_ew.json -k 2 --algo mtopo --precision bf16 \
	--fuse elementwise -o "$D/p.json" >/dev/null || exit 9
grep '"levers"' "$D/p.json"
$DNNPART eval --strict tests/data/levers_ew.json "$D/p.json" \
	--precision bf16 --fuse elementwise | grep -E '^(size|levers)'
echo "same: $?"
$DNNPART eval --strict tests/data/levers_ew.json "$D/p.json" --precision bf16
echo "without: $?"

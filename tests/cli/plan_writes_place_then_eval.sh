# plan -o writes a ParDNN .place file that eval reads back to the same plan.
set -e
$DNNPART plan tests/cli/data/diamond.json --algo mtopo -o "$TMP/d.place" --json | grep makespan_us
cat "$TMP/d.place"
$DNNPART eval tests/cli/data/diamond.json "$TMP/d.place" --json | grep makespan_us

# plan -o FILE.json writes a dnnpart placement with metrics; eval reads it.
set -e
$DNNPART plan tests/cli/data/chain2.json -k 2 --algo mtopo -o "$TMP/c.json" | tail -n 1
grep -c '"format": *"dnnpart-placement"' "$TMP/c.json"
$DNNPART eval tests/cli/data/chain2.json "$TMP/c.json" -k 2 --json | grep -E '"(makespan_us|feasible)"'

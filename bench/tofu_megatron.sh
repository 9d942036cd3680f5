#!/bin/sh
# tofu_megatron.sh - the table of docs/benchmarks.md "Results: tofu and
# megatron": dp, tofu and megatron on the transformer samples at K = 4, 8,
# 16, without a cap (--mem none: the samples' machine blocks say 16 GiB)
# and with 16 GiB per device, by `dnnpart compare --json` (default link:
# 130 GB/s, 25 us, port contention).
#
#   sh bench/tofu_megatron.sh [DNNPART]    (from the repository root)
#
# Prints one markdown row per graph and K: the simulated step of each
# algorithm, megatron's mesh (D x T), and with the cap the largest peak
# over the cap (NO: over it). n/a: the algorithm does not apply (dp with a
# batch that K does not divide).
set -eu
DP=${1:-./build/dnnpart}
row() { # label graph k [extra args]
	label=$1 graph=$2 k=$3
	shift 3
	for cap in none 16GiB; do
		"$DP" compare "$graph" -k "$k" --mem "$cap" \
			--algos dp,tofu,megatron --json "$@" 2>/dev/null
		echo "==="
	done | python3 -c '
import json, sys
label, k = sys.argv[1], sys.argv[2]
runs = [json.loads(p) for p in sys.stdin.read().split("===") if p.strip()]
def cell(a, capped):
    if not a.get("ok") or "makespan_us" not in a:
        return "n/a"
    ms = a["makespan_us"] / 1000
    t = "%.2f s" % (ms / 1000) if ms >= 1000 else "%.0f ms" % ms
    if a["name"] == "megatron" and not capped:
        t += " (%s)" % a["strategy"].split()[-1]
    if capped:
        over = a["max_peak_over_cap"]
        t += " (%.0f %%%s)" % (100 * over, ", NO" if over > 1 else "")
    return t
cells = []
for i, r in enumerate(runs):
    by = {a["name"]: a for a in r["algorithms"]}
    cells += [cell(by.get(n, {}), i == 1) for n in ("dp", "tofu", "megatron")]
print("| %s | %s | %s |" % (label, k, " | ".join(cells)))
' "$label" "$k"
}
echo "| graph | K | dp | tofu | megatron | dp, 16 GiB | tofu, 16 GiB | megatron, 16 GiB |"
echo "|---|---|---|---|---|---|---|---|"
for g in gpt2-small bert-large; do
	for k in 4 8 16; do row "$g" "sample_graphs/$g.json" "$k"; done
done
for k in 4 8 16; do row "gpt2-xl (batch 1)" sample_graphs/gpt2-xl.json "$k"; done
for k in 4 8 16; do
	row 'gpt2-xl `--batch 8`' sample_graphs/gpt2-xl.json "$k" --batch 8
done

#!/bin/sh
# papers.sh - the papers' reference points in our cost model
# (docs/benchmarks.md, "Results: the papers' reference points"): PaSE's
# speedup over data parallelism and Tofu's over the alternatives, on the
# samples the papers' benchmarks resemble, with machines modelling their
# setups: 8 GPUs of 11 GiB (GTX 1080Ti, RTX 2080Ti) over PCIe 3.0 x16
# (12 GB/s, 10 us), their fp32 speed relative to the samples' V100
# reference (15.7 TFLOP/s): 11.3 / 15.7 = 0.72 and 13.4 / 15.7 = 0.85.
#
#   sh bench/papers.sh [DNNPART]    (from the repository root)
#
# One markdown row per machine and graph: the simulated step of dp, pase,
# tofu, megatron and pardnn (the best whole-op placement here; NO: over
# the cap), pase / dp and tofu / the best other plan that fits.
set -eu
DP=${1:-./build/dnnpart}
echo "| machine | graph | dp | pase | tofu | megatron | pardnn | dp / pase | best other / tofu |"
echo "|---|---|---|---|---|---|---|---|---|"
for gpu in 1080Ti:0.72 2080Ti:0.85; do
	for g in inception-v3 lstm-lm gpt2-small bert-large gpt2-xl; do
		"$DP" compare "sample_graphs/$g.json" -k 8 --mem 11GiB \
			--bw 12GB/s --lat 10us --speed "${gpu#*:}" \
			--algos dp,pase,tofu,megatron,pardnn --json 2>/dev/null |
			python3 -c '
import json, sys
gpu, g = sys.argv[1], sys.argv[2]
r = json.load(sys.stdin)
by = {a["name"]: a for a in r["algorithms"]}
def ok(n):
    a = by.get(n, {})
    return a.get("ok") and "makespan_us" in a
def cell(n):
    if not ok(n):
        return "n/a"
    a = by[n]
    ms = a["makespan_us"] / 1000
    t = "%.2f s" % (ms / 1000) if ms >= 1000 else "%.0f ms" % ms
    return t + ("" if a["feasible"] else " NO")
def ratio(a, b):
    return "%.2fx" % (by[a]["makespan_us"] / by[b]["makespan_us"])
pd = ratio("dp", "pase") if ok("dp") and ok("pase") else "n/a"
if not ok("dp") and ok("pase"):
    pd = "n/a (dp: batch)"
others = [n for n in ("dp", "pase", "megatron", "pardnn")
          if ok(n) and by[n]["feasible"]]
if ok("tofu") and others:
    b = min(others, key=lambda n: by[n]["makespan_us"])
    tb = "%s (%s)" % (ratio(b, "tofu"), b)
else:
    tb = "n/a (nothing else fits)" if ok("tofu") else "n/a"
cells = [cell(n) for n in ("dp", "pase", "tofu", "megatron", "pardnn")]
print("| %s | %s | %s | %s | %s |" % (gpu, g, " | ".join(cells), pd, tb))
' "${gpu%%:*}" "$g"
	done
done

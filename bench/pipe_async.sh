#!/bin/sh
# pipe_async.sh - the asynchronous schedules' numbers in docs/benchmarks.md
# ("Results: asynchronous pipelines"): gpt2-small and bert-large (batch 8)
# on K = 4, S = 4, M = 8 under `1f1b`, in 1F1B, stash (PipeDream's weight
# stashing) and 2bw (PipeDream-2BW): the simulated makespan, the steady
# step (0: none, a synchronous schedule pays fill and drain every step),
# the time per step that throughput ranks by, and device 0's peak (stage
# 0, which holds the most versions) with its `params` at that peak. Prints markdown
# rows; each value comes from a real run. Then resnet50 (batch 64) under
# 1f1b's own search (no -M): the M each schedule's search picks.
# Usage: sh bench/pipe_async.sh [DNNPART]
set -eu
D=${1:-./dnnpart}
echo "| graph | schedule | makespan | steady step | time per step | peak (device 0) | params at device 0's peak |"
echo "|---|---|---|---|---|---|---|"
for x in "sample_graphs/gpt2-small.json gpt2-small" \
	"sample_graphs/bert-large.json bert-large --batch 8"; do
	set -- $x
	f=$1
	name=$2
	shift 2
	for sch in 1f1b stash 2bw; do
		"$D" plan "$f" "$@" -k 4 --algo 1f1b -M 8 --schedule "$sch" \
			--json 2>/dev/null | python3 -c '
import json, sys
d = json.load(sys.stdin)
mk = d["makespan_us"] / 1000
st = d.get("steady_step_us", 0) / 1000
dev0 = d["devices"][0]
role = dev0.get("peak_by_role", {})
print("| %s | %s | %.1f ms | %s | %.1f ms | %.2f GiB | %.0f MiB |" % (
    sys.argv[1], sys.argv[2], mk, "%.1f ms" % st if st else "-",
    st if st else mk, dev0["peak_bytes"] / 2**30,
    role.get("params", 0) / 2**20))' "$name" "$sch"
	done
done
# the searches (no -M): an asynchronous plan is ranked by its steady step
echo
echo "| resnet50 --batch 64 K=4, 1f1b's search | strategy | makespan | steady step |"
echo "|---|---|---|---|"
for sch in 1f1b stash 2bw; do
	"$D" plan sample_graphs/resnet50.json --batch 64 -k 4 --algo 1f1b \
		--schedule "$sch" --json 2>/dev/null | python3 -c '
import json, sys
d = json.load(sys.stdin)
st = d.get("steady_step_us", 0) / 1000
print("| --schedule %s | %s | %.1f ms | %s |" % (sys.argv[1], d["strategy"],
    d["makespan_us"] / 1000, "%.1f ms" % st if st else "-"))' "$sch"
done

#!/bin/sh
# fit_levers.sh - fit's lever search on the sample graphs (docs/benchmarks.md,
# "fit searching the levers"): for each graph under 16 GiB caps, the K found,
# the plan, its levers, what made it fit, the reruns and the wall time; then
# GPT-2 XL's -o file checked with eval --strict.
#   sh bench/fit_levers.sh            (from the repository root, after make)
set -eu
D=${DNNPART:-./dnnpart}
TMP=$(mktemp -d /tmp/fit-levers.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
echo "| graph | K | plan | levers | made fit by | reruns | lever sets | wall |"
echo "|---|---:|---|---|---|---:|---:|---:|"
for g in gpt2-xl gpt2-small bert-large vit-b16 resnet50 inception-v3 \
	resnet152 lstm-lm; do
	b=""
	[ "$g" = gpt2-xl ] && b="--batch 8"
	t0=$(date +%s.%N)
	# shellcheck disable=SC2086
	"$D" fit "sample_graphs/$g.json" $b --mem 16GiB --json >"$TMP/$g.json"
	t1=$(date +%s.%N)
	python3 - "$TMP/$g.json" "$g${b:+ (batch 8)}" "$t0" "$t1" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
p = d.get("plan", {})
print("| %s | %s | %s | %s | %s | %d | %d | %.1f s |" % (
    sys.argv[2], d["k"], p.get("strategy", "-"), p.get("levers", "-"),
    p.get("made_fit") or "-", d["reruns"], d["lever_sets"],
    float(sys.argv[4]) - float(sys.argv[3])))
PY
done
"$D" fit sample_graphs/gpt2-xl.json --batch 8 --mem 16GiB -o "$TMP/xl.json" |
	tail -n 2
rc=0
"$D" eval --strict sample_graphs/gpt2-xl.json "$TMP/xl.json" --batch 8 \
	--mem 16GiB --precision bf16 --recompute none --fuse attention \
	>"$TMP/eval.txt" || rc=$?
grep -E '^(makespan|memory) ' "$TMP/eval.txt"
echo "eval --strict exit status: $rc"

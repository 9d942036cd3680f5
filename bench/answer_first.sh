#!/bin/sh
# answer_first.sh - issue 25's two measured goals, on every sample graph.
#
#   sh bench/answer_first.sh [K] [CAP]          (defaults: 4 16GiB)
#
# 1. `dnnpart plan G -k K --mem CAP` (best of everything, the default) against
#    the fastest feasible row of `dnnpart compare G -k K --mem CAP` (none
#    feasible: the least over its cap), on every sample graph: prints both
#    makespans and plan's excess over compare's row (the goal: at most 0.1 %).
# 2. The explorer opened on gpt2-small and gpt2-xl with the same settings,
#    in a private tmux server (250 columns, so the header is whole): the
#    wall time from the start until the header first shows plan's makespan
#    (the answer), and until the search ends ("planned in"). Polled every
#    0.1 s, so the times are an upper bound by about 0.1 s plus tmux's
#    latency.
# Prints a Markdown table of each and the machine's load average.
set -u
K=${1:-4}
CAP=${2:-16GiB}
DNNPART=${DNNPART:-$PWD/dnnpart}
[ -x "$DNNPART" ] || { echo "answer_first: build dnnpart first (make)"; exit 1; }
tmp=$(mktemp -d)
T="tmux -L dnnpart-answer-$$ -f /dev/null"
trap '$T kill-server >/dev/null 2>&1; rm -rf "$tmp"' EXIT INT TERM

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| graph | plan (best) | plan's choice | compare's fastest row | its makespan | plan - row |"
echo "|---|---|---|---|---|---|"
for g in sample_graphs/*.json; do
	name=$(basename "$g" .json)
	"$DNNPART" plan "$g" -k "$K" --mem "$CAP" --json >"$tmp/p.json" 2>/dev/null
	"$DNNPART" compare "$g" -k "$K" --mem "$CAP" --json >"$tmp/c.json" 2>/dev/null
	python3 - "$name" "$tmp/p.json" "$tmp/c.json" <<'EOF'
import json, sys
name, pf, cf = sys.argv[1:4]
p = json.load(open(pf))
c = json.load(open(cf))
rows = [r for r in c["algorithms"] if r.get("ok") and r["name"] != "best"]
feas = [r for r in rows if r["feasible"]]
if feas:
    row = min(feas, key=lambda r: r["makespan_us"])
else:
    row = min(rows, key=lambda r: (r["max_peak_over_cap"], r["makespan_us"]))
pm, rm = p["makespan_us"], row["makespan_us"]
choice = p.get("strategy") or p.get("best_of") or p["algorithm"]
fe = "" if p["feasible"] else ", over"
rfe = "" if row["feasible"] else " (none fits: least over)"
print("| %s | %.1f ms%s | %s | %s%s | %.1f ms | %+.3f %% |" % (
    name, pm / 1e3, fe, choice, row["name"], rfe, rm / 1e3,
    100.0 * (pm - rm) / rm))
EOF
done

echo
echo "| graph | header shows plan's makespan | search ended | header then |"
echo "|---|---|---|---|"
for name in gpt2-small gpt2-xl; do
	g=sample_graphs/$name.json
	want=$("$DNNPART" plan "$g" -k "$K" --mem "$CAP" 2>/dev/null |
		sed -n 's/^makespan *\([^ ]* [^ ]*\) .*/\1/p')
	t0=$(date +%s%N)
	$T new-session -d -s "$name" -x 250 -y 30 \
		"env LANG=C.UTF-8 \"$DNNPART\" \"$g\" -k $K --mem $CAP; sleep 60"
	shown='-' done='-' line=''
	end=$(($(date +%s) + 120))
	while [ "$(date +%s)" -lt "$end" ]; do
		line=$($T capture-pane -p -t "$name" 2>/dev/null | sed -n 2p)
		ms=$((($(date +%s%N) - t0) / 1000000))
		if [ "$shown" = - ] && echo "$line" | grep -q "makespan $want "; then
			shown="$ms ms"
		fi
		if echo "$line" | grep -q 'planned in'; then
			done="$ms ms"
			break
		fi
		sleep 0.1
	done
	$T kill-session -t "$name" >/dev/null 2>&1
	echo "| $name | $shown (plan: $want) | $done | $(echo "$line" | sed 's/^ *//; s/  */ /g') |"
done
echo
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"

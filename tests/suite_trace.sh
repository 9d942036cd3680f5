#!/bin/sh
# suite_trace.sh - the Chrome / Perfetto trace (`--trace F`) of a plan of
# each sample graph, checked by tools/trace_check.py against the Trace
# Event Format and against the plan itself (`plan --json`): complete events
# with ph, ts, dur >= 0, pid, tid; a name for every process and thread; one
# process per device; slices that nest on each thread; one flow start and
# one finish per transfer of the simulation; memory counters that reach the
# device's peak and never pass it, with the cap as a second series. Also a
# coarsened trace (thinned counters, the largest transfers kept), transfers
# that overlap (contention none) drawn on lanes, and `export --trace`.
set -u
. tests/lib/suite.sh
suite_start trace trace_setup
if ! command -v python3 >/dev/null 2>&1; then
	echo "skip - trace_format: no python3 for tools/trace_check.py"
exit 0
fi

# check NAME TRACE [PLAN]: trace_check.py accepts it
check() {
	if python3 tools/trace_check.py "$2" ${3:+"$3"} >"$TMP/out" 2>&1; then
		echo "ok - $1"
	else
		echo "not ok - $1: $(head -c 600 "$TMP/out")"
	fi
}

for g in sample_graphs/*.json; do
	n=$(basename "$g" .json)
	if "$DNNPART" plan "$g" -k 4 --json --trace "$TMP/$n.trace.json" \
		>"$TMP/$n.plan.json" 2>"$TMP/se"; then
		check "trace_$n" "$TMP/$n.trace.json" "$TMP/$n.plan.json"
	else
		echo "not ok - trace_$n: plan failed: $(head -c 300 "$TMP/se")"
	fi
done

# transfers that overlap on a device (contention none) go to lanes
G=sample_graphs/resnet50.json
if "$DNNPART" plan "$G" -k 4 --contention none --json \
	--trace "$TMP/none.trace.json" >"$TMP/none.plan.json" 2>"$TMP/se"; then
	check trace_contention_none_lanes "$TMP/none.trace.json" "$TMP/none.plan.json"
	if grep -q '"name": "send 2"' "$TMP/none.trace.json"; then
		echo "ok - trace_contention_none_has_lanes"
	else
		echo "not ok - trace_contention_none_has_lanes: no second send lane"
	fi
else
	echo "not ok - trace_contention_none_lanes: $(head -c 300 "$TMP/se")"
fi

# export --trace of a saved placement; a coarsened one stays well-formed
# and says what it left out
"$DNNPART" plan "$G" -k 4 -o "$TMP/p.json" >/dev/null 2>&1
if "$DNNPART" export "$G" "$TMP/p.json" -k 4 -o "$TMP/e.trace.json" \
	>"$TMP/so" 2>"$TMP/se" && grep -q "Perfetto trace" "$TMP/so"; then
	check trace_export "$TMP/e.trace.json"
	# the algorithm that made the saved plan (best of everything saves
	# the strategy it chose, under that strategy's name)
	alg=$(grep -o '"algorithm": *"[^"]*"' "$TMP/p.json" | head -n 1 |
		sed 's/.*: *//')
	if [ -n "$alg" ] && grep -q "\"algorithm\": $alg" "$TMP/e.trace.json"; then
		echo "ok - trace_export_names_the_algorithm"
	else
		echo "not ok - trace_export_names_the_algorithm: $(grep -m1 algorithm "$TMP/e.trace.json")"
	fi
else
	echo "not ok - trace_export: $(head -c 300 "$TMP/se")"
fi
if "$DNNPART" export "$G" "$TMP/p.json" -k 4 --trace "$TMP/c.trace.json" \
	--coarsen always --max-nodes 16 >"$TMP/so" 2>"$TMP/se"; then
	check trace_coarsened "$TMP/c.trace.json"
	if grep -q "transfers kept" "$TMP/se" &&
		grep -q "memory counters thinned" "$TMP/se"; then
		echo "ok - trace_coarsened_says_so"
	else
		echo "not ok - trace_coarsened_says_so: $(head -c 300 "$TMP/se")"
	fi
else
	echo "not ok - trace_coarsened: $(head -c 300 "$TMP/se")"
fi

# the checker itself fails a trace that breaks a rule: a flow without its
# finish, an X event without dur, a thread without a name
good=$TMP/resnet50.trace.json
for rule in flow X names; do
	python3 - "$good" "$TMP/bad.json" "$rule" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
ev, rule = d["traceEvents"], sys.argv[3]
if rule == "flow":
    ev.remove(next(e for e in ev if e["ph"] == "f"))
elif rule == "X":
    del next(e for e in ev if e["ph"] == "X")["dur"]
else:
    ev.remove(next(e for e in ev if e.get("name") == "thread_name"))
json.dump(d, open(sys.argv[2], "w"))
PY
	if python3 tools/trace_check.py "$TMP/bad.json" >"$TMP/out" 2>&1; then
		echo "not ok - trace_check_catches_$rule: accepted a broken trace"
	elif grep -q "FAIL $rule" "$TMP/out"; then
		echo "ok - trace_check_catches_$rule"
	else
		echo "not ok - trace_check_catches_$rule: $(head -c 300 "$TMP/out")"
	fi
done
exit 0

#!/bin/sh
# best_scale.sh - best on the bench's generated graphs (docs/benchmarks.md,
# "Results: best"): planning time (the algorithm alone, plan_ms), the whole
# process's CPU and wall time and peak RSS (/usr/bin/time), the load average
# before and after each run (the machine is shared: wall time depends on
# it), and the plan's makespan, xLB and feasibility, what best started from
# and the runs it made, at K = 4 and 16 without caps and with tight caps
# (1.1 x the one-device peak / K, as bench_scale.c).
#
# Usage: sh bench/best_scale.sh [OPS...]   (default: 100000 1000000)
# Env: DNNPART (default build/dnnpart), GRAPHS (where the generated graphs
# are, or are written: build/bench/graphs, the bench's own), KS (default
# "4 16"), TIMEOUT (seconds per run, default 1200). Prints one
# tab-separated line per run on stdout.
set -u
DNNPART=${DNNPART:-build/dnnpart}
GRAPHS=${GRAPHS:-build/bench/graphs}
KS=${KS:-"4 16"}
TIMEOUT=${TIMEOUT:-1200}
[ $# -gt 0 ] || set -- 100000 1000000
TMP=$(mktemp -d /tmp/dnnpart-best-scale.XXXXXX) || exit 1
trap 'rm -rf "$TMP"' EXIT
mkdir -p "$GRAPHS"
load() { cut -d' ' -f1 /proc/loadavg; }
printf 'ops\tK\tcaps\tplan_ms\tcpu_s\twall_s\tmax_rss_kb\tload_before\tload_after\tmakespan_us\txlb\tfeasible\tbest_of\tbest_devices\tbest_runs\tbest_skipped\n'
for n in "$@"; do
	g="$GRAPHS/gen-$n.json"
	if [ ! -f "$g" ]; then
		"$DNNPART" gen --ops "$n" --seed 1 -o "$g" >/dev/null || exit 1
	fi
	for k in $KS; do
		peak=$("$DNNPART" plan "$g" -k 1 --algo single --json |
			python3 -c 'import json,sys; print(json.load(sys.stdin)["one_device_peak_bytes"])')
		for caps in none tight; do
			mem=""
			[ "$caps" = tight ] &&
				mem="--mem $(python3 -c "print(int(1.1 * $peak / $k))")B"
			lb=$(load)
			# shellcheck disable=SC2086
			timeout "$TIMEOUT" /usr/bin/time -f '%U %S %e %M' \
				-o "$TMP/time" "$DNNPART" plan "$g" -k "$k" \
				--algo best $mem --json >"$TMP/out.json" 2>"$TMP/err"
			rc=$?
			la=$(load)
			if [ $rc -ne 0 ]; then
				printf '%s\t%s\t%s\terror %s: %s\n' "$n" "$k" "$caps" \
					"$rc" "$(head -c 200 "$TMP/err")"
				continue
			fi
			python3 - "$TMP/out.json" "$TMP/time" "$n" "$k" "$caps" \
				"$lb" "$la" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
u, s, e, rss = open(sys.argv[2]).read().split()[-4:]
print("\t".join(str(x) for x in [
    sys.argv[3], sys.argv[4], sys.argv[5], "%.0f" % d["plan_ms"],
    "%.2f" % (float(u) + float(s)), e, rss, sys.argv[6], sys.argv[7],
    "%.1f" % d["makespan_us"], "%.3f" % d["xlb"],
    "yes" if d["feasible"] else "no", d.get("best_of"),
    d.get("best_devices"), d.get("best_runs"), d.get("best_skipped")]))
PY
		done
	done
done

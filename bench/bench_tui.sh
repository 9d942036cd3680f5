#!/bin/sh
# bench_tui.sh - how fast the explorer answers keys while a large rerun runs.
#
#   sh bench/bench_tui.sh [OPS] [SAMPLES]      (defaults: 100000 ops, 30)
#
# Generates an OPS-op training graph (dnnpart gen), opens it in the explorer
# inside a private tmux server (100x30), and measures the time from sending
# a view key (1-5) to the first screen capture that shows the new view:
# first with the worker idle, then while reruns run (+ and - start them; a
# sample counts only if the capture still says "rerunning"). Prints the
# median, 90th percentile and maximum of each, and appends one line to
# bench/results/tui_keys.txt. The times include tmux's own latency and one
# capture-pane (a few ms), so they are an upper bound on the explorer's.
set -u
OPS=${1:-100000}
N=${2:-30}
DNNPART=${DNNPART:-$PWD/dnnpart}
command -v tmux >/dev/null 2>&1 || { echo "bench_tui: tmux is needed"; exit 1; }
[ -x "$DNNPART" ] || { echo "bench_tui: build dnnpart first (make)"; exit 1; }

tmp=$(mktemp -d)
T="tmux -L dnnpart-bench-$$ -f /dev/null"
trap '$T kill-server >/dev/null 2>&1; rm -rf "$tmp"' EXIT INT TERM
screen() { $T capture-pane -p -t b 2>/dev/null; }
now_ms() { echo $(($(date +%s%N) / 1000000)); }

"$DNNPART" gen --ops "$OPS" --seed 1 -o "$tmp/g.json" >/dev/null || exit 1
$T new-session -d -s b -x 100 -y 30 \
	"env LANG=C.UTF-8 \"$DNNPART\" \"$tmp/g.json\" -k 4; sleep 5"

# the first plan
end=$(($(date +%s) + 300))
until screen | grep -q 'makespan'; do
	[ "$(date +%s)" -ge "$end" ] && { echo "bench_tui: no plan after 300 s"; exit 1; }
	sleep 0.1
done
until ! screen | grep -q 'rerunning'; do sleep 0.1; done

marker() {
	case $1 in
	1) echo 'Dev +ops +busy' ;;
	2) echo '│0 us' ;;
	3) echo 'Live on GPU' ;;
	4) echo 'waited' ;;
	5) echo 'sorted by' ;;
	esac
}

# sample MODE: prints one latency in ms, or nothing when the sample does not
# count (MODE busy: the rerun ended before the view showed)
view=1
sample() {
	view=$((view % 5 + 1))
	pat=$(marker $view)
	t0=$(now_ms)
	$T send-keys -t b "$view"
	while :; do
		s=$(screen)
		if echo "$s" | grep -Eq -- "$pat"; then
			t1=$(now_ms)
			if [ "$1" = idle ] || echo "$s" | grep -q 'rerunning'; then
				echo $((t1 - t0))
			fi
			return
		fi
		[ $(($(now_ms) - t0)) -gt 10000 ] && { echo 10000; return; }
	done
}

stats() { # numbers on stdin -> "median p90 max"
	sort -n | awk '{ v[NR] = $1 } END {
		if (NR == 0) { print "- - -"; exit }
		m = v[int((NR + 1) / 2)]; p = v[int(NR * 0.9 + 0.999)]
		print m, p, v[NR] }'
}

: >"$tmp/idle"
i=0
while [ $i -lt "$N" ]; do
	sample idle >>"$tmp/idle"
	i=$((i + 1))
done

: >"$tmp/busy"
k=0
tries=0
while [ "$(wc -l <"$tmp/busy")" -lt "$N" ] && [ $tries -lt $((N * 20)) ]; do
	tries=$((tries + 1))
	if ! screen | grep -q 'rerunning'; then
		if [ $((k % 2)) -eq 0 ]; then $T send-keys -t b +; else $T send-keys -t b -; fi
		k=$((k + 1))
		until screen | grep -q 'rerunning'; do sleep 0.01; done
	fi
	sample busy >>"$tmp/busy"
done

set -- $(stats <"$tmp/idle")
idle="median $1 ms, p90 $2 ms, max $3 ms ($(wc -l <"$tmp/idle") keys)"
set -- $(stats <"$tmp/busy")
busy="median $1 ms, p90 $2 ms, max $3 ms ($(wc -l <"$tmp/busy") keys, $k reruns)"
echo "explorer key latency on a $OPS-op graph"
echo "  idle:            $idle"
echo "  during a rerun:  $busy"
mkdir -p bench/results
echo "$(date -u +%Y-%m-%dT%H:%MZ) ops=$OPS idle: $idle; rerunning: $busy" \
	>>bench/results/tui_keys.txt

#!/bin/sh
# suite_tui_robust.sh - the explorer under abuse, in a real terminal (a
# private tmux server): the terminal is resized again and again while a
# rerun is in flight, random keys arrive for a while (every key of the key
# table, prompts included, the quit keys aside), and malformed files are
# opened. The program must keep running, stay responsive, keep its graph,
# and exit cleanly (status 0; under make check-asan that also means no
# leak and no sanitizer report).
#
# The random keys come from a fixed seed (ROBUST_SEED, default 9) so that a
# failure can be replayed; ROBUST_KEYS sets how many (default 1500).
# Helpers follow tests/suite_tui.sh.
set -u
: "${DNNPART:=$PWD/dnnpart}"
SEED=${ROBUST_SEED:-9}
NKEYS=${ROBUST_KEYS:-1500}

. tests/lib/suite.sh
. tests/lib/tmux.sh
tmux_needed "explorer robustness tests"
suite_start robust tui_robust_setup
tmux_server robust
case $DNNPART in /*) ;; *) DNNPART=$PWD/$DNNPART ;; esac
ROOT=$PWD
tmp=$TMP
S=robust

# alive: the explorer still runs (the shell line after it is not there)
# and answers a redraw with its function-key bar
alive() {
	screen | grep -q 'dnnpart exited with' && return 1
	$T resize-window -t "$S" -x 120 -y 40 2>/dev/null
	keys Escape Escape C-l
	wait_for 'F10Quit' 20
}

graph=$tmp/g.json
if ! "$DNNPART" gen --ops 20000 --seed 11 -o "$graph" >/dev/null 2>"$tmp/gen.err"; then
	echo "not ok - tui_robust_setup: gen failed: $(cat "$tmp/gen.err")"
	exit 1
fi

# the explorer runs in $tmp so that whatever random keys save lands there
$T new-session -d -s "$S" -x 120 -y 40 -c "$tmp" \
	"env LANG=C.UTF-8 LC_ALL=C.UTF-8 TERM=screen \"$DNNPART\" \"$graph\" -k 4 --mem 2GiB; echo \"dnnpart exited with \$?\"; exec sleep 120"
if ! wait_for 'makespan' 60 || ! wait_for 'F10Quit' 10; then
	notok tui_robust_opens "no plan on screen"
	exit 0
fi
ok tui_robust_opens

# ---- resize again and again while reruns are in flight ----
# each round starts a rerun (+ or - changes K; 20,000 ops take some 80 ms,
# several times that under the sanitizers) and at once resizes the
# terminal three times, tiny sizes included
sizes='80x24 200x60 40x10 100x30 1x1 132x43 81x25 79x23 250x80 90x26 20x5
120x40 160x50 80x24 300x100 85x30 60x20 120x40 2x2 100x30 80x24'
set -- $sizes
round=0
overlap=0
while [ $# -ge 3 ]; do
	round=$((round + 1))
	if [ $((round % 2)) -eq 0 ]; then keys -; else keys +; fi
	for size in "$1" "$2" "$3"; do
		$T resize-window -t "$S" -x "${size%x*}" -y "${size#*x}" 2>/dev/null
	done
	screen | grep -Eq 'rerunning|planning|STALE' && overlap=$((overlap + 1))
	shift 3
	sleep 0.05
done
echo "# a rerun was on screen during $overlap of $round resize rounds"
if alive && wait_for 'makespan' 60; then
	ok tui_survives_resizes_during_reruns
else
	notok tui_survives_resizes_during_reruns "not responsive after the resizes"
fi

# ---- random keys ----
# every key of the key table and the line editor (exports and opens run
# as background file jobs that Esc cancels), but not the ones that end the
# program (q, F10, Ctrl-C, Ctrl-\) or stop it (Ctrl-Z)
keylist='Tab BTab Enter Escape Up Down Left Right PPage NPage Home End Space
BSpace F1 F2 F3 F4 F5 F6 F7 F8 F9 F11 F12 1 2 3 4 5 6 7 ? k j h l g G z Z +
- m M c C b B a A t r / n N \ > < I s o e x y 0 8 9 . , ; : % C-l C-u C-w
C-a C-e C-k'
awk -v seed="$SEED" -v n="$NKEYS" -v list="$keylist" 'BEGIN {
	srand(seed)
	m = split(list, k, /[ \n]+/)
	for (i = 0; i < n; i++) {
		printf "%s%s", k[1 + int(rand() * m)], (i % 25 == 24 ? "\n" : " ")
	}
	printf "\n"
}' >"$tmp/keys"
lines=0
while read -r batch; do
	lines=$((lines + 1))
	# shellcheck disable=SC2086
	keys $batch
	# a resize now and then, in the middle of whatever the keys started
	if [ $((lines % 8)) -eq 0 ]; then
		$T resize-window -t "$S" -x $((60 + lines % 140)) -y $((15 + lines % 45)) 2>/dev/null
	fi
	sleep 0.15
	if screen | grep -q 'dnnpart exited with'; then
		break
	fi
done <"$tmp/keys"
if alive; then
	ok tui_survives_random_keys
else
	notok tui_survives_random_keys "stopped after $((lines * 25)) keys (seed $SEED; replay: ROBUST_SEED=$SEED)"
	exit 0
fi

# ---- malformed files: an error in the status line, the graph kept ----
wait_for 'makespan' 60 >/dev/null
for bad in json_truncated_in_op.json json_binary_garbage.json \
	dot_binary_after_header.dot pardnn_cycle json_nul_byte.json; do
	keys o C-u "$ROOT/tests/bad/$bad" Enter
	name=${bad%%.*}
	if wait_for "$bad" 20 && alive && screen | grep -q 'synthetic-20000'; then
		ok "tui_open_malformed_$name"
	else
		notok "tui_open_malformed_$name" "no error shown, or the graph was lost"
	fi
done
keys o C-u "$tmp/no/such/file.json" Enter
if wait_for 'No such file or directory' 20 && alive; then
	ok tui_open_missing_file
else
	notok tui_open_missing_file "no error shown"
fi

# ---- and it still plans and quits cleanly ----
keys r
if wait_for 'makespan' 60; then
	ok tui_still_plans
else
	notok tui_still_plans "no plan after r"
fi
keys q
if wait_for 'dnnpart exited with 0' 30; then
	ok tui_robust_exits_cleanly
else
	notok tui_robust_exits_cleanly "no clean exit after q"
fi
exit 0

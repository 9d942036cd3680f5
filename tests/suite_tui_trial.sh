#!/bin/sh
# suite_tui_trial.sh - what a new user's first session with the explorer ran
# into, each checked where a user sees it: `dnnpart show` for one screen,
# and a private tmux server for keys. The Compare footer does not call
# pardnn the default (best is); a message longer than the status line shows
# whole (wrapped above it); u/U stay within the batch size and come back to
# automatic; a pin that empties a pipeline's stages is named in the header
# and the status; the memory bars share one scale, so a longer bar is more
# memory; best's first plans say when they were found, never "planned in
# 0 us"; the Why view says what bounds the step, what holds a device's peak
# and which reruns help. Every wait polls with a timeout. Environment: DNNPART (the binary).
set -u
. tests/lib/suite.sh
. tests/lib/tmux.sh
tmux_suite trial tui_trial_setup "explorer trial defects"
graph=$tmp/g.json
"$DNNPART" gen --ops 300 --seed 3 -o "$graph" >/dev/null 2>"$tmp/gen.err" ||
	{ echo "not ok - tui_trial_setup: dnnpart gen: $(cat "$tmp/gen.err")" && exit 1; }
envs="LANG=C.UTF-8 LC_ALL=C.UTF-8 TERM=screen"

# verdict NAME WHY: ok NAME when the command before it succeeded, else
# not ok with WHY and the screen
verdict() {
	# shellcheck disable=SC2181
	if [ "$?" -eq 0 ]; then ok "$1"; else notok "$1" "$2"; fi
}

# ---- one screen, no terminal ----
# the footer of Compare names the row's algorithm: pardnn is not "(default)"
"$DNNPART" show "$graph" -k 2 --view compare --width 120 --height 40 \
	>"$tmp/cmp" 2>&1
grep -q '^pardnn: ParDNN' "$tmp/cmp" && ! grep -q '(default)' "$tmp/cmp" &&
	echo "ok - compare_footer_has_no_default_but_best" ||
	echo "not ok - compare_footer_has_no_default_but_best: $(grep -m1 '^pardnn' "$tmp/cmp")"

# memory bars: one scale for every device. GPU1 has the smaller peak and
# a cap 256 times smaller: on its own scale its bar was the longer one.
"$DNNPART" show "$graph" -k 2 --mem 64GiB,256MiB --algo metis --width 120 \
	--height 24 >"$tmp/dev" 2>&1
# fill of the memory bar (the second [...]) of a device row
fill() {
	grep "^$1 " "$tmp/dev" | sed 's/^[^]]*\] *[0-9]*% \[\([^]]*\)\].*/\1/' |
		tr -cd '█!' | wc -m
}
f0=$(fill GPU0)
f1=$(fill GPU1)
if [ -n "$f0" ] && [ -n "$f1" ] && [ "$f1" -le "$f0" ]; then
	ok memory_bars_share_one_scale
else
	echo "not ok - memory_bars_share_one_scale: GPU0 fills $f0 cells, GPU1 (less memory) $f1"
	sed 's/^/#   /' "$tmp/dev"
fi

# joined: the screen as one line (a wrapped message reads whole)
joined() { screen | tr '\n' ' ' | tr -s ' '; }

# session NAME W H ARGS READY CASES: the explorer (ARGS) in a session NAME
# of W x H; once READY is on screen and no rerun runs, the function CASES;
# NAME fails when READY never shows. The session ends after it.
session() {
	S=$1
	$T new-session -d -s "$S" -x "$2" -y "$3" \
		"env $envs \"$DNNPART\" $4; exec sleep 120"
	if wait_for "$5" 30 && wait_settled; then
		"$6"
	else
		notok "$1" "no '$5' on screen"
	fi
	$T kill-session -t "$S" >/dev/null 2>&1
}

# ---- a long message shows whole at 80 columns ----
wrap_cases() {
	keys S
	# "the schedule is a pipeline's, and metis made a placement (a picks
	# gpipe, 1f1b, pipedream or hybrid)": wider than 80
	wait_for 'pipedream or hybrid\)' 5 &&
		joined | grep -q "the schedule is a pipeline's, and metis made a placement (a picks gpipe, 1f1b, pipedream or hybrid)"
	verdict status_message_wraps_whole "the end of the message is cut"
}
session wrap 80 24 "\"$graph\" -k 2 --algo metis" 'metis: makespan' wrap_cases

# ---- u/U: within 1..batch size (64), then automatic again ----
# (the header has "  M=64  " while u/U set it, before the plan's label)
mb_cases() {
	keys U # the automatic 16, doubled
	wait_for '32 micro-batches for pipelines' 5 && wait_settled
	keys U
	wait_for '64 micro-batches for pipelines' 5 && wait_settled &&
		row 1 | grep -q '  M=64  .*S=4 M=64'
	verdict microbatches_up_to_the_batch_size "no M=64 plan after U"
	keys U
	wait_for 'micro-batches automatic again' 5 && wait_settled &&
		! row 1 | grep -q '  M=[0-9]' && row 1 | grep -q 'S=4 M=16' &&
		! screen | grep -q 'failed'
	verdict microbatches_past_the_batch_come_back_to_automatic \
		"U past 64 did not return to automatic"
	keys u
	wait_for '8 micro-batches' 5 && wait_settled
	keys u u u u # 4 2 1, then past 1
	wait_for 'micro-batches automatic again' 10 && wait_settled &&
		! row 1 | grep -q '  M=[0-9]'
	verdict microbatches_below_one_come_back_to_automatic \
		"u below 1 did not return to automatic"
	# Compare prices the pipelines as `dnnpart compare` does: no M
	keys 7
	wait_for 'algorithms on K=4, link' 5
	verdict compare_with_automatic_microbatches "Compare still has an M"
}
session mb 120 30 "\"$graph\" -k 4 --algo 1f1b" '1f1b S=[0-9]+ M=16' mb_cases

# ---- a pin that empties a pipeline's stages says so ----
pin_cases() {
	keys 5
	wait_for 'sorted by' 5
	keys '\' C-u 'model/h0/attn' Enter
	wait_for "filter 'model/h0/attn'" 5
	keys p
	wait_for 'Pin model/h0/attn to' 5
	keys 3 Enter
	wait_for '3 stages empty \(pins\)' 20 && wait_settled &&
		joined | grep -q "op 'model/h0/attn' is pinned to GPU3, and a pipeline runs forward ops in stage order: every forward op after it runs in stage 3 or later, so 3 of 4 stages get no forward work"
	verdict pipeline_pin_says_what_it_did "no empty stages in the header or no why"
}
session pin 120 30 "tests/cli/data/pipe4.json -k 4 --algo 1f1b -M 4" \
	'1f1b S=4 M=4' pin_cases

# ---- best's plans on the way: never "planned in 0 us" ----
anytime_cases() {
	keys m
	seen0=0
	end=$(($(date +%s) + 60))
	while [ "$(date +%s)" -lt "$end" ]; do
		s=$(screen)
		echo "$s" | grep -q 'planned in 0 us' && seen0=1
		echo "$s" | grep -Eq 'rerunning|STALE|planning' || break
		sleep 0.02
	done
	[ "$seen0" -eq 0 ] && row 2 | grep -Eq 'planned in [0-9.]+ [mu]?s'
	verdict anytime_plans_never_say_planned_in_0_us "saw 'planned in 0 us'"
}
session anytime 120 30 "\"$graph\" -k 4 --mem 16GiB" 'best: makespan' \
	anytime_cases

# ---- the Why view: bounds, the peak's holders, and reruns that help ----
why_cases() {
	keys 8
	wait_for 'What bounds the step' 5 &&
		screen | grep -Eq '^\* (compute|communication|device waits) ' &&
		screen | grep -q "What holds GPU0's peak" &&
		wait_for '^  \+ algo [a-z0-9-]+ ' 60
	verdict why_view_bounds_holders_and_changes "no bounds, holders or changes"
	keys j
	wait_for "What holds GPU1's peak" 5
	verdict why_view_down_picks_the_device "still GPU0"
}
session why 120 40 "\"$graph\" -k 4 --algo metis" 'metis: makespan' why_cases

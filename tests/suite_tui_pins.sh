#!/bin/sh
# suite_tui_pins.sh - pins and the Diff view in the real explorer, through
# a private tmux server, at 80x24 and 200x60, in colour and NO_COLOR: `p`
# on an Ops row pins the op to the device typed, the header counts the
# pins, the row is marked `@` and the replan puts the op there; `d` shows
# the makespan before and after and the op among the moved ones, with its
# devices; `Esc` leaves it; `P` pins a layer; `Y` frees every pin. Every
# wait polls with a timeout. Environment: DNNPART (the binary).
set -u
. tests/lib/suite.sh
. tests/lib/tmux.sh
tmux_suite pins tui_pins_setup "explorer pins and diff"

S=

graph=$tmp/g.json
if ! "$DNNPART" gen --ops 400 --seed 7 -o "$graph" >/dev/null 2>"$tmp/gen.err"; then
	echo "not ok - tui_pins_setup: dnnpart gen failed: $(cat "$tmp/gen.err")"
	exit 1
fi

esc=$(printf '\033')
for geo in 80x24 200x60; do
	w=${geo%x*}
	h=${geo#*x}
	for col in color NO_COLOR; do
		S=pins_${geo}_$col
		sfx=${geo}_$col
		envs="LANG=C.UTF-8 LC_ALL=C.UTF-8 TERM=screen"
		opt=--color=always
		[ "$col" = NO_COLOR ] && envs="$envs NO_COLOR=1" && opt=
		$T new-session -d -s "$S" -x "$w" -y "$h" \
			"env $envs \"$DNNPART\" \"$graph\" -k 3 --mem 4GiB --algo pardnn $opt; exec sleep 120"
		if ! wait_for 'pardnn: makespan' 30 || ! wait_settled; then
			notok "tui_pin_$sfx" "no plan on screen"
			$T kill-session -t "$S" >/dev/null 2>&1
			continue
		fi
		mk0=$(row 2 | sed -n 's/.*makespan \([0-9.]* [a-z]*\).*/\1/p')
		# ---- p on the third Ops row: the prompt names the op ----
		keys 5
		wait_for 'sorted by' 5
		keys j j p
		if ! wait_for 'Pin .* to \[GPU0\] \(0-2, - frees\):' 5; then
			notok "tui_pin_$sfx" "no pin prompt"
			$T kill-session -t "$S" >/dev/null 2>&1
			continue
		fi
		op=$(row "$((h - 1))" | sed -n 's/^Pin \(.*\) to \[GPU0\].*/\1/p')
		# a device it is not on
		dev=$(screen | grep -F "$op " | head -n 1 | grep -o 'GPU[0-9]' | head -n 1)
		to=2
		[ "$dev" = GPU2 ] && to=1
		keys "$to" Enter
		wait_for "pinned $op to GPU$to \\(([0-9]+) ops?\\)" 10 && wait_settled &&
			row 1 | grep -Eq '[0-9]+ pins?' && screen | grep -q 'pinned (@)'
		verdict "tui_pin_counts_and_marks_$sfx" "no count or mark after p $to (op '$op' on $dev)"
		# ---- the replan honours it: filter to the op, its row says the
		# device and carries the mark ----
		keys '\' C-u "$op" Enter
		wait_for "^[0-9]+ of 400 ops .*filter '$op'" 5 &&
			screen | grep -F "$op " | grep -q "GPU$to .*@"
		verdict "tui_replan_honours_the_pin_$sfx" "row of $op not on GPU$to with @"
		# the mark is coloured only in colour
		pinrow=$($T capture-pane -p -e -t "$S" | grep -F "$op" | head -n 1)
		if [ "$col" = NO_COLOR ]; then
			if echo "$pinrow" | grep -q "$esc\[[0-9;]*3[0-7]m"; then
				notok "tui_pin_mark_style_$sfx" "colour codes with NO_COLOR"
			else
				ok "tui_pin_mark_style_$sfx"
			fi
		elif echo "$pinrow" | grep -Eq "$esc\[([0-9;]*;)?3[0-7](;[0-9;]*)?m"; then
			ok "tui_pin_mark_style_$sfx"
		else
			notok "tui_pin_mark_style_$sfx" "no colour on the pinned row: $pinrow"
		fi
		keys '\' C-u Enter
		# ---- d: the diff's numbers ----
		keys d
		wait_for 'Diff: before pardnn K=3' 5 &&
			screen | grep -Eq "makespan $mk0 → [0-9.]+ [a-z]+" &&
			screen | grep -Eq 'moved [1-9][0-9]* of 400 ops' &&
			screen | grep -q 'peak before' &&
			screen | grep -Eq '^GPU2 +[0-9.]+ [KMG]?i?B +[0-9.]+ [KMG]?i?B'
		verdict "tui_diff_shows_makespan_peaks_and_moves_$sfx" "no diff numbers (makespan before $mk0)"
		# the pinned op is among the moved ones, to GPU$to (the list may be
		# longer than the screen: page through it)
		found=0
		for _ in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do
			if screen | grep -F "$op " | grep -q "$dev *GPU$to"; then
				found=1
				break
			fi
			keys PgDn
			sleep 0.1
		done
		[ $found = 1 ]
		verdict "tui_diff_lists_the_pinned_op_$sfx" "no row '$op $dev GPU$to'"
		keys Escape
		wait_for 'sorted by' 5 && ! screen | grep -q 'Diff: before'
		verdict "tui_diff_esc_goes_back_$sfx" "still in the diff"
		# ---- P pins the layer, Y frees every pin ----
		keys g P 0 Enter
		wait_for 'pinned layer .* to GPU0 \([0-9]+ ops\)' 10 && wait_settled
		verdict "tui_pin_layer_$sfx" "no 'pinned layer' message"
		keys Y
		wait_for 'freed every op' 5 && wait_settled &&
			! row 1 | grep -Eq '[0-9]+ pins?' && ! screen | grep -q '@$'
		verdict "tui_unpin_all_$sfx" "pins left after Y"
		$T kill-session -t "$S" >/dev/null 2>&1
	done
done

#!/bin/sh
# suite_tui.sh - the explorer end to end in a real terminal: a private tmux
# server runs `dnnpart GRAPH`, keys go in with send-keys, the screen comes
# back with capture-pane. Every wait polls with a timeout (no fixed sleeps
# for the program to catch up). Prints "ok - NAME" / "not ok - NAME: why".
# Environment: DNNPART (the binary), BUILD.
set -u
: "${DNNPART:=$PWD/dnnpart}"

# ---- dnnpart show: one screen as plain text (no terminal needed) ----
showdir=$(mktemp -d)
"$DNNPART" gen --ops 300 --seed 5 -o "$showdir/g.json" >/dev/null 2>&1
show_case() { # NAME EXPECTED_RC GREP_PATTERN ARGS...
	name=$1
	want=$2
	pat=$3
	shift 3
	"$DNNPART" show "$@" >"$showdir/out" 2>"$showdir/err"
	rc=$?
	if [ "$rc" -ne "$want" ]; then
		echo "not ok - $name: exit status $rc, want $want ($(head -n 2 "$showdir/err"))"
	elif ! cat "$showdir/out" "$showdir/err" | grep -Eq -- "$pat"; then
		echo "not ok - $name: no '$pat' in the output"
	else
		echo "ok - $name"
	fi
}
show_case show_timeline_80x24 0 'critical path' "$showdir/g.json" \
	--view timeline --width 80 --height 24 -k 3
if [ "$(wc -l <"$showdir/out")" -eq 24 ] &&
	! LC_ALL=C grep -q "$(printf '\033')" "$showdir/out" &&
	tail -n 1 "$showdir/out" | grep -q 'F10Quit'; then
	echo "ok - show_prints_24_plain_lines"
else
	echo "not ok - show_prints_24_plain_lines: $(wc -l <"$showdir/out") lines or escape codes"
fi
show_case show_ascii_has_no_utf8 0 'GPU2 \[' "$showdir/g.json" --view devices \
	--ascii -k 3
if LC_ALL=C grep -q "$(printf '[\200-\377]')" "$showdir/out"; then
	echo "not ok - show_ascii_is_ascii: bytes above 127 with --ascii"
else
	echo "ok - show_ascii_is_ascii"
fi
show_case show_every_view_200x60 0 'algorithms on K=2' "$showdir/g.json" \
	--view compare --width 200 --height 60 -k 2
show_case show_too_small 0 'terminal too small: 60x20' "$showdir/g.json" \
	--width 60 --height 20
show_case show_infeasible_names_the_device 0 'INFEASIBLE:? GPU[0-9]' \
	"$showdir/g.json" -k 2 --mem 1MiB
show_case show_bad_view 2 "unknown view 'nope'" "$showdir/g.json" --view nope
show_case show_bad_op 2 "no op named 'nosuch'" "$showdir/g.json" --view op \
	--op nosuch
show_case show_missing_graph 2 'missing.json' "$showdir/missing.json"
rm -rf "$showdir"

. tests/lib/suite.sh
. tests/lib/tmux.sh
tmux_suite tui suite_tui_setup "end-to-end explorer tests"
S=tui # the session the helpers talk to


# A small generated training graph: plans in milliseconds.
graph=$tmp/g.json
if ! "$DNNPART" gen --ops 400 --seed 7 -o "$graph" >/dev/null 2>"$tmp/gen.err"; then
	echo "not ok - suite_tui_setup: dnnpart gen failed: $(cat "$tmp/gen.err")"
	exit 1
fi

# ---- open a graph ----
$T new-session -d -s tui -x 100 -y 30 \
	"env LANG=C.UTF-8 LC_ALL=C.UTF-8 TERM=screen \"$DNNPART\" \"$graph\" -k 2 --mem 4GiB --algo pardnn; echo \"dnnpart exited with \$?\"; exec sleep 60"

if wait_row 2 'pardnn: makespan' && wait_for 'F10Quit' && wait_settled; then
	if row 1 | grep -q 'synthetic-400' && row 1 | grep -q 'K=2' &&
		row 4 | grep -q '^GPU0 \[' && row 5 | grep -q '^GPU1 \['; then
		ok tui_opens_a_graph
	else
		notok tui_opens_a_graph "header or device rows missing"
	fi
else
	notok tui_opens_a_graph "no plan on screen"
	exit 1
fi

# ---- + adds a device ----
keys +
if wait_row 1 'K=3' && wait_row 6 '^GPU2 \[' && wait_settled &&
	! screen | grep -q 'waiting for the rerun'; then
	ok tui_plus_adds_a_device
else
	notok tui_plus_adds_a_device "no K=3 header or GPU2 row"
fi

# ---- m lowers the selected device's cap and the plan reruns ----
before=$(row 4)
keys m
if wait_row 4 '3\.50 GiB' && wait_settled; then
	after=$(row 4)
	bar_before=$(echo "$before" | sed 's/\].*//; s/.*\[//')
	if [ "$before" != "$after" ] &&
		screen | grep -q 'GPU0 cap 3.50 GiB (was 4.00 GiB)'; then
		ok tui_m_lowers_the_cap_and_reruns
	else
		notok tui_m_lowers_the_cap_and_reruns "row did not change: $after"
	fi
	: "$bar_before"
else
	notok tui_m_lowers_the_cap_and_reruns "no 3.50 GiB cap on GPU0"
fi

# ---- a cap too small: infeasible, naming the device ----
keys C C-u 1MiB Enter
if wait_row 2 'INFEASIBLE:? GPU[0-9]' && wait_settled &&
	screen | grep -q 'OVER'; then
	ok tui_too_small_cap_is_infeasible_with_the_device_named
else
	notok tui_too_small_cap_is_infeasible_with_the_device_named \
		"no INFEASIBLE GPUn verdict"
fi
# a bad cap keeps the session: status line error, caps unchanged
keys c C-u '8 parsecs' Enter
if wait_for 'cap not changed' && row 4 | grep -q '1.00 MiB'; then
	ok tui_bad_cap_goes_to_the_status_line
else
	notok tui_bad_cap_goes_to_the_status_line "no error in the status line"
fi
keys C C-u 4GiB Enter
wait_settled

# ---- a switches the algorithm ----
header_algo() { row 1 | sed -n 's/.*algo \([a-z0-9_-]*\).*/\1/p'; }
algo0=$(header_algo)
keys a
# the key is read and the rerun started asynchronously: on a loaded machine
# wait_settled can return before either; wait (at most 20 s) for the header
# to move off algo0 first
end=$(($(date +%s) + 20))
while [ "$(header_algo)" = "$algo0" ] && [ "$(date +%s)" -lt "$end" ]; do
	sleep 0.05
done
if wait_row 1 "algo [a-z]" && wait_settled; then
	algo1=$(header_algo)
	if [ -n "$algo1" ] && [ "$algo1" != "$algo0" ] &&
		row 2 | grep -q "^ $algo1:"; then
		ok tui_a_switches_algorithm
	else
		notok tui_a_switches_algorithm "algo '$algo0' -> '$algo1'"
	fi
else
	notok tui_a_switches_algorithm "no header after a"
fi
keys A
wait_settled

# ---- Tab reaches every view ----
# the main view starts below the panel (3 devices): row 8 is the tab bar
pass=1
for want in '│0 us' 'Live on GPU0' 'waited' 'ops  sorted by' \
	'no op selected' 'algorithms on K=3' 'What bounds the step' \
	'Dev +ops +busy'; do
	keys Tab
	if ! wait_for "$want" 10; then
		pass=0
		notok tui_tab_reaches_every_view "no '$want' after Tab"
		break
	fi
done
[ $pass = 1 ] && ok tui_tab_reaches_every_view
# Compare fills in every algorithm's row
keys 7
# (best's row comes last: best of everything, reusing the rows before it)
if wait_settled 120 && ! screen | grep -Eq 'waiting|running\.\.\.'; then
	ok tui_compare_fills_every_row
else
	notok tui_compare_fills_every_row "rows still waiting"
fi
keys 1

# ---- ? shows the help, Esc closes it ----
keys '?'
if wait_for 'dnnpart explorer: keys' && screen | grep -q 'next view'; then
	keys Escape
	if wait_for 'Dev +ops +busy'; then
		ok tui_help_shows_and_closes
	else
		notok tui_help_shows_and_closes "Esc did not close the help"
	fi
else
	notok tui_help_shows_and_closes "no help screen"
fi

# ---- resizing keeps the screen sane ----
sane() { # W H: header, key bar, nothing past the size
	w=$1
	h=$2
	s=$(screen)
	[ "$(echo "$s" | wc -l)" -eq "$h" ] || return 1
	echo "$s" | sed -n 1p | grep -q 'synthetic-400' || return 1
	echo "$s" | sed -n "${h}p" | grep -q 'F1Help' || return 1
	echo "$s" | sed -n "${h}p" | grep -q 'F10Quit' || return 1
	# characters, not bytes: the bars are UTF-8
	echo "$s" | LC_ALL=C.UTF-8 sed 's/./x/g' |
		awk -v w="$w" '{ if (length($0) > w) bad = 1 } END { exit bad }'
}
# wait_sane W H: tmux shows the old cells until the explorer redraws
wait_sane() {
	end=$(($(date +%s) + 10))
	while ! sane "$1" "$2"; do
		[ "$(date +%s)" -ge "$end" ] && return 1
		sleep 0.05
	done
}
for size in 80x24 200x60 100x30; do
	w=${size%x*}
	h=${size#*x}
	$T resize-window -t tui -x "$w" -y "$h"
	if wait_sane "$w" "$h"; then
		ok "tui_resize_${size}_keeps_the_screen_sane"
	else
		notok "tui_resize_${size}_keeps_the_screen_sane" "screen broken"
	fi
done
$T resize-window -t tui -x 60 -y 20
if wait_for 'terminal too small: 60x20'; then
	$T resize-window -t tui -x 100 -y 30
	if wait_sane 100 30; then
		ok tui_too_small_terminal_says_so_and_recovers
	else
		notok tui_too_small_terminal_says_so_and_recovers "no recovery"
	fi
else
	notok tui_too_small_terminal_says_so_and_recovers "no message"
fi
# resize during a rerun (the header shows the new K when the rerun's plan
# is installed: on a loaded machine, under ASan, wait_settled can return
# before that, so wait for K=4 itself, as for the algorithm switch above)
keys +
$T resize-window -t tui -x 120 -y 40
if ! wait_sane 120 40; then
	notok tui_resize_during_a_rerun "the 120x40 screen is not sane after 10 s"
elif wait_row 1 'K=4' && wait_settled && wait_sane 120 40; then
	ok tui_resize_during_a_rerun
else
	notok tui_resize_during_a_rerun "no K=4 screen at 120x40"
fi

# ---- the mouse: a click on a tab shows that view ----
tabrow=$(screen | grep -n ' 1 Devices ' | head -n 1 | cut -d: -f1)
if [ -n "$tabrow" ]; then
	# X10 mouse report: ESC [ M, then 32 + button, 32 + column, 32 + row
	# (1-based); " 3 Memory " starts at column 26 on a wide screen
	cx=$(printf '%x' $((32 + 28)))
	cy=$(printf '%x' $((32 + tabrow)))
	keys -H 1b 5b 4d 20 "$cx" "$cy"
	keys -H 1b 5b 4d 23 "$cx" "$cy"
	if wait_for 'Live on GPU' 5; then
		ok tui_mouse_click_on_a_tab
	else
		notok tui_mouse_click_on_a_tab "no Memory view after the click"
	fi
	keys 1
else
	notok tui_mouse_click_on_a_tab "no tab row"
fi

# ---- s saves the placement; o opens another graph or says why not ----
keys s C-u "$tmp/saved.json" Enter
if wait_for 'saved the .* placement to' 10 && [ -s "$tmp/saved.json" ] &&
	grep -q '"dnnpart-placement"' "$tmp/saved.json"; then
	ok tui_s_saves_the_placement
else
	notok tui_s_saves_the_placement "no placement file"
fi
keys e C-u "$tmp/plan.dot" Enter
if wait_for 'exported .*plan.dot' 20 && grep -q 'cluster' "$tmp/plan.dot"; then
	ok tui_e_exports_dot
else
	notok tui_e_exports_dot "no DOT file with device clusters"
fi
# the DOT export runs in the background; what it wrote loads back as a graph
if [ -s "$tmp/plan.dot" ] &&
	"$DNNPART" info "$tmp/plan.dot" >"$tmp/info.out" 2>&1 &&
	grep -q '400' "$tmp/info.out"; then
	ok tui_e_dot_loads_back
else
	notok tui_e_dot_loads_back "dnnpart info: $(head -n 2 "$tmp/info.out" 2>/dev/null)"
fi
# the default picture of 400 ops is drawn as groups (above 150 ops); Tab
# once asks for groups whatever the size, and the next e remembers it
keys e C-u "$tmp/plan.svg" Enter
if wait_for 'exported .*plan.svg \([0-9]+ nodes, [0-9]+ edges, coarsened\)' 20 &&
	grep -q 'COARSENED' "$tmp/plan.svg"; then
	ok tui_e_svg_default_is_coarsened
else
	notok tui_e_svg_default_is_coarsened "no coarsened plan.svg"
fi
keys e Tab
if wait_for 'Export \[Tab: detail groups\] to: ' 5; then
	keys C-u "$tmp/plan.trace.json" Enter
	if wait_for 'exported .*as Perfetto trace to .*plan.trace.json \([0-9]+ events, coarsened\)' 20 &&
		grep -q '"traceEvents"' "$tmp/plan.trace.json"; then
		ok tui_e_trace_with_groups
	else
		notok tui_e_trace_with_groups "no coarsened trace"
	fi
else
	notok tui_e_trace_with_groups "Tab did not pick groups"
	keys Escape
fi
keys e
if wait_for 'Export \[Tab: detail groups\] to: ' 5; then
	ok tui_e_remembers_the_detail
else
	notok tui_e_remembers_the_detail "prompt: $(screen | grep Export)"
fi
keys Tab Tab
wait_for 'Export \[Tab: detail auto\] to: ' 5
keys Escape
keys e C-u "$tmp/plan.json" Enter
if wait_for 'exported .*plan.json' 20 &&
	grep -q '"dnnpart-placement"' "$tmp/plan.json" &&
	grep -q '"metrics"' "$tmp/plan.json"; then
	ok tui_e_exports_json
else
	notok tui_e_exports_json "no placement JSON with metrics"
fi
keys o C-u "$tmp/missing.json" Enter
if wait_for 'missing.json' 5 && row 1 | grep -q 'synthetic-400'; then
	ok tui_open_error_keeps_the_session
else
	notok tui_open_error_keeps_the_session "no error or graph lost"
fi
# a malformed file: its position in the status line, the old graph stays
printf '{"format":"dnnpart-graph","version":1,\n"ops":[{"name":"a",]}\n' \
	>"$tmp/bad.json"
keys o C-u "$tmp/bad.json" Enter
if wait_for 'not opened: .*bad.json:2' 10 && row 1 | grep -q 'synthetic-400' &&
	row 2 | grep -q 'makespan'; then
	ok tui_o_malformed_file_keeps_the_old_graph
else
	notok tui_o_malformed_file_keeps_the_old_graph "no error with a line or graph lost"
fi
"$DNNPART" gen --ops 100 --seed 3 -o "$tmp/other.json" >/dev/null 2>&1
keys o C-u "$tmp/other.json" Enter
if wait_row 1 'synthetic-100 ' && wait_row 2 'makespan' && wait_settled; then
	ok tui_o_opens_another_graph
else
	notok tui_o_opens_another_graph "no synthetic-100 on screen"
fi

# ---- q exits with status 0 and a clean terminal ----
keys q
if wait_for 'dnnpart exited with 0' 10; then
	if screen | grep -Eq 'F10Quit|synthetic-400|GPU0'; then
		notok tui_q_exits_cleanly "explorer left on the screen"
	else
		ok tui_q_exits_cleanly
	fi
else
	notok tui_q_exits_cleanly "no exit status 0"
fi

# ---- the export prompt says the detail at 80x24 and 200x60, in colour and
# NO_COLOR: Tab cycles it, the whole prompt stays on the screen ----
for geo in 80x24 200x60; do
	for col in color NO_COLOR; do
		name=detail_${geo}_$col
		envs="LANG=C.UTF-8 TERM=screen"
		[ "$col" = NO_COLOR ] && envs="$envs NO_COLOR=1"
		$T new-session -d -s "$name" -x "${geo%x*}" -y "${geo#*x}" \
			"env $envs \"$DNNPART\" \"$graph\" -k 2; exec sleep 60"
		S=$name
		if wait_row 2 'makespan' 20 && wait_settled; then
			keys e
			wait_for 'Export \[Tab: detail auto\] to: synthetic-400.dot' 5
			keys Tab
			if wait_for 'Export \[Tab: detail groups\] to: synthetic-400.dot' 5; then
				keys Tab
				if wait_for 'Export \[Tab: detail every op\] to: synthetic-400.dot' 5; then
					ok "tui_e_detail_prompt_${geo}_$col"
				else
					notok "tui_e_detail_prompt_${geo}_$col" "no 'every op': $(screen | grep Export)"
				fi
			else
				notok "tui_e_detail_prompt_${geo}_$col" "no 'groups': $(screen | grep Export)"
			fi
			keys Escape
		else
			notok "tui_e_detail_prompt_${geo}_$col" "no plan on screen"
		fi
		S=tui
		$T kill-session -t "$name" >/dev/null 2>&1
	done
done

# ---- colors: NO_COLOR gives the monochrome scheme, --color=always colors ----
# capture-pane -e shows the cells' attributes as SGR sequences
color_session() { # NAME ENV ARGS
	$T new-session -d -s "$1" -x 100 -y 30 \
		"env LANG=C.UTF-8 TERM=screen $2 \"$DNNPART\" \"$graph\" -k 2 --mem 1MiB $3; exec sleep 60"
}
sgr_colors() { # SESSION: prints the color SGR codes (30-47) on its screen
	$T capture-pane -p -e -t "$1" | grep -o "$(printf '\033')\[[0-9;]*m" |
		tr ';' '\n' | sed 's/.*\[//; s/m$//' | grep -E '^(3[0-7]|4[0-7])$' |
		sort -u | tr '\n' ' '
}
color_session mono "NO_COLOR=1" ""
color_session always "NO_COLOR=1" "--color=always"
S=mono
wait_row 2 'INFEASIBLE' && wait_settled
S=always
wait_row 2 'INFEASIBLE' && wait_settled
mono=$(sgr_colors mono)
echo "# color codes: NO_COLOR: '$mono'"
always=$(sgr_colors always)
echo "# color codes: --color=always: '$always'"
if [ -z "$mono" ] && [ -n "$always" ] &&
	$T capture-pane -p -t mono | grep -q '!!!'; then
	ok tui_no_color_is_monochrome_and_over_cap_still_shows
else
	echo "not ok - tui_no_color_is_monochrome_and_over_cap_still_shows: colors '$mono' with NO_COLOR, '$always' with --color=always"
fi
S=tui
$T kill-session -t mono >/dev/null 2>&1
$T kill-session -t always >/dev/null 2>&1

# ---- Esc cancels a long rerun; the session goes on ----
big=$tmp/big.json
if "$DNNPART" gen --ops 100000 --seed 1 -o "$big" >/dev/null 2>&1; then
	# a second session first: killing the last one would stop the server
	$T new-session -d -s big -x 100 -y 30 \
		"env LANG=C.UTF-8 LC_ALL=C.UTF-8 TERM=screen \"$DNNPART\" \"$big\" -k 8; echo \"dnnpart exited with \$?\"; exec sleep 60"
	$T kill-session -t tui >/dev/null 2>&1
	S=big
	if wait_for 'rerunning best' 20; then
		keys Escape
		t0=$(date +%s)
		if wait_for 'cancelled' 5 && wait_settled 5; then
			echo "# the rerun stopped $(($(date +%s) - t0)) s after Esc"
			keys Tab
			if wait_for '│0 us|no plan' 3; then
				ok tui_esc_cancels_a_rerun
			else
				notok tui_esc_cancels_a_rerun "no response after cancel"
			fi
		else
			notok tui_esc_cancels_a_rerun "still rerunning after Esc"
		fi
	else
		notok tui_esc_cancels_a_rerun "no rerun in progress on screen"
	fi
	keys q
	if wait_for 'dnnpart exited with 0' 10; then
		ok tui_q_during_or_after_a_cancelled_rerun_exits_0
	else
		notok tui_q_during_or_after_a_cancelled_rerun_exits_0 "no exit 0"
	fi
else
	echo "not ok - tui_esc_cancels_a_rerun: dnnpart gen --ops 100000 failed"
fi

# ---- e to .svg runs in the background: progress on the status line, the
# UI responds, one file job at a time, Esc cancels and no file appears; a
# rerun is not held up by an export; q during an export exits at once ----
# Tab in the export prompt picks the detail: "every op" draws all 30,000
# ops, a layout of about 13 s (a few on a fast machine), while planning
# with pardnn takes a fraction of a second (best of everything, the
# default, searches the strategies too, for longer).
mid=$tmp/mid.json
if "$DNNPART" gen --ops 30000 --seed 2 -o "$mid" >/dev/null 2>"$tmp/gen.err"; then
	$T new-session -d -s exp -x 120 -y 30 \
		"env LANG=C.UTF-8 LC_ALL=C.UTF-8 TERM=screen \"$DNNPART\" \"$mid\" -k 4 --algo pardnn; echo \"dnnpart exited with \$?\"; exec sleep 60"
	S=exp
	mkdir -p "$tmp/out"
	if wait_row 2 'makespan' 20 && wait_settled 20; then
		keys e Tab Tab
		if wait_for 'Export \[Tab: detail every op\] to: ' 5; then
			ok tui_e_tab_picks_every_op
		else
			notok tui_e_tab_picks_every_op "no 'detail every op' prompt"
		fi
		keys C-u "$tmp/out/mid.svg" Enter
		if wait_for 'exporting mid.svg: .*Esc cancels' 10; then
			ok tui_e_svg_shows_progress
		else
			notok tui_e_svg_shows_progress "no 'exporting mid.svg' line"
		fi
		# the UI answers keys while the export runs
		keys Tab
		if wait_for '│0 us' 5 && screen | grep -q 'exporting mid.svg'; then
			ok tui_keys_work_during_an_export
		else
			notok tui_keys_work_during_an_export "Tab did not reach Timeline"
		fi
		# a second file job waits its turn, and says why
		keys o
		if wait_for 'busy exporting: Esc cancels it first  exporting mid.svg' 5; then
			ok tui_one_file_job_at_a_time
		else
			notok tui_one_file_job_at_a_time "no 'still running' message"
		fi
		keys Escape
		t0=$(date +%s)
		if wait_for 'cancelled: .*mid.svg not exported' 15 &&
			! screen | grep -q 'exporting mid.svg' &&
			[ -z "$(ls -A "$tmp/out")" ]; then
			echo "# the export stopped $(($(date +%s) - t0)) s after Esc"
			ok tui_esc_cancels_an_export_and_writes_nothing
		else
			notok tui_esc_cancels_an_export_and_writes_nothing \
				"still exporting, or files: $(ls -A "$tmp/out")"
		fi
		# a rerun while an export runs finishes on its own time: the
		# K=5 plan shows while the export still runs. Under a heavy
		# load (or the sanitizers) the rerun may outlast the export;
		# then nothing tells the two apart, and the check is a skip.
		keys e C-u "$tmp/out/again.svg" Enter
		wait_for 'exporting again.svg' 10
		keys +
		if wait_row 1 'K=5' 10 && wait_settled 60; then
			if screen | grep -q 'exporting again.svg'; then
				ok tui_rerun_during_an_export
			else
				echo "skip - tui_rerun_during_an_export: the export ended before the rerun (load $(cut -d' ' -f1 /proc/loadavg))"
			fi
		else
			notok tui_rerun_during_an_export "no K=5 plan while exporting"
		fi
	else
		notok tui_e_svg_shows_progress "no plan for the 30,000-op graph"
	fi
	# q while the export may still run: it is cancelled, nothing is left
	keys q
	if wait_for 'dnnpart exited with 0' 20 &&
		! ls -A "$tmp/out" | grep -q tmp; then
		ok tui_q_during_an_export_exits_0
	else
		notok tui_q_during_an_export_exits_0 "no exit 0, or $(ls -A "$tmp/out")"
	fi
else
	echo "not ok - tui_e_svg_shows_progress: dnnpart gen --ops 30000 failed: $(cat "$tmp/gen.err")"
fi

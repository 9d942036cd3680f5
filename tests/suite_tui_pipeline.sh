#!/bin/sh
# suite_tui_pipeline.sh - a pipeline plan in the real explorer, through a
# private tmux server, at 80x24 and 120x40, in colour and NO_COLOR: `S`
# cycles the schedule (gpipe, 1f1b, zb-h1, stash, 2bw: the header says
# `sched 1f1b`, the rerun's label `1f1b S=4 M=8`, at last `gpipe` again); the Timeline draws the bubble (░, its
# share in the legend and per device at the right) and gives micro-batches
# colours of their own only in colour (their digits in both); `e` writes
# the PiPPy and Megatron exports by extension; on a plan that is no
# pipeline `S` says why. Every wait polls with a timeout. Environment:
# DNNPART (the binary).
set -u
. tests/lib/suite.sh
. tests/lib/tmux.sh
tmux_suite pipeline tui_pipeline_setup "explorer pipeline schedule"

S=
graph=tests/cli/data/pipe4.json
esc=$(printf '\033')
envs0="LANG=C.UTF-8 LC_ALL=C.UTF-8 TERM=screen"

# start NAME W H ENVS ARGS: a session running the explorer on the graph
start() {
	S=$1
	$T new-session -d -s "$S" -x "$2" -y "$3" \
		"env $envs0 $4 \"$DNNPART\" \"$graph\" $5; exec sleep 120"
}

for geo in 80x24 120x40; do
	w=${geo%x*}
	h=${geo#*x}
	for col in color NO_COLOR; do
		sfx=${geo}_$col
		envs=
		opt=--color=always
		[ "$col" = NO_COLOR ] && envs="NO_COLOR=1" && opt=
		start "pipe_$sfx" "$w" "$h" "$envs" "-k 4 --algo gpipe -M 8 $opt"
		if ! wait_for 'gpipe S=4 M=8' 30 || ! wait_settled; then
			notok "tui_pipeline_$sfx" "no gpipe plan on screen"
			$T kill-session -t "$S" >/dev/null 2>&1
			continue
		fi
		# ---- the Timeline: bubble and micro-batches ----
		keys 2
		if wait_for 'bubble [0-9.]+%' 5 &&
			screen | grep -Eq '^GPU[0-3] .*░.* +[0-9]+%$' &&
			screen | grep -Eq '^GPU[0-3] .*[░▌▓][0-7]'; then
			ok "tui_timeline_bubble_$sfx"
		else
			notok "tui_timeline_bubble_$sfx" "no bubble (░, share) or digits"
		fi
		# micro-batch cells: a background colour each in colour, none
		# without (the digits stay)
		# (the chart's row of GPU0: the last one naming it; -e puts
		# escapes before the name)
		bgs=$($T capture-pane -p -e -t "$S" | grep 'GPU0' | tail -n 1 |
			grep -o "$esc\[[0-9;]*4[0-7][0-9;]*m[0-7]" | sort -u | wc -l)
		if [ "$col" = NO_COLOR ] && [ "$bgs" -eq 0 ]; then
			ok "tui_timeline_microbatch_colours_$sfx"
		elif [ "$col" = color ] && [ "$bgs" -ge 2 ]; then
			ok "tui_timeline_microbatch_colours_$sfx"
		else
			notok "tui_timeline_microbatch_colours_$sfx" "$bgs coloured digit kinds on GPU0"
		fi
		# ---- S: 1f1b, rerun, S: zb-h1, S: gpipe again ----
		keys S
		if wait_for 'sched 1f1b' 5 && wait_for '1f1b S=4 M=8' 20 &&
			wait_settled && screen | grep -q 'gpipe: makespan'; then
			ok "tui_schedule_key_1f1b_$sfx"
		else
			notok "tui_schedule_key_1f1b_$sfx" "no 1f1b rerun after S"
		fi
		# S: zb-h1 (this graph has no grad ops: the rerun says so),
		# S: gpipe again
		keys S
		if wait_for 'sched zb-h1' 5 && wait_for 'STALE' 20; then
			ok "tui_schedule_key_zbh1_$sfx"
		else
			notok "tui_schedule_key_zbh1_$sfx" "no zb-h1 after S S"
		fi
		# S: stash, S: 2bw (asynchronous: reruns in 1F1B's order)
		for a in stash 2bw; do
			keys S
			if wait_for "sched $a" 5 && wait_for "$a S=4 M=8" 20 &&
				wait_settled; then
				ok "tui_schedule_key_${a}_$sfx"
			else
				notok "tui_schedule_key_${a}_$sfx" "no $a rerun after S"
			fi
		done
		keys S
		if wait_for 'sched gpipe' 5 && wait_for 'gpipe S=4 M=8' 20 &&
			wait_settled; then
			ok "tui_schedule_key_back_$sfx"
		else
			notok "tui_schedule_key_back_$sfx" "no gpipe rerun after S x5"
		fi
		# ---- e: the framework exports, by extension ----
		for x in 'pippy.py|PiPPy split|"model.h1": SplitPoint.BEGINNING' \
			'megatron.sh|Megatron-LM arguments|--pipeline-model-parallel-size 4'; do
			ext=${x%%|*}
			rest=${x#*|}
			kind=${rest%%|*}
			keys e C-u "$tmp/$sfx.$ext" Enter
			{ wait_for "exported the gpipe plan as $kind" 20 &&
				grep -qF -- "${rest#*|}" "$tmp/$sfx.$ext" &&
				ok "tui_export_${ext%%.*}_$sfx"; } ||
				notok "tui_export_${ext%%.*}_$sfx" "no $kind file"
		done
		$T kill-session -t "$S" >/dev/null 2>&1
	done
done

# ---- a placement: S says why, the Timeline has no bubble, the pipeline
# exports are refused ----
start pipe_heft 120 40 "" "-k 2 --algo heft"
if ! wait_for 'heft: makespan' 30 || ! wait_settled; then
	notok "tui_schedule_not_a_pipeline" "no heft plan on screen"
else
	keys S
	if wait_for "the schedule is a pipeline's, and heft made a placement" 5 &&
		! row 1 | grep -q 'sched '; then
		ok "tui_schedule_not_a_pipeline"
	else
		notok "tui_schedule_not_a_pipeline" "no reason after S"
	fi
	keys 2
	if wait_for 'critical path' 5 && ! screen | grep -q '░' &&
		! screen | grep -q 'bubble'; then
		ok "tui_timeline_no_bubble_for_a_placement"
	else
		notok "tui_timeline_no_bubble_for_a_placement" "bubble on a placement"
	fi
	# no file, and the status line says why
	keys e C-u "$tmp/heft.pippy.py" Enter
	{ wait_for 'not exported: .*needs a pipeline' 20 &&
		[ ! -e "$tmp/heft.pippy.py" ] && ok "tui_export_pippy_refused"; } ||
		notok "tui_export_pippy_refused" "no refusal, or a file"
fi
$T kill-session -t "$S" >/dev/null 2>&1

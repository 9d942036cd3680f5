#!/bin/sh
# suite_tui_safe.sh - the explorer never loses a file and reads sizes as the
# command line does, end to end in tmux (issue 16, "Nothing lost" and
# "Conventions"). Each check runs at 80x24 and 200x60, in colour
# (--color=always) and with NO_COLOR:
#   - s to a file that exists asks "overwrite? (y/N)": n keeps the file,
#     y replaces it; e likewise;
#   - the graph that is open is never overwritten (s, and e through a
#     symbolic link), not even after y;
#   - s refuses an extension it cannot write, naming the ones it takes;
#   - the cap prompt opens with the cap selected: typing replaces it;
#   - m m M M comes back to the cap it started from;
#   - a plain number in the cap prompt gives --mem's message.
# And the first load says "loading PATH" on the terminal before the screen.
# Prints "ok - NAME" / "not ok - NAME: why" / "skip - NAME: why".
set -u
. tests/lib/suite.sh
. tests/lib/tmux.sh
tmux_suite safe tui_safe_setup tui_safe

esc=$(printf '\033')
S=safe
# the status line (the last but one row; the last is the key bar)
status() { screen | tail -n 2 | head -n 1; }

graph=$tmp/g.json
if ! "$DNNPART" gen --ops 300 --seed 9 -o "$graph" >/dev/null 2>"$tmp/gen.err"; then
	echo "not ok - tui_safe_setup: dnnpart gen failed: $(cat "$tmp/gen.err")"
	exit 1
fi
cp "$graph" "$tmp/g.orig"
ln -s g.json "$tmp/link.json"

for size in 80x24 200x60; do
	for mode in color mono; do
		tag=${size}_$mode
		w=${size%x*}
		h=${size#*x}
		if [ "$mode" = mono ]; then
			envs="NO_COLOR=1"
			args=""
		else
			envs=""
			args="--color=always"
		fi
		S=safe_$tag
		$T new-session -d -s "$S" -x "$w" -y "$h" \
			"env LANG=C.UTF-8 LC_ALL=C.UTF-8 TERM=screen $envs \"$DNNPART\" \"$graph\" -k 2 --mem 4GiB $args; echo \"dnnpart exited with \$?\"; exec sleep 60"
		if ! wait_for 'makespan' 60; then
			notok "tui_safe_start_$tag" "no plan on screen after 60 s"
			continue
		fi
		if ! wait_settled; then
			notok "tui_safe_start_$tag" "still planning after 60 s"
			continue
		fi

		# ---- s to a file that exists: n keeps it, y replaces it ----
		out=$tmp/p_$tag.json
		echo old >"$out"
		keys s C-u "$out" Enter
		if wait_for 'exists - overwrite\? \(y/N\)' 10; then
			keys n
			if wait_for 'not saved: .*kept as it was' 10 &&
				[ "$(cat "$out")" = old ]; then
				ok "tui_save_over_a_file_asks_and_n_keeps_it_$tag"
			else
				notok "tui_save_over_a_file_asks_and_n_keeps_it_$tag" \
					"no 'kept' or the file changed"
			fi
		else
			notok "tui_save_over_a_file_asks_and_n_keeps_it_$tag" \
				"no overwrite question"
		fi
		keys s C-u "$out" Enter
		if wait_for 'overwrite\? \(y/N\)' 10 && keys y &&
			wait_for 'saved the .* (placement|strategy)' 10 &&
			grep -Eq '"dnnpart-(placement|strategy)"' "$out"; then
			ok "tui_save_over_a_file_with_y_replaces_it_$tag"
		else
			notok "tui_save_over_a_file_with_y_replaces_it_$tag" \
				"not saved after y: $(head -c 60 "$out")"
		fi
		# e too (CSV: quick, no Graphviz)
		csv=$tmp/e_$tag.csv
		echo old >"$csv"
		keys e C-u "$csv" Enter
		if wait_for 'overwrite\? \(y/N\)' 10 && keys Enter &&
			wait_for 'not exported: .*kept as it was' 10 &&
			[ "$(cat "$csv")" = old ]; then
			ok "tui_export_over_a_file_asks_and_enter_keeps_it_$tag"
		else
			notok "tui_export_over_a_file_asks_and_enter_keeps_it_$tag" \
				"no question, or the file changed"
		fi

		# ---- the open graph: never, whatever the path, even after y ----
		keys s C-u "$graph" Enter
		if wait_for 'not saved: .*is the open graph' 10 &&
			cmp -s "$graph" "$tmp/g.orig"; then
			ok "tui_save_never_overwrites_the_open_graph_$tag"
		else
			notok "tui_save_never_overwrites_the_open_graph_$tag" \
				"no refusal, or the graph changed"
		fi
		keys e C-u "$tmp/link.json" Enter
		if wait_for 'link.json is the open graph' 10 &&
			cmp -s "$graph" "$tmp/g.orig" &&
			! screen | grep -q 'overwrite?'; then
			ok "tui_export_through_a_link_never_overwrites_the_open_graph_$tag"
		else
			notok "tui_export_through_a_link_never_overwrites_the_open_graph_$tag" \
				"no refusal, or the graph changed"
		fi

		# ---- s checks the extension ----
		keys s C-u "$tmp/x.dot" Enter
		if wait_for 'not saved: .*a placement is .json or .place' 10 &&
			[ ! -e "$tmp/x.dot" ]; then
			ok "tui_save_refuses_a_dot_extension_$tag"
		else
			notok "tui_save_refuses_a_dot_extension_$tag" "no refusal"
		fi

		# ---- the cap prompt: the cap is selected, typing replaces it ----
		keys c
		if wait_for 'Cap for GPU0.*4GiB' 10; then
			# the pre-filled cap is drawn selected (a background
			# colour, or reverse video with NO_COLOR)
			if $T capture-pane -p -e -t "$S" | tail -n 2 | head -n 1 |
				grep -Eq "$esc\[([0-9]+;)*(7|4[0-7])m($esc\[[0-9;]*m)*4GiB"; then
				ok "tui_cap_prompt_shows_the_cap_selected_$tag"
			else
				notok "tui_cap_prompt_shows_the_cap_selected_$tag" \
					"4GiB is not highlighted"
			fi
			keys 1GiB
			if wait_for 'Cap for GPU0.*1GiB' 5 &&
				! status | grep -q '4GiB1GiB'; then
				keys Enter
				if wait_for 'GPU0 cap 1.00 GiB' 10 && wait_settled; then
					ok "tui_cap_prompt_typing_replaces_$tag"
				else
					notok "tui_cap_prompt_typing_replaces_$tag" \
						"cap not set to 1 GiB"
				fi
			else
				notok "tui_cap_prompt_typing_replaces_$tag" \
					"typing appended to the cap"
				keys Escape
			fi
		else
			notok "tui_cap_prompt_typing_replaces_$tag" "no cap prompt"
		fi
		keys c 4GiB Enter
		wait_for 'GPU0 cap 4.00 GiB' 10 && wait_settled

		# ---- m m M M: back to 4 GiB exactly ----
		keys m
		wait_for 'GPU0 cap 3.50 GiB \(was 4.00 GiB\)' 10 && wait_settled
		keys m
		wait_for 'GPU0 cap 3.00 GiB \(was 3.50 GiB\)' 10 && wait_settled
		keys M
		wait_for 'GPU0 cap 3.50 GiB \(was 3.00 GiB\)' 10 && wait_settled
		keys M
		if wait_for 'GPU0 cap 4.00 GiB \(was 3.50 GiB\)' 10 && wait_settled; then
			ok "tui_m_m_M_M_returns_to_the_same_cap_$tag"
		else
			notok "tui_m_m_M_M_returns_to_the_same_cap_$tag" \
				"not back at 4.00 GiB"
		fi

		# ---- a plain number: --mem's message, nothing changed ----
		keys c 16 Enter
		if wait_for 'cap not changed: 16: a size needs a unit' 10 &&
			! screen | grep -q 'GPU0 cap 16'; then
			ok "tui_cap_prompt_plain_number_says_it_needs_a_unit_$tag"
		else
			notok "tui_cap_prompt_plain_number_says_it_needs_a_unit_$tag" \
				"no unit message"
		fi
		keys c 16Gb Enter
		if wait_for "cap not changed: 16Gb: .*is bits" 10; then
			ok "tui_cap_prompt_bits_are_refused_$tag"
		else
			notok "tui_cap_prompt_bits_are_refused_$tag" "no bits message"
		fi

		keys q
		if wait_for 'dnnpart exited with 0' 10; then
			ok "tui_safe_quits_cleanly_$tag"
		else
			notok "tui_safe_quits_cleanly_$tag" "did not quit"
		fi
		$T kill-session -t "$S" >/dev/null 2>&1
	done
done

# ---- the first load says so, then the screen starts ----
S=safe_load
big=$tmp/big.json
if "$DNNPART" gen --ops 300k --seed 1 -o "$big" >/dev/null 2>"$tmp/gen.err"; then
	$T new-session -d -s "$S" -x 120 -y 30 \
		"env LANG=C.UTF-8 TERM=screen \"$DNNPART\" \"$big\" -k 2; exec sleep 60"
	if wait_for "dnnpart: loading $big \([0-9.]+ MiB\) \.\.\." 20; then
		if wait_for 'F10Quit' 120; then
			ok tui_first_load_says_loading_then_the_screen_starts
		else
			notok tui_first_load_says_loading_then_the_screen_starts \
				"the screen did not start"
		fi
	else
		notok tui_first_load_says_loading_then_the_screen_starts \
			"no 'loading' line"
	fi
	$T kill-session -t "$S" >/dev/null 2>&1
else
	echo "not ok - tui_first_load_setup: $(cat "$tmp/gen.err")"
fi
exit 0

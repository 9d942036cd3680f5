#!/bin/sh
# suite_tui_fit.sh - the explorer's `f` (what fits) and `R` (memory
# reserve) end to end in tmux, at 80x24 and 200x60, in colour and with
# NO_COLOR: the fit answer comes from reruns on the worker and matches
# `dnnpart fit`; the infeasible verdict says "fits with" only after a search
# for the current settings; Esc cancels a search; a reserve shows in the
# bars (░ before the cap mark) and counts against the cap as `dnnpart plan`
# counts it. The Memory view: its own zoom and time axis, the cap line
# broken by '!' where the curve crosses it, the peak by layer; m from no cap
# and M back is no cap again; the Ops search says "n of m". On a graph that
# takes levers, f shows `dnnpart fit`'s lever search (its answer row as the
# CLI prints it), Enter adopts it (K, strategy, levers in the header, the
# same makespan), F and K cycle precision and recomputation, x keeps the
# levers; a graph without roles refuses F; Esc cancels the lever search.
# Prints "ok - NAME" / "not ok - NAME: why" / "skip".
set -u
. tests/lib/suite.sh
. tests/lib/tmux.sh
tmux_suite fit tui_fit_setup tui_fit

S=fit0
n_session=0
start() { # W H ENV ARGS...
	w=$1
	h=$2
	envs=$3
	shift 3
	# a new session before the old one goes, so the server never exits
	old=$S
	n_session=$((n_session + 1))
	S="fit$n_session"
	$T new-session -d -s "$S" -x "$w" -y "$h" \
		"env LANG=C.UTF-8 LC_ALL=C.UTF-8 TERM=screen $envs \"$DNNPART\" $*; echo \"dnnpart exited with \$?\"; exec sleep 60"
	$T kill-session -t "$old" >/dev/null 2>&1
}

graph=tests/cli/data/blocks6.json
# what the command line finds for the same settings: the explorer must say
# the same (its search is the engine's, on the worker)
want_k=$("$DNNPART" fit "$graph" -k 2 --mem 25MiB --json |
	sed -n 's/^  "k": \([0-9]*\),$/\1/p')
want_cap=$("$DNNPART" fit "$graph" -k 2 --mem 25MiB --device 0 |
	sed -n 's/^answer  *device 0 fits with \([0-9.]* [KMG]iB\).*/\1/p')
if [ -z "$want_k" ] || [ -z "$want_cap" ]; then
	echo "not ok - tui_fit_setup: dnnpart fit gave no answer ('$want_k', '$want_cap')"
	exit 1
fi
echo "# dnnpart fit: K=$want_k, GPU0 $want_cap"

for size in 80x24 200x60; do
	for col in color NO_COLOR; do
		name="${size}_$col"
		envs=""
		[ "$col" = NO_COLOR ] && envs="NO_COLOR=1"
		start "${size%x*}" "${size#*x}" "$envs" "$graph" -k 2 --mem 25MiB \
			--algo pardnn
		if ! wait_for 'INFEASIBLE' || ! wait_for 'F10Quit'; then
			notok "tui_fit_key_$name" "no infeasible plan on screen"
			continue
		fi
		# the over-cap row gives the cap and the exact overflow, and the
		# bar marks it with '!' (colour or not)
		if screen | grep -Eq '^GPU[0-9] \[.*\].*\[[^]]*┃?[^]]*![^]]*\] 25\.0 MiB \+[0-9.]+ [KM]iB'; then
			ok "tui_exact_overflow_$name"
		else
			notok "tui_exact_overflow_$name" "no 'cap +overflow' row"
		fi
		# before a search the verdict never claims what fits
		if row 2 | grep -q 'fits with'; then
			notok "tui_fit_key_$name" "'fits with' before any search"
			continue
		fi
		keys f
		if wait_for "fits with $want_k devices; GPU0 fits with $want_cap \\([0-9]+ reruns\\)" &&
			wait_gone 'fitting'; then
			ok "tui_fit_key_$name"
		else
			notok "tui_fit_key_$name" "no 'fits with $want_k devices; GPU0 fits with $want_cap'"
			continue
		fi
		# the wide summary repeats it beside the verdict; a change of the
		# settings drops it (it was for the earlier settings)
		if [ "$size" = 200x60 ]; then
			if row 2 | grep -q "INFEASIBLE: GPU[0-9] over by .*; fits with $want_k devices; GPU0 fits with $want_cap"; then
				ok "tui_fit_verdict_says_what_fits_$name"
			else
				notok "tui_fit_verdict_says_what_fits_$name" "row 2: $(row 2)"
			fi
			keys m
			if wait_for 'GPU0 cap [0-9.]+ MiB' && sleep 0.3 &&
				! row 2 | grep -q 'fits with'; then
				ok "tui_fit_verdict_forgets_after_a_change_$name"
			else
				notok "tui_fit_verdict_forgets_after_a_change_$name" "row 2: $(row 2)"
			fi
		fi
	done
done

# ---- Esc cancels a search: a graph large enough that it takes seconds ----
big=$tmp/big.json
if "$DNNPART" gen --ops 20000 --seed 3 -o "$big" >/dev/null 2>&1; then
	start 100 30 "" "$big" -k 2 --mem 1GiB --algo pardnn
	if wait_for 'INFEASIBLE' 30 && wait_for 'F10Quit'; then
		keys f
		if wait_for 'fitting pardnn' 10; then
			keys Escape
			if wait_gone 'fitting' 5 && ! screen | grep -q 'fits with' &&
				screen | grep -q 'cancelled'; then
				ok tui_fit_esc_cancels
			else
				notok tui_fit_esc_cancels "still fitting, or an answer after Esc"
			fi
		else
			notok tui_fit_esc_cancels "no 'fitting pardnn' progress"
		fi
	else
		notok tui_fit_esc_cancels "no plan for the 20,000-op graph"
	fi
else
	echo "not ok - tui_fit_esc_cancels: dnnpart gen failed"
fi

# ---- f on a graph that takes levers: fit's lever search, its table, Enter
# adopts a row (K, strategy, levers), the header says the levers; F and K
# cycle precision and recomputation ----
lv=tests/data/levers_tiny.json
"$DNNPART" fit "$lv" --mem 5KiB >"$tmp/lv.out" 2>&1
ans=$(sed -n 's/^answer  *fits with \([0-9]*\) devices*: \(.*\), levers \([a-z0-9+]*\) (makespan \(.*\))$/\1|\2|\3|\4/p' "$tmp/lv.out")
lv_k=${ans%%|*}
lv_rest=${ans#*|}
lv_levers=$(echo "$lv_rest" | cut -d'|' -f2)
lv_ms=$(echo "$lv_rest" | cut -d'|' -f3)
lv_first=$(sed -n 's/^\* \([a-z0-9-]*\) .*/\1/p' "$tmp/lv.out")
lv_re=$(echo "$lv_levers" | sed 's/+/\\+/g') # for grep -E
if [ -z "$lv_k" ] || [ -z "$lv_levers" ] || [ -z "$lv_first" ]; then
	echo "not ok - tui_fit_levers_setup: dnnpart fit gave no answer: $(tail -3 "$tmp/lv.out")"
else
	echo "# dnnpart fit (levers): K=$lv_k $lv_first $lv_levers $lv_ms"
	for size in 80x24 200x60; do
		start "${size%x*}" "${size#*x}" "" "$lv" --mem 5KiB --algo pardnn
		if ! wait_for 'INFEASIBLE' || ! wait_for 'F10Quit'; then
			notok "tui_fit_levers_table_$size" "no plan on screen"
			continue
		fi
		keys f
		# the table: the probes, then the candidates at the answer's K,
		# the answer first (the row `dnnpart fit` marks with '*')
		wait_for "candidates at K=$lv_k" 10
		shown=$(screen)
		echo "$shown" | grep -q '^probe  *K  *plan' &&
			echo "$shown" | grep -Eq "^\* $lv_first +$lv_re +.* $lv_ms +fits" &&
			echo "$shown" | grep -q "fits with $lv_k device"
		if [ $? -ne 0 ]; then
			notok "tui_fit_levers_table_$size" "no table like dnnpart fit's: $(echo "$shown" | head -12)"
			continue
		fi
		ok "tui_fit_levers_table_$size"
		# Enter adopts the answer's row: K, strategy and levers, rerun
		keys Enter
		if wait_for "adopted $lv_first on K=$lv_k with levers $lv_re" 10 &&
			wait_settled && row 1 | grep -q "K=$lv_k .* levers $lv_levers" &&
			row 2 | grep -q "makespan $lv_ms  FEASIBLE"; then
			ok "tui_fit_levers_enter_adopts_$size"
		else
			notok "tui_fit_levers_enter_adopts_$size" "rows 1-2: $(row 1) / $(row 2)"
			continue
		fi
		# F: the next precision (bf16 -> fp16), K: recomputation
		keys F
		if wait_for 'precision fp16, recompute none' 5 &&
			wait_settled && row 1 | grep -q 'levers fp16'; then
			keys K
			if wait_for 'precision fp16, recompute selective' 5 &&
				wait_settled && row 1 | grep -q 'levers fp16+selective'; then
				ok "tui_lever_keys_$size"
			else
				notok "tui_lever_keys_$size" "K: $(row 1)"
			fi
		else
			notok "tui_lever_keys_$size" "F: $(row 1)"
		fi
		# x halves the batch: the levers stay, applied at the new size
		keys x
		if wait_for 'batch size 5 \(loaded at 10\)' 5 && wait_settled &&
			row 1 | grep -q 'levers fp16+selective[^ ]*  batch 5\*'; then
			ok "tui_levers_kept_on_rebatch_$size"
		else
			notok "tui_levers_kept_on_rebatch_$size" "$(row 1)"
		fi
	done
fi
# --gpu v100 (no bf16 tensor cores): F goes fp32 -> fp16, and f's lever
# search takes fp16 where it would take bf16, as `dnnpart fit --gpu v100`
v100=$("$DNNPART" fit "$lv" --mem 5KiB --gpu v100 2>&1 |
	sed -n 's/^answer  *fits with .*, levers \([a-z0-9+]*\) (makespan .*/\1/p')
start 100 30 "" "$lv" --mem 5KiB --gpu v100 --algo pardnn
if [ -z "$v100" ]; then
	notok tui_fit_v100_fp16 "dnnpart fit --gpu v100 gave no answer"
elif wait_for 'F10Quit' && wait_settled; then
	keys f
	if wait_for 'candidates at K=' 10 &&
		screen | grep -Eq "^\* [a-z0-9-]+ +$(echo "$v100" | sed 's/+/\\+/g') " &&
		! screen | grep -q 'bf16'; then
		ok tui_fit_v100_fp16
	else
		notok tui_fit_v100_fp16 "want levers $v100, no bf16: $(screen | head -14)"
	fi
	keys Escape
	keys F
	if wait_for 'precision fp16, recompute none' 5; then
		ok tui_precision_v100_skips_bf16
	else
		notok tui_precision_v100_skips_bf16 "F: $(screen | tail -2)"
	fi
else
	notok tui_fit_v100_fp16 "no plan on screen"
fi
# a graph without roles or layers: F says why and changes nothing; f keeps
# the plain search (the tests above)
start 100 30 "" "$graph" -k 2 --mem 25MiB --algo pardnn
if wait_for 'F10Quit' && wait_settled; then
	keys F
	if wait_for "levers: --precision bf16: graph 'blocks6' has no op roles" 5 &&
		! row 1 | grep -q 'levers' && wait_settled &&
		screen | grep -q 'INFEASIBLE'; then
		ok tui_lever_key_refused_without_roles
	else
		notok tui_lever_key_refused_without_roles "$(screen | tail -3)"
	fi
else
	notok tui_lever_key_refused_without_roles "no plan on screen"
fi
# Esc cancels the lever search (gpt2-xl at batch 8: seconds of reruns)
start 100 30 "" sample_graphs/gpt2-xl.json --batch 8 --mem 16GiB --algo dp
if wait_for 'F10Quit' 60 && wait_settled 60; then
	keys f
	if wait_for 'fitting' 20; then
		keys Escape
		if wait_gone 'fitting' 10 && screen | grep -q 'cancelled' &&
			! screen | grep -q 'candidates at K='; then
			ok tui_fit_levers_esc_cancels
		else
			notok tui_fit_levers_esc_cancels "still fitting, or a table after Esc"
		fi
	else
		notok tui_fit_levers_esc_cancels "no 'fitting' progress"
	fi
else
	notok tui_fit_levers_esc_cancels "no plan for gpt2-xl"
fi

# ---- R: the reserve, in the bars and in feasibility ----
# six 10 MiB blocks on 3 devices of 25 MiB fit (21 MiB each); with 5 MiB of
# each reserved they do not, as the command line says too
if "$DNNPART" plan "$graph" -k 3 --mem 25MiB --reserve 5MiB --algo metf |
	grep -q INFEASIBLE; then
	for size in 80x24 200x60; do
		for col in color NO_COLOR; do
			name="${size}_$col"
			envs=""
			[ "$col" = NO_COLOR ] && envs="NO_COLOR=1"
			start "${size%x*}" "${size#*x}" "$envs" "$graph" -k 3 \
				--mem 25MiB --algo metf
			if ! wait_for 'FEASIBLE' || ! wait_for 'F10Quit'; then
				notok "tui_reserve_$name" "no plan on screen"
				continue
			fi
			if screen | grep -q '░'; then
				notok "tui_reserve_$name" "a reserve cell before any reserve"
				continue
			fi
			keys R C-u 5MiB Enter
			if wait_for 'reserve 5.00 MiB per device' &&
				wait_for 'INFEASIBLE' &&
				screen | grep -Eq '^GPU0 \[.*░+┃' &&
				screen | grep -q 'peak/usable' &&
				screen | grep -q '20.0 MiB +2.00 MiB'; then
				ok "tui_reserve_$name"
			else
				notok "tui_reserve_$name" "no reserve segment, usable cap or verdict"
				continue
			fi
			# a plain number is refused with a hint, the reserve kept
			keys R C-u 5 Enter
			if wait_for "reserve not changed: '5' needs a unit: 5GiB" &&
				screen | grep -q '20.0 MiB +2.00 MiB'; then
				ok "tui_reserve_plain_number_refused_$name"
			else
				notok "tui_reserve_plain_number_refused_$name" "no error"
			fi
			keys R C-u none Enter
			if wait_gone '░' && wait_for ' FEASIBLE'; then
				ok "tui_reserve_none_$name"
			else
				notok "tui_reserve_none_$name" "reserve still shown"
			fi
		done
	done
else
	echo "not ok - tui_reserve: dnnpart plan with --reserve 5MiB is not infeasible"
fi

# ---- the Memory view, m/M from no cap, the search's "n of m" ----
gen=$tmp/g.json
if "$DNNPART" gen --ops 400 --seed 7 -o "$gen" >/dev/null 2>"$tmp/gen.err"; then
	for size in 80x24 200x60; do
		for col in color NO_COLOR; do
			name="${size}_$col"
			envs=""
			[ "$col" = NO_COLOR ] && envs="NO_COLOR=1"
			# single: every op on GPU0, whatever its cap
			start "${size%x*}" "${size#*x}" "$envs" "$gen" -k 2 --algo single
			if ! wait_for 'single: makespan' || ! wait_settled; then
				notok "tui_memory_view_$name" "no plan on screen"
				continue
			fi
			keys 3
			if wait_for '^Memory 0 us-[0-9.]+ ms of [0-9.]+ ms, zoom 1×' 5 &&
				screen | grep -q '│0 us' && screen | grep -q '^by layer: '; then
				ok "tui_memory_view_axis_and_layers_$name"
			else
				notok "tui_memory_view_axis_and_layers_$name" "no window, axis or layers"
			fi
			# m from no cap: 87.5 % of the peak, so the curve crosses it
			keys m
			if wait_for 'GPU0 cap [0-9.]+ [KMG]iB \(was none\)' 5 && wait_settled &&
				screen | grep -E '^GPU0 +[━!]' | grep '━' | grep -q '!'; then
				ok "tui_memory_cap_line_broken_where_crossed_$name"
			else
				notok "tui_memory_cap_line_broken_where_crossed_$name" "no cap line with '!'"
			fi
			# z zooms the Memory view only
			keys z
			if wait_for '^Memory .* zoom 2×' 5; then
				keys 2
				if wait_for ' of [0-9.]+ ms, zoom 1×' 5; then
					keys 3
					if wait_for '^Memory .* zoom 2×' 5; then
						ok "tui_memory_zoom_is_its_own_$name"
					else
						notok "tui_memory_zoom_is_its_own_$name" "memory zoom lost"
					fi
				else
					notok "tui_memory_zoom_is_its_own_$name" "the timeline zoomed too"
				fi
			else
				notok "tui_memory_zoom_is_its_own_$name" "z did not zoom"
			fi
			# M after m: no cap again, and no line
			keys M
			if wait_for 'GPU0 cap none \(was [0-9.]+ [KMG]iB\)' 5 && wait_settled &&
				! screen | grep -q '━'; then
				ok "tui_m_then_M_is_no_cap_$name"
			else
				notok "tui_m_then_M_is_no_cap_$name" "a cap left after m M"
			fi
			keys / C-u grad Enter
			if wait_for "'grad': 1 of [0-9]+: " 5; then
				keys n
				if wait_for "'grad': 2 of [0-9]+: " 5; then
					keys / C-u zzqq Enter
					if wait_for "no match for 'zzqq'" 5; then
						ok "tui_search_n_of_m_$name"
					else
						notok "tui_search_n_of_m_$name" "no 'no match'"
					fi
				else
					notok "tui_search_n_of_m_$name" "n did not say 2 of"
				fi
			else
				notok "tui_search_n_of_m_$name" "no '1 of' after the search"
			fi
		done
	done
else
	echo "not ok - tui_memory_view: dnnpart gen failed: $(cat "$tmp/gen.err")"
fi

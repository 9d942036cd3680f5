#!/bin/sh
# suite_leaks.sh - no memory leaks on the command line's paths: every
# command, every input format, every algorithm, every export, and the
# error paths of each loader and of bad settings (where leaks hide).
#
# With a sanitizer build (make check-asan) LeakSanitizer checks each run at
# exit; with the plain build valgrind does (definite leaks are errors).
# Graphviz, fontconfig and pango leak inside the SVG layout child by
# design (docs/export.md, "SVG layout": the layout runs in a child process
# for that reason); tests/leaks.supp keeps valgrind quiet about those libraries only, never
# about dnnpart's own code. Without valgrind and without ASan the suite
# says so and skips.
set -u
. tests/lib/suite.sh
suite_start leaks leaks

if nm "$DNNPART" 2>/dev/null | grep -q '__lsan\|__asan_init'; then
	MODE=lsan
	export ASAN_OPTIONS="detect_leaks=1:exitcode=99${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
	export LSAN_OPTIONS="exitcode=99${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
elif command -v valgrind >/dev/null 2>&1; then
	MODE=valgrind
else
	echo "skip - leaks: neither an ASan build nor valgrind (Debian: apt-get install valgrind)"
	exit 0
fi
echo "# leak checker: $MODE"

# check NAME WANT_RC ARGS...: dnnpart ARGS must exit WANT_RC with no leak
check() {
	name=$1
	want=$2
	shift 2
	if [ "$MODE" = valgrind ]; then
		timeout 600 valgrind -q --leak-check=full \
			--errors-for-leak-kinds=definite,indirect \
			--error-exitcode=99 --suppressions=tests/leaks.supp \
			"$DNNPART" "$@" >"$TMP/out" 2>"$TMP/err" </dev/null
	else
		timeout 600 "$DNNPART" "$@" >"$TMP/out" 2>"$TMP/err" </dev/null
	fi
	rc=$?
	if grep -q 'LeakSanitizer\|definitely lost\|indirectly lost' "$TMP/err"; then
		echo "not ok - leaks/$name: leaks"
		grep -E 'Direct leak|Indirect leak|lost in loss|    #[0-9] |by 0x' "$TMP/err" | head -n 12 | sed 's/^/    /'
	elif [ "$rc" -ne "$want" ]; then
		echo "not ok - leaks/$name: exit status $rc, want $want: $(head -c 300 "$TMP/err")"
	else
		echo "ok - leaks/$name"
	fi
}

G=$TMP/g.json
"$DNNPART" gen --ops 300 --seed 2 -o "$G" >/dev/null 2>&1
D=tests/cli/data/diamond.json

# ---- every format and command ----
check gen 0 gen --ops 200 --seed 4 -o "$TMP/gen.json"
check info_json 0 info "$G"
check info_json_out 0 info "$G" --json
check info_dot 0 info tests/data/dot_attrs.dot
check info_pardnn 0 info tests/data/real/pardnn_tiny
check info_fiddle 0 info tests/data/real/fiddle_host.json
check info_pipedream 0 info tests/data/pipedream/resnet18/graph.txt
P=$TMP/p.json
check plan_pardnn_o 0 plan "$G" -k 4 --mem 64MiB -o "$P"
check plan_place 0 plan "$G" -k 3 --algo heft -o "$TMP/p.place"
check eval_json 0 eval "$G" "$P" -k 4 --json
check eval_place 0 eval "$G" "$TMP/p.place" -k 3
check compare_every_algorithm 0 compare "$G" -k 3 --mem 32MiB
check export_dot_csv_maps 0 export "$G" "$P" -k 4 --dot "$TMP/e.dot" \
	--csv "$TMP/e.csv" --device-map "$TMP/e.devmap.json" --tf-map "$TMP/e.tf.txt"
check plan_diamond 0 plan "$D" -o "$TMP/dp.place"
check export_svg 0 export "$D" "$TMP/dp.place" --svg "$TMP/e.svg"
check show_timeline 0 show "$G" --view timeline -k 3
check show_compare 0 show "$D" --view compare
check show_op 0 show "$D" --view op --op left
check show_fit_levers 0 show tests/data/levers_tiny.json --mem 5KiB --algo pardnn --view fit

# ---- error paths: one bad input per loader, bad settings ----
check bad_json 2 info tests/bad/json_truncated_in_op.json
check bad_json_cycle 2 info tests/bad/json_cycle.json
check bad_dot 2 info tests/bad/dot_truncated.dot
check bad_dot_value 2 info tests/bad/dot_negative_time.dot
check bad_fiddle 2 info tests/bad/fiddle_unknown_node.json
check bad_pipedream 2 info tests/bad/pipedream_unknown_node.txt
check bad_pardnn 2 info tests/bad/pardnn_bad_edge_line
check bad_placement 2 eval tests/bad/placement_graph.json tests/bad/place_unknown_op.place
check bad_placement_json 2 eval tests/bad/placement_graph.json tests/bad/placement_device_string.json
check bad_k 2 plan "$G" -k 0
check bad_caps 2 plan "$G" -k 2 --mem 1GiB,2GiB,3GiB
check bad_output_folder 2 plan "$G" -o "$TMP/none/p.json"
check missing_graph 2 info "$TMP/none.json"
exit 0

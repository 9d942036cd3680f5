#!/bin/sh
# suite_export.sh - `dnnpart export` from the command line: usage errors,
# the --json listing, a layout over its time limit, and a signal during an
# SVG layout, which must stop the layout process too (no Graphviz child left
# running, no file, no temporary file).
set -u
. tests/lib/suite.sh
suite_start export export_setup
G=sample_graphs/lstm-lm.json   # 16,011 ops: a long layout when not coarsened
S=sample_graphs/resnet50.json  # 695 ops
P=$TMP/lstm.json
Q=$TMP/resnet.json
if ! "$DNNPART" plan "$G" -k 4 --algo mtopo -o "$P" >/dev/null 2>"$TMP/se" ||
	! "$DNNPART" plan "$S" -k 4 --algo mtopo -o "$Q" >/dev/null 2>>"$TMP/se"; then
	echo "not ok - export_setup: $(head -c 300 "$TMP/se")"
	exit 1
fi

# expect NAME RC PATTERN ARGS...: dnnpart ARGS exits with RC and its stderr
# matches PATTERN (grep -E).
expect() {
	name=$1
	want=$2
	pat=$3
	shift 3
	suite_run 300 "$@"
	suite_check "$name" "$want" "$pat" "$TMP/err"
}

expect export_nothing_to_write 2 "nothing to write: give --svg F" \
	export "$S" "$Q" -k 4
expect export_unknown_extension 2 "expected one of .dot .gv .svg .png .pdf" \
	export "$S" "$Q" -k 4 -o "$TMP/x.jpg"
expect export_bad_coarsen 2 "expected auto, never or always" \
	export "$S" "$Q" -k 4 --coarsen sometimes --svg "$TMP/x.svg"
expect export_bad_max_nodes 2 "bad --max-nodes '3'" \
	export "$S" "$Q" -k 4 --max-nodes 3 --svg "$TMP/x.svg"
expect export_unknown_layout 2 "layout engine 'nosuch' is not installed; available: .*dot" \
	export "$S" "$Q" -k 4 --layout nosuch --svg "$TMP/x.svg"
expect export_too_few_devices 2 "is placed on device [23], but the machine has 2 devices" \
	export "$S" "$Q" -k 2 --csv "$TMP/x.csv"
expect export_layout_time_limit 2 "layout took longer than 0.1 s \\(dot.*695 nodes" \
	export "$S" "$Q" -k 4 --coarsen never --layout dot --timeout 0.1 \
	--svg "$TMP/slow.svg"
if [ -e "$TMP/slow.svg" ] || ls -a "$TMP" | grep -q '\.tmp'; then
	echo "not ok - export_layout_time_limit_leaves_nothing: $(ls -a "$TMP" | tr '\n' ' ')"
else
	echo "ok - export_layout_time_limit_leaves_nothing"
fi

# without -k, a placement JSON's "devices" (the K it was planned for) wins
# over the graph's machine block (resnet50.json says 2 devices)
if "$DNNPART" export "$S" "$Q" --csv "$TMP/k.csv" >"$TMP/so" 2>"$TMP/se" &&
	cut -d, -f2 "$TMP/k.csv" | grep -q '^3$'; then
	echo "ok - export_uses_the_placements_k"
else
	echo "not ok - export_uses_the_placements_k: $(head -c 300 "$TMP/se")"
fi

# --json lists every file written, with its kind
expect export_json_listing 0 "note: .*695 ops drawn as" \
	export "$S" "$Q" -k 4 --json --coarsen always --svg "$TMP/a.svg" \
	-o "$TMP/a.csv" --device-map "$TMP/a.devmap.json"
n=$(grep -c '"path":' "$TMP/out")
if [ "$n" -eq 3 ] && grep -q '"kind":.*"CSV schedule"' "$TMP/out" &&
	grep -q '"coarsened":.*true' "$TMP/out" && [ -s "$TMP/a.svg" ]; then
	echo "ok - export_json_lists_the_files"
else
	echo "not ok - export_json_lists_the_files: $(head -c 300 "$TMP/out")"
fi

# a mid-size training graph: dot with device clusters ran past the 120 s
# limit on its picture (587 groups joined by long edges); the timeline
# layout draws it, every device a column
if "$DNNPART" gen --ops 3000 -o "$TMP/g3k.json" >/dev/null 2>"$TMP/se"; then
	expect plan_svg_3000_ops_is_a_timeline 0 \
		"g3k.svg \(SVG, [0-9]+ nodes for 3000 ops, layout timeline" \
		plan "$TMP/g3k.json" -k 4 --mem 8GiB --svg "$TMP/g3k.svg"
	n=$(grep -c '<title>cluster_dev[0-3]</title>' "$TMP/g3k.svg" 2>/dev/null)
	if [ "${n:-0}" -eq 4 ]; then
		echo "ok - plan_svg_3000_ops_shows_every_device"
	else
		echo "not ok - plan_svg_3000_ops_shows_every_device: ${n:-0} of 4 clusters"
	fi
else
	echo "not ok - plan_svg_3000_ops_gen: $(head -c 300 "$TMP/se")"
fi

# a signal during the layout: the export stops, its layout child is gone
for sig in TERM HUP; do
	name=export_sig${sig}_stops_the_layout
	suite_sig_ignored "$sig" && { suite_skip_ignored "$name" "$sig"; continue; }
	out=$TMP/big-$sig.svg
	"$DNNPART" export "$G" "$P" --coarsen never --svg "$out" \
		>/dev/null 2>"$TMP/se" </dev/null &
	pid=$!
	end=$(($(date +%s) + 120))
	while ! ls -a "$TMP" | grep -q "^\.big-$sig\.svg\.tmp" &&
		kill -0 "$pid" 2>/dev/null && [ "$(date +%s)" -lt "$end" ]; do
		sleep 0.05
	done
	sleep 0.3 # the layout child is running by now
	kill -s "$sig" "$pid" 2>/dev/null
	wait "$pid"
	rc=$?
	# the layout child is killed, not waited for: give it time to go on a
	# loaded machine
	end=$(($(date +%s) + 15))
	while left=$(pgrep -f -- "--svg $out" 2>/dev/null | tr '\n' ' ') &&
		[ -n "$left" ] && [ "$(date +%s)" -lt "$end" ]; do
		sleep 0.1
	done
	if [ "$rc" -ne 2 ]; then
		echo "not ok - $name: exit status $rc, want 2: $(head -c 300 "$TMP/se")"
	elif ! grep -q "export interrupted; the file was not written" "$TMP/se"; then
		echo "not ok - $name: $(head -c 300 "$TMP/se")"
	elif [ -e "$out" ] || ls -a "$TMP" | grep -q "^\.big-$sig"; then
		echo "not ok - $name: left $(ls -a "$TMP" | grep "big-$sig" | tr '\n' ' ')"
	elif [ -n "$left" ]; then
		echo "not ok - $name: layout process still running: $left"
	else
		echo "ok - $name"
	fi
done

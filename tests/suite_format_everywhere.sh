#!/bin/sh
# suite_format_everywhere.sh - a number prints the same everywhere.
#
# One graph whose device peak is 1,048,000 bytes and whose makespan is
# 1244.5678 us: the command line's report, every view of the explorer
# (`show`), and the labels of the DOT and SVG pictures must all say
# "1.00 MiB" and "1.24 ms" (the engine's one formatter, dnnpart/units.h);
# none may say "1023 KiB" (the old DOT labels' copy of the formatter said
# "1.00 MiB" while the screen said "1023 KiB"). In JSON, `plan --json`,
# `compare --json`, `eval --json` and the placement file's metrics must
# write the makespan with the same digits (the one JSON writer).
set -u
: "${DNNPART:=$PWD/dnnpart}"
TMP=$(mktemp -d /tmp/dnnpart-fmt.XXXXXX) || exit 1
trap 'rm -rf "$TMP"' EXIT

cat >"$TMP/g.json" <<'JSON'
{"format":"dnnpart-graph","version":1,"name":"fmt",
 "ops":[{"name":"a","type":"MatMul","time_us":1234.5678,"output_bytes":1048000},
        {"name":"b","type":"Relu","time_us":10,"output_bytes":0}],
 "edges":[{"from":"a","to":"b"}]}
JSON
M="-k 1 --algo single"

# says WHERE FILE: FILE shows both numbers as the formatter writes them
says() {
	miss=''
	for want in '1.00 MiB' '1.24 ms'; do
		grep -qF "$want" "$2" || miss="$miss '$want'"
	done
	if grep -qE '1023 KiB|1023\.[0-9]* KiB' "$2"; then
		miss="$miss (and it says 1023 KiB)"
	fi
	if [ -z "$miss" ]; then
		echo "ok - format/$1"
	else
		echo "not ok - format/$1: lacks$miss: $(head -c 300 "$2")"
	fi
}

$DNNPART plan "$TMP/g.json" $M -o "$TMP/p.json" >"$TMP/cli" 2>&1
says cli-plan "$TMP/cli"
$DNNPART eval "$TMP/g.json" "$TMP/p.json" -k 1 >"$TMP/eval" 2>&1
says cli-eval "$TMP/eval"
for v in devices memory; do
	$DNNPART show "$TMP/g.json" $M --view $v --width 120 --height 30 \
		>"$TMP/view-$v" 2>&1
	says "view-$v" "$TMP/view-$v"
done
$DNNPART export "$TMP/g.json" "$TMP/p.json" --dot "$TMP/x.dot" \
	--svg "$TMP/x.svg" >"$TMP/export" 2>&1
says dot-labels "$TMP/x.dot"
says svg-labels "$TMP/x.svg"

# JSON: the makespan with the same digits in every report and file
$DNNPART plan "$TMP/g.json" $M --json >"$TMP/plan.json" 2>&1
$DNNPART eval "$TMP/g.json" "$TMP/p.json" -k 1 --json >"$TMP/eval.json" 2>&1
$DNNPART compare "$TMP/g.json" -k 1 --algos single --json \
	>"$TMP/compare.json" 2>&1
for f in plan.json eval.json compare.json p.json; do
	n=$(grep -o '"makespan_us": [^,]*' "$TMP/$f" | head -n 1)
	if [ "$n" = '"makespan_us": 1244.5678' ]; then
		echo "ok - format/json-$f"
	else
		echo "not ok - format/json-$f: makespan written as '$n', want '\"makespan_us\": 1244.5678'"
	fi
done

#!/bin/sh
# suite_bench.sh - the benchmark driver (bench/, docs/benchmarks.md) works
# as a command: --help, bad options (exit 2, a message naming the option and
# what was expected, no results written) and a tiny quality run on one small
# sample graph whose results JSON holds the expected cases. Speed is never
# asserted here (bench/ measures it); only that the driver runs and writes
# well-formed, complete results. Prints "ok - NAME" / "not ok - NAME: why".
set -u
: "${BUILD:=build}"
san=0
[ "$BUILD" = build-asan ] && san=1
bench="$BUILD/bench/dnnpart-bench"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

ok() { echo "ok - $1"; }
notok() { echo "not ok - $1: $2"; }

if ! make -s --no-print-directory BUILD="$BUILD" SAN="$san" "$bench" \
	>"$tmp/make.out" 2>&1; then
	notok bench_builds "make $bench failed: $(tail -n 3 "$tmp/make.out" | tr '\n' ' ')"
	exit 1
fi
ok bench_builds

# --help: usage on stdout, exit 0, names every option
"$bench" --help >"$tmp/help" 2>"$tmp/help.err"
rc=$?
if [ "$rc" -ne 0 ]; then
	notok help_exits_0 "exit $rc"
elif ! grep -q '^usage: dnnpart-bench' "$tmp/help"; then
	notok help_exits_0 "no usage line on stdout"
else
	missing=""
	for o in --quick --only --tight --limit --results --graphs --data --shared --samples; do
		grep -q -- "$o" "$tmp/help" || missing="$missing $o"
	done
	if [ -n "$missing" ]; then
		notok help_exits_0 "help does not mention$missing"
	else
		ok help_exits_0
	fi
fi

# bad options: exit 2, a message that says what was wrong, nothing written.
# Each run points --results at a fresh folder so that a driver which
# ignored the error and ran anyway would be caught writing there.
bad() {
	name=$1
	want=$2
	shift 2
	mkdir -p "$tmp/r_$name"
	"$bench" --results "$tmp/r_$name" --samples "$tmp/none" \
		--data "$tmp/none" --shared "$tmp/none" "$@" >"$tmp/$name.out" 2>"$tmp/$name.err"
	rc=$?
	if [ "$rc" -ne 2 ]; then
		notok "$name" "exit $rc, expected 2"
	elif ! grep -q -- "$want" "$tmp/$name.err"; then
		notok "$name" "stderr lacks '$want': $(head -n 1 "$tmp/$name.err")"
	elif [ -n "$(ls "$tmp/r_$name")" ]; then
		notok "$name" "wrote results despite the error"
	else
		ok "$name"
	fi
}
bad bad_option_unknown "unknown or incomplete option '--bogus'" --bogus
bad bad_option_missing_value "unknown or incomplete option '--only'" --only
bad bad_option_section "expected a comma list of scale, quality, interactive, strategies; got 'speed'" --only speed
bad bad_option_tight_text "--tight: expected a number > 0, got 'abc'" --tight abc
bad bad_option_tight_zero "--tight: expected a number > 0, got '0'" --tight 0
bad bad_option_limit_negative "--limit: expected a number > 0, got '-1'" --limit -1
bad bad_option_limit_junk "--limit: expected a number > 0, got '5s'" --limit 5s

# a tiny quality run: one sample graph (695 ops), no real graphs,
# quick mode (K = 4 and 8 x caps none / loose / tight = 6 cases)
mkdir -p "$tmp/samples" "$tmp/shared" "$tmp/results"
cp sample_graphs/resnet50.json "$tmp/samples/"
"$bench" --quick --only quality --samples "$tmp/samples" \
	--data "$tmp/shared" --shared "$tmp/shared" --results "$tmp/results" \
	>"$tmp/q.out" 2>"$tmp/q.err"
rc=$?
json="$tmp/results/quick-quality.json"
if [ "$rc" -ne 0 ]; then
	notok quality_run_exits_0 "exit $rc: $(head -n 2 "$tmp/q.err" | tr '\n' ' ')"
else
	ok quality_run_exits_0
fi
if ! grep -q '^samples/resnet50 .* 4 none ' "$tmp/q.out"; then
	notok quality_run_prints_table "no 'samples/resnet50 ... 4 none' row on stdout"
elif ! grep -q '^pardnn  *6 ' "$tmp/q.out"; then
	notok quality_run_prints_table "no pardnn summary row over 6 cases"
else
	ok quality_run_prints_table
fi
if [ ! -s "$json" ]; then
	notok quality_json_written "$json missing or empty"
else
	ok quality_json_written
	# well-formed: a JSON parser when one is installed, else the shape
	if command -v python3 >/dev/null 2>&1; then
		if python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$json" \
			2>"$tmp/py.err"; then
			ok quality_json_parses
		else
			notok quality_json_parses "$(tail -n 1 "$tmp/py.err")"
		fi
	elif head -c 1 "$json" | grep -q '{' && tail -c 3 "$json" | grep -q '}'; then
		ok quality_json_parses
	else
		notok quality_json_parses "does not start with { and end with }"
	fi
	cases=$(grep -c '"graph":"samples/resnet50","ops":695,' "$json")
	if [ "$cases" -ne 6 ]; then
		notok quality_json_has_6_cases "found $cases case lines for samples/resnet50, expected 6"
	else
		ok quality_json_has_6_cases
	fi
	missing=""
	for f in '"format": "dnnpart-bench"' '"section": "quality"' \
		'"mode": "quick"' '"commit": ' '"nproc": ' '"loadavg_1min": '; do
		grep -q -- "$f" "$json" || missing="$missing $f"
	done
	for a in pardnn single mtopo metf heft metis contig mincut; do
		grep -q "{\"algo\":\"$a\",\"ok\":true,\"makespan_us\":" "$json" ||
			missing="$missing $a-result"
	done
	if [ -n "$missing" ]; then
		notok quality_json_fields "missing:$missing"
	else
		ok quality_json_fields
	fi
	# xLB >= 1 for every result: the lower bound is a bound
	below=$(grep -o '"xlb":[0-9.eE+-]*' "$json" |
		awk -F: '$2 < 0.999999 { n++ } END { print n + 0 }')
	nx=$(grep -c '"xlb":' "$json")
	if [ "$nx" -eq 0 ] || [ "$below" -ne 0 ]; then
		notok quality_xlb_at_least_1 "$below results below the lower bound (lines with xlb: $nx)"
	else
		ok quality_xlb_at_least_1
	fi
fi
exit 0

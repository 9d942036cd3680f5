#!/bin/sh
# run.sh - runs each libFuzzer target (build-fuzz/fuzz/fuzz_*) for
# FUZZ_SECONDS seconds; `make fuzz` builds them first and calls this.
#
# Per target T: seeds are built fresh (fuzz/seeds.sh) in build-fuzz/seeds/T,
# what the fuzzer finds interesting is kept across runs in
# build-fuzz/corpus/T, a crash, leak or timeout lands in
# build-fuzz/crashes/T/ and the log in build-fuzz/logs/T.log. Prints
# "ok - fuzz/T: ..." or "not ok - fuzz/T: ..." and exits 1 when any target
# found something. Reproduce a finding with: build-fuzz/fuzz/fuzz_T FILE.
#
# Environment: FUZZ_SECONDS (default 60), FUZZ_TARGETS (comma-separated
# names such as "json,dot"; default every target), FUZZ_BUILD (build-fuzz).
set -u
: "${FUZZ_SECONDS:=60}"
: "${FUZZ_BUILD:=build-fuzz}"
TARGETS=${FUZZ_TARGETS:-}

if [ -z "$TARGETS" ]; then
	TARGETS=$(ls fuzz/fuzz_*.c | sed 's|fuzz/fuzz_||; s|\.c$||' | tr '\n' ' ')
else
	TARGETS=$(echo "$TARGETS" | tr ',' ' ')
fi

sh fuzz/seeds.sh "$FUZZ_BUILD/seeds" || exit 1
found=0
for t in $TARGETS; do
	bin=$FUZZ_BUILD/fuzz/fuzz_$t
	if [ ! -x "$bin" ]; then
		echo "not ok - fuzz/$t: no binary at $bin (make fuzz builds it)"
		found=1
		continue
	fi
	case $t in
	json | fiddle | placement | strategy | detect) dict=fuzz/json.dict ;;
	dot) dict=fuzz/dot.dict ;;
	pipedream | pardnn) dict=fuzz/text.dict ;;
	*) dict= ;;
	esac
	corpus=$FUZZ_BUILD/corpus/$t
	crashes=$FUZZ_BUILD/crashes/$t
	log=$FUZZ_BUILD/logs/$t.log
	mkdir -p "$corpus" "$crashes" "$FUZZ_BUILD/logs"
	# -timeout: one input running this long is a hang; -rss_limit_mb: a
	# loader that balloons on a small input is a finding too
	"$bin" ${dict:+-dict="$dict"} -max_total_time="$FUZZ_SECONDS" \
		-timeout=10 -rss_limit_mb=2048 -max_len=65536 \
		-print_final_stats=1 -artifact_prefix="$crashes/" \
		"$corpus" "$FUZZ_BUILD/seeds/$t" >"$log" 2>&1
	rc=$?
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
	cov=$(grep -o 'cov: [0-9]*' "$log" | tail -n 1)
	if [ "$rc" -eq 0 ]; then
		echo "ok - fuzz/$t: ${runs:-?} runs in ${FUZZ_SECONDS}s, ${cov:-cov: ?}, corpus $(ls "$corpus" | wc -l)"
	else
		art=$(grep -o 'Test unit written to [^ ]*' "$log" | tail -n 1 | sed 's/Test unit written to //')
		why=$(grep -m 1 -E 'ERROR: |fuzz contract broken|runtime error' "$log")
		echo "not ok - fuzz/$t: ${why:-exit status $rc} (input: ${art:-see $log})"
		found=1
	fi
done
exit "$found"

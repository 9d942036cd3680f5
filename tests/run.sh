#!/bin/sh
# run.sh - runs every test suite and prints one summary line.
#
# Suites: the unit-test binaries $BUILD/tests/test_*, then every
# tests/suite_*.sh script (CLI golden tests, bad-input corpus, tmux TUI
# tests, ...). Each prints "ok - NAME" / "not ok - NAME: why" lines, and
# "skip - NAME: why" for a check it could not run here (a missing tool): a
# skip is counted as skipped, never as passed. A suite that crashes or exits
# non-zero without a "not ok" line counts as a failure.
# Environment: BUILD (build folder), DNNPART (the binary under test).
set -u
: "${BUILD:=build}"
: "${DNNPART:=$PWD/dnnpart}"
export BUILD DNNPART
out=$(mktemp)
trap 'rm -f "$out"' EXIT
pass=0
fail=0
skip=0

run_suite() {
	name=$1
	shift
	"$@" >"$out" 2>&1
	rc=$?
	p=$(grep -c '^ok - ' "$out")
	f=$(grep -c '^not ok - ' "$out")
	s=$(grep -c '^skip - ' "$out")
	grep '^skip - ' "$out" | sed "s|^|  [$name] |"
	grep '^not ok - ' "$out" | sed "s|^|  [$name] |"
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		echo "  [$name] suite exited with status $rc:"
		tail -n 15 "$out" | sed 's/^/    /'
		f=1
	fi
	if [ "$s" -gt 0 ]; then
		printf '%-28s %4d passed, %d failed, %d skipped\n' "$name" "$p" "$f" "$s"
	else
		printf '%-28s %4d passed, %d failed\n' "$name" "$p" "$f"
	fi
	pass=$((pass + p))
	fail=$((fail + f))
	skip=$((skip + s))
}

for t in "$BUILD"/tests/test_*; do
	[ -x "$t" ] || continue
	case "$t" in *.d|*.o) continue ;; esac
	run_suite "$(basename "$t")" "$t"
done
for s in tests/suite_*.sh; do
	[ -f "$s" ] || continue
	run_suite "$(basename "$s" .sh)" sh "$s"
done

if [ "$skip" -gt 0 ]; then
	echo "$pass passed, $fail failed, $skip skipped"
else
	echo "$pass passed, $fail failed"
fi
[ "$fail" -eq 0 ]

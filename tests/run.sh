#!/bin/sh
# run.sh - runs every test suite and prints one summary line.
#
# Suites: the unit-test binaries $BUILD/tests/test_*, then every
# tests/suite_*.sh script (CLI golden tests, bad-input corpus, tmux TUI
# tests, ...). Each prints "ok - NAME" / "not ok - NAME: why" lines; a suite
# that crashes or exits non-zero without a "not ok" line counts as a failure.
# Environment: BUILD (build folder), DNNPART (the binary under test).
set -u
: "${BUILD:=build}"
: "${DNNPART:=$PWD/dnnpart}"
export BUILD DNNPART
out=$(mktemp)
trap 'rm -f "$out"' EXIT
pass=0
fail=0

run_suite() {
	name=$1
	shift
	"$@" >"$out" 2>&1
	rc=$?
	p=$(grep -c '^ok - ' "$out")
	f=$(grep -c '^not ok - ' "$out")
	grep '^not ok - ' "$out" | sed "s|^|  [$name] |"
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		echo "  [$name] suite exited with status $rc:"
		tail -n 15 "$out" | sed 's/^/    /'
		f=1
	fi
	printf '%-28s %4d passed, %d failed\n' "$name" "$p" "$f"
	pass=$((pass + p))
	fail=$((fail + f))
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

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]

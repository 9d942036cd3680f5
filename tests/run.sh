#!/bin/sh
# run.sh - runs every test suite and prints one summary line.
#
# Suites: the unit-test binaries $BUILD/tests/test_*, then every
# tests/suite_*.sh script (CLI golden tests, bad-input corpus, tmux TUI
# tests, ...). Each prints "ok - NAME" / "not ok - NAME: why" lines, and
# "skip - NAME: why" for a check it could not run here (a missing tool): a
# skip is counted as skipped, never as passed. A suite that crashes or exits
# non-zero without a "not ok" line counts as a failure.
#
# The suites are independent (each has its own temporary folder and, for
# the tmux ones, its own tmux server), so JOBS of them run at once (default:
# the number of processors; JOBS=1 runs them one after the other). Each
# one's output is kept apart and reported in the fixed order above, so the
# report reads the same whatever the timing. The longest suites of the last
# run start first ($BUILD/test-times.txt, else build/test-times.txt).
# Each suite's line ends with its wall time; $BUILD/test-times.txt lists
# wall, user and system seconds per suite, most CPU time first.
# Environment: BUILD (build folder), DNNPART (the binary under test), JOBS,
# SUITES (space-separated shell patterns of the suite names to run, and
# !patterns of those not to, e.g. "test_* !test_best suite_bad_inputs" or
# "!suite_hostile_settings"; default every suite).
set -u
: "${BUILD:=build}"
: "${DNNPART:=$PWD/dnnpart}"
export BUILD DNNPART

# run.sh --one DIR IDX KIND PATH: runs one suite (KIND bin: the binary
# PATH; sh: sh PATH) into DIR/IDX.out; DIR/IDX.time gets "rc wall user sys".
if [ "${1:-}" = --one ]; then
	d=$2 i=$3
	t0=$(date +%s.%N)
	if [ "$4" = bin ]; then
		"$5" >"$d/$i.out" 2>&1
	else
		sh "$5" >"$d/$i.out" 2>&1
	fi
	rc=$?
	t1=$(date +%s.%N)
	# the second line of `times` (not in a pipe: that would be a subshell):
	# the CPU time of this shell's children, "0m1.50s 0m0.20s"
	times >"$d/$i.cpu"
	sed -n 2p "$d/$i.cpu" | tr 'ms' '  ' | awk -v rc="$rc" -v t0="$t0" -v t1="$t1" \
		'{ printf "%d %.2f %.2f %.2f\n", rc, t1 - t0, $1 * 60 + $2, $3 * 60 + $4 }' \
		>"$d/$i.time.tmp" && mv "$d/$i.time.tmp" "$d/$i.time"
	exit 0
fi

: "${JOBS:=$(nproc 2>/dev/null || echo 1)}"
start=$(date +%s.%N)
dir=$(mktemp -d "/tmp/dnnpart-run.XXXXXX") || exit 1
trap 'rm -rf "$dir"' EXIT
trap 'exit 130' INT TERM
echo "0 0 0" >"$dir/counts"
pass=0
fail=0
skip=0

# wanted NAME: whether SUITES (unset: every suite) names the suite: a
# pattern that matches it (or no pattern but !patterns) and no !pattern
# that does
wanted() {
	[ -z "${SUITES:-}" ] && return 0
	set -f # the patterns are for case, not for the files here
	hit=1 positive=0 # a pattern matched; how many plain patterns
	for pat in $SUITES; do
		# shellcheck disable=SC2254
		case $pat in
		!*) case $1 in ${pat#!}) set +f; return 1 ;; esac ;;
		*)
			positive=$((positive + 1))
			case $1 in $pat) hit=0 ;; esac
			;;
		esac
	done
	set +f
	[ "$positive" -eq 0 ] && return 0 # !patterns alone
	return $hit
}

# the suites, one "IDX KIND PATH NAME" line each, in report order
n=0
for t in "$BUILD"/tests/test_*; do
	[ -x "$t" ] || continue
	case "$t" in *.d|*.o) continue ;; esac
	wanted "$(basename "$t")" || continue
	n=$((n + 1))
	echo "$n bin $t $(basename "$t")"
done >"$dir/list"
for s in tests/suite_*.sh; do
	[ -f "$s" ] || continue
	wanted "$(basename "$s" .sh)" || continue
	n=$((n + 1))
	echo "$n sh $s $(basename "$s" .sh)"
done >>"$dir/list"
if [ ! -s "$dir/list" ]; then
	echo "run.sh: SUITES=\"${SUITES:-}\" names no suite of $BUILD/tests or tests/" >&2
	exit 2
fi

# start order: longest wall time of the last run first, new suites before
# those, then report order
times_file="$BUILD/test-times.txt"
[ -f "$times_file" ] || times_file=build/test-times.txt
[ -f "$times_file" ] || times_file=/dev/null

report() {
	i=$1
	name=$2
	out="$dir/$i.out"
	rc=125 wall=0 user=0 sys=0
	[ -f "$dir/$i.time" ] && read -r rc wall user sys <"$dir/$i.time"
	echo "$name $wall $user $sys" >>"$dir/times"
	p=$(grep -c '^ok - ' "$out")
	f=$(grep -c '^not ok - ' "$out")
	s=$(grep -c '^skip - ' "$out")
	grep '^skip - ' "$out" | sed "s|^|  [$name] |"
	# a failure with the comment lines after it (a tmux suite's screen)
	awk '/^not ok - /{c=1; print; next} c && /^#/ && c++ <= 40 {print; next}
		{c=0}' "$out" | sed "s|^|  [$name] |"
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		echo "  [$name] suite exited with status $rc:"
		tail -n 15 "$out" | sed 's/^/    /'
		f=1
	fi
	if [ "$s" -gt 0 ]; then
		line=$(printf '%4d passed, %d failed, %d skipped' "$p" "$f" "$s")
	else
		line=$(printf '%4d passed, %d failed' "$p" "$f")
	fi
	printf '%-28s %-36s %7.1f s\n' "$name" "$line" "$wall"
	pass=$((pass + p))
	fail=$((fail + f))
	skip=$((skip + s))
}

# The report, in the background: each suite's lines as soon as it and all
# before it in report order are done; then the totals into $dir/counts.
: >"$dir/times"
while read -r i kind path name; do
	until [ -f "$dir/$i.time" ] || [ -f "$dir/done" ]; do
		[ -d "$dir" ] || exit 1
		sleep 0.2
	done
	: >>"$dir/$i.out"
	report "$i" "$name"
	echo "$pass $fail $skip" >"$dir/counts"
done <"$dir/list" &
reporter=$!

awk -v list="$dir/list" 'FILENAME != list { if ($1 !~ /^#/) wall[$1] = $2; next }
	{ w = ($4 in wall) ? wall[$4] : 1e9; print w, $1, $2, $3 }' \
	"$times_file" "$dir/list" | sort -k1,1gr -k2,2n | cut -d' ' -f2- |
	xargs -P "$JOBS" -L 1 sh tests/run.sh --one "$dir"
touch "$dir/done"
wait "$reporter"
read -r pass fail skip <"$dir/counts"

# the side file: most CPU time (user + system) first (a run of some suites
# only leaves the last whole run's)
if [ -z "${SUITES:-}" ]; then {
	echo "# suite wall_s user_s sys_s cpu_s (JOBS=$JOBS; most CPU time first)"
	awk '{ printf "%s %s %s %s %.2f\n", $1, $2, $3, $4, $3 + $4 }' "$dir/times" |
		sort -k5,5gr -k1,1 |
		awk '{ print; w += $2; u += $3; s += $4 }
			END { printf "# total %.2f %.2f %.2f %.2f (sum over suites)\n", w, u, s, u + s }'
	echo "$start $(date +%s.%N)" | awk '{ printf "# run wall %.2f s\n", $2 - $1 }'
} >"$BUILD/test-times.txt.tmp" && mv "$BUILD/test-times.txt.tmp" "$BUILD/test-times.txt"
fi

if [ "$skip" -gt 0 ]; then
	echo "$pass passed, $fail failed, $skip skipped"
else
	echo "$pass passed, $fail failed"
fi
[ "$fail" -eq 0 ]

#!/bin/sh
# suite_cli.sh - golden tests of the batch command line, data-driven.
#
# A case is tests/cli/NAME.args (the arguments of one dnnpart run on its
# first line that is not a '#' comment; $TMP may appear in it) or
# tests/cli/NAME.sh (a shell snippet for cases with several steps; it gets
# $DNNPART and $TMP). What the run must produce:
#   NAME.out      stdout, exactly          NAME.outgrep  lines stdout must contain
#   NAME.err      stderr, exactly          NAME.errgrep  lines stderr must contain
#   NAME.rc       exit status (default 0)
# Without NAME.err or NAME.errgrep, stderr must be empty. The grep forms are
# for text that grows as the project does (the command and algorithm lists).
#
# Before comparing, output is normalised: the temporary folder becomes TMP,
# and the planning time, which changes from run to run, becomes
# "(normalised)" in the table's "plan time" line and in JSON's "plan_ms".
# The product's output itself stays honest.
#
#   UPDATE=1 sh tests/suite_cli.sh   rewrites .out/.err/.rc from the current
#                                    binary; review the diff before committing.
#   sh tests/suite_cli.sh NAME...    runs (or with UPDATE=1 rewrites) only the
#                                    named cases, and skips the large one.
#
# The last case generates a 1,000,000-op graph and runs info, plan and eval
# on it (issue 2: the CLI handles a graph of that size).
set -u
: "${DNNPART:=$PWD/dnnpart}"
TMP=$(mktemp -d /tmp/dnnpart-cli.XXXXXX) || exit 1
trap 'rm -rf "$TMP"' EXIT
export DNNPART TMP
UPDATE=${UPDATE:-0}

normalise() {
	sed -e "s|$TMP|TMP|g" \
	    -e 's/^\(plan time *\).*/\1(normalised)/' \
	    -e '/^[* ] [a-z0-9]/s/\( [0-9][0-9]*\)  *[0-9.][0-9.]* \(ns\|us\|ms\|s\)\(  .*\)\{0,1\}$/\1 (t)\3/' \
	    -e 's/\("plan_ms":[[:space:]]*\)[-+0-9.eE]*/\1(normalised)/'
}

# check NAME WHAT GOT EXPECTED-FILE: exact comparison; prints the diff
check_exact() {
	if ! cmp -s "$3" "$4"; then
		echo "not ok - cli/$1: $2 differs from tests/cli/$1.${4##*.}"
		diff "$4" "$3" | head -n 20 | sed 's/^/    /'
		return 1
	fi
}

# check_grep NAME WHAT GOT PATTERNS-FILE: every line must occur
check_grep() {
	while IFS= read -r pat; do
		[ -n "$pat" ] || continue
		if ! grep -qF -- "$pat" "$3"; then
			echo "not ok - cli/$1: $2 lacks '$pat'"
			sed 's/^/    /' "$3" | head -n 10
			return 1
		fi
	done <"$4"
}

run_case() {
	case_file=$1
	name=${case_file##*/}
	name=${name%.*}
	base=tests/cli/$name
	case $case_file in
	*.args)
		line=$(grep -v '^#' "$case_file" | head -n 1)
		eval "set -- $line"
		"$DNNPART" "$@" >"$TMP/raw.out" 2>"$TMP/raw.err" </dev/null
		rc=$?
		;;
	*)
		sh "$case_file" >"$TMP/raw.out" 2>"$TMP/raw.err" </dev/null
		rc=$?
		;;
	esac
	normalise <"$TMP/raw.out" >"$TMP/out"
	normalise <"$TMP/raw.err" >"$TMP/err"

	if [ "$UPDATE" = 1 ]; then
		[ -f "$base.outgrep" ] || cp "$TMP/out" "$base.out"
		if [ -s "$TMP/err" ] && [ ! -f "$base.errgrep" ]; then
			cp "$TMP/err" "$base.err"
		elif [ ! -s "$TMP/err" ]; then
			rm -f "$base.err"
		fi
		if [ "$rc" -ne 0 ]; then echo "$rc" >"$base.rc"; else rm -f "$base.rc"; fi
		echo "ok - cli/$name (updated)"
		return
	fi

	want_rc=0
	[ -f "$base.rc" ] && want_rc=$(cat "$base.rc")
	if [ "$rc" -ne "$want_rc" ]; then
		echo "not ok - cli/$name: exit status $rc, want $want_rc"
		sed 's/^/    /' "$TMP/err" | head -n 10
		return
	fi
	if [ -f "$base.out" ]; then
		check_exact "$name" stdout "$TMP/out" "$base.out" || return
	fi
	if [ -f "$base.outgrep" ]; then
		check_grep "$name" stdout "$TMP/out" "$base.outgrep" || return
	fi
	if [ -f "$base.err" ]; then
		check_exact "$name" stderr "$TMP/err" "$base.err" || return
	elif [ -f "$base.errgrep" ]; then
		check_grep "$name" stderr "$TMP/err" "$base.errgrep" || return
	elif [ -s "$TMP/err" ]; then
		echo "not ok - cli/$name: unexpected stderr"
		sed 's/^/    /' "$TMP/err" | head -n 10
		return
	fi
	echo "ok - cli/$name"
}

if [ ! -x "$DNNPART" ]; then
	echo "not ok - cli: no binary at $DNNPART (run make first)"
	exit 1
fi

# wanted NAME: true when no names were given or NAME is one of them
wanted() {
	[ -z "$ONLY" ] && return 0
	case " $ONLY " in *" $1 "*) return 0 ;; esac
	return 1
}
ONLY="$*"

for f in tests/cli/*.args tests/cli/*.sh; do
	[ -f "$f" ] || continue
	n=${f##*/}
	wanted "${n%.*}" || continue
	run_case "$f"
done

# One large case: generate 1,000,000 ops, then info, plan (single) and eval
# must succeed and see every op.
scale_1m() {
	g=$TMP/g1m.json
	if ! "$DNNPART" gen --ops 1M --seed 7 -o "$g" >"$TMP/1m.log" 2>&1; then
		echo "not ok - cli/scale_1m_ops: gen failed: $(head -c 300 "$TMP/1m.log")"
		return
	fi
	if ! "$DNNPART" info "$g" >"$TMP/1m.info" 2>&1 ||
	    ! grep -q '^ops *1000000$' "$TMP/1m.info"; then
		echo "not ok - cli/scale_1m_ops: info: $(head -c 300 "$TMP/1m.info")"
		return
	fi
	if ! "$DNNPART" plan "$g" -k 4 --algo single -o "$TMP/g1m.place" \
	    >"$TMP/1m.plan" 2>&1; then
		echo "not ok - cli/scale_1m_ops: plan: $(head -c 300 "$TMP/1m.plan")"
		return
	fi
	if ! "$DNNPART" eval "$g" "$TMP/g1m.place" -k 4 --json \
	    >"$TMP/1m.eval" 2>&1 ||
	    ! grep -q '"ops":[[:space:]]*1000000,' "$TMP/1m.eval" ||
	    ! grep -q '"feasible":[[:space:]]*true' "$TMP/1m.eval"; then
		echo "not ok - cli/scale_1m_ops: eval: $(head -c 300 "$TMP/1m.eval")"
		return
	fi
	echo "ok - cli/scale_1m_ops"
}
[ "$UPDATE" = 1 ] || [ -n "$ONLY" ] || scale_1m
exit 0

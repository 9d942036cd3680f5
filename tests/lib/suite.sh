# suite.sh - what the shell suites share; a suite sources it with
#   . tests/lib/suite.sh
# (suites run from the repository root; see tests/run.sh for the protocol:
# lines "ok - NAME", "not ok - NAME: why", "skip - NAME: why").

# suite_start TAG NAME: DNNPART defaults to ./dnnpart; TMP is a fresh
# folder /tmp/dnnpart-TAG.XXXXXX, removed at exit (made writable first, for
# the cases that take write permission away) and on Ctrl-C. Without a
# binary prints "not ok - NAME: no binary ..." and exits 1.
suite_start() {
	: "${DNNPART:=$PWD/dnnpart}"
	TMP=$(mktemp -d "/tmp/dnnpart-$1.XXXXXX") || exit 1
	trap suite_cleanup EXIT
	trap 'exit 130' INT TERM
	if [ ! -x "$DNNPART" ]; then
		echo "not ok - $2: no binary at $DNNPART (run make first)"
		exit 1
	fi
}

# The exit trap of suite_start: ends the panes and the private tmux server
# of tests/lib/tmux.sh when there is one (tmux_stop), removes TMP.
suite_cleanup() {
	[ -n "${T:-}" ] && command -v tmux >/dev/null 2>&1 && tmux_stop
	chmod -R u+w "$TMP" 2>/dev/null
	rm -rf "$TMP"
}

# A signal ignored when the suite's shell started (SIGHUP under nohup) stays
# ignored in dnnpart too, as it should (nohup means "do not stop on it"), and
# a shell cannot undo that: cases that send it are skipped there, not failed.
suite_sig_ignored() { # HUP|INT|TERM: is that signal ignored in this shell?
	case $1 in HUP) n=1 ;; INT) n=2 ;; *) n=15 ;; esac
	mask=$(sed -n 's/^SigIgn:[[:space:]]*//p' /proc/$$/status 2>/dev/null)
	[ -n "$mask" ] && [ $((0x$mask >> (n - 1) & 1)) -eq 1 ]
}
suite_skip_ignored() { # NAME SIG
	echo "skip - $1: SIG$2 is ignored in this environment (nohup?), so dnnpart keeps ignoring it"
}

# suite_asan: the binary under test is an AddressSanitizer build (its own
# allocator; it reserves terabytes of address space, so no ulimit -v).
suite_asan() { nm "$DNNPART" 2>/dev/null | grep -q __asan_init; }

# suite_run LIMIT ARGS...: dnnpart ARGS with LIMIT seconds at most (a hang
# fails), no stdin; stdout in $TMP/out, stderr in $TMP/err, status in rc.
suite_run() {
	limit=$1
	shift
	timeout "$limit" "$DNNPART" "$@" >"$TMP/out" 2>"$TMP/err" </dev/null
	rc=$?
}

# suite_check NAME RC PATTERN FILE: after suite_run, "ok - NAME" when the
# status was RC and FILE ($TMP/err or $TMP/out) matches PATTERN (grep -E),
# else a "not ok" line that says which and shows the start of the file.
suite_check() {
	if [ "$rc" -ne "$2" ]; then
		echo "not ok - $1: exit status $rc, want $2: $(head -c 300 "$TMP/err")"
	elif ! grep -Eq -- "$3" "$4"; then
		echo "not ok - $1: $(basename "$4") lacks '$3': $(head -c 300 "$4")"
	else
		echo "ok - $1"
	fi
}

# suite_need COMMAND NAME [WHY]: without COMMAND on the PATH,
# "skip - NAME: COMMAND is not installed WHY" and exit 0.
suite_need() {
	command -v "$1" >/dev/null 2>&1 && return 0
	echo "skip - $2: $1 is not installed${3:+ $3}"
	exit 0
}

# suite_marks NAME WANT PATTERN FILES...: "ok - NAME" when FILES hold WANT
# or more lines that match PATTERN (grep), else "not ok" with the count.
suite_marks() {
	name=$1
	want=$2
	pat=$3
	shift 3
	n=$(cat "$@" | grep -c -- "$pat")
	if [ "$n" -lt "$want" ]; then
		echo "not ok - $name: $n blocks marked '$pat' in $*, want $want or more"
	else
		echo "ok - $name"
	fi
}

# tmux.sh - what the suites that drive the explorer in a real terminal
# share (suite_tui*, suite_nothing_lost); sourced after
# tests/lib/suite.sh, whose exit trap ends the panes' processes and the
# tmux server (tmux_stop).
#
# tmux_needed WHAT: without tmux, "skip - WHAT: ..." and exit 0.
tmux_needed() {
	command -v tmux >/dev/null 2>&1 && return 0
	echo "skip - $1: tmux is not installed (make deps installs it)"
	echo "# (Debian: apt-get install tmux)"
	exit 0
}

# tmux_server NAME: T is the command of a private tmux server
# (dnnpart-NAME-PID, no config file): tmux_cmd. The helpers below talk to
# session $S.
tmux_server() {
	SOCK="dnnpart-$1-$$"
	T=tmux_cmd
}

# tmux_cmd ARGS...: tmux ARGS on the private server, with ASAN_OPTIONS
# ending in detect_leaks=0 (the last setting of a flag wins): the server
# keeps the environment of the client that starts it and gives it to every
# pane, so every explorer a tmux suite starts runs without LeakSanitizer.
# Leaks are checked by suite_leaks and the C tests; an explorer that ends on
# a hang-up with LeakSanitizer on was seen spinning in its stop-the-world
# under make check-asan, long after its suite.
tmux_cmd() {
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
		tmux -L "$SOCK" -f /dev/null "$@"
}

# tmux_stop: the end of a tmux suite (suite_cleanup, the exit trap): ends
# what the panes run, each pane's process group (its shell, the explorer,
# a sleep), with TERM and after 2 s with KILL, then the server and its
# socket. Killing the server alone only hangs up the panes: an explorer
# that does not end on that would run on after its suite.
tmux_stop() {
	pids=$($T list-panes -a -F '#{pane_pid}' 2>/dev/null)
	for p in $pids; do kill -TERM "-$p" 2>/dev/null; done
	n=0
	while [ -n "$pids" ] && [ "$n" -lt 40 ]; do
		sleep 0.05
		left=
		for p in $pids; do
			kill -0 "-$p" 2>/dev/null && left="$left $p"
		done
		pids=$left
		n=$((n + 1))
	done
	for p in $pids; do kill -KILL "-$p" 2>/dev/null; done
	$T kill-server >/dev/null 2>&1
	# the server leaves its socket behind
	rm -f "${TMUX_TMPDIR:-/tmp}/tmux-$(id -u)/$SOCK"
}

screen() { $T capture-pane -p -t "$S" 2>/dev/null; }
# row N: row N (1-based) of the screen.
row() { screen | sed -n "${1}p"; }
keys() { $T send-keys -t "$S" "$@" 2>/dev/null; }
ok() { echo "ok - $1"; }
# verdict NAME WHY: ok NAME when the command just before it succeeded
# (its status, $?), else notok NAME WHY.
verdict() {
	if [ $? -eq 0 ]; then ok "$1"; else notok "$1" "$2"; fi
}
# notok NAME WHY: the failure, then the screen as comment lines.
# When the session is gone (a blank screen) it says so, and what the
# pane runs when it is there but blank.
notok() {
	echo "not ok - $1: $2"
	if ! $T has-session -t "$S" 2>/dev/null; then
		echo "# no tmux session $S: $($T list-sessions 2>&1 | head -n 3 | tr '\n' ' ')"
		return
	fi
	echo "# pane: $($T list-panes -t "$S" -F 'pid #{pane_pid} dead #{pane_dead} runs #{pane_current_command} #{pane_width}x#{pane_height}' 2>&1 | head -n 1)"
	echo "# screen:"
	screen | sed 's/^/#   /'
}

# wait_for PATTERN [SECONDS]: polls the screen (every 50 ms, at most
# SECONDS, default 20) until grep -E finds PATTERN; 1 when it never does.
wait_for() {
	end=$(($(date +%s) + ${2:-20}))
	while ! screen | grep -Eq -- "$1"; do
		[ "$(date +%s)" -ge "$end" ] && return 1
		sleep 0.05
	done
}

# wait_row N PATTERN [SECONDS]: the same for row N.
wait_row() {
	end=$(($(date +%s) + ${3:-20}))
	while ! row "$1" | grep -Eq -- "$2"; do
		[ "$(date +%s)" -ge "$end" ] && return 1
		sleep 0.05
	done
}

# wait_gone PATTERN [SECONDS]: polls until grep -E no longer finds PATTERN
# on the screen; 1 when it is still there after SECONDS (default 20).
wait_gone() {
	end=$(($(date +%s) + ${2:-20}))
	while screen | grep -Eq -- "$1"; do
		[ "$(date +%s)" -ge "$end" ] && return 1
		sleep 0.05
	done
}

# wait_settled [SECONDS]: no rerun in progress (the status line says
# "rerunning" while one runs, the summary says STALE until the new plan is in).
# The default wait is long: a wait returns as soon as the screen settles, and
# on a loaded machine best's anytime runs can take a while.
wait_settled() { wait_gone 'rerunning|comparing|STALE|planning' "${1:-60}"; }

# tmux_suite TAG SETUP WHAT: the start of a tmux suite: without tmux
# "skip - WHAT: ..." (tmux_needed); suite_start TAG SETUP; the private
# server dnnpart-TAG-PID (tmux_server) with the session "keep" for its
# whole life; tmp is TMP.
tmux_suite() {
	tmux_needed "$3"
	suite_start "$1" "$2"
	tmux_server "$1"
	tmp=$TMP
	# a session for the server's whole life: when a case ends the last
	# session, the server exits, and the next case's new-session can reach
	# the server while it goes away - no session, a blank screen (seen in
	# CI as "no plan on screen after 60 s" with nothing captured)
	$T new-session -d -s keep -x 80 -y 24 "exec sleep 3600"
}

#!/bin/sh
# suite_nothing_lost.sh - every output (plan -o, export, gen -o, the
# explorer's save) is written to a temporary file in the same folder and
# renamed into place: a write that fails half way, or a process stopped
# while it writes, leaves the previous file byte for byte as it was and no
# temporary file behind.
#
# A failing write is made with a file size limit (ulimit -f, SIGXFSZ
# ignored): the write then fails with EFBIG as it would with ENOSPC on a
# full disk, and this works as root too, where a read-only folder would not
# stop anything.
set -u
. tests/lib/suite.sh
suite_start lost nothing_lost
. tests/lib/tmux.sh
tmux_server lost
S=lost

G=$TMP/g.json
P=$TMP/p.json
if ! "$DNNPART" gen --ops 2000 --seed 3 -o "$G" >/dev/null 2>"$TMP/setup.err" ||
	! "$DNNPART" plan "$G" -k 4 -o "$P" >/dev/null 2>>"$TMP/setup.err"; then
	echo "not ok - nothing_lost_setup: $(head -c 300 "$TMP/setup.err")"
	exit 1
fi
SMALL=tests/bad/placement_graph.json # 3 ops: a fast SVG
printf 'a 0\nb 1\nc 0\n' >"$TMP/small.place"

OUT=$TMP/out # the folder the outputs go to
mkdir -p "$OUT"

# leftovers: temporary files in $OUT (".NAME.tmpXXXXXX")
leftovers() { ls -a "$OUT" | grep '\.tmp' | tr '\n' ' '; }

# kept_intact NAME TARGET: TARGET is as it was ($TMP/orig) and nothing is
# left in $OUT; else prints which is not (not ok) and returns 1.
kept_intact() {
	if ! cmp -s "$2" "$TMP/orig"; then
		echo "not ok - $1: the previous file changed"
	elif [ -n "$(leftovers)" ]; then
		echo "not ok - $1: left $(leftovers)"
	else
		return 0
	fi
	return 1
}

# failing_write NAME TARGET WANT_PATTERN ARGS...: TARGET holds an old file;
# dnnpart ARGS --force (replacing it is allowed) runs under a 1-block file
# size limit; the run must fail
# (stderr matching WANT_PATTERN), TARGET stay as it was, and nothing
# be left in $OUT.
failing_write() {
	name=$1
	target=$2
	pat=$3
	shift 3
	printf 'the previous %s, which must survive\n' "$name" >"$target"
	cp "$target" "$TMP/orig"
	(
		trap '' XFSZ
		ulimit -f 1
		exec timeout 120 "$DNNPART" "$@" --force
	) >"$TMP/so" 2>"$TMP/se" </dev/null
	rc=$?
	if [ "$rc" -eq 0 ]; then
		echo "not ok - $name: succeeded despite the failing write"
	elif ! kept_intact "$name" "$target"; then
		:
	elif ! grep -Eq -- "$pat" "$TMP/se"; then
		echo "not ok - $name: stderr lacks '$pat': $(head -c 300 "$TMP/se")"
	else
		echo "ok - $name"
	fi
	rm -f "$target"
}

failing_write plan_o_json "$OUT/plan.json" \
	"$OUT/plan.json: error while writing the file \(nothing was changed\): File too large" \
	plan "$G" -k 4 -o "$OUT/plan.json"
failing_write plan_o_place "$OUT/plan.place" \
	"$OUT/plan.place: error while writing the file \(nothing was changed\): File too large" \
	plan "$G" -k 4 -o "$OUT/plan.place"
failing_write gen_o "$OUT/gen.json" \
	"$OUT/gen.json: error while writing the file \(nothing was changed\): File too large" \
	gen --ops 2000 -o "$OUT/gen.json"
failing_write export_dot "$OUT/e.dot" "$OUT/e.dot: " \
	export "$G" "$P" --dot "$OUT/e.dot"
failing_write export_csv "$OUT/e.csv" "$OUT/e.csv: .*File too large" \
	export "$G" "$P" --csv "$OUT/e.csv"
failing_write export_svg "$OUT/e.svg" "$OUT/e.svg: " \
	export "$SMALL" "$TMP/small.place" -k 2 --svg "$OUT/e.svg"
failing_write plan_dot_and_json "$OUT/both.json" "File too large" \
	plan "$G" -k 4 -o "$OUT/both.json" --dot "$OUT/both.dot"
rm -f "$OUT/both.dot"

# a good write over an old file: new content, old permission bits, no
# leftovers
printf 'old\n' >"$OUT/keep.json"
chmod 640 "$OUT/keep.json"
if "$DNNPART" plan "$G" -k 4 -o "$OUT/keep.json" --force >/dev/null 2>"$TMP/se" &&
	grep -Eq '"dnnpart-(placement|strategy)"' "$OUT/keep.json" &&
	[ "$(stat -c %a "$OUT/keep.json")" = 640 ] && [ -z "$(leftovers)" ]; then
	echo "ok - overwrite_keeps_permissions"
else
	echo "not ok - overwrite_keeps_permissions: $(stat -c %a "$OUT/keep.json") $(leftovers) $(head -c 200 "$TMP/se")"
fi
rm -f "$OUT/keep.json"

# stopped_write NAME SIGNAL TARGET ARGS...: starts dnnpart ARGS --force, sends
# SIGNAL once its temporary file exists, and checks that the old TARGET
# survived and no temporary file is left.
stopped_write() {
	name=$1
	sig=$2
	target=$3
	shift 3
	suite_sig_ignored "$sig" && { suite_skip_ignored "$name" "$sig"; return; }
	printf 'old %s\n' "$name" >"$target"
	cp "$target" "$TMP/orig"
	timeout 300 "$DNNPART" "$@" --force >/dev/null 2>"$TMP/se" </dev/null &
	pid=$!
	end=$(($(date +%s) + 120))
	while [ -z "$(leftovers)" ] && kill -0 "$pid" 2>/dev/null &&
		[ "$(date +%s)" -lt "$end" ]; do
		sleep 0.02
	done
	seen=$(leftovers)
	kill -s "$sig" "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	rc=$?
	if [ -z "$seen" ]; then
		echo "skip - $name: the write ended before it could be stopped"
	elif [ "$rc" -eq 0 ]; then
		echo "not ok - $name: exit status 0 after SIG$sig"
	elif ! kept_intact "$name" "$target"; then
		:
	else
		echo "ok - $name"
	fi
	rm -f "$target"
}
# a million ops take a second or more to write: time to stop it half way
stopped_write gen_stopped_by_sigterm TERM "$OUT/big.json" \
	gen --ops 1M --seed 1 -o "$OUT/big.json"
stopped_write gen_stopped_by_sighup HUP "$OUT/big.json" \
	gen --ops 1M --seed 1 -o "$OUT/big.json"
# an SVG layout of 2000 ops takes long; Ctrl-C cancels it (its own
# handler: exit 2, "export interrupted")
stopped_write export_svg_interrupted INT "$OUT/big.svg" \
	export "$G" "$P" --svg "$OUT/big.svg" --coarsen never
if grep -q 'export interrupted; the file was not written' "$TMP/se"; then
	echo "ok - export_svg_interrupted_says_so"
else
	echo "not ok - export_svg_interrupted_says_so: $(head -c 300 "$TMP/se")"
fi

# ---- the explorer's save (s) ----
tmux_needed "explorer save tests"

printf 'the previous placement\n' >"$OUT/saved.json"
cp "$OUT/saved.json" "$TMP/orig"
# the explorer itself runs under the file size limit: its terminal is not
# a file, its save is
$T new-session -d -s lost -x 250 -y 30 \
	"trap '' XFSZ; ulimit -f 1; env LANG=C.UTF-8 TERM=screen \"$DNNPART\" \"$G\" -k 4; echo \"dnnpart exited with \$?\"; exec sleep 60"
if ! wait_for 'makespan' 30; then
	echo "not ok - tui_save_setup: the explorer did not start"
	screen | sed 's/^/#   /'
	exit 0
fi
keys s C-u "$OUT/saved.json" Enter
wait_for 'exists - overwrite\? \(y/N\)' 10 && keys y
if wait_for 'not saved: .*File too large' 10 && cmp -s "$OUT/saved.json" "$TMP/orig" &&
	[ -z "$(leftovers)" ]; then
	echo "ok - tui_failed_save_keeps_the_old_file"
else
	echo "not ok - tui_failed_save_keeps_the_old_file: $(leftovers)"
	screen | tail -n 3 | sed 's/^/#   /'
fi
keys s C-u "$OUT/no/such/folder/p.json" Enter
if wait_for "not saved: .*folder '$OUT/no/such/folder' does not exist" 10; then
	echo "ok - tui_save_to_a_missing_folder_says_so"
else
	echo "not ok - tui_save_to_a_missing_folder_says_so"
	screen | tail -n 3 | sed 's/^/#   /'
fi
# Esc at the save prompt writes nothing
keys s C-u "$OUT/esc.json" Escape
sleep 0.3
if [ ! -e "$OUT/esc.json" ] && [ -z "$(leftovers)" ]; then
	echo "ok - tui_cancelled_save_writes_nothing"
else
	echo "not ok - tui_cancelled_save_writes_nothing"
fi
keys q
if wait_for 'dnnpart exited with 0' 10; then
	echo "ok - tui_still_quits_cleanly_after_failed_saves"
else
	echo "not ok - tui_still_quits_cleanly_after_failed_saves"
	screen | tail -n 3 | sed 's/^/#   /'
fi
exit 0

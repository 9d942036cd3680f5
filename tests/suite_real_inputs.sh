#!/bin/sh
# suite_real_inputs.sh - real inputs through the command line (issue 7).
#
# - `dnnpart info` and `dnnpart compare` on every real graph in tests/data
#   (our ParDNN folder, the 16 msr-fiddle files, the 8 PipeDream profiles);
# - a placement in the ParDNN reference's output format evaluates with
#   `--link pardnn` in both contention models, warning that it leaves out
#   the no-ops: our folder's, and the authors' own on their ResNet where
#   that folder is present (it states no licence, so it is not in the
#   repository: a skip otherwise);
# - malformed real inputs exit with status 2 and name the file and line;
# - tools/gen_samples.py reproduces the committed sample graphs, and
#   tools/pardnn_folder.py our ParDNN folder, byte for byte.
# Environment: DNNPART (the binary), DNNPART_SHARED (the folder holding the
# optional pardnn-resnet, default ../shared/benchmarks).
set -u
: "${DNNPART:=$PWD/dnnpart}"
DATA=tests/data
RESNET=${DNNPART_SHARED:-../shared/benchmarks}/pardnn-resnet
TMP=$(mktemp -d /tmp/dnnpart-real.XXXXXX) || exit 1
trap 'rm -rf "$TMP"' EXIT

ok() { echo "ok - $1"; }
fail() { echo "not ok - $1: $2"; }

# every real graph of tests/data, one per line
graphs() {
	echo "$DATA/pardnn-resnet50"
	for f in "$DATA"/msr-fiddle/throughput-inputs/*/*.json \
		"$DATA"/pipedream/*/graph.txt; do
		[ -f "$f" ] && echo "$f"
	done
}

n=$(graphs | wc -l)
if [ "$n" -ne 25 ]; then
	fail "real/benchmarks-present" "expected 25 graphs under $DATA, found $n"
fi

graphs | while IFS= read -r g; do
	name=real/info:${g#"$DATA"/}
	if "$DNNPART" info "$g" >"$TMP/out" 2>"$TMP/err"; then
		if grep -q '^ops ' "$TMP/out"; then
			ok "$name"
		else
			fail "$name" "no 'ops' line in the output"
		fi
	else
		fail "$name" "exit $?: $(head -n 1 "$TMP/err")"
	fi
done

# compare: every algorithm side by side, on each graph's default machine
# (4 devices of 16 GiB where the file gives none)
if "$DNNPART" help compare >/dev/null 2>&1; then
	graphs | while IFS= read -r g; do
		name=real/compare:${g#"$DATA"/}
		if "$DNNPART" compare "$g" -k 4 --mem 16GiB >"$TMP/out" \
			2>"$TMP/err"; then
			ok "$name"
		else
			fail "$name" "exit $?: $(head -n 1 "$TMP/err")"
		fi
	done
else
	echo "skip - real/compare: this dnnpart has no compare command"
fi

# a placement in the reference's output format, both contention models:
# eval_reference NAME FOLDER PLACE "leaves out N of the M ops"
eval_reference() {
	for c in port none; do
		name=real/eval-$1-$c
		if "$DNNPART" eval "$2" "$2/reference/$3" -k 4 --link pardnn \
			--contention $c >"$TMP/out" 2>"$TMP/err"; then
			if ! grep -q "$4" "$TMP/err"; then
				fail "$name" "no warning '$4'"
			elif ! grep -q "^makespan" "$TMP/out" ||
				! grep -q "contention $c" "$TMP/out"; then
				fail "$name" "no makespan or wrong contention in the output"
			else
				ok "$name"
			fi
		else
			fail "$name" "exit $?: $(head -n 1 "$TMP/err")"
		fi
	done
}
eval_reference pardnn-own "$DATA/pardnn-resnet50" layers-K4.place \
	'leaves out 1 of the 804 ops'
if [ -d "$RESNET" ]; then
	eval_reference pardnn-reference "$RESNET" pardnn-cpp-K4.place \
		'leaves out 368 of the 6094 ops'
else
	for c in port none; do
		echo "skip - real/eval-pardnn-reference-$c: $RESNET not present"
	done
fi

# malformed inputs: exit 2, message names file:line
bad() {
	name=real/bad:$1
	"$DNNPART" info "$2" >"$TMP/out" 2>"$TMP/err"
	rc=$?
	if [ "$rc" -ne 2 ]; then
		fail "$name" "exit $rc, want 2"
	elif ! grep -qF -- "$3" "$TMP/err"; then
		fail "$name" "stderr lacks '$3': $(head -n 1 "$TMP/err")"
	else
		ok "$name"
	fi
}
D=tests/data/real
bad pipedream "$D/pipedream_unknown_edge.txt" \
	"$D/pipedream_unknown_edge.txt:4: edge names layer 'node9'"
bad fiddle "$D/fiddle_bad_latency.json" \
	"$D/fiddle_bad_latency.json:3:37: nodes[1]: \"fpgaLatency\" must be a number"
bad pardnn-duration "$D/pardnn_bad_duration" \
	"$D/pardnn_bad_duration/nodes_average_durations.txt:2:"
bad pardnn-missing "$D/pardnn_no_durations" "no durations file"

# the sample graphs are what the generator makes
py=
for p in python3 /usr/bin/python3; do
	if command -v "$p" >/dev/null 2>&1; then
		py=$p
		break
	fi
done
if [ -z "$py" ]; then
	echo "skip - real/samples-reproducible: no python3"
elif "$py" tools/gen_samples.py --out "$TMP/samples" 2>"$TMP/err"; then
	diffs=
	for f in sample_graphs/*.json; do
		cmp -s "$f" "$TMP/samples/${f##*/}" || diffs="$diffs ${f##*/}"
	done
	for f in "$TMP"/samples/*.json; do
		[ -f "sample_graphs/${f##*/}" ] || diffs="$diffs ${f##*/}(new)"
	done
	if [ -n "$diffs" ]; then
		fail real/samples-reproducible "differ from the generator:$diffs"
	else
		ok real/samples-reproducible
	fi
else
	fail real/samples-reproducible "gen_samples.py failed: $(tail -n 1 "$TMP/err")"
fi

# our ParDNN folder is what its script makes
if [ -z "$py" ]; then
	echo "skip - real/pardnn-folder-reproducible: no python3"
elif "$py" tools/pardnn_folder.py --out "$TMP/pardnn" >/dev/null 2>"$TMP/err"; then
	if diff -r "$DATA/pardnn-resnet50" "$TMP/pardnn" -x SOURCE.md >"$TMP/diff"; then
		ok real/pardnn-folder-reproducible
	else
		fail real/pardnn-folder-reproducible "differs from tools/pardnn_folder.py: $(head -n 1 "$TMP/diff")"
	fi
else
	fail real/pardnn-folder-reproducible "pardnn_folder.py failed: $(tail -n 1 "$TMP/err")"
fi
exit 0

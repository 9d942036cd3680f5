#!/bin/sh
# suite_real_inputs.sh - real inputs through the command line (issue 7).
#
# - `dnnpart info` and `dnnpart compare` on every graph in ../shared/benchmarks
#   (the ParDNN folder, the 16 msr-fiddle files, the 8 PipeDream profiles);
# - the ParDNN reference placement of pardnn-resnet evaluates with
#   `--link pardnn` in both contention models, warning that it leaves out
#   the 368 no-ops;
# - malformed real inputs exit with status 2 and name the file and line;
# - tools/gen_samples.py reproduces the committed sample graphs byte for byte.
# Environment: DNNPART (the binary), DNNPART_SHARED (the benchmarks folder).
set -u
: "${DNNPART:=$PWD/dnnpart}"
SHARED=${DNNPART_SHARED:-../shared/benchmarks}
TMP=$(mktemp -d /tmp/dnnpart-real.XXXXXX) || exit 1
trap 'rm -rf "$TMP"' EXIT

ok() { echo "ok - $1"; }
fail() { echo "not ok - $1: $2"; }

# every graph of the shared benchmarks, one per line
graphs() {
	echo "$SHARED/pardnn-resnet"
	for f in "$SHARED"/msr-fiddle/throughput-inputs/*/*.json \
		"$SHARED"/pipedream/*/graph.txt; do
		[ -f "$f" ] && echo "$f"
	done
}

n=$(graphs | wc -l)
if [ "$n" -ne 25 ]; then
	fail "real/benchmarks-present" "expected 25 graphs under $SHARED, found $n"
fi

graphs | while IFS= read -r g; do
	name=real/info:${g#"$SHARED"/}
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
		name=real/compare:${g#"$SHARED"/}
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

# the reference placement, both contention models
ref=$SHARED/pardnn-resnet/reference/pardnn-cpp-K4.place
for c in port none; do
	name=real/eval-pardnn-reference-$c
	if "$DNNPART" eval "$SHARED/pardnn-resnet" "$ref" -k 4 --link pardnn \
		--contention $c >"$TMP/out" 2>"$TMP/err"; then
		if ! grep -q 'leaves out 368 of the 6094 ops' "$TMP/err"; then
			fail "$name" "no warning counting the 368 omitted ops"
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

# the sample graphs are what the generator makes (but resnet152 and
# vit-b16, made by the PyTorch bridge: tests/suite_pytorch.sh checks those)
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
		case "${f##*/}" in resnet152.json | vit-b16.json) continue ;; esac
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
exit 0

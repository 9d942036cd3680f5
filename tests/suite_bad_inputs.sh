#!/bin/sh
# suite_bad_inputs.sh - the bad-input corpus: every malformed or hostile
# input must end in exit code 2 and one exact, clear message (file,
# line/column where known, what was wrong), with nothing on stdout.
#
# A case is tests/bad/NAME.expect next to its input: tests/bad/NAME.EXT (a
# file) or tests/bad/NAME/ (a ParDNN folder). NAME.expect holds
#   # comment lines (what the case is about)
#   args: ARGS      optional; the dnnpart arguments, $IN for the input
#                   (default: "info $IN"; for place_* and placement_*
#                   inputs: "eval tests/bad/placement_graph.json $IN -k 2")
#   exit: N         the exit status (2 for every bad input)
#   every other line: the expected stderr, exactly
#
# After the corpus come hostile inputs too large to keep in the repository,
# generated into a temporary folder: 100,000 nested JSON arrays and DOT
# subgraphs (no stack overflow), a 1 GB sparse file (refused from its first
# MiB, without reading it), a 1 GB file that only JSON can tell (refused
# under a memory limit, not killed), a DOT file too large for the memory
# left, a 10 MB op name.
#
#   UPDATE=1 sh tests/suite_bad_inputs.sh   rewrites the stderr lines of
#       every .expect from the current binary (review the diff!)
set -u
. tests/lib/suite.sh
suite_start bad bad_inputs
UPDATE=${UPDATE:-0}

# input_of NAME: the input file or folder of a case
input_of() {
	for f in tests/bad/"$1".* tests/bad/"$1"; do
		case $f in *.expect) continue ;; esac
		[ -e "$f" ] && {
			echo "$f"
			return
		}
	done
}

ncases=0
for exp in tests/bad/*.expect; do
	name=${exp##*/}
	name=${name%.expect}
	IN=$(input_of "$name")
	if [ -z "$IN" ]; then
		echo "not ok - bad/$name: no input next to $exp"
		continue
	fi
	ncases=$((ncases + 1))
	args=$(sed -n 's/^args: //p' "$exp")
	if [ -z "$args" ]; then
		case $name in
		place_* | placement_*)
			args='eval tests/bad/placement_graph.json $IN -k 2' ;;
		*) args='info $IN' ;;
		esac
	fi
	want_rc=$(sed -n 's/^exit: //p' "$exp")
	grep -v -e '^#' -e '^args: ' -e '^exit: ' "$exp" >"$TMP/want"
	eval "set -- $args"
	# a case that hangs is a failure, not a stuck suite
	timeout 60 "$DNNPART" "$@" >"$TMP/out" 2>"$TMP/err" </dev/null
	rc=$?
	if [ "$UPDATE" = 1 ]; then
		{
			grep -e '^#' -e '^args: ' "$exp"
			echo "exit: $rc"
			cat "$TMP/err"
		} >"$TMP/new"
		cp "$TMP/new" "$exp"
		echo "ok - bad/$name (updated)"
		continue
	fi
	if [ "$rc" != "${want_rc:-2}" ]; then
		echo "not ok - bad/$name: exit status $rc, want ${want_rc:-2}: $(head -c 300 "$TMP/err")"
	elif ! cmp -s "$TMP/err" "$TMP/want"; then
		echo "not ok - bad/$name: stderr differs from $exp"
		diff "$TMP/want" "$TMP/err" | head -n 6 | sed 's/^/    /'
	elif [ "$rc" = 2 ] && [ -s "$TMP/out" ]; then
		echo "not ok - bad/$name: printed to stdout before failing"
	else
		echo "ok - bad/$name"
	fi
done
if [ "$ncases" -lt 40 ]; then
	echo "not ok - bad_corpus_size: only $ncases cases in tests/bad (want >= 40)"
else
	echo "ok - bad_corpus_size: $ncases cases"
fi
[ "$UPDATE" = 1 ] && exit 0

# under_memory KB NAME WANT_RC PATTERN ARGS...: gen_case with at most KB
# of virtual memory (nothing when the limit cannot be set)
under_memory() {
	kb=$1
	shift
	(
		ulimit -v "$kb" 2>/dev/null || exit 0
		gen_case "$@"
	)
}

# too_large KB NAME PATTERN: `info $g` under at most KB of memory exits 2
# with stderr matching PATTERN; then $g goes
too_large() {
	under_memory "$1" "$2" 2 "$3" info "$g"
	rm -rf "$g"
}

# gen_case NAME WANT_RC PATTERN ARGS...: runs dnnpart on a generated input;
# the exit status must be WANT_RC and stderr must match PATTERN (grep -E)
gen_case() {
	name=$1
	want=$2
	pat=$3
	shift 3
	suite_run 120 "$@"
	suite_check "bad/$name" "$want" "$pat" "$TMP/err"
}

# repeat N TEXT: TEXT N times, without a newline
repeat() { awk -v n="$1" -v s="$2" 'BEGIN { for (i = 0; i < n; i++) printf "%s", s }'; }

g=$TMP/deep_top.json
{ repeat 100000 '['; repeat 100000 ']'; } >"$g"
gen_case json_100k_nested_arrays 2 \
	"$g: JSON with an array at the top level: expected an object" info "$g"

g=$TMP/deep_op.json
{ printf '{"ops":[{"name":"a","x":'; repeat 100000 '['; repeat 100000 ']'; printf '}]}'; } >"$g"
gen_case json_100k_nested_in_an_op 2 \
	"$g:1:536: nesting deeper than 512 levels" info "$g"

g=$TMP/deep_fiddle.json
{ printf '{"maxFPGAs":2,"nodes":'; repeat 100000 '['; repeat 100000 ']'; printf '}'; } >"$g"
gen_case fiddle_100k_nested_arrays 2 \
	"$g:1:1022: nesting deeper than 1000 levels" info "$g"

g=$TMP/deep_placement.json
{ printf '{"format":"dnnpart-placement","placement":'; repeat 100000 '{"a":'; printf '0'; repeat 100000 '}'; printf '}'; } >"$g"
gen_case placement_100k_nested_objects 2 "$g:1:" eval \
	tests/bad/placement_graph.json "$g"

g=$TMP/deep.dot
{ printf 'digraph g {'; repeat 100000 'subgraph {'; repeat 100000 '}'; printf '}\n'; } >"$g"
gen_case dot_100k_nested_subgraphs 2 \
	"$g: the graph has no nodes \(expected at least one op\)" info "$g"

g=$TMP/sparse_1g.bin
if truncate -s 1G "$g" 2>/dev/null; then
	gen_case sparse_1gb_file_refused_from_its_start 2 \
		"$g: cannot tell the format of this file" info "$g"
	# even when told it is JSON, it fails as JSON does (at the first
	# NUL byte) or, with too little memory, says so: never a kill
	gen_case sparse_1gb_file_forced_json 2 "$g:1:1: |out of memory" \
		info "$g" --format json
	rm -f "$g"
fi

# a file only JSON detection can tell, 1 GB long, under a memory limit that
# cannot hold it: a clear message, not an OOM kill. ASan reserves terabytes
# of address space, so a build with it cannot run under ulimit -v.
g=$TMP/huge.json
if ! "$DNNPART" --version 2>/dev/null | grep -q asan &&
	! suite_asan &&
	printf '{"ops":[' >"$g" && truncate -s 1G "$g" 2>/dev/null; then
	too_large 400000 json_1gb_under_400mb_of_memory \
		"$g: out of memory: cannot hold the file \(1.00 GiB\)"
fi

# a DOT file too large for the memory left: cgraph crashed (NULL
# dereference) when an allocation failed inside its parser; now the loader
# refuses it up front. 600,000 edges in 8 MB need about 300 MB.
g=$TMP/many_edges.dot
if ! suite_asan; then
	awk 'BEGIN { print "digraph {"; for (i = 1; i < 600000; i++)
		printf "%d->%d\n", int(i / 2), i; print "}" }' >"$g"
	too_large 200000 dot_too_large_for_the_memory_left \
		"$g: out of memory: the DOT file is 8.27 MiB and Graphviz needs about 301 MiB to read it, more than the .* left"
fi

# msr-fiddle JSON too large for the memory left: cJSON's failure read as
# "JSON syntax error"; now it is named as a memory error, with the file
g=$TMP/big_fiddle.json
if ! suite_asan; then
	awk 'BEGIN { printf "{\"maxSizePerFPGA\": 1e9, \"maxFPGAs\": 4, \"nodes\": [";
		for (i = 0; i < 200000; i++)
			printf "%s{\"id\": %d, \"fpgaLatency\": 0.5, \"size\": 1000.0}",
				i ? ", " : "", i;
		printf "], \"edges\": []}\n" }' >"$g"
	too_large 100000 fiddle_too_large_for_the_memory_left \
		"^dnnpart: $g: out of memory"
fi

# a ParDNN folder too large for the memory left: the message names it
g=$TMP/big_pardnn
if ! suite_asan && mkdir "$g"; then
	awk 'BEGIN { print "digraph{"; print "\"src\"->\"n1\"";
		for (i = 2; i <= 600000; i++) printf "\"n%d\"->\"n%d\"\n", int(i / 2), i;
		print "}" }' >"$g/g_src_sink.dot"
	awk 'BEGIN { for (i = 1; i <= 600000; i++) printf "n%d::%d\n", i, i % 50 }' \
		>"$g/nodes_average_durations_fixed.txt"
	awk 'BEGIN { for (i = 1; i <= 600000; i++) printf "\"n%d\":: 1000\n", i }' \
		>"$g/tensors_sz_32_low.txt"
	too_large 40000 pardnn_too_large_for_the_memory_left \
		"^dnnpart: $g(/[a-z_0-9]+\.(dot|txt))?(:[0-9]+)*: out of memory"
fi

# a 10 MB op name is a name like any other, and a message quoting it stays
# one line of bounded length
g=$TMP/long_name.json
{ printf '{"ops":[{"name":"'; repeat 10000000 'n'; printf '"},{"name":"b"}],"edges":[{"from":"b","to":"zz"}]}'; } >"$g"
gen_case json_10mb_op_name 2 "$g:1:[0-9]+: edges\[0\]\.to: unknown op 'zz'" info "$g"
exit 0

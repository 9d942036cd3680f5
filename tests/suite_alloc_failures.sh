#!/bin/sh
# suite_alloc_failures.sh - out of memory at any moment is a clear error,
# never a crash: each command below runs again and again with every
# allocation from the Nth on failing (tests/lib/failmalloc.c, preloaded),
# for N from 1 to the number of allocations the command makes (or a stride
# through them for the busy ones). Each run must exit 0 (what failed was
# not needed) or 2 with a message about memory (or about output it could
# not write), never crash, hang or leave a temporary file.
#
# Not covered: Graphviz's cgraph dereferences NULL when its own allocations
# fail, so DOT input and DOT/SVG export are left out (the DOT loader
# refuses up front a file too large for the memory left), and METIS prints
# to stdout and returns a generic error; see docs/reliability.md. Skipped under AddressSanitizer, whose allocator the
# shim cannot replace, and where cc or glibc's __libc_malloc is missing.
set -u
. tests/lib/suite.sh
suite_start alloc alloc_failures
MAXRUNS=${ALLOC_MAXRUNS:-120} # runs per command at most
if suite_asan; then
	echo "skip - alloc_failures: an AddressSanitizer build keeps its own allocator"
	exit 0
fi
SHIM=$TMP/failmalloc.so
if ! ${CC:-cc} -shared -fPIC -O1 -o "$SHIM" tests/lib/failmalloc.c 2>"$TMP/cc.err" ||
	! LD_PRELOAD=$SHIM FAIL_COUNT=1 "$DNNPART" --version 2>&1 | grep -q '^allocs '; then
	echo "skip - alloc_failures: the shim does not build or load here: $(head -c 200 "$TMP/cc.err")"
	exit 0
fi

OUT=$TMP/out
mkdir -p "$OUT"
"$DNNPART" plan tests/cli/data/diamond.json -o "$TMP/d.json" >/dev/null 2>&1

# sweep NAME ARGS...: the runs described above
sweep() {
	name=$1
	shift
	total=$(LD_PRELOAD=$SHIM FAIL_COUNT=1 "$DNNPART" "$@" 2>&1 >/dev/null </dev/null |
		sed -n 's/^allocs //p' | tail -n 1)
	if [ -z "$total" ]; then
		echo "not ok - alloc/$name: the command does not run under the shim"
		return
	fi
	rm -f "$OUT"/* # every run writes a new file (no --force needed)
	step=$(((total + MAXRUNS - 1) / MAXRUNS))
	n=1
	while [ "$n" -le "$total" ]; do
		FAIL_AT=$n LD_PRELOAD=$SHIM timeout 60 "$DNNPART" "$@" \
			>/dev/null 2>"$TMP/err" </dev/null
		rc=$?
		why=
		if [ "$rc" -ne 0 ] && [ "$rc" -ne 2 ]; then
			why="exit status $rc"
		elif [ "$rc" -eq 2 ] &&
			! grep -Eq 'out of memory|Cannot allocate memory|cannot write' "$TMP/err"; then
			why="unclear message"
		elif [ -n "$(ls -A "$OUT" | grep '\.tmp')" ]; then
			why="left a temporary file"
		fi
		if [ -n "$why" ]; then
			echo "not ok - alloc/$name: $why when allocation $n of $total fails (replay: FAIL_AT=$n LD_PRELOAD=failmalloc.so): $(head -c 200 "$TMP/err")"
			return
		fi
		rm -f "$OUT"/*
		n=$((n + step))
	done
	echo "ok - alloc/$name: $(((total + step - 1) / step)) runs over $total allocations"
}

sweep info_json info tests/cli/data/diamond.json
sweep info_pardnn info tests/data/real/pardnn_tiny
sweep info_fiddle info tests/data/real/fiddle_host.json
sweep info_pipedream info tests/data/real/pipedream_unknown_edge.txt
sweep plan_o plan tests/cli/data/diamond.json -k 2 -o "$OUT/p.json"
sweep plan_place plan tests/cli/data/diamond.json -k 2 --algo heft -o "$OUT/p.place"
sweep eval eval tests/cli/data/diamond.json "$TMP/d.json" --json
# METIS aside: on an allocation failure it prints to stdout and returns
# its generic METIS_ERROR (docs/reliability.md)
sweep compare compare tests/cli/data/diamond.json -k 3 \
	--algos pardnn,single,mtopo,metf,heft,contig,mincut
sweep export_csv_maps export tests/cli/data/diamond.json "$TMP/d.json" \
	--csv "$OUT/e.csv" --device-map "$OUT/e.devmap.json"
sweep gen gen --ops 60 -o "$OUT/g.json"
sweep show show tests/cli/data/diamond.json --view timeline
# the strategies: a 3D pipeline with tensor-parallel stages, pase's
# search, and the pipeline exports of a 1f1b plan
sweep hybrid_tp plan tests/cli/data/mlp4.json -k 4 --algo hybrid --tp 2 \
	-o "$OUT/h.json"
sweep pase plan tests/cli/data/mlp4.json -k 4 --algo pase
"$DNNPART" plan tests/cli/data/mlp4.json -k 4 --algo 1f1b -o "$TMP/p.json" \
	>/dev/null 2>&1
sweep export_pipe export tests/cli/data/mlp4.json "$TMP/p.json" -k 4 \
	--pippy "$OUT/a.pippy.py" --megatron "$OUT/a.megatron.sh"
# a dense sweep: a strategy file that cannot be recognised for want of
# memory was called a placement by --schedule
MAXRUNS=400 # a stride of 3: the window it failed in was 4 wide
sweep eval_schedule eval tests/cli/data/mlp4.json "$TMP/p.json" -k 4 \
	--schedule gpipe
MAXRUNS=${ALLOC_MAXRUNS:-120}
sweep bad_input info tests/bad/json_cycle.json
exit 0

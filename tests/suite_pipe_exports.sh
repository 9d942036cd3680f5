#!/bin/sh
# suite_pipe_exports.sh - the framework exports of a pipeline plan are
# files their readers take: the PiPPy split is Python that parses (and,
# where PyTorch is installed, imports its names from
# torch.distributed.pipelining, with N_STAGES split points + 1), the
# Megatron file is bash whose array holds the arguments, for every pipeline
# planner on gpt2-small and the 4-block chain. The content itself is pinned
# by the goldens in tests/cli (export_*pipe4, export_megatron_layout).
# Environment: DNNPART (the binary).
set -u
. tests/lib/suite.sh
suite_start pipe_exports pipe_exports_setup
suite_need python3 pipe_exports "(the PiPPy file is Python)"
suite_need bash pipe_exports "(the Megatron file is a bash array)"

# check NAME GRAPH K ALGO: plan, export both, check both
check() {
	d=$TMP/$1
	mkdir -p "$d"
	if ! "$DNNPART" plan "$2" -k "$3" --algo "$4" -o "$d/s.json" \
		>/dev/null 2>"$d/err" ||
		! "$DNNPART" export "$2" "$d/s.json" -k "$3" \
			--megatron "$d/m.megatron.sh" >/dev/null 2>>"$d/err"; then
		echo "not ok - pipe_exports_$1: $(head -c 300 "$d/err")"
		return
	fi
	# the Megatron file: bash reads it, the array names pp and the layers
	if bash -c '. "$1" && [ "${#MEGATRON_PARALLEL_ARGS[@]}" -ge 10 ] &&
		[ "${MEGATRON_PARALLEL_ARGS[0]}" = --pipeline-model-parallel-size ] &&
		printf "%s\n" "${MEGATRON_PARALLEL_ARGS[@]}" | grep -qx -- --num-layers' \
		sh "$d/m.megatron.sh"; then
		echo "ok - pipe_exports_megatron_$1"
	else
		echo "not ok - pipe_exports_megatron_$1: bash does not read the array"
	fi
	# PiPPy: only where every stage begins a module (else exit 2, the
	# goldens' case)
	if ! "$DNNPART" export "$2" "$d/s.json" -k "$3" \
		--pippy "$d/p.pippy.py" >/dev/null 2>>"$d/err"; then
		grep -q 'begins no module' "$d/err" &&
			echo "ok - pipe_exports_pippy_$1 (refused: a stage begins no module)" ||
			echo "not ok - pipe_exports_pippy_$1: $(tail -c 300 "$d/err")"
		return
	fi
	if python3 - "$d/p.pippy.py" <<'EOF'; then
import ast, sys
src = open(sys.argv[1]).read()
tree = ast.parse(src)
names = {t.id for n in ast.walk(tree) if isinstance(n, ast.Assign)
         for t in n.targets if isinstance(t, ast.Name)}
assert {"N_STAGES", "N_MICROBATCHES", "SPLIT_SPEC"} <= names, names
ns = {}
# the constants evaluate without torch: SplitPoint stands in
exec(compile("class SplitPoint:\n    BEGINNING = 'b'\n" + "\n".join(
    l for l in src.split("\n") if not l.startswith(("import", "from"))),
    sys.argv[1], "exec"), ns)
assert len(ns["SPLIT_SPEC"]) == ns["N_STAGES"] - 1, ns["SPLIT_SPEC"]
try:
    import torch.distributed.pipelining as tp
except ImportError:
    sys.exit(0)
for n in ("SplitPoint", "pipeline", "ScheduleGPipe", "Schedule1F1B"):
    assert hasattr(tp, n), n
EOF
		echo "ok - pipe_exports_pippy_$1"
	else
		echo "not ok - pipe_exports_pippy_$1: the file is not the Python it should be"
	fi
}

check chain_gpipe tests/cli/data/pipe4.json 4 gpipe
check chain_1f1b tests/cli/data/pipe4.json 3 1f1b
for a in gpipe 1f1b pipedream hybrid; do
	check "gpt2_$a" sample_graphs/gpt2-small.json 4 "$a"
done

#!/bin/sh
# suite_docs_examples.sh - the command examples in README.md and docs/cli.md
# are real runs: tools/docs_examples.py runs each `$ ...` line of every block
# marked `<!-- example -->` with the binary under test and compares what it
# prints with the document (the planning time masked). A stale example
# fails here; `python3 tools/docs_examples.py --write FILE` renews it.
# Environment: DNNPART (the binary).
set -u
: "${DNNPART:=$PWD/dnnpart}"
export DNNPART
. tests/lib/suite.sh
suite_need python3 docs_examples
suite_marks docs_examples_marked 7 '^<!-- example -->' README.md docs/cli.md docs/export.md
python3 tools/docs_examples.py --check README.md docs/cli.md docs/export.md

# the table of best against ilp's optimum in docs/benchmarks.md is written
# from bench/results/ilp_yardstick.tsv by bench/ilp_yardstick.py: rewriting
# a copy changes nothing
suite_start docs_tables docs_bench_ilp_table
cp docs/benchmarks.md "$TMP/b.md"
if ! python3 bench/ilp_yardstick.py --table bench/results/ilp_yardstick.tsv \
	--write "$TMP/b.md" 2>"$TMP/err"; then
	echo "not ok - docs_bench_ilp_table: $(head -c 300 "$TMP/err")"
elif ! cmp -s docs/benchmarks.md "$TMP/b.md"; then
	echo "not ok - docs_bench_ilp_table: docs/benchmarks.md differs from" \
		"bench/results/ilp_yardstick.tsv (rerun ilp_yardstick.py --table)"
else
	echo "ok - docs_bench_ilp_table"
fi

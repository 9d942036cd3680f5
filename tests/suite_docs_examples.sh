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
if ! command -v python3 >/dev/null 2>&1; then
	echo "skip - docs_examples: python3 is not installed"
	exit 0
fi
n=$(grep -c '^<!-- example -->' README.md docs/cli.md | awk -F: '{s += $2} END {print s}')
if [ "$n" -lt 6 ]; then
	echo "not ok - docs_examples_marked: $n example blocks in README.md and docs/cli.md, want 6 or more"
else
	echo "ok - docs_examples_marked"
fi
python3 tools/docs_examples.py --check README.md docs/cli.md

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

#!/bin/sh
# suite_docs_captures.sh - the explorer's screen captures in README.md and
# docs/tui.md are real: tools/tui_captures.py runs the real explorer in tmux
# for each (its size, command and keys are on the line above the block) and
# compares the screen with the document, the planning time masked. A stale
# capture fails here; `python3 tools/tui_captures.py --write README.md
# docs/tui.md` renews them. Environment: DNNPART (the binary).
set -u
: "${DNNPART:=$PWD/dnnpart}"
export DNNPART
. tests/lib/suite.sh
suite_need python3 docs_captures
suite_need tmux docs_captures "(make deps installs it)"
suite_marks docs_captures_marked 4 '^<!-- capture ' README.md docs/tui.md
python3 tools/tui_captures.py --check README.md docs/tui.md

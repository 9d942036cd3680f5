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
if ! command -v python3 >/dev/null 2>&1; then
	echo "skip - docs_captures: python3 is not installed"
	exit 0
fi
if ! command -v tmux >/dev/null 2>&1; then
	echo "skip - docs_captures: tmux is not installed (make deps installs it)"
	exit 0
fi
n=$(grep -c '^<!-- capture ' README.md docs/tui.md | awk -F: '{s += $2} END {print s}')
if [ "$n" -lt 4 ]; then
	echo "not ok - docs_captures_marked: $n capture blocks in README.md and docs/tui.md, want 4 or more"
else
	echo "ok - docs_captures_marked"
fi
python3 tools/tui_captures.py --check README.md docs/tui.md

# --schedule: gpipe's stages in the 1F1B order (the label says it), the
# bubble in plan's report and --json (per device and the whole plan's);
# eval re-prices a pipeline strategy in the other schedule, and refuses
# --schedule for a placement; a non-pipeline algorithm gets a note
D="$TMP/plan_schedule"
mkdir -p "$D"
set -e
$DNNPART plan tests/cli/data/pipe4.json -k 4 --algo gpipe -M 8 \
	--schedule 1f1b -o "$D/s.json" | grep -E '^(lowered|algorithm|bubble)'
$DNNPART plan tests/cli/data/pipe4.json -k 4 --algo gpipe -M 8 --json |
	grep -E '"(strategy|bubble)"'
$DNNPART eval tests/cli/data/pipe4.json "$D/s.json" --schedule gpipe |
	grep -E '^(lowered|bubble)'
$DNNPART plan tests/cli/data/pipe4.json -k 2 --algo heft --schedule gpipe \
	-o "$D/h.json" | grep -E '^algorithm'
$DNNPART eval tests/cli/data/pipe4.json "$D/h.json" --schedule gpipe ||
	echo "eval placement --schedule: $?"
# compare: every pipeline planner in the schedule asked for
$DNNPART compare tests/cli/data/pipe4.json -k 4 -M 8 --algos gpipe,1f1b \
	--schedule gpipe | grep -E 'S=4 M=8$' |
	sed -E 's/^[* ] ([a-z0-9]+) .* ([a-z0-9]+ S=4 M=8)$/\1: \2/'
# hybrid keeps its name: its label ends in " gpipe" for the GPipe order
$DNNPART plan tests/cli/data/pipe4.json -k 4 --algo hybrid -M 8 \
	--schedule gpipe -o "$D/y.json" | grep -E '^lowered'
$DNNPART eval tests/cli/data/pipe4.json "$D/y.json" --schedule 1f1b |
	grep -E '^lowered'

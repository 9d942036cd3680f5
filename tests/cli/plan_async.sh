# asynchronous schedules (stash, 2bw): the steady step beside the makespan
# in plan's report and --json, compare's label, eval re-pricing a saved
# 1f1b strategy as stash, and compare --objective throughput ranking
# an asynchronous pipeline by its steady step
D="$TMP/plan_async"
mkdir -p "$D"
set -e
$DNNPART plan tests/cli/data/pipe4.json -k 4 --algo 1f1b -M 8 \
	--schedule 2bw | grep -E '^(lowered|makespan|steady|bubble)'
$DNNPART plan tests/cli/data/pipe4.json -k 4 --algo 1f1b -M 8 \
	--schedule stash --json | grep -E '"(strategy|makespan_us|steady_step_us)"'
$DNNPART plan tests/cli/data/pipe4.json -k 4 --algo 1f1b -M 8 \
	-o "$D/s.json" | grep -E '^(lowered|steady)' || true
$DNNPART eval tests/cli/data/pipe4.json "$D/s.json" --schedule stash |
	grep -E '^(lowered|makespan|steady)'
$DNNPART compare tests/cli/data/pipe4.json -k 4 -M 8 --algos 1f1b,gpipe \
	--schedule 2bw --objective throughput | grep -E 'steady step|^best'

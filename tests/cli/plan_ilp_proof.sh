# ilp says what it proved: the report's optimality line, "optimal" and
# "gap" in plan --json and in its compare --json entry, and nowhere else
# (other algorithms' JSON keeps its keys).
set -e
$DNNPART plan tests/cli/data/diamond.json -k 2 --algo ilp | grep '^optimality'
$DNNPART plan tests/cli/data/diamond.json -k 2 --algo ilp --time-limit 30 --json |
	grep -E '"(optimal|gap|milp_objective_us|milp_bound_us|makespan_us)"'
$DNNPART compare tests/cli/data/diamond.json -k 2 --algos heft,ilp --json |
	grep -cE '"(optimal|gap)"'
# (dp and zero do not apply to the diamond: their reasons go to stderr)
$DNNPART compare tests/cli/data/diamond.json -k 2 --json 2>/dev/null | grep -c '"optimal"' || true
$DNNPART plan tests/cli/data/diamond.json -k 2 --algo ilp --time-limit 0 2>&1 || echo "exit $?"

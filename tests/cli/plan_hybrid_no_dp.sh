# blocks6 has no dims and no roles: dp does not apply (no batch to split),
# so hybrid and pipedream make no data-parallel stages either (D = 1; hybrid
# used to split every op 4 ways and report a 4x speedup), and plan says why.
for a in dp hybrid pipedream; do
	$DNNPART plan tests/cli/data/blocks6.json -k 4 --algo $a |
		grep -E '^(lowered|speedup)'
done

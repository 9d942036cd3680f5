# blocks6 has no dims and no roles: dp does not apply (no batch to split),
# and no pipeline can split it into micro-batches either: gpipe, 1f1b,
# hybrid and pipedream refuse, naming the first op whose batch is unknown
# (1f1b S=2 M=8 used to claim 1.65x where dp claims nothing; hybrid once
# split every op 4 ways and reported a 4x speedup). With -M 1 nothing is
# split: hybrid and pipedream make stages without data parallelism (D = 1)
# and say why.
for a in dp gpipe 1f1b hybrid pipedream; do
	$DNNPART plan tests/cli/data/blocks6.json -k 4 --algo $a >/dev/null
	echo "$a: exit $?"
done
for a in hybrid pipedream; do
	$DNNPART plan tests/cli/data/blocks6.json -k 4 --algo $a -M 1 |
		grep -E '^(lowered|speedup)'
done

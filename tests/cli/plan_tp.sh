# --tp: an algorithm that takes no tensor-parallel size gets a note;
# hybrid searches the T given alone and refuses one that does not divide
# K, or that a graph without an `f` or `heads` dim cannot take (exit 2)
$DNNPART plan tests/cli/data/pipe4.json -k 4 --algo heft --tp 2 |
	grep -E '^algorithm'
$DNNPART plan tests/cli/data/pipe4.json -k 4 --algo hybrid --tp 3 ||
	echo "hybrid --tp 3 -k 4: $?"
$DNNPART plan tests/cli/data/pipe4.json -k 4 --algo hybrid --tp 2 ||
	echo "hybrid --tp 2 without f: $?"

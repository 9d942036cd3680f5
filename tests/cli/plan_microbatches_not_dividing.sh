# -M that does not divide the batch (256): hybrid and pipedream say so and
# list the M that do (exit 2); pipedream used to fail with an empty message
# and then print a plan it never made (a crash).
for a in hybrid pipedream; do
	$DNNPART plan tests/data/json_dims.json -k 2 --algo $a -M 3 ||
		echo "$a -M 3: $?"
done

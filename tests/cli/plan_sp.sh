# --sp (Megatron-LM's sequence parallelism) needs --tp T > 1: without it,
# or with --tp 1, exit 2 naming the option; with it megatron's label says
# sp, its strategy file records sequence_parallel and loads back; eval,
# which takes a plan as saved, refuses --sp
$DNNPART plan tests/data/gpt2_tiny.json -k 2 --algo megatron --sp ||
	echo "--sp without --tp: $?"
$DNNPART plan tests/data/gpt2_tiny.json -k 2 --algo megatron --tp 1 --sp ||
	echo "--sp --tp 1: $?"
$DNNPART plan tests/data/gpt2_tiny.json -k 2 --algo megatron --tp 2 --sp \
	-o "$TMP/s.json" | grep -E '^(lowered|algorithm)'
grep -E '"(label|sequence_parallel)"' "$TMP/s.json"
$DNNPART eval tests/data/gpt2_tiny.json "$TMP/s.json" | grep -E '^lowered'
$DNNPART eval tests/data/gpt2_tiny.json "$TMP/s.json" --sp ||
	echo "eval --sp: $?"
# hybrid takes it inside its stages; the Megatron-LM export says so
$DNNPART plan tests/data/gpt2_tiny.json -k 4 --algo hybrid --tp 2 --sp \
	-o "$TMP/h.json" | grep -E '^lowered'
$DNNPART export tests/data/gpt2_tiny.json "$TMP/h.json" \
	--megatron "$TMP/h.megatron.sh" >/dev/null &&
	grep -E 'model-parallel-size|sequence' "$TMP/h.megatron.sh"

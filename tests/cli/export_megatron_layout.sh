# gpt2-small's 12 blocks in a gpipe plan of 6 stages whose middle stages
# differ (3, 3, 2, 3, 1 and the head alone): more than Megatron's
# --decoder-first/last-pipeline-num-layers can say, so the file gives
# Megatron-Core's --pipeline-model-parallel-layout; the batch of 8 in 8
# micro-batches is a micro-batch size of 1. PiPPy cannot split there: the
# last stage starts inside the head and no module begins in it (exit 2).
D="$TMP/export_megatron_layout"
mkdir -p "$D"
$DNNPART plan sample_graphs/gpt2-small.json -k 6 --algo gpipe \
	-o "$D/s.json" >/dev/null || exit 9
$DNNPART export sample_graphs/gpt2-small.json "$D/s.json" -k 6 \
	--megatron "$D/m.megatron.sh" || exit 9
cat "$D/m.megatron.sh"
$DNNPART export sample_graphs/gpt2-small.json "$D/s.json" -k 6 \
	--pippy "$D/p.pippy.py"

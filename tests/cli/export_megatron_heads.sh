# gpt2-small has 12 heads. hybrid's own search takes only a T that divides
# them (Megatron-LM's rule), so its plan exports; --tp 8 splits them
# unevenly, as megatron does: plan notes that Megatron-LM refuses it, and
# export --megatron does (exit 2, no file).
D="$TMP/export_megatron_heads"
mkdir -p "$D"
$DNNPART plan sample_graphs/gpt2-small.json -k 8 --mem 1GiB --algo hybrid \
	-o "$D/a.json" | grep '^lowered'
$DNNPART export sample_graphs/gpt2-small.json "$D/a.json" \
	--megatron "$D/a.megatron.sh" || exit 9
$DNNPART plan sample_graphs/gpt2-small.json -k 8 --mem 1GiB --algo hybrid \
	--tp 8 -o "$D/t8.json" | grep '^lowered'
$DNNPART export sample_graphs/gpt2-small.json "$D/t8.json" \
	--megatron "$D/t8.megatron.sh"
echo "tp 8: $?"
ls "$D"

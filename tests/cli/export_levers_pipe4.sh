# the levers reach the frameworks: a 1f1b plan of the 4-block chain with
# bf16 and full recomputation. Megatron-LM's arguments add --bf16 and
# --recompute-granularity full --recompute-method uniform
# --recompute-num-layers 1 (one layer per checkpoint, every layer); the
# DeepSpeed config has 6 micro-batches of one sample (the graph states no
# batch size) as gradient accumulation, ZeRO stage 0 (a pipeline's stages
# hold their own weights), bf16 and activation checkpointing of the 4
# layers, and the note says what the model's code does
D="$TMP/export_levers_pipe4"
mkdir -p "$D"
set -e
L="--precision bf16 --recompute full"
$DNNPART plan tests/cli/data/pipe4.json -k 3 --algo 1f1b -M 6 $L \
	-o "$D/s.json" >/dev/null
$DNNPART export tests/cli/data/pipe4.json "$D/s.json" $L \
	--megatron "$D/m.megatron.sh" -o "$D/d.deepspeed.json" 2>&1
cat "$D/m.megatron.sh" "$D/d.deepspeed.json"

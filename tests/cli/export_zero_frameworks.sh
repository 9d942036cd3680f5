# a ZeRO stage 1 plan of the tiny transformer with bf16, full
# recomputation and fused attention: Megatron-LM's arguments (data parallel
# 2, --bf16, --recompute-granularity full, --use-flash-attn,
# --use-distributed-optimizer), a DeepSpeed config (zero_optimization.stage
# 1, bf16, activation_checkpointing) and PyTorch wrapping (DDP with
# ZeroRedundancyOptimizer, checkpoint_wrapper on the layers); stage 3 is
# refused for Megatron-LM (no ZeRO-3 there: exit 2, nothing written) and
# written for DeepSpeed and PyTorch (FSDP FULL_SHARD, bf16)
D="$TMP/export_zero_frameworks"
mkdir -p "$D"
set -e
G=tests/data/levers_tiny.json
L="--precision bf16 --recompute full --fuse attention"
$DNNPART plan $G -k 2 --algo zero --zero-stage 1 $L -o "$D/z1.json" \
	>/dev/null 2>&1
$DNNPART export $G "$D/z1.json" $L --megatron "$D/z1.megatron.sh" \
	--deepspeed "$D/z1.deepspeed.json" --torch "$D/z1.torch.py" 2>&1
cat "$D/z1.megatron.sh" "$D/z1.deepspeed.json" "$D/z1.torch.py"
$DNNPART plan $G -k 2 --algo zero --zero-stage 3 $L -o "$D/z3.json" \
	>/dev/null 2>&1
rc=0
$DNNPART export $G "$D/z3.json" $L --megatron "$D/z3.megatron.sh" \
	2>&1 || rc=$?
echo "exit $rc"
test ! -e "$D/z3.megatron.sh" && echo "no z3.megatron.sh"
$DNNPART export $G "$D/z3.json" $L --deepspeed "$D/z3.deepspeed.json" \
	--torch "$D/z3.torch.py" 2>&1
grep -A1 zero_optimization "$D/z3.deepspeed.json"
sed -n '/^def wrap/,$p' "$D/z3.torch.py"

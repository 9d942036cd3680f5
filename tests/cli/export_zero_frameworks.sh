# a ZeRO stage 1 plan of the tiny transformer with bf16 and fused
# attention: Megatron-LM's arguments (data parallel 2, --bf16,
# --use-flash-attn, --use-distributed-optimizer) and a DeepSpeed config
# (zero_optimization.stage 1, bf16); stage 3 is refused for Megatron-LM
# (no ZeRO-3 there: exit 2, nothing written) and written for DeepSpeed
D="$TMP/export_zero_frameworks"
mkdir -p "$D"
set -e
G=tests/data/levers_tiny.json
L="--precision bf16 --fuse attention"
$DNNPART plan $G -k 2 --algo zero --zero-stage 1 $L -o "$D/z1.json" \
	>/dev/null 2>&1
$DNNPART export $G "$D/z1.json" $L --megatron "$D/z1.megatron.sh" \
	--deepspeed "$D/z1.deepspeed.json" 2>&1
cat "$D/z1.megatron.sh" "$D/z1.deepspeed.json"
$DNNPART plan $G -k 2 --algo zero --zero-stage 3 $L -o "$D/z3.json" \
	>/dev/null 2>&1
rc=0
$DNNPART export $G "$D/z3.json" $L --megatron "$D/z3.megatron.sh" \
	2>&1 || rc=$?
echo "exit $rc"
test ! -e "$D/z3.megatron.sh" && echo "no z3.megatron.sh"
$DNNPART export $G "$D/z3.json" $L --deepspeed "$D/z3.deepspeed.json" \
	2>&1
grep -A1 zero_optimization "$D/z3.deepspeed.json"

# --offload in a DeepSpeed config: optimizer under ZeRO stage 2 writes
# zero_optimization.offload_optimizer (device cpu); params under stage 3
# also offload_param; DeepSpeed takes neither outside ZeRO (dp: stage 0)
# nor parameter offload below stage 3: exit 2 each, naming why, nothing
# written
D="$TMP/export_deepspeed_offload"
mkdir -p "$D"
set -e
G=tests/data/levers_tiny.json
for c in "2 optimizer" "3 params"; do
	set -- $c
	$DNNPART plan $G -k 2 --algo zero --zero-stage $1 --offload $2 \
		-o "$D/z$1.json" >/dev/null 2>&1
	$DNNPART export $G "$D/z$1.json" --offload $2 \
		--deepspeed "$D/z$1.deepspeed.json" >/dev/null 2>&1
	sed -n '/zero_optimization/,/^  }/p' "$D/z$1.deepspeed.json"
done
$DNNPART plan $G -k 2 --algo dp --offload optimizer -o "$D/dp.json" \
	>/dev/null 2>&1
$DNNPART plan $G -k 2 --algo zero --zero-stage 2 --offload params \
	-o "$D/z2p.json" >/dev/null 2>&1
for c in "dp optimizer" "z2p params"; do
	set -- $c
	rc=0
	$DNNPART export $G "$D/$1.json" --offload $2 \
		--deepspeed "$D/$1.deepspeed.json" 2>&1 || rc=$?
	echo "exit $rc"
	test ! -e "$D/$1.deepspeed.json" && echo "nothing written"
done

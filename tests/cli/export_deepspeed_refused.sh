# DeepSpeed runs neither tensor parallelism (megatron --tp 2: use
# --megatron) nor a placement, and the PyTorch wrapping takes no pipeline
# (use --pippy): exit 2 each, naming why, nothing written
D="$TMP/export_deepspeed_refused"
mkdir -p "$D"
set -e
$DNNPART plan tests/cli/data/mlp4.json -k 2 --algo megatron --tp 2 \
	-o "$D/tp.json" >/dev/null
$DNNPART plan tests/cli/data/pipe4.json -k 2 --algo mtopo \
	-o "$D/p.json" >/dev/null
for c in "tests/cli/data/mlp4.json $D/tp.json" \
	"tests/cli/data/pipe4.json $D/p.json"; do
	rc=0
	# shellcheck disable=SC2086
	$DNNPART export $c --deepspeed "$D/x.deepspeed.json" 2>&1 || rc=$?
	echo "exit $rc"
done
$DNNPART plan tests/cli/data/pipe4.json -k 2 --algo 1f1b \
	-o "$D/pp.json" >/dev/null
rc=0
$DNNPART export tests/cli/data/pipe4.json "$D/pp.json" \
	--torch "$D/x.torch.py" 2>&1 || rc=$?
echo "exit $rc"
test ! -e "$D/x.deepspeed.json" && test ! -e "$D/x.torch.py" &&
	echo "nothing written"

# the pipeline exports refuse what is no pipeline (a heft placement; a
# megatron spmd strategy for PiPPy, which Megatron-LM's arguments take:
# named by the algorithm that made it) and a graph
# without layer names to split at (a strategy of two stages and one
# micro-batch: its ops have no dims nor roles, so no more), with exit
# status 2 and no file
D="$TMP/export_pipe_refused"
mkdir -p "$D"
$DNNPART plan tests/cli/data/pipe4.json -k 2 --algo heft -o "$D/h.json" \
	>/dev/null || exit 9
$DNNPART export tests/cli/data/pipe4.json "$D/h.json" \
	--megatron "$D/h.megatron.sh"
echo "placement: $?"
$DNNPART plan tests/data/json_dims.json -k 2 --algo megatron -o "$D/s.json" \
	>/dev/null || exit 9
$DNNPART export tests/data/json_dims.json "$D/s.json" \
	--pippy "$D/s.pippy.py"
echo "spmd: $?"
# two stages (gpipe -M 1 searches S and takes one stage here)
cat >"$D/m.json" <<'EOF'
{"format": "dnnpart-strategy", "version": 1, "graph": "json_minimal",
 "kind": "pipeline", "devices": 2, "label": "gpipe S=2 M=1",
 "algorithm": "gpipe", "stages": 2, "microbatches": 1,
 "schedule": "gpipe", "stage": {"x": 0, "y": 1}, "groups": [[0], [1]]}
EOF
$DNNPART export tests/data/json_minimal.json "$D/m.json" \
	--pippy "$D/m.pippy.py"
echo "no layers: $?"
ls "$D"

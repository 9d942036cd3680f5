# a 1f1b plan of the 4-block chain on 3 devices: stages of 2, 1 and 1
# blocks, which Megatron takes as --decoder-first/last-pipeline-num-layers;
# -o picks the kind by the name (.megatron.sh), and again as --schedule
# gpipe (Megatron runs 1F1B: the file says so)
D="$TMP/export_megatron_pipe4"
mkdir -p "$D"
set -e
$DNNPART plan tests/cli/data/pipe4.json -k 3 --algo 1f1b -M 6 \
	-o "$D/s.json" >/dev/null
$DNNPART export tests/cli/data/pipe4.json "$D/s.json" \
	-o "$D/m.megatron.sh"
cat "$D/m.megatron.sh"

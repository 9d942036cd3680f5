# a gpipe plan of the 4-block chain on 4 devices, 8 micro-batches, written
# as a strategy and exported for torch.distributed.pipelining: a split at
# the start of each block h1..h3, ScheduleGPipe, N_MICROBATCHES 8
D="$TMP/export_pippy_pipe4"
mkdir -p "$D"
set -e
$DNNPART plan tests/cli/data/pipe4.json -k 4 --algo gpipe -M 8 \
	-o "$D/s.json" >/dev/null
$DNNPART export tests/cli/data/pipe4.json "$D/s.json" \
	--pippy "$D/p.pippy.py"
cat "$D/p.pippy.py"

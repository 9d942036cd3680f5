# Megatron-LM and torch.distributed.pipelining have no asynchronous
# schedule: --megatron and --pippy of a stash or 2bw plan exit 2 naming
# the schedule and why, and write nothing (a saved 2bw strategy, and a
# saved 1f1b one exported with --schedule stash)
D="$TMP/export_async_refused"
mkdir -p "$D"
$DNNPART plan tests/cli/data/pipe4.json -k 4 --algo 1f1b -M 8 \
	--schedule 2bw -o "$D/s.json" >/dev/null || exit 9
$DNNPART export tests/cli/data/pipe4.json "$D/s.json" \
	--megatron "$D/s.megatron.sh"
echo "export 2bw --megatron: $?"
$DNNPART export tests/cli/data/pipe4.json "$D/s.json" \
	--pippy "$D/s.pippy.py"
echo "export 2bw --pippy: $?"
$DNNPART plan tests/cli/data/pipe4.json -k 4 --algo 1f1b -M 8 \
	-o "$D/f.json" >/dev/null || exit 9
$DNNPART export tests/cli/data/pipe4.json "$D/f.json" --schedule stash \
	--megatron "$D/f.megatron.sh"
echo "export 1f1b --schedule stash --megatron: $?"
ls "$D"

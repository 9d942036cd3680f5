#!/bin/sh
# seeds.sh - builds the seed corpus of each fuzz target under OUT/TARGET/
# from the project's test data (tests/data, with the real msr-fiddle and
# PipeDream inputs and our ParDNN folder), at run time. Run from the
# repository root; needs ./dnnpart (or $DNNPART) for generated graphs, and
# skips what is missing.
#
#   sh fuzz/seeds.sh OUT
set -u
OUT=${1:?usage: sh fuzz/seeds.sh OUT}
DATA=tests/data
: "${DNNPART:=$PWD/dnnpart}"
MAXSEED=262144 # bytes; larger files would only slow each run

mkdir -p "$OUT" || exit 1
for t in json dot fiddle pipedream pardnn placement strategy units detect; do
	rm -rf "${OUT:?}/$t"
	mkdir -p "$OUT/$t"
done

# seed TARGET FILE...: copies each small enough regular file
seed() {
	t=$1
	shift
	for f in "$@"; do
		[ -f "$f" ] || continue
		[ "$(wc -c <"$f")" -le "$MAXSEED" ] || continue
		n=$(printf '%s' "$f" | tr '/ ' '__')
		cp "$f" "$OUT/$t/$n"
	done
}

# the first N lines of FILE as seed NAME of TARGET (large real files)
seed_head() {
	[ -f "$3" ] && head -n "$4" "$3" >"$OUT/$1/$2"
}

seed json tests/data/json_*.json tests/cli/data/*.json
seed dot tests/data/dot_*.dot
seed fiddle tests/data/real/fiddle_*.json
seed fiddle "$DATA"/msr-fiddle/throughput-inputs/*/*.json
seed pipedream tests/data/real/pipedream_*.txt
seed pipedream "$DATA"/pipedream/*/graph.txt
seed placement tests/data/place_*.place tests/data/placement_*.json \
	tests/cli/data/*.place tests/cli/data/*placement*.json
seed_head dot resnet_head.dot "$DATA/pardnn-resnet50/crn_src_sink_low.dot" 200
seed_head placement resnet_head.place \
	"$DATA/pardnn-resnet50/vanilla_cleaned.place" 50

# generated graphs: valid inputs of every size class the loaders see
if [ -x "$DNNPART" ]; then
	for n in 5 40 200; do
		"$DNNPART" gen --ops "$n" --seed "$n" -o "$OUT/json/gen$n.json" \
			>/dev/null 2>&1
	done
fi

# strategies naming the fixed graph's ops and dims (fuzz_strategy.c)
printf '{"format":"dnnpart-strategy","version":1,"kind":"spmd","mesh":[4],"default":{"split":{"b":4}}}\n' \
	>"$OUT/strategy/dp.json"
printf '{"format":"dnnpart-strategy","version":1,"kind":"spmd","mesh":[2,2],"ops":{"fc":{"split":{"b":[0],"n":[1]}},"grad":{"split":{"n":2,"b":2}},"update":{"split":{"k":[1]}},"loss":{"device":3},"tail":{"device":1}}}\n' \
	>"$OUT/strategy/mesh.json"
printf '{"format":"dnnpart-strategy","version":1,"kind":"placement","devices":2,"placement":{"x":0,"w":1,"fc":1,"loss":0,"grad":1,"update":0,"tail":1}}\n' \
	>"$OUT/strategy/placement.json"
printf '{"format":"dnnpart-strategy","version":1,"kind":"pipeline","stages":2,"microbatches":4,"schedule":"1f1b","stage":{"x":0,"fc":1},"groups":[[0],[1]]}\n' \
	>"$OUT/strategy/pipeline.json"

# placements naming the fixed graph's ops (fuzz_placement.c)
printf 'a 0\nb 1\nc 1\nd 0\n"x y" 1\n\303\251 2\n' >"$OUT/placement/fixed.place"
printf '{"format":"dnnpart-placement","version":1,"graph":"fz","devices":3,"algorithm":"x","placement":{"a":0,"b":1,"c":1,"d":2,"x y":0,"\\u00e9":-1},"metrics":{}}\n' \
	>"$OUT/placement/fixed.json"

# ParDNN folders, their files joined by "--8<--" lines in the order of
# fuzz_pardnn.c: edges, durations, sizes, var, ref, no-op, memory,
# colocations, placement
pardnn_seed() { # NAME DIR [LINES]
	lines=${3:-1000000}
	dir=$2
	{
		first=1
		for pat in '*.dot' '*durations*.txt' 'tensors_sz*.txt' \
			var_nodes.txt ref_nodes.txt no_ops.txt memory.txt \
			'*col*ocation*.txt' '*.place'; do
			[ "$first" = 1 ] || printf '\n--8<--\n'
			first=0
			# the preferred file where several match (as the loader)
			f=$(ls "$dir"/$pat 2>/dev/null | grep -E 'src_sink|fixed|_32_low|collocations|vanilla' | head -n 1)
			[ -n "$f" ] || f=$(ls "$dir"/$pat 2>/dev/null | head -n 1)
			[ -n "$f" ] && head -n "$lines" "$f"
		done
	} >"$OUT/pardnn/$1"
}
for d in tests/data/real/pardnn_*; do
	[ -d "$d" ] && pardnn_seed "${d##*/}" "$d"
done
pardnn_seed resnet_head "$DATA/pardnn-resnet50" 150

# units: every spelling the docs promise, and near misses
i=0
for s in 16GiB 16g 512MB 1.5TB 4096 4096B 0 1 1KiB 1kB 1k 130GB/s 5.7GB/s \
	900GiB/s 1e9 25us 25µs 2ms 1.5s 100ns 25 inf none unlimited \
	16GiB,8GiB,inf 1,1,0.5 1e999 -1 4611686018427387904 4EiB 0x10 \
	' 16 GiB ' 16GiBs 1.5.5 1e 1e+ .5g 5.g; do
	i=$((i + 1))
	printf '%s' "$s" >"$OUT/units/u$i"
done

# detection: a few of each format, the pardnn target aside
for t in json dot fiddle pipedream; do
	ls "$OUT/$t" | head -n 6 | while read -r f; do
		cp "$OUT/$t/$f" "$OUT/detect/$t-$f"
	done
done
exit 0

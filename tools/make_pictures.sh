#!/bin/sh
# make_pictures.sh [DNNPART] - the pictures in docs/pictures/: for every
# sample graph, the SVG that `dnnpart plan GRAPH -k 4 --svg F` draws by
# default (pardnn, 4 devices, the graph's caps), rendered at 100 % by
# rsvg-convert into docs/pictures/NAME.png, and tools/svg_check.py's line
# about it (size, labels, overlaps, cluster order) into
# docs/pictures/README.txt. `make pictures` runs it; docs/export.md shows
# them. Needs rsvg-convert (librsvg2-bin) and python3.
set -eu
DNNPART=${1:-./dnnpart}
OUT=docs/pictures
command -v rsvg-convert >/dev/null 2>&1 || {
	echo "make_pictures: rsvg-convert is missing (apt-get install librsvg2-bin)" >&2
	exit 1
}
TMP=$(mktemp -d /tmp/dnnpart-pictures.XXXXXX)
trap 'rm -rf "$TMP"' EXIT INT TERM
mkdir -p "$OUT"
{
	echo "docs/pictures: the default SVG of each sample graph (pardnn, -k 4),"
	echo "rendered at 100 % by rsvg-convert; made by tools/make_pictures.sh."
	echo "tools/svg_check.py on each SVG:"
} >"$TMP/README.txt"
for g in sample_graphs/*.json; do
	n=$(basename "$g" .json)
	"$DNNPART" plan "$g" -k 4 --svg "$TMP/$n.svg" >/dev/null 2>"$TMP/err" || {
		cat "$TMP/err" >&2
		exit 1
	}
	rsvg-convert "$TMP/$n.svg" -o "$TMP/$n.png"
	mv "$TMP/$n.png" "$OUT/$n.png"
	python3 tools/svg_check.py "$TMP/$n.svg" | head -n 1 |
		sed "s|^$TMP/||" >>"$TMP/README.txt"
	echo "wrote $OUT/$n.png"
done
mv "$TMP/README.txt" "$OUT/README.txt"

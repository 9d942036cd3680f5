#!/bin/sh
# suite_svg_render.sh - the picture that `plan --svg` draws by default, for
# every sample graph, is one a person can read: rsvg-convert renders it at
# 100 % (it refuses pictures over 32,767 pixels a side, as gpt2-small's
# 1290x75494 pt strip once was), tools/svg_check.py finds no two labels
# overlapping, the device clusters left to right in device order (GPU 0, 1,
# 2, 3), and the picture at most 4 times as tall as wide. PNG and PDF of
# the same picture are real PNG and PDF files.
set -u
. tests/lib/suite.sh
suite_start svg svg_setup
have_rsvg=1
command -v rsvg-convert >/dev/null 2>&1 || have_rsvg=0
have_py=1
command -v python3 >/dev/null 2>&1 || have_py=0

for g in sample_graphs/*.json; do
	n=$(basename "$g" .json)
	if ! "$DNNPART" plan "$g" -k 4 --svg "$TMP/$n.svg" >/dev/null 2>"$TMP/se"; then
		echo "not ok - svg_$n: plan --svg failed: $(head -c 300 "$TMP/se")"
		continue
	fi
	if [ "$have_rsvg" = 0 ]; then
		echo "skip - svg_renders_$n: rsvg-convert is not installed (apt-get install librsvg2-bin)"
	elif rsvg-convert "$TMP/$n.svg" -o "$TMP/$n.png" 2>"$TMP/re" &&
		[ -s "$TMP/$n.png" ]; then
		echo "ok - svg_renders_$n"
	else
		echo "not ok - svg_renders_$n: $(head -c 300 "$TMP/re")"
	fi
	if [ "$have_py" = 0 ]; then
		echo "skip - svg_readable_$n: no python3 for tools/svg_check.py"
		continue
	fi
	python3 tools/svg_check.py --json "$TMP/$n.svg" >"$TMP/$n.check" 2>&1
	python3 - "$TMP/$n.check" "$n" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))[0]
n = sys.argv[2]
want = ["cluster_dev%d" % d for d in range(len(r["clusters"]))]
for name, ok, why in (
        ("labels_apart", r["overlapping_pairs"] == 0,
         "%d pairs of labels overlap, e.g. %r" % (r["overlapping_pairs"], r["examples"][:2])),
        ("devices_in_order", r["clusters"] == want and len(want) == 4,
         "clusters left to right: %r" % r["clusters"]),
        ("not_a_strip", r["aspect"] <= 4.0,
         "%dx%d pt, %.1f times as tall as wide" % (r["width_pt"], r["height_pt"], r["aspect"]))):
    print(("ok - svg_%s_%s" % (name, n)) if ok else ("not ok - svg_%s_%s: %s" % (name, n, why)))
PY
done

# PNG and PDF: the same picture through Graphviz's cairo renderer
G=sample_graphs/resnet50.json
if "$DNNPART" plan "$G" -k 4 --png "$TMP/r.png" --pdf "$TMP/r.pdf" \
	>/dev/null 2>"$TMP/se"; then
	if head -c 8 "$TMP/r.png" | od -An -c | grep -q 'P   N   G'; then
		echo "ok - png_is_png"
	else
		echo "not ok - png_is_png: $(head -c 8 "$TMP/r.png" | od -An -c)"
	fi
	if head -c 5 "$TMP/r.pdf" | grep -q '^%PDF-'; then
		echo "ok - pdf_is_pdf"
	else
		echo "not ok - pdf_is_pdf: $(head -c 8 "$TMP/r.pdf" | od -An -c)"
	fi
else
	echo "not ok - png_pdf: $(head -c 300 "$TMP/se")"
fi
exit 0

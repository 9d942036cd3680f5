# Issue 3's acceptance: on a generated 100,000-op training graph (which
# needs about 19 GiB on one device, see gen.h's scale rule), pardnn with 4
# devices of 8 GiB prints a feasible plan; --strict would exit 1 otherwise.
set -e
$DNNPART gen --ops 100000 -o "$TMP/g100k.json" | sed -n 's/^model: \([^;]*\);.*/model: \1/p'
$DNNPART plan "$TMP/g100k.json" --algo pardnn -k 4 --mem 8GiB --strict >"$TMP/p.txt"
grep -E '^(size|machine|algorithm|memory) ' "$TMP/p.txt"
$DNNPART plan "$TMP/g100k.json" --algo single -k 1 | grep -E '^speedup'

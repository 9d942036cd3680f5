# gen is deterministic: the same options give the same bytes on every
# machine (the checksum pins them), and the file loads.
set -e
$DNNPART gen --ops 200 --seed 3 -k 2 --mem 1GiB -o "$TMP/g.json"
cksum < "$TMP/g.json"
$DNNPART info "$TMP/g.json"

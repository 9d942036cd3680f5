# Issue 4: compare runs every registered algorithm on a 10,000-op generated
# graph with K=4 and prints the table: one row with numbers per algorithm
# (the list comes from compare --help), exactly one best row.
set -e
$DNNPART gen --ops 10000 --seed 1 -o "$TMP/g10k.json" >/dev/null
$DNNPART compare "$TMP/g10k.json" -k 4 --mem 8GiB >"$TMP/c.txt"
names=$($DNNPART compare --help | grep -A1 -e '--algos LIST' | tail -n 1 |
	tr -d ' ' | tr ',' ' ')
n=0
for a in $names; do
	n=$((n + 1))
	if ! grep -Eq "^[* ] $a +[0-9.]+ (us|ms|s) +[0-9.]+ +[0-9.]+ +(yes|NO) " "$TMP/c.txt"; then
		echo "no row for $a:"
		cat "$TMP/c.txt"
		exit 1
	fi
done
[ "$n" -ge 7 ] || { echo "only $n algorithms registered: $names"; exit 1; }
[ "$(grep -c '^\* ' "$TMP/c.txt")" -eq 1 ] || { echo "not one best row"; cat "$TMP/c.txt"; exit 1; }
grep '^size' "$TMP/c.txt"
grep '^machine' "$TMP/c.txt"
echo "every registered algorithm has a row"

# Nothing lost: an output file that exists is replaced only with --force
# (plan -o, plan's exports, export, gen -o), and a file the command reads
# (the graph, the placement) never, even with --force and whatever path
# names it (a symbolic link). Each line: the exit status and stderr, then
# whether the old file was kept.
G=tests/cli/data/chain2.json
D=$TMP/force
mkdir -p "$D"
run() {
	"$DNNPART" "$@" >/dev/null 2>"$D/err"
	echo "rc=$? $(sed "s|$D|D|g" "$D/err" | tr '\n' ' ')"
}
old() { echo old >"$1"; }
kept() { [ "$(cat "$1")" = old ] && echo "  $2 kept" || echo "  $2 replaced"; }

old "$D/p.json"
run plan $G -k 2 -o "$D/p.json"
kept "$D/p.json" p.json
run plan $G -k 2 -o "$D/p.json" --force
kept "$D/p.json" p.json
old "$D/p.csv"
run plan $G -k 2 -o "$D/new.json" --csv "$D/p.csv"
kept "$D/p.csv" p.csv
[ -e "$D/new.json" ] && echo "  new.json written" || echo "  new.json not written"
run plan $G -k 2 --csv "$D/twice.csv" --dot "$D/twice.csv"
cp $G "$D/g.json"
ln -s g.json "$D/link.json"
run plan "$D/g.json" -k 2 -o "$D/link.json" --force
cmp -s $G "$D/g.json" && echo "  g.json kept" || echo "  g.json replaced"
old "$D/e.csv"
run export $G tests/cli/data/chain2.place --csv "$D/e.csv"
kept "$D/e.csv" e.csv
run export $G tests/cli/data/chain2.place --csv "$D/e.csv" --force
kept "$D/e.csv" e.csv
cp tests/cli/data/chain2.place "$D/pl.place"
run export $G "$D/pl.place" -o "$D/pl.place" --force
cmp -s tests/cli/data/chain2.place "$D/pl.place" && echo "  pl.place kept"
old "$D/gen.json"
run gen --ops 30 -o "$D/gen.json"
kept "$D/gen.json" gen.json
run gen --ops 30 -o "$D/gen.json" --force
kept "$D/gen.json" gen.json

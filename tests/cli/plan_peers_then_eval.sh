# For each peer algorithm (each run replaces the last one's file: --force),
# eval of the placement that plan wrote reproduces
# the makespan and feasibility plan reported (same simulator, same machine):
# on the diamond, where all fit, and on a generated 600-op training graph
# with caps of 300 MiB on 3 devices, which none of them meets.
set -e
$DNNPART gen --ops 600 --seed 5 -o "$TMP/g.json" --force >/dev/null
for g in tests/cli/data/diamond.json "$TMP/g.json"; do
	m=
	[ "$g" = "$TMP/g.json" ] && m="-k 3 --mem 300MiB"
	for a in metf heft metis contig; do
		for c in port none; do
			$DNNPART plan "$g" $m --algo $a --contention $c \
				-o "$TMP/$a.json" --force --json |
				grep -E '"(makespan_us|feasible)"' >"$TMP/p"
			$DNNPART eval "$g" "$TMP/$a.json" $m --contention $c \
				--json | grep -E '"(makespan_us|feasible)"' >"$TMP/e"
			if cmp -s "$TMP/p" "$TMP/e"; then
				echo "$(basename "$g") $a $c: eval reproduces" \
					"$(tr -d ' \t\n' <"$TMP/p")"
			else
				echo "$(basename "$g") $a $c: plan" \
					"$(tr -d ' \t\n' <"$TMP/p") but eval" \
					"$(tr -d ' \t\n' <"$TMP/e")"
			fi
		done
	done
done

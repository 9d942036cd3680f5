#!/usr/bin/env python3
"""towers_place.py - one tower per device on a graph of `dnnpart gen`
(docs/benchmarks.md, "Results: best"): shows that the lower bound work / K
is within reach on the generated graphs where the towers and devices match.

    python3 bench/towers_place.py GRAPH.json K OUT.place
    build/dnnpart eval GRAPH.json OUT.place -k K

Every op whose layer label is tN/... (or grad/tN/..., update/tN/...) goes to
device N mod K; the stem, the data and the head (loss, classifier) to device
0. Writes a ParDNN .place file ("name device" lines); refuses to overwrite
OUT.
"""
import json
import os
import sys


def main():
    if len(sys.argv) != 4:
        sys.stderr.write(__doc__)
        return 2
    path, k, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    if k < 1:
        sys.stderr.write("towers_place.py: K must be >= 1\n")
        return 2
    if os.path.exists(out):
        sys.stderr.write("towers_place.py: %s exists; not overwritten\n" % out)
        return 2
    with open(path) as f:
        ops = json.load(f)["ops"]
    lines = []
    for op in ops:
        parts = op.get("layer", "").split("/")
        if parts[0] in ("grad", "update"):
            parts = parts[1:]
        tower = parts[0] if parts else ""
        dev = int(tower[1:]) % k if tower[:1] == "t" and tower[1:].isdigit() else 0
        lines.append("%s %d\n" % (op["name"], dev))
    tmp = out + ".tmp"
    with open(tmp, "w") as f:
        f.writelines(lines)
    os.rename(tmp, out)
    return 0


if __name__ == "__main__":
    sys.exit(main())

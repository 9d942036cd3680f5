#!/usr/bin/env python3
"""pase_goals.py - issue 13's quality goals for `pase`, measured and recorded.

Runs `dnnpart compare GRAPH -k K --batch B --mem CAP --algos
pardnn,dp,megatron,pase --json` on every transformer sample at K = 4, 8, 16
(batch 8; K=16 also at batch 16, since 16 does not divide 8) and gpt2-xl at
its own batch 1 at K = 16 and 32, without caps and with 16 GiB caps, and
prints a markdown table: each algorithm's simulated step, whether it fits,
pase's label and plan time, and a verdict (pase no slower than dp and
megatron where they fit, and fits wherever either fits). With --write it
replaces the table between the markers in docs/benchmarks.md (a temporary
file, then a rename).

usage: bench/pase_goals.py [--dnnpart build/dnnpart] [--write]
"""
import json
import os
import subprocess
import sys

GRAPHS = ["gpt2-small", "bert-large", "gpt2-xl"]
CASES = [(4, 8), (8, 8), (16, 8), (16, 16)]
# the samples at their own batch where it matters: gpt2-xl at batch 1,
# where nothing replicated fits 16 GiB
EXTRA = [("gpt2-xl", 16, 1), ("gpt2-xl", 32, 1)]
CAPS = ["inf", "16GiB"]
ALGOS = ["pardnn", "dp", "megatron", "pase"]
BEGIN = "<!-- pase-goals:begin (bench/pase_goals.py --write) -->"
END = "<!-- pase-goals:end -->"


def run(dnnpart, graph, k, batch, cap):
    cmd = [dnnpart, "compare", "sample_graphs/%s.json" % graph, "-k", str(k),
           "--batch", str(batch), "--mem", cap, "--algos", ",".join(ALGOS),
           "--json"]
    out = subprocess.run(cmd, capture_output=True, text=True)
    if out.returncode not in (0, 1):
        sys.exit("%s: exit %d: %s" % (" ".join(cmd), out.returncode,
                                      out.stderr.strip()))
    rows = {a["name"]: a for a in json.loads(out.stdout)["algorithms"]}
    return rows


def cell(r):
    if not r.get("ok"):
        return "n/a", None, False
    ms = r["makespan_us"] / 1000.0
    text = "%.3g s" % (ms / 1000) if ms >= 1000 else "%.3g ms" % ms
    if not r["feasible"]:
        text += " (NO, %.0f%%)" % (100 * r["max_peak_over_cap"])
    return text, ms, r["feasible"]


def verdict(rows):
    pase = rows["pase"]
    _, pms, pfit = cell(pase)
    lost = []
    for a in ("dp", "megatron"):
        _, ms, fit = cell(rows[a])
        if ms is None:
            continue
        if fit and not pfit:
            lost.append("%s fits, pase does not" % a)
        elif fit == pfit and pms is not None and pms > ms * 1.005:
            lost.append("slower than %s by %.0f%%" % (a, 100 * (pms / ms - 1)))
    return "; ".join(lost) if lost else "met"


def table(dnnpart):
    lines = ["| graph | K | batch | cap | pardnn | dp | megatron | pase "
             "| pase's label | pase plan time | goal |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    cases = [(g, k, b) for g in GRAPHS for k, b in CASES] + EXTRA
    for g, k, b in cases:
        if True:
            for cap in CAPS:
                rows = run(dnnpart, g, k, b, cap)
                p = rows["pase"]
                label = p.get("strategy", "") if p.get("ok") else "n/a"
                lines.append("| %s | %d | %d | %s | %s | %s | %s | %s | `%s` | %.2f s | %s |" % (
                    g, k, b, "none" if cap == "inf" else cap,
                    cell(rows["pardnn"])[0], cell(rows["dp"])[0],
                    cell(rows["megatron"])[0],
                    cell(p)[0], label, p.get("plan_ms", 0) / 1000.0,
                    verdict(rows)))
                print(lines[-1], file=sys.stderr, flush=True)
    return "\n".join(lines) + "\n"


def write_between(begin, end, text, path="docs/benchmarks.md"):
    """Replaces what stands between the markers begin and end in path with
    text (a temporary file, then a rename)."""
    doc = open(path).read()
    if begin not in doc or end not in doc:
        sys.exit("%s: no markers %s ... %s" % (path, begin, end))
    head, rest = doc.split(begin, 1)
    _, tail = rest.split(end, 1)
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write(head + begin + "\n" + text + end + tail)
    os.replace(tmp, path)


def main():
    args = sys.argv[1:]
    dnnpart = "build/dnnpart"
    if "--dnnpart" in args:
        dnnpart = args[args.index("--dnnpart") + 1]
    text = table(dnnpart)
    if "--write" not in args:
        sys.stdout.write(text)
        return
    write_between(BEGIN, END, text)


if __name__ == "__main__":
    main()

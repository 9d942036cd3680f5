#!/usr/bin/env python3
"""ilp_yardstick.py - how far ilp proves optimality in its time limit, and
how far the heuristics are from its bound (docs/algorithms.md, "ilp").

For each graph and K in (2, 4): `dnnpart plan --algo ilp --json` (no caps,
the default link and port contention, --time-limit as given) and
`dnnpart compare --json` (every other placement algorithm; the
strategies split ops or micro-batches, outside the MILP's model). Prints one tab-separated
line per case: graph, ops, K, proven optimal, gap, ilp's wall time (ms),
ilp's simulated makespan, the MILP's objective and bound, the best
heuristic and its simulated makespan, the plan's lower bound (µs), and
`best`'s simulated makespan, planning time (`dnnpart plan --algo best`) and
the placements its exhaustive search simulated (0: the graph was too large
for it; docs/algorithms.md, "best").

`--table TSV --write FILE` does not run anything: it turns a TSV written
by an earlier run into the markdown table of best's gap to the optimum and
puts it between the markers `<!-- ilp-gap:begin -->` and
`<!-- ilp-gap:end -->` of FILE (docs/benchmarks.md).

Graphs: every real graph of tests/data (msr-fiddle layer and operator
graphs, PipeDream profiles; copied into the repository) of at most 400 ops, and random DAGs of
10 to 80 ops with parallelism (each op takes one or two inputs from the 8
ops before it; seeded, so the same every run).

Usage: python3 bench/ilp_yardstick.py [--time-limit S] [--data DIR]
       [--dnnpart PATH] [--random-only | --real-only]
       python3 bench/ilp_yardstick.py --table TSV --write FILE
"""
import argparse
import json
import os
import random
import subprocess
import sys
import tempfile


def random_graph(n, seed, path):
    r = random.Random(seed)
    ops = [{"name": "op%d" % i, "time_us": r.randint(10, 100),
            "output_bytes": r.randint(100000, 4000000)} for i in range(n)]
    edges = []
    for i in range(1, n):
        srcs = {r.randint(max(0, i - 8), i - 1)
                for _ in range(r.randint(1, 2))}
        edges += [{"from": "op%d" % j, "to": "op%d" % i}
                  for j in sorted(srcs)]
    with open(path, "w") as f:
        json.dump({"format": "dnnpart-graph", "version": 1,
                   "name": "rand%d-%d" % (n, seed), "ops": ops,
                   "edges": edges}, f)


def ops_of(dnnpart, path):
    p = subprocess.run([dnnpart, "info", path, "--json"],
                       capture_output=True, text=True)
    try:
        return json.loads(p.stdout)["ops"]
    except (ValueError, KeyError):
        return None


def case(dnnpart, path, name, k, limit):
    base = [path, "-k", str(k), "--mem", "inf", "--json"]
    p = subprocess.run([dnnpart, "plan"] + base +
                       ["--algo", "ilp", "--time-limit", str(limit)],
                       capture_output=True, text=True)
    if p.returncode != 0:
        print("%s\t-\t%d\terror: %s" % (name, k, p.stderr.strip()),
              flush=True)
        return
    d = json.loads(p.stdout)
    c = subprocess.run([dnnpart, "compare"] + base, capture_output=True,
                       text=True)
    best = ("-", float("nan"))
    try:
        for a in json.loads(c.stdout)["algorithms"]:
            if a.get("strategy"):
                continue  # splits ops or micro-batches: not a placement
            ms = a.get("makespan_us")
            if ms is not None and a.get("feasible") and \
                    (best[0] == "-" or ms < best[1]):
                best = (a["algorithm"], ms)
    except (ValueError, KeyError):
        pass

    b = subprocess.run([dnnpart, "plan"] + base + ["--algo", "best"],
                       capture_output=True, text=True)
    try:
        bd = json.loads(b.stdout)
        best_algo = (bd["makespan_us"], bd["plan_ms"],
                     bd.get("best_enumerated", 0))
    except (ValueError, KeyError):
        best_algo = (None, None, 0)

    def num(v):
        return "-" if v is None else "%.1f" % v

    gap = d["gap"]
    print("\t".join([name, str(d["ops"]), str(k),
                     "yes" if d["optimal"] else "no",
                     "-" if gap is None else "%.2f%%" % (100 * gap),
                     "%.0f" % d["plan_ms"], num(d["makespan_us"]),
                     num(d["milp_objective_us"]), num(d["milp_bound_us"]),
                     best[0], num(best[1]), num(d["lower_bound_us"]),
                     num(best_algo[0]),
                     "-" if best_algo[1] is None else
                     "%.0f" % best_algo[1], str(best_algo[2])]),
          flush=True)


def short(name):
    return (name.replace("msr-fiddle/throughput-inputs/LayerGraphs/",
                         "fiddle/layer/")
            .replace("msr-fiddle/throughput-inputs/OperatorGraphs/",
                     "fiddle/op/")
            .replace("/graph.txt", "").replace(".json", ""))


def gap_table(tsv):
    """The markdown table of best's gap to ilp's optimum, one row per
    graph, from a TSV of an earlier run."""
    rows = {}
    order = []
    with open(tsv) as f:
        head = f.readline().rstrip("\n").split("\t")
        for line in f:
            r = dict(zip(head, line.rstrip("\n").split("\t")))
            if "best_algo_makespan_us" not in r:
                continue
            if r["graph"] not in rows:
                order.append(r["graph"])
                rows[r["graph"]] = {}
            rows[r["graph"]][r["K"]] = r
    out = ["| graph | ops | K | ilp | optimum (µs) | ilp's placement "
           "simulated (µs) | best (µs) | best vs optimum | best's time |",
           "|---|---|---|---|---|---|---|---|---|"]
    within = proven = as_ilp = exhaustive = 0
    for g in order:
        for k in sorted(rows[g], key=int):
            r = rows[g][k]
            bm = r["best_algo_makespan_us"]
            if r["optimal"] == "yes" and bm != "-":
                opt = float(r["milp_objective_us"])
                gap = 100.0 * (float(bm) / opt - 1.0)
                # best simulated every placement: none is faster
                enum = int(r.get("best_enumerated", "0") or 0) > 0
                proven += 1
                within += gap <= 2.0
                exhaustive += gap > 2.0 and enum
                as_ilp += gap > 2.0 and not enum and \
                    float(bm) <= float(r["ilp_makespan_us"])
                ilp = "optimal, %.1f s" % (float(r["ilp_ms"]) / 1000)
                vs = "%+.1f %%" % gap
                if gap > 2.0 and enum:
                    vs += " (the simulator's optimum)"
                o = "%.1f" % opt
            else:
                ilp = "not proven" if r["gap"] == "-" else \
                    "gap %s" % r["gap"]
                vs = "-"
                if r["milp_bound_us"] != "-" and bm != "-":
                    vs = "<= %+.1f %% (vs bound)" % (
                        100.0 * (float(bm) / float(r["milp_bound_us"]) - 1))
                if int(r.get("best_enumerated", "0") or 0) > 0:
                    vs += "; the simulator's optimum"
                o = "-"
            bt = "-" if r["best_algo_ms"] == "-" else \
                "%.1f s" % (float(r["best_algo_ms"]) / 1000)
            out.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
                short(g), r["ops"], k, ilp, o, r["ilp_makespan_us"], bm, vs,
                bt))
    out.append("")
    why = []
    if exhaustive:
        why.append("in %d of the others best simulated every placement: "
                   "no placement is faster in the simulator" % exhaustive)
    if as_ilp:
        why.append("in %d it is as fast as ilp's own optimal placement in "
                   "the simulator" % as_ilp)
    rest = proven - within - exhaustive - as_ilp
    if rest:
        why.append("in %d it is slower than ilp's own placement in the "
                   "simulator" % rest)
    text = "; ".join(["best is within 2 %% of the proven optimum in %d of "
                      "%d cases where ilp proved optimality" %
                      (within, proven)] + why) + "."
    if exhaustive or as_ilp:
        text += (" Where best is the simulator's optimum or as fast as "
                 "ilp's placement, the rest of the gap is the model's: the "
                 "MILP schedules freely without port contention, the "
                 "simulator list-schedules with it.")
    out.append(text)
    return "\n".join(out)


def write_table(tsv, path):
    begin, end = "<!-- ilp-gap:begin -->", "<!-- ilp-gap:end -->"
    text = open(path).read()
    i, j = text.find(begin), text.find(end)
    if i < 0 or j < i:
        sys.stderr.write("%s: the markers %s ... %s are missing\n" %
                         (path, begin, end))
        return 2
    new = text[:i + len(begin)] + "\n" + gap_table(tsv) + "\n" + text[j:]
    if new != text:
        tmp = path + ".tmp"
        with open(tmp, "w") as f:
            f.write(new)
        os.replace(tmp, path)
    return 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--table", help="a TSV of an earlier run")
    ap.add_argument("--write", help="with --table: the markdown file")
    ap.add_argument("--time-limit", default="10")
    ap.add_argument("--data", default="tests/data")
    ap.add_argument("--dnnpart", default="./dnnpart")
    ap.add_argument("--random-only", action="store_true")
    ap.add_argument("--real-only", action="store_true")
    a = ap.parse_args()
    if a.table:
        if not a.write:
            sys.stderr.write("--table needs --write FILE\n")
            return 2
        return write_table(a.table, a.write)
    print("graph\tops\tK\toptimal\tgap\tilp_ms\tilp_makespan_us\t"
          "milp_objective_us\tmilp_bound_us\tbest_heuristic\t"
          "best_makespan_us\tlower_bound_us\tbest_algo_makespan_us\t"
          "best_algo_ms\tbest_enumerated")
    if not a.random_only:
        real = []
        for sub in ("msr-fiddle/throughput-inputs/LayerGraphs",
                    "msr-fiddle/throughput-inputs/OperatorGraphs"):
            d = os.path.join(a.data, sub)
            if os.path.isdir(d):
                real += [os.path.join(d, f) for f in sorted(os.listdir(d))]
        pd = os.path.join(a.data, "pipedream")
        if os.path.isdir(pd):
            real += [os.path.join(pd, m, "graph.txt")
                     for m in sorted(os.listdir(pd))
                     if os.path.isfile(os.path.join(pd, m, "graph.txt"))]
        sized = [(ops_of(a.dnnpart, p), p) for p in real]
        for n, p in sorted((n, p) for n, p in sized if n and n <= 400):
            name = os.path.relpath(p, a.data)
            for k in (2, 4):
                case(a.dnnpart, p, name, k, a.time_limit)
    if not a.real_only:
        with tempfile.TemporaryDirectory() as tmp:
            for n in (10, 15, 20, 30, 40, 60, 80):
                for seed in (1, 2):
                    p = os.path.join(tmp, "rand%d-%d.json" % (n, seed))
                    random_graph(n, seed, p)
                    for k in (2, 4):
                        case(a.dnnpart, p, "random/%d-%d" % (n, seed), k,
                             a.time_limit)
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""bench_hybrid.py - issue 14's goals for the pipeline planners, as the
Markdown tables of docs/benchmarks.md ("Results: pipelines and hybrid").

  python3 bench/bench_hybrid.py [DNNPART] > bench/results/hybrid.md

Table 1: on gpt2-xl (batch 8 and 32) and bert-large at K = 8 and 16 with
16 GiB caps, every strategy's simulated step, largest peak / cap and plan
time (strategize only, from `dnnpart compare --json`), the best that fits
marked; `hybrid` should be no slower than the best of the others that fits
and fit whenever one of them does. Table 2: the plan time of the pipeline
planners on every sample graph at K = 16 (the aim: under 2 s).
Plan times are this machine's, under whatever else runs on it.
"""
import json
import os
import subprocess
import sys

DNNPART = sys.argv[1] if len(sys.argv) > 1 else "./build/dnnpart"
OTHERS = ["dp", "zero", "megatron", "gpipe", "1f1b", "pipedream"]
PIPES = ["gpipe", "1f1b", "pipedream", "hybrid"]


def compare(graph, k, algos, extra):
    cmd = [DNNPART, "compare", graph, "-k", str(k), "--mem", "16GiB",
           "--algos", ",".join(algos), "--json"] + extra
    out = subprocess.run(cmd, capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit("bench_hybrid: %s failed: %s" % (" ".join(cmd), out.stderr))
    return {a["name"]: a for a in json.loads(out.stdout)["algorithms"]}


def secs(us):
    return "%.3g s" % (us / 1e6) if us >= 1e6 else "%.3g ms" % (us / 1e3)


def cell(a, best):
    if not a.get("ok"):
        return "n/a"
    mark = "**" if a["name"] == best else ""
    return "%s%s%s, %.0f %%, %.2g s" % (mark, secs(a["makespan_us"]), mark,
                                       100 * a["max_peak_over_cap"],
                                       a["plan_ms"] / 1e3)


def goal_table():
    cases = [("gpt2-xl b8", "sample_graphs/gpt2-xl.json", ["--batch", "8"]),
             ("gpt2-xl b32", "sample_graphs/gpt2-xl.json", ["--batch", "32"]),
             ("bert-large", "sample_graphs/bert-large.json", [])]
    print("| graph, K | " + " | ".join(OTHERS + ["hybrid"]) +
          " | hybrid's plan | goal |")
    print("|---" * (len(OTHERS) + 4) + "|")
    for name, path, extra in cases:
        for k in (8, 16):
            r = compare(path, k, OTHERS + ["hybrid"], extra)
            fit = [a for a in r.values() if a.get("ok") and a["feasible"]]
            best = min(fit, key=lambda a: a["makespan_us"])["name"] \
                if fit else None
            h = r["hybrid"]
            others_fit = [a for a in fit if a["name"] != "hybrid"]
            if not others_fit:
                goal = "met (none fits)" if not h.get("ok") or \
                    not h["feasible"] else "met (only hybrid fits)"
            elif not h.get("ok") or not h["feasible"]:
                goal = "MISSED: does not fit"
            else:
                b = min(a["makespan_us"] for a in others_fit)
                goal = "met" if h["makespan_us"] <= b * (1 + 1e-9) else \
                    "MISSED: %.0f %% slower" % (100 * (h["makespan_us"] / b - 1))
            print("| %s, %d | %s | %s | %s |" % (
                name, k, " | ".join(cell(r[a], best) for a in OTHERS +
                                    ["hybrid"]),
                h.get("strategy", "-"), goal))


def time_table():
    print("| graph (K = 16) | " + " | ".join(PIPES) + " |")
    print("|---" * (len(PIPES) + 1) + "|")
    graphs = sorted(f for f in os.listdir("sample_graphs")
                    if f.endswith(".json"))
    for f in graphs:
        for extra in ([[], ["--batch", "32"]] if f == "gpt2-xl.json"
                      else [[]]):
            r = compare("sample_graphs/" + f, 16, PIPES, extra)
            print("| %s%s | %s |" % (
                f[:-5], " b32" if extra else "",
                " | ".join("%.2f s" % (r[a]["plan_ms"] / 1e3)
                           if r[a].get("ok") else "n/a" for a in PIPES)))


if __name__ == "__main__":
    print("Makespan, largest peak / cap, plan time; **bold**: the fastest "
          "that fits.\n")
    goal_table()
    print("\nPlan time (strategize only) of the pipeline planners:\n")
    time_table()

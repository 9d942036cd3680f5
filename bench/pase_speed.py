#!/usr/bin/env python3
"""pase_speed.py - issue 13's planning-time goals for `pase`, measured.

Runs `dnnpart plan GRAPH -k K --mem CAP --algo pase` under `/usr/bin/time`
on gpt2-xl (its own batch 1) at K=32 without caps and with 16 GiB caps, and
on graphs of 10,000 and 100,000 ops from `dnnpart gen --ops N --batch 64`
at K=16, and prints a markdown table: the CPU time of the whole command
(user and system: load, search, the final simulation), its wall time, the
plan time `dnnpart plan` reports, the peak RSS, the result and the load
average around the run (the machine is shared, and load inflates both CPU
and wall time). Each case runs --runs times (default 1); the row keeps the
run with the least user time. With --before OTHER_DNNPART each run of this
build is followed by one of OTHER_DNNPART on the same case (interleaved, so
both see about the same load) and a column gives its user time. With
--write it replaces the table between the markers in docs/benchmarks.md.
The goal: gpt2-xl at K=32 under 5 s, linear-ish growth to 100,000 ops.

usage: bench/pase_speed.py [--dnnpart build/dnnpart] [--before BIN]
                           [--runs N] [--write]
"""
import os
import re
import subprocess
import sys
import tempfile

from pase_goals import write_between

BEGIN = "<!-- pase-speed:begin (bench/pase_speed.py --write) -->"
END = "<!-- pase-speed:end -->"
# (label, graph: a sample's path or a number of ops to generate, K, cap)
CASES = [("gpt2-xl (batch 1)", "sample_graphs/gpt2-xl.json", 32, "none"),
         ("gpt2-xl (batch 1)", "sample_graphs/gpt2-xl.json", 32, "16GiB"),
         ("generated, batch 64", 10000, 16, "none"),
         ("generated, batch 64", 100000, 16, "none")]


def timed(dnnpart, graph, k, cap):
    """One run: (user s, sys s, wall s, peak KiB, plan ms, label, makespan,
    fits, load average before)."""
    load = os.getloadavg()[0]
    with tempfile.NamedTemporaryFile("r") as tf:
        cmd = ["/usr/bin/time", "-f", "%U %S %e %M", "-o", tf.name,
               dnnpart, "plan", graph, "-k", str(k), "--mem", cap,
               "--algo", "pase"]
        out = subprocess.run(cmd, capture_output=True, text=True)
        if out.returncode not in (0, 1):
            sys.exit("%s: exit %d: %s" % (" ".join(cmd), out.returncode,
                                          out.stderr.strip()))
        user, syst, wall, kib = tf.read().split()[-4:]
    text = out.stdout
    label = re.search(r"\(strategy (.*)\)\n", text).group(1)
    plan = float(re.search(r"plan time +([0-9.]+) ms", text).group(1))
    ms = re.search(r"makespan +(\S+ \S+)", text).group(1)
    fits = "feasible" in re.search(r"^memory +(.*)", text, re.M).group(1)
    return (float(user), float(syst), float(wall), int(kib), plan, label,
            ms, fits, load)


def rss(kib):
    return "%.2f GiB" % (kib / 1048576) if kib >= 1048576 else \
        "%d MiB" % (kib / 1024)


def table(dnnpart, before, runs, tmp):
    lines = ["| graph | ops | K | cap | CPU user (whole command) | sys | wall "
             "| plan (as reported) | peak RSS | result | load average |"
             + (" before: CPU user |" if before else ""),
             "|---|---|---|---|---|---|---|---|---|---|---|"
             + ("---|" if before else "")]
    for name, graph, k, cap in CASES:
        if isinstance(graph, int):
            path = os.path.join(tmp, "g%d.json" % graph)
            if not os.path.exists(path):
                subprocess.run([dnnpart, "gen", "--ops", str(graph),
                                "--batch", "64", "-o", path], check=True,
                               capture_output=True)
            ops = graph
        else:
            path = graph
            ops = int(re.search(r"ops +(\d+)", subprocess.run(
                [dnnpart, "info", path], capture_output=True,
                text=True).stdout).group(1))
        best, old = None, None
        for _ in range(runs):
            r = timed(dnnpart, path, k, cap)
            if best is None or r[0] < best[0]:
                best = r
            if before:
                b = timed(before, path, k, cap)
                if old is None or b[0] < old[0]:
                    old = b
        user, syst, wall, kib, plan, label, ms, fits, load = best
        lines.append("| %s | %s | %d | %s | %.2f s | %.2f s | %.1f s | %.2f s "
                     "| %s | `%s`, %s%s | %.1f |%s" % (
                         name, format(ops, ","), k, cap, user, syst, wall,
                         plan / 1000, rss(kib), label, ms,
                         "" if fits else " (over the cap)", load,
                         " %.2f s |" % old[0] if old else ""))
        print(lines[-1], file=sys.stderr, flush=True)
    return "\n".join(lines) + "\n"


def main():
    args = sys.argv[1:]
    opt = {"--dnnpart": "build/dnnpart", "--before": None, "--runs": "1"}
    for key in opt:
        if key in args:
            opt[key] = args[args.index(key) + 1]
    with tempfile.TemporaryDirectory() as tmp:
        text = table(opt["--dnnpart"], opt["--before"], int(opt["--runs"]),
                     tmp)
    if "--write" in args:
        write_between(BEGIN, END, text)
    else:
        sys.stdout.write(text)


if __name__ == "__main__":
    main()

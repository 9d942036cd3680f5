#!/usr/bin/env python3
"""zero_bucket.py - the tables of docs/benchmarks.md "Results: ZeRO stages
and gradient buckets" (issue 23).

    python3 bench/zero_bucket.py [DNNPART]     (from the repository root)

1. ZeRO on gpt2-small (fp32, Adam) at K = 2, 4, 8: every device's model
   states (the simulator's params: weights, optimizer state and the
   persistent gradient buffers) against ZeRO's closed forms, with Psi the
   parameters counted from the graph file itself (each param op's `param`
   dims), and the bytes each device sends against 2(K-1)/K x the weights
   (dp, stages 1 and 2) and 3(K-1)/K x the weights (stage 3).
2. dp on ResNet-50 at K = 4: the step with the default link (130 GB/s,
   25 us) against the same plan with zero latency, with buckets of 25 MiB
   (the default) and with one all-reduce per gradient (--bucket 0).

Every number comes from `dnnpart plan --json`; the closed forms are
computed here from the graph, not from the program's output.
"""
import json
import subprocess
import sys

DP = sys.argv[1] if len(sys.argv) > 1 else "./build/dnnpart"
GPT2 = "sample_graphs/gpt2-small.json"
RESNET = "sample_graphs/resnet50.json"


def plan(graph, k, *args):
    out = subprocess.run([DP, "plan", graph, "-k", str(k), "--mem", "none",
                          "--json", *args], check=True,
                         capture_output=True, text=True).stdout
    return json.loads(out)


def params(graph):
    """Psi (parameters) and the weights' bytes, from the param ops' dims."""
    g = json.load(open(graph))
    psi = wbytes = 0
    for o in g["ops"]:
        if o.get("role") != "param":
            continue
        n = 1
        for d in o["param"]:
            n *= o["dims"][d]
        psi += n
        wbytes += n * o.get("elem_bytes", 4)
    return psi, wbytes


def zero_table():
    psi, w = params(GPT2)
    print("gpt2-small: Psi = %d parameters, weights %d B (fp32)\n" % (psi, w))
    print("| K | strategy | model states per device | ZeRO's formula | "
          "equal | bytes sent per device | closed form | ratio |")
    print("|---|---|---|---|---|---|---|---|")
    forms = {
        0: ("16 Psi", lambda k: 16 * psi),
        1: ("8 Psi + 8 Psi/K", lambda k: 8 * psi + 8 * psi // k),
        2: ("4 Psi + 12 Psi/K", lambda k: 4 * psi + 12 * psi // k),
        3: ("16 Psi/K", lambda k: 16 * psi // k),
    }
    for k in (2, 4, 8):
        for stage in (0, 1, 2, 3):
            args = ["--algo", "dp"] if stage == 0 else \
                ["--algo", "zero", "--zero-stage", str(stage)]
            r = plan(GPT2, k, *args)
            ps = [d["param_bytes"] for d in r["devices"]]
            sent = max(d["comm_out_bytes"] for d in r["devices"])
            name, f = forms[stage]
            want = f(k)
            mult = 3 if stage == 3 else 2
            close = mult * (k - 1) * w / k
            print("| %d | %s | %s | %s = %s | %s | %s | %d(K-1)/K x W = %s "
                  "| %.4f |" % (
                      k, r["strategy"],
                      "{:,}".format(max(ps)) + (
                          "" if min(ps) == max(ps) else
                          " (min {:,})".format(min(ps))),
                      name, "{:,}".format(want),
                      "yes" if min(ps) == max(ps) == want else "NO",
                      "{:,}".format(sent), mult,
                      "{:,}".format(round(close)), sent / close))


def fmt_ms(us):
    return "%.1f ms" % (us / 1000)


def dp_table():
    print("\nResNet-50, dp, K = 4:\n")
    print("| buckets | transfers | step, default link (25 us) | "
          "step, zero latency | ratio |")
    print("|---|---|---|---|---|")
    for bucket, label in (("25MiB", "25 MiB (default)"),
                          ("0", "none (--bucket 0)")):
        a = plan(RESNET, 4, "--algo", "dp", "--bucket", bucket)
        b = plan(RESNET, 4, "--algo", "dp", "--bucket", bucket,
                 "--lat", "0us")
        print("| %s | %s | %s | %s | %.3f |" % (
            label, "{:,}".format(a["transfers"]), fmt_ms(a["makespan_us"]),
            fmt_ms(b["makespan_us"]), a["makespan_us"] / b["makespan_us"]))


zero_table()
dp_table()

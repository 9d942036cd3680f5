#!/usr/bin/env python3
"""levers.py - the tables of docs/benchmarks.md "Results: levers" and the
check of docs/memory.md against Korthikanti et al. (2022).

    python3 bench/levers.py [--dnnpart build/dnnpart]   (repository root)

Runs `dnnpart plan GRAPH -k 1 --algo single --json` on GPT-2 small at
batch 8 (one device, no cap: every op on it, so the peak is the whole
step's) with each lever set, and prints one markdown row per set: the step,
its ratio to fp32's, the activation peak (activations and gradients of the
peak by role), its ratio to fp32's, params at the peak, and the bytes per
parameter (params + weight gradients over the parameter count).

Then, per transformer layer, the forward bytes the graph keeps (every
forward op's output of one block, read from the JSON) against
s.b.h.(34 + 5.a.s/h), Megatron-LM's formula in 2 bytes, times 2 for fp32.
"""
import argparse
import json
import subprocess

GRAPH = "sample_graphs/gpt2-small.json"
SETS = [
    ("fp32", []),
    ("fp32, recompute full", ["--recompute", "full"]),
    ("fp32, recompute selective", ["--recompute", "selective"]),
    ("fp32, fuse attention", ["--fuse", "attention"]),
    ("bf16", ["--precision", "bf16"]),
    ("bf16, recompute full", ["--precision", "bf16", "--recompute", "full"]),
    ("bf16, recompute selective",
     ["--precision", "bf16", "--recompute", "selective"]),
    ("bf16, fuse attention", ["--precision", "bf16", "--fuse", "attention"]),
    ("bf16, fuse attention, recompute full",
     ["--precision", "bf16", "--fuse", "attention", "--recompute", "full"]),
    ("fp32, fuse elementwise", ["--fuse", "elementwise"]),
    ("bf16, fuse elementwise", ["--precision", "bf16", "--fuse",
                                "elementwise"]),
    ("bf16, fuse attention,elementwise",
     ["--precision", "bf16", "--fuse", "attention,elementwise"]),
    ("bf16, offload optimizer", ["--precision", "bf16", "--offload",
                                 "optimizer"]),
    ("bf16, offload params", ["--precision", "bf16", "--offload",
                              "params"]),
]


def plan(dp, extra):
    out = subprocess.run([dp, "plan", GRAPH, "-k", "1", "--algo", "single",
                          "--mem", "none", "--json"] + extra,
                         check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def params_and_grads(path):
    """Parameter count, from the params' dims."""
    g = json.load(open(path))
    psi = 0
    for o in g["ops"]:
        if o.get("role") == "param":
            n = 1
            for d in o["param"]:
                n *= o["dims"][d]
            psi += n
    return g, psi


def gib(b):
    return "%.2f GiB" % (b / 2**30)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dnnpart", default="build/dnnpart")
    a = ap.parse_args()
    g, psi = params_and_grads(GRAPH)
    print("| levers | step | x fp32 | activation peak | x fp32 | params "
          "| B / param |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    base = None
    for label, extra in SETS:
        d = plan(a.dnnpart, extra)
        r = d["devices"][0]["peak_by_role"]
        act = r["activations"] + r["gradients"]
        t = d["makespan_us"]
        # bytes per parameter: params held, plus every weight gradient
        # (2 or 4 B each), over the parameter count
        grad_b = 2 if "bf16" in label else 4
        bpp = (d["devices"][0]["param_bytes"] + grad_b * psi) / psi
        if base is None:
            base = (t, act)
        print("| %s | %.0f ms | %.2f | %s | %.2f | %s | %.1f |" %
              (label, t / 1000, t / base[0], gib(act), act / base[1],
               gib(d["devices"][0]["param_bytes"]), bpp))
    # Korthikanti et al.: s.b.h.(34 + 5.a.s/h) bytes per layer in 2 bytes
    s, b, h, heads = 1024, 8, 768, 12
    kor = s * b * h * (34 + 5 * heads * s / h)
    block = sum(o["output_bytes"] for o in g["ops"]
                if o.get("role") == "forward" and
                o.get("layer", "").startswith("model/h0/"))
    scores = sum(o["output_bytes"] for o in g["ops"]
                 if o.get("role") == "forward" and
                 o.get("layer", "").startswith("model/h0/") and
                 o["output_bytes"] == 4 * b * heads * s * s)
    print()
    print("| per layer (GPT-2 small, b=8, s=1024) | bytes |")
    print("|---|---:|")
    print("| Korthikanti s.b.h.(34 + 5.a.s/h), 2 bytes | %s |" % gib(kor))
    print("| the same in fp32 (x 2) | %s |" % gib(2 * kor))
    print("| the graph: every forward output of block h0, fp32 | %s |"
          % gib(block))
    print("| of which b.a.s^2 score tensors | %s (%d tensors) |" %
          (gib(scores), scores // (4 * b * heads * s * s)))


if __name__ == "__main__":
    main()

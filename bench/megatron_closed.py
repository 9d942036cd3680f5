#!/usr/bin/env python3
"""megatron_closed.py - `megatron` against Megatron-LM's closed forms.

For gpt2-small at T = 2, 4 and bert-large at T = 2, 4, 8 it runs
`dnnpart plan GRAPH --algo megatron --tp T -k T --contention none
--link nvlink --json` (volumes do not depend on the link) and compares, per
device (the largest over the devices):

- bytes sent with Megatron-LM's tensor-parallel communication
  (docs/spmd.md, "Megatron-LM's closed form"): ring all-reduces,
  2(T-1)/T x n each, of n = b s h e bytes: 4 per layer (2 forward, 2
  backward), the vocab-parallel embedding's forward one, and the output
  layer's backward one of its input (b s h e on GPT-2; on BERT the masked
  LM head reads b p h, p = 80 predicted positions), plus the parallel
  cross-entropy's 3 all-reduces of one value per position;
- parameter bytes with Megatron-LM's split: every GEMM weight, the bias of
  every column-parallel GEMM and the word embedding (and BERT's LM output
  bias) / T, layer norms, position and token-type embeddings, the biases of
  row-parallel GEMMs, BERT's pooler, LM transform and next-sentence head
  whole; 12 bytes per parameter (fp32 weight + Adam's two moments, as the
  samples count a variable's param_bytes).

The models' sizes are those of tools/gen_samples.py. With --sp it also runs
`--sp` (sequence parallelism: the same bytes, as all-gathers and
reduce-scatters). Prints a markdown table; --write replaces the one between
the markers in docs/benchmarks.md.

usage: bench/megatron_closed.py [--dnnpart build/dnnpart] [--sp] [--write]
"""
import argparse
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pase_goals import write_between  # noqa: E402

BEGIN = "<!-- megatron-closed:begin (bench/megatron_closed.py --write) -->"
END = "<!-- megatron-closed:end -->"
E = 4  # fp32
PARAM_BYTES = 12  # weight + Adam m, v

GPT2 = dict(L=12, h=768, b=8, s=1024, V=50257, ctx=1024)
BERT = dict(L=24, h=1024, ff=4096, b=4, s=512, V=30522, pos=512, types=2,
            pred=80)


def gpt2_closed(T):
    m = GPT2
    L, h, b, s = m["L"], m["h"], m["b"], m["s"]
    n = b * s * h * E
    ar = (4 * L + 2) * n + 3 * b * s * E
    split = L * (3 * h * h + 3 * h + h * h + 4 * h * h + 4 * h + 4 * h * h)
    split += m["V"] * h
    whole = L * (4 * h + 2 * h) + m["ctx"] * h + 2 * h
    return 2 * (T - 1) / T * ar, PARAM_BYTES * (split / T + whole)


def bert_closed(T):
    m = BERT
    L, h, ff, b, s, p = m["L"], m["h"], m["ff"], m["b"], m["s"], m["pred"]
    ar = (4 * L + 1) * b * s * h * E + b * p * h * E + 3 * b * p * E
    split = L * (3 * (h * h + h) + h * h + h * ff + ff + ff * h)
    split += m["V"] * h + m["V"]  # word embedding, LM output bias
    whole = L * (h + 2 * h + h + 2 * h)  # row-parallel biases, 2 norms
    whole += (m["types"] + m["pos"]) * h + 2 * h  # embeddings, norm
    whole += h * h + h + 2 * h  # LM transform dense + norm
    whole += h * h + h + 2 * h + 2  # pooler, next-sentence head
    return 2 * (T - 1) / T * ar, PARAM_BYTES * (split / T + whole)


CASES = [("gpt2-small", 2, gpt2_closed), ("gpt2-small", 4, gpt2_closed),
         ("bert-large", 2, bert_closed), ("bert-large", 4, bert_closed),
         ("bert-large", 8, bert_closed)]


def run(dnnpart, graph, T, sp):
    cmd = [dnnpart, "plan", "sample_graphs/%s.json" % graph, "--algo",
           "megatron", "--tp", str(T), "-k", str(T), "--contention", "none",
           "--link", "nvlink", "--json"] + (["--sp"] if sp else [])
    d = json.loads(subprocess.run(cmd, check=True, capture_output=True,
                                  text=True).stdout)
    devs = d["devices"]
    return (max(x["comm_out_bytes"] for x in devs),
            max(x["param_bytes"] for x in devs),
            max(x["peak_by_role"]["activations"] for x in devs))


def pct(got, want):
    return "%+.3f %%" % (100.0 * (got - want) / want)


def table(dnnpart, sp):
    lines = ["| graph | T | bytes sent / device | Megatron-LM | diff | "
             "params / device | Megatron-LM | diff |" +
             (" `--sp` bytes | diff | `--sp` activations / without |"
              if sp else ""),
             "|---|---|---|---|---|---|---|---|" +
             ("---|---|---|" if sp else "")]
    for graph, T, closed in CASES:
        cb, cp = closed(T)
        b, p, act = run(dnnpart, graph, T, False)
        row = "| %s | %d | %d | %.0f | %s | %d | %.0f | %s |" % (
            graph, T, b, cb, pct(b, cb), p, cp, pct(p, cp))
        if sp:
            sb, _, sact = run(dnnpart, graph, T, True)
            row += " %d | %s | %.3f |" % (sb, pct(sb, cb), sact / act)
        lines.append(row)
        print(row, file=sys.stderr, flush=True)
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--dnnpart", default="build/dnnpart")
    ap.add_argument("--sp", action="store_true",
                    help="also run --sp (sequence parallelism)")
    ap.add_argument("--write", action="store_true",
                    help="replace the table in docs/benchmarks.md")
    a = ap.parse_args()
    text = table(a.dnnpart, a.sp)
    if a.write:
        write_between(BEGIN, END, text)
    else:
        sys.stdout.write(text)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""torch_models.py - the PyTorch bridge on every classification model of
torchvision (0.14 on Debian: 80 models).

Converts each with tools/from_pytorch.py at batch 64 of its own image size
(the model's image_size where it has one, else the crop of its default
weights' transforms, else 224), one process per model (--jobs at a time),
and records the wall time, the CPU time (user + system), the peak resident
memory (/usr/bin/time's maximum RSS), the graph's op count, the parameters
in the graph (Variable param_bytes / 12: fp32 weight with Adam's two
copies) against torchvision's own count (the model's parameters, built on
the meta device), and whether every compute op has dims. Prints a markdown
table (docs/benchmarks.md) and writes the rows as
JSON with --json FILE. Usage, from the repository root:
  /usr/bin/python3 bench/torch_models.py [--only NAME ...] [--batch 64] \\
      [--jobs 3] [--json bench/results/torch_models.json]
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import warnings

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "tools"))


def image_size(name, model):
    import torchvision.models as tvm
    if hasattr(model, "image_size"):
        return int(model.image_size)
    try:
        crop = tvm.get_model_weights(name).DEFAULT.transforms().crop_size
        return int(crop[0])
    except Exception:  # noqa: BLE001 - no weights: the usual size
        return 224


def one(name, batch, tmp):
    import torch_trace as tt
    import torchvision.models as tvm
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = tt.meta_model(lambda: tvm.get_model(name))
    want = sum(p.numel() for p in model.parameters())
    size = image_size(name, model)
    out = os.path.join(tmp, name + ".json")
    cmd = ["/usr/bin/time", "-f", "maxrss_kb %M cpu_s %U %S", sys.executable,
           "tools/from_pytorch.py", "torchvision.models:" + name,
           "--input", "%dx3x%dx%d" % (batch, size, size), "-o", out]
    t0 = time.monotonic()
    r = subprocess.run(cmd, capture_output=True, text=True)
    wall = time.monotonic() - t0
    row = {"model": name, "input": "%dx3x%dx%d" % (batch, size, size),
           "seconds": round(wall, 2), "torchvision_params": want,
           "ok": r.returncode == 0}
    for line in r.stderr.splitlines():
        if line.startswith("maxrss_kb "):
            f = line.split()
            row["peak_mib"] = round(int(f[1]) / 1024.0, 1)
            row["cpu_seconds"] = round(float(f[3]) + float(f[4]), 2)
    if r.returncode != 0:
        row["error"] = (r.stderr.strip().splitlines() or ["?"])[0]
        return row
    g = json.load(open(out))
    os.remove(out)
    row["ops"] = len(g["ops"])
    row["graph_params"] = sum(o.get("param_bytes", 0) for o in g["ops"]
                              if o["type"] == "Variable") // 12
    comp = [o for o in g["ops"] if o.get("role") in
            ("forward", "backward", "grad", "update", "loss")]
    row["dims"] = "%d/%d" % (sum("dims" in o for o in comp), len(comp))
    return row


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--only", nargs="*")
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--json")
    ap.add_argument("--jobs", type=int, default=1,
                    help="conversions at a time")
    a = ap.parse_args(argv)
    import torch
    import torchvision
    import torchvision.models as tvm
    names = a.only or tvm.list_models(module=tvm)
    from concurrent.futures import ThreadPoolExecutor

    def job(n):
        r = one(n, a.batch, tmp)
        sys.stderr.write("%s: %s s (%s s CPU), %s MiB%s\n" % (
            n, r["seconds"], r.get("cpu_seconds"), r.get("peak_mib"),
            "" if r["ok"] else " FAILED " + r.get("error", "")))
        return r
    with tempfile.TemporaryDirectory() as tmp:
        with ThreadPoolExecutor(max_workers=max(a.jobs, 1)) as ex:
            rows = list(ex.map(job, names))
    print("torchvision %s, PyTorch %s, batch %d; %d models\n" % (
        torchvision.__version__, torch.__version__, a.batch, len(rows)))
    print("| model | input | seconds | CPU s | peak MiB | ops | parameters |"
          " = torchvision | dims on compute ops |")
    print("|---|---|---:|---:|---:|---:|---:|---|---:|")
    for r in rows:
        if not r["ok"]:
            print("| %s | %s | %.1f | %s | %s | failed: %s | | | |" % (
                r["model"], r["input"], r["seconds"], r.get("cpu_seconds"),
                r.get("peak_mib"), r.get("error", "")))
            continue
        print("| %s | %s | %.1f | %.1f | %.0f | %d | %d | %s | %s |" % (
            r["model"], r["input"], r["seconds"], r.get("cpu_seconds", 0),
            r.get("peak_mib", 0),
            r["ops"], r["graph_params"],
            "yes" if r["graph_params"] == r["torchvision_params"] else
            "NO (%d)" % r["torchvision_params"], r["dims"]))
    ok = [r for r in rows if r["ok"]]
    if ok:
        print("\n%d of %d converted; slowest %.1f s (%s; %.1f s CPU), most "
              "memory %.0f MiB (%s); parameters equal in %d" % (
                  len(ok), len(rows), max(r["seconds"] for r in ok),
                  max(ok, key=lambda r: r["seconds"])["model"],
                  max(ok, key=lambda r: r["seconds"]).get("cpu_seconds", 0),
                  max(r.get("peak_mib", 0) for r in ok),
                  max(ok, key=lambda r: r.get("peak_mib", 0))["model"],
                  sum(r["graph_params"] == r["torchvision_params"]
                      for r in ok)))
    if a.json:
        with open(a.json + ".tmp", "w") as f:
            json.dump(rows, f, indent=1)
            f.write("\n")
        os.replace(a.json + ".tmp", a.json)
    return 0 if len(ok) == len(rows) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

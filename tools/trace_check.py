#!/usr/bin/env python3
"""trace_check.py - checks a dnnpart trace against the Trace Event Format.

usage: trace_check.py TRACE.json [PLAN.json]

TRACE.json is what `dnnpart plan|export --trace` writes; PLAN.json, when
given, is `dnnpart plan --json` (or `eval --json`) of the same plan, whose
transfer count and per-device peaks and caps the trace must match. Prints
one line per failed rule ("FAIL rule: why") and exits 1 if any failed, else
prints a summary and exits 0. The rules (Chrome's "Trace Event Format"
document, and what Perfetto's JSON importer needs):
  - the file is a JSON object with a traceEvents array; every event has ph;
  - X (complete) events have name, ts, dur >= 0, pid and tid, finite;
  - every pid has a process_name, every (pid, tid) used a thread_name;
  - one process per device, named GPU0, GPU1, ...;
  - slices on one thread nest or follow each other, never overlap partly;
  - every flow start (s) has exactly one finish (f) with the same id and
    cat, not earlier, and the f binds to its enclosing slice (bp "e");
  - one flow per transfer of the plan (uncoarsened trace);
  - memory counters (C) never exceed the device's peak, which equals the
    highest counter value when the curve is not thinned; the cap series is
    the device's cap.
"""
import json
import math
import sys
from collections import defaultdict


def main(argv):
    if len(argv) not in (1, 2):
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    fails = []

    def fail(rule, why):
        if len([f for f in fails if f[0] == rule]) < 5:
            fails.append((rule, why))

    with open(argv[0], encoding="utf-8") as f:
        doc = json.load(f)
    plan = None
    if len(argv) == 2:
        with open(argv[1], encoding="utf-8") as f:
            plan = json.load(f)
    if not isinstance(doc, dict) or not isinstance(doc.get("traceEvents"), list):
        print("FAIL format: not an object with a traceEvents array")
        return 1
    ev = doc["traceEvents"]
    other = doc.get("otherData", {})
    pnames, tnames = {}, {}
    used_threads, used_pids = set(), set()
    slices = defaultdict(list)
    flows = defaultdict(lambda: {"s": [], "f": []})
    counters = defaultdict(list)
    for i, e in enumerate(ev):
        ph = e.get("ph")
        if not ph:
            fail("ph", "event %d has no ph" % i)
            continue
        if ph == "M":
            if e.get("name") == "process_name":
                pnames[e["pid"]] = e["args"]["name"]
            elif e.get("name") == "thread_name":
                tnames[(e["pid"], e["tid"])] = e["args"]["name"]
            continue
        if ph == "X":
            for k in ("name", "ts", "dur", "pid", "tid"):
                if k not in e:
                    fail("X", "event %d (%s) has no %s" % (i, e.get("name"), k))
            ts, dur = e.get("ts", 0), e.get("dur", -1)
            if not (isinstance(ts, (int, float)) and math.isfinite(ts) and ts >= 0):
                fail("X", "event %d: bad ts %r" % (i, ts))
            if not (isinstance(dur, (int, float)) and math.isfinite(dur) and dur >= 0):
                fail("X", "event %d: bad dur %r" % (i, dur))
            if "critical" not in e.get("args", {}):
                fail("X", "event %d: no critical flag in args" % i)
            used_threads.add((e.get("pid"), e.get("tid")))
            used_pids.add(e.get("pid"))
            slices[(e.get("pid"), e.get("tid"))].append((ts, dur, e.get("name")))
        elif ph in ("s", "f"):
            used_threads.add((e.get("pid"), e.get("tid")))
            used_pids.add(e.get("pid"))
            flows[(e.get("cat"), e.get("id"))][ph].append(e)
            if ph == "f" and e.get("bp") != "e":
                fail("flow", "finish of flow %r does not bind to its enclosing slice (bp)" % e.get("id"))
        elif ph == "C":
            used_pids.add(e.get("pid"))
            counters[e.get("pid")].append(e)
        else:
            fail("ph", "event %d: unexpected ph %r" % (i, ph))
    for pid in sorted(used_pids):
        if pid not in pnames:
            fail("names", "pid %r has no process_name" % pid)
    for t in sorted(used_threads):
        if t not in tnames:
            fail("names", "thread %r has no thread_name" % (t,))
    k = len(pnames)
    if sorted(pnames) != list(range(k)) or any(pnames[d] != "GPU%d" % d for d in pnames):
        fail("processes", "processes are not GPU0..GPU%d: %r" % (k - 1, pnames))
    if plan and k != len(plan["devices"]):
        fail("processes", "%d processes for %d devices" % (k, len(plan["devices"])))
    # nesting on each thread
    for t, sl in slices.items():
        sl.sort(key=lambda s: (s[0], -s[1]))
        stack = []
        for ts, dur, name in sl:
            while stack and stack[-1][1] <= ts + 1e-9:
                stack.pop()
            if stack and ts + dur > stack[-1][1] + 1e-6:
                fail("nesting", "thread %r: %r [%g, %g] overlaps %r" %
                     (t, name, ts, ts + dur, stack[-1][2]))
            stack.append((ts, ts + dur, name))
    # flows: exactly one start and one finish per id, finish inside a slice
    nflows = 0
    for key, fl in flows.items():
        if len(fl["s"]) != 1 or len(fl["f"]) != 1:
            fail("flow", "flow %r has %d starts and %d finishes" % (key, len(fl["s"]), len(fl["f"])))
            continue
        s, f = fl["s"][0], fl["f"][0]
        nflows += 1
        if f["ts"] < s["ts"]:
            fail("flow", "flow %r finishes before it starts" % (key,))
        inside = [x for x in slices[(f["pid"], f["tid"])] if x[0] <= f["ts"] <= x[0] + x[1]]
        if not inside:
            fail("flow", "flow %r finish is in no slice of its thread" % (key,))
    drawn = other.get("transfers_drawn")
    if drawn is not None and nflows != drawn:
        fail("transfers", "%d flows, the trace says %d transfers drawn" % (nflows, drawn))
    if plan is not None and other.get("transfers_drawn") == other.get("transfers"):
        if nflows != plan["transfers"]:
            fail("transfers", "%d flows for %d transfers in the plan" % (nflows, plan["transfers"]))
    # memory counters
    for pid, cs in counters.items():
        used = [c["args"]["used"] for c in cs]
        if plan is not None:
            dev = plan["devices"][pid]
            if max(used) > dev["peak_bytes"]:
                fail("memory", "GPU%d counter reaches %d > peak %d" % (pid, max(used), dev["peak_bytes"]))
            if max(used) != dev["peak_bytes"]:
                fail("memory", "GPU%d counter peaks at %d, the plan at %d" % (pid, max(used), dev["peak_bytes"]))
            if "cap_bytes" in dev and any(c["args"].get("cap") != dev["cap_bytes"] for c in cs):
                fail("memory", "GPU%d cap series differs from the cap %d" % (pid, dev["cap_bytes"]))
    if plan is not None and len(counters) != len(plan["devices"]):
        fail("memory", "%d memory counters for %d devices" % (len(counters), len(plan["devices"])))
    for rule, why in fails:
        print("FAIL %s: %s" % (rule, why))
    if fails:
        return 1
    print("ok: %d events, %d processes, %d threads, %d slices, %d flows, %d counter points" %
          (len(ev), k, len(tnames), sum(len(s) for s in slices.values()), nflows,
           sum(len(c) for c in counters.values())))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

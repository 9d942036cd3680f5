#!/usr/bin/env python3
"""svg_check.py - how readable a Graphviz SVG is, measured.

usage: svg_check.py [--json] FILE.svg...

For each file: its size in points (and in pixels at 100 %, as rsvg-convert
renders it: 96 dpi, 4/3 px per pt), its aspect (height / width), the number
of text labels and how many pairs of them overlap. A label's box is
estimated from its font size (Helvetica: 0.55 em per character on average,
one em tall), shrunk by half a point on each side so that labels that only
touch do not count. Exit status 0; the numbers are for people and tests.
"""
import json
import re
import sys
import xml.etree.ElementTree as ET

NS = "{http://www.w3.org/2000/svg}"


def pt(v):
    m = re.match(r"\s*([0-9.]+)", v or "0")
    return float(m.group(1)) if m else 0.0


def boxes(root):
    out = []
    for t in root.iter(NS + "text"):
        s = "".join(t.itertext())
        if not s.strip():
            continue
        fs = float(t.get("font-size", "14"))
        x, y = float(t.get("x", "0")), float(t.get("y", "0"))
        w = len(s) * fs * 0.55
        anchor = t.get("text-anchor", "start")
        x0 = x - w / 2 if anchor == "middle" else x - w if anchor == "end" else x
        # y is the baseline: the box runs about 0.8 em above, 0.2 below
        out.append((x0 + 0.5, y - 0.8 * fs + 0.5, x0 + w - 0.5, y + 0.2 * fs - 0.5, s))
    return out


def overlaps(bs):
    bs = sorted(bs, key=lambda b: b[1])
    n = 0
    pairs = []
    active = []
    for b in bs:
        active = [a for a in active if a[3] > b[1]]
        for a in active:
            if a[0] < b[2] and b[0] < a[2]:
                n += 1
                if len(pairs) < 5:
                    pairs.append((a[4], b[4]))
        active.append(b)
    return n, pairs


def clusters(root):
    """Device clusters left to right: (title, leftmost x)."""
    out = []
    for g in root.iter(NS + "g"):
        if g.get("class") != "cluster":
            continue
        t = g.find(NS + "title")
        xs = []
        for el in g.iter():
            d = el.get("d") or el.get("points") or ""
            xs += [float(v) for v in re.findall(r"(-?[0-9.]+),-?[0-9.]+", d)]
        if t is not None and xs:
            out.append((min(xs), t.text))
    return [name for _, name in sorted(out)]


def check(path):
    root = ET.parse(path).getroot()
    w, h = pt(root.get("width")), pt(root.get("height"))
    bs = boxes(root)
    n, pairs = overlaps(bs)
    return {
        "file": path,
        "width_pt": w,
        "height_pt": h,
        "width_px": round(w * 4 / 3),
        "height_px": round(h * 4 / 3),
        "aspect": round(h / w, 2) if w else 0,
        "labels": len(bs),
        "overlapping_pairs": n,
        "clusters": clusters(root),
        "examples": pairs,
    }


def main(argv):
    as_json = "--json" in argv
    files = [a for a in argv if a != "--json"]
    res = [check(f) for f in files]
    if as_json:
        print(json.dumps(res, indent=1))
        return 0
    for r in res:
        print("%s: %dx%d pt (%dx%d px at 100%%), aspect %.2f, %d labels, "
              "%d overlapping; clusters %s" % (
                  r["file"], r["width_pt"], r["height_pt"], r["width_px"],
                  r["height_px"], r["aspect"], r["labels"],
                  r["overlapping_pairs"],
                  " ".join(c.replace("cluster_dev", "") for c in r["clusters"])))
        for a, b in r["examples"]:
            print("   %r / %r" % (a, b))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

#!/usr/bin/env python3
"""tui_captures.py - the explorer's screen captures in README.md and docs/
come from real runs, so they cannot go stale.

A fenced block preceded by a line

    <!-- capture WxH: COMMAND -->
    <!-- capture WxH keys "KEY KEY ...": COMMAND -->

holds the screen of the real explorer: this script runs COMMAND (for example
`./dnnpart sample_graphs/gpt2-small.json -k 4 --mem 12GiB`) in a private
tmux server at W columns and H rows (LANG=C.UTF-8, TERM=screen, NO_COLOR,
in a scratch folder where `./dnnpart`, `sample_graphs/` and `tests/` point
into the repository, so nothing the explorer could write lands in it),
waits until the plan is on screen and no rerun runs, sends the keys (tmux
key names: `5`, `j`, `Enter`, `Escape`...; it waits for the screen to
settle after each), takes the screen with `tmux capture-pane`, and quits
with `q`. Then:

  --check FILE...   compares each capture with a real run and prints
                    `ok - FILE:LINE` or `not ok - FILE:LINE` with a diff
                    (only what changes from run to run is masked: the
                    planning time, `planned in 12.3 ms`); exit 1 if any
                    differs; `skip - ...` when tmux is not installed;
  --write FILE...   writes the real screens into the blocks.

DNNPART names the binary (default: ./dnnpart in the repository).
"""
import difflib
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MARK = re.compile(r'^<!-- capture (\d+)x(\d+)(?: keys "([^"]*)")?: (.+?) -->$')

# What changes from run to run, not from one dnnpart to the next.
MASKS = [
    (re.compile(r"planned in \S+ \S+"), "planned in <time>"),
]
# A screen that is still busy: a rerun, a comparison, a stale plan, a
# prompt still being typed into is fine (keys may leave one open).
BUSY = re.compile(r"rerunning|comparing|STALE|planning|waiting for the")


def mask(line):
    for rx, rep in MASKS:
        line = rx.sub(rep, line)
    return line.rstrip()


def blocks(text):
    """(marker index, fence start, fence end, w, h, keys, command) of each
    capture block."""
    lines = text.split("\n")
    out = []
    i = 0
    while i < len(lines):
        m = MARK.match(lines[i].strip())
        if m and i + 1 < len(lines) and lines[i + 1].startswith("```"):
            j = i + 2
            while j < len(lines) and not lines[j].startswith("```"):
                j += 1
            out.append((i, i + 1, j, int(m.group(1)), int(m.group(2)),
                        (m.group(3) or "").split(), m.group(4)))
            i = j
        i += 1
    return out


class Tmux:
    def __init__(self):
        self.sock = "dnnpart-captures-%d" % os.getpid()
        # one session for the server's whole life, so that it does not exit
        # (and race the next new-session) when a capture's session ends
        self.run("new-session", "-d", "-s", "keep", "exec sleep 3600")

    def run(self, *args, check=True):
        return subprocess.run(["tmux", "-L", self.sock, "-f", "/dev/null"] +
                              list(args), stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True,
                              check=check)

    def screen(self, name):
        p = self.run("capture-pane", "-p", "-t", name, check=False)
        return p.stdout.rstrip("\n").split("\n") if p.returncode == 0 \
            else []

    def kill(self):
        self.run("kill-server", check=False)


def settled(t, name, limit):
    """Waits until the plan is on screen, no job runs and the screen holds
    still for a few polls; returns the screen."""
    end = time.time() + limit
    last, same = None, 0
    while time.time() < end:
        s = t.screen(name)
        text = "\n".join(s)
        ready = len(s) > 1 and ("makespan" in s[1] or "no plan" in s[1]
                                or "too small" in text or "exited" in text)
        if ready and not BUSY.search(text):
            same = same + 1 if s == last else 0
            if same >= 3:
                return s
        last = s
        time.sleep(0.05)
    return last or []


def capture(t, n, w, h, keys, command, work, binary):
    name = "c%d" % n
    env = ("env LANG=C.UTF-8 LC_ALL=C.UTF-8 TERM=screen NO_COLOR=1 "
           "PATH=%s:$PATH" % os.path.join(work, "bin"))
    # the explorer's own exit is part of the screen if it fails
    t.run("new-session", "-d", "-s", name, "-x", str(w), "-y", str(h),
          "-c", work, "%s %s; echo \"dnnpart exited with $?\"; "
          "exec sleep 120" % (env, command))
    try:
        settled(t, name, 120)
        for k in keys:
            t.run("send-keys", "-t", name, k)
            time.sleep(0.05)
            settled(t, name, 120)
        s = t.screen(name)
        t.run("send-keys", "-t", name, "q", check=False)
    finally:
        t.run("kill-session", "-t", name, check=False)
    s = [x.rstrip() for x in s]
    while len(s) < h:
        s.append("")
    return s[:h]


def scratch(binary):
    d = tempfile.mkdtemp(prefix="dnnpart-captures.")
    for name in ("sample_graphs", "tests", "docs"):
        os.symlink(os.path.join(ROOT, name), os.path.join(d, name))
    os.symlink(binary, os.path.join(d, "dnnpart"))
    os.mkdir(os.path.join(d, "bin"))
    os.symlink(binary, os.path.join(d, "bin", "dnnpart"))
    return d


def process(path, t, binary):
    """Checks every capture of path against a real run; returns how many
    differ."""
    text = open(path, encoding="utf-8").read()
    rel = os.path.relpath(path, ROOT)
    lines = text.split("\n")
    failed = 0
    work = scratch(binary)
    try:
        for n, (mark, start, end, w, h, keys, command) in \
                enumerate(blocks(text)):
            got = capture(t, n, w, h, keys, command, work, binary)
            a = [mask(x) for x in lines[start + 1:end]]
            b = [mask(x) for x in got]
            if a == b:
                print("ok - %s:%d: %dx%d %s%s" % (rel, mark + 1, w, h, command,
                                                " keys " + " ".join(keys) if keys else ""))
                continue
            failed += 1
            print("not ok - %s:%d: the capture differs from the real "
                  "explorer (python3 tools/tui_captures.py --write %s)"
                  % (rel, mark + 1, rel))
            for r in list(difflib.unified_diff(a, b, "document", "real run",
                                               lineterm="", n=1))[:60]:
                print("#   " + r)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return failed


def rewrite(path, t, binary):
    """Writes every capture of path from real runs; returns 0."""
    text = open(path, encoding="utf-8").read()
    lines = text.split("\n")
    work = scratch(binary)
    try:
        for n, (mark, start, end, w, h, keys, command) in \
                reversed(list(enumerate(blocks(text)))):
            got = capture(t, n, w, h, keys, command, work, binary)
            lines[start + 1:end] = got
            print("wrote %s:%d: %dx%d %s" % (os.path.relpath(path, ROOT),
                                             mark + 1, w, h, command))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    with open(path + ".tmp", "w", encoding="utf-8") as f:
        f.write("\n".join(lines))
    os.replace(path + ".tmp", path)
    return 0


def main(argv):
    if len(argv) < 3 or argv[1] not in ("--check", "--write"):
        sys.stderr.write("usage: tui_captures.py --check|--write FILE...\n")
        return 2
    binary = os.path.abspath(os.environ.get("DNNPART") or
                             os.path.join(ROOT, "dnnpart"))
    if not shutil.which("tmux"):
        print("skip - screen captures: tmux is not installed")
        return 0
    if not os.access(binary, os.X_OK):
        print("not ok - screen captures: no dnnpart binary at %s" % binary)
        return 1
    failed = 0
    t = Tmux()
    try:
        for path in argv[2:]:
            path = os.path.abspath(path)
            if argv[1] == "--write":
                rewrite(path, t, binary)
            else:
                failed += process(path, t, binary)
    finally:
        t.kill()
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

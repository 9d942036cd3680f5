#!/usr/bin/env python3
"""docs_examples.py - the command examples in README.md and docs/ come from
real runs, so they cannot go stale.

A fenced block preceded by the line `<!-- example -->` holds commands, each
on a line starting `$ `, each followed by what it prints. This script runs
every command (in a scratch folder where `./dnnpart`, `dnnpart`,
`sample_graphs/` and `tests/` point into the repository, so files the
examples write land there, never over the repository's own) and:

  --check FILE...   compares the printed text with the block (timings that
                    change from run to run, such as `plan time`, are
                    masked) and prints `ok - FILE:LINE` or `not ok -
                    FILE:LINE` with a diff; exit 1 if any differs;
  --write FILE...   writes the real output into the blocks.

A command's output that ends with a line `...` alone in the document is
compared (and written) only up to that line: the example shows the start.
Commands run with LC_ALL=C and COLUMNS=80; stderr is shown after stdout.
The binary is $DNNPART when set, else the repository's ./dnnpart.
"""
import difflib
import os
import re
import shutil
import subprocess
import sys
import tempfile

MARK = "<!-- example -->"
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Numbers that depend on the machine's speed, not on dnnpart's answer.
MASKS = [
    (re.compile(r"^(plan time\s+)\S+ \S+"), r"\1<time>"),
    (re.compile(r"(planned in )\S+ \S+"), r"\1<time>"),
    # compare's rows: the plan time column follows the cut-edge count
    (re.compile(r"^([* ] \S+ .*\s\d+)\s+\d[\d.]* (?:ns|us|ms|s)\b"),
     r"\1 <time>"),
]


def mask(line):
    for rx, rep in MASKS:
        line = rx.sub(rep, line)
    return line.rstrip()


def blocks(text):
    """(start, end, lines) of each example block: lines between the
    fences, start/end the indices of the fence lines."""
    lines = text.split("\n")
    out = []
    i = 0
    while i < len(lines):
        if lines[i].strip() == MARK and i + 1 < len(lines) and \
                lines[i + 1].startswith("```"):
            j = i + 2
            while j < len(lines) and not lines[j].startswith("```"):
                j += 1
            out.append((i + 1, j, lines[i + 2:j]))
            i = j
        i += 1
    return out


def commands(body):
    """[(command, shown output lines, truncated?)] of a block; the blank
    line that separates one command's output from the next is not part of
    either."""
    cmds = []
    for line in body:
        if line.startswith("$ "):
            cmds.append([line[2:], [], False])
        elif cmds:
            if line.strip() == "...":
                cmds[-1][2] = True
            elif not cmds[-1][2]:
                cmds[-1][1].append(line)
    for c in cmds:
        while c[1] and not c[1][-1].strip():
            c[1].pop()
    return cmds


def scratch():
    d = tempfile.mkdtemp(prefix="dnnpart-docs.")
    for name in ("sample_graphs", "tests", "docs"):
        os.symlink(os.path.join(ROOT, name), os.path.join(d, name))
    # the binary under test: $DNNPART (the sanitizer build's in
    # check-asan), else the repository's ./dnnpart
    binary = os.environ.get("DNNPART") or os.path.join(ROOT, "dnnpart")
    os.symlink(os.path.abspath(binary), os.path.join(d, "dnnpart"))
    os.mkdir(os.path.join(d, "bin"))
    os.symlink(os.path.abspath(binary), os.path.join(d, "bin", "dnnpart"))
    return d


def run(cmd, cwd):
    env = dict(os.environ, LC_ALL="C", COLUMNS="80",
               PATH=os.path.join(cwd, "bin") + ":" + os.environ["PATH"])
    env.pop("NO_COLOR", None)
    p = subprocess.run(cmd, shell=True, cwd=cwd, env=env,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True, timeout=300)
    out = p.stdout + p.stderr
    lines = out.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return lines


def process(path, write):
    text = open(path, encoding="utf-8").read()
    rel = os.path.relpath(path, ROOT)
    failed = 0
    new = text.split("\n")
    shift = 0
    work = scratch()
    try:
        for start, end, body in blocks(text):
            got_block = []
            same = True
            report = []
            for cmd, shown, truncated in commands(body):
                got = run(cmd, work)
                while got and not got[-1].strip():
                    got.pop()
                if truncated:
                    got = got[:len(shown)]
                if got_block:
                    got_block.append("")
                got_block.append("$ " + cmd)
                got_block.extend(got)
                if truncated:
                    got_block.append("...")
                a = [mask(x) for x in shown]
                b = [mask(x) for x in got]
                if a != b:
                    same = False
                    report.extend(difflib.unified_diff(
                        a, b, "document", "real run", lineterm="", n=1))
            line = start + 1
            if same:
                print("ok - %s:%d" % (rel, line))
            else:
                failed += 1
                print("not ok - %s:%d: the example differs from a real "
                      "run (python3 tools/docs_examples.py --write %s)" %
                      (rel, line, rel))
                for r in report[:60]:
                    print("#   " + r)
            new[start + 1 + shift:end + shift] = got_block
            shift += len(got_block) - (end - start - 1)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if write:
        with open(path + ".tmp", "w", encoding="utf-8") as f:
            f.write("\n".join(new))
        os.replace(path + ".tmp", path)
    return failed


def main(argv):
    if len(argv) < 3 or argv[1] not in ("--check", "--write"):
        sys.stderr.write("usage: docs_examples.py --check|--write FILE...\n")
        return 2
    write = argv[1] == "--write"
    failed = 0
    for path in argv[2:]:
        failed += process(os.path.abspath(path), write)
    return 1 if failed and not write else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

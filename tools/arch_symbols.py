#!/usr/bin/env python3
"""arch_symbols.py - the engine's floors, read from the compiled objects.

tools/arch_check.py reads #include lines; every engine folder includes only
include/ and engine/internal/, so includes cannot say which folder calls
which. This check reads what the objects themselves say: `nm` on each
object of BUILD/engine/**.o gives the symbols it defines and the ones it
uses, and a use of a symbol defined in another engine folder is a call from
that folder to the other. The rules (docs/architecture.md, "Floors"):
  - every engine folder has a floor in FLOORS below;
  - a folder calls only folders on lower floors (not up, not sideways);
  - the folder call graph has no circle (implied by the above, and checked
    on its own so that the message names the circle).
Objects whose source file no longer exists (left in BUILD by a move) are
ignored. Prints one "ok - NAME" or "not ok - NAME: why" line per rule;
--report prints the floors and who calls whom, for docs/architecture.md.
--every-object keeps those too (the suite's own test of this check).
Usage: arch_symbols.py [--build DIR] [--every-object] [--report]
"""
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from arch_check import Checker, cycles  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# floor -> the engine folders on it, lowest first. A folder may call the
# folders of lower floors only.
FLOORS = [
    ['engine/core'],
    ['engine/gen', 'engine/sim', 'engine/strategy'],
    ['engine/algo'],
    ['engine/algo/mincut', 'engine/algo/pardnn'],
    ['engine/algo/ilp'],
    ['engine/plan'],
    ['engine/io'],
    ['engine/export'],
]
FLOOR_OF = {f: i for i, fl in enumerate(FLOORS) for f in fl}


def objects(build, every=False):
    out = []
    base = os.path.join(build, 'engine')
    for d, _, files in os.walk(base):
        for f in files:
            if not f.endswith('.o'):
                continue
            obj = os.path.join(d, f)
            src = os.path.relpath(obj, build)[:-2] + '.c'
            if every or os.path.exists(os.path.join(ROOT, src)):
                out.append((obj, os.path.dirname(src)))
    return sorted(out)


def call_graph(build, every):
    """{caller folder: {callee folder: [(object, symbol), ...]}}"""
    defined, used = {}, []
    for obj, folder in objects(build, every):
        nm = subprocess.run(['nm', obj], capture_output=True, text=True,
                            check=True).stdout
        for line in nm.splitlines():
            p = line.split()
            if len(p) == 2 and p[0] == 'U':
                used.append((folder, os.path.basename(obj), p[1]))
            elif len(p) == 3 and p[1] in 'TDRBCV':
                defined[p[2]] = folder
    graph = {}
    for folder, obj, sym in used:
        to = defined.get(sym)
        if to and to != folder:
            graph.setdefault(folder, {}).setdefault(to, []).append(
                (obj, sym))
    return graph


def report(graph):
    for i, fl in enumerate(FLOORS):
        for f in fl:
            calls = sorted(graph.get(f, {}))
            print('%d  %-20s -> %s' % (i, f, ', '.join(calls) or '-'))


def main(argv):
    build = 'build'
    if '--build' in argv:
        build = argv[argv.index('--build') + 1]
    if not os.path.isdir(os.path.join(build, 'engine')):
        print('not ok - arch/symbols: no objects under %s/engine (build '
              'first)' % build)
        return 1
    every = '--every-object' in argv
    graph = call_graph(build, every)
    if '--report' in argv:
        report(graph)
        return 0
    checker = Checker()
    check = checker.check

    folders = sorted({f for _, f in objects(build, every)})
    check('symbols-every-folder-has-a-floor',
          ['%s is on no floor (add it to FLOORS in tools/arch_symbols.py '
           'and to docs/architecture.md)' % f
           for f in folders if f not in FLOOR_OF])
    up = []
    for a in sorted(graph):
        for b in sorted(graph[a]):
            if a in FLOOR_OF and b in FLOOR_OF and \
                    FLOOR_OF[b] >= FLOOR_OF[a]:
                obj, sym = sorted(graph[a][b])[0]
                up.append('%s (floor %d) calls %s (floor %d): %s uses %s%s'
                          % (a, FLOOR_OF[a], b, FLOOR_OF[b], obj, sym,
                             ' (+%d more)' % (len(graph[a][b]) - 1)
                             if len(graph[a][b]) > 1 else ''))
    check('symbols-calls-go-down', up)
    check('symbols-no-folder-circle',
          [' <-> '.join(c) for c in cycles(graph)])
    return 1 if checker.bad else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))

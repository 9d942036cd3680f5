#!/usr/bin/env python3
"""arch_check.py - checks the shape of the house (docs/architecture.md).

Reads every C source and header of the tree and checks the rules that the
compiler alone does not:
  - engine/ has no source or header at its root (sources live in its
    sub-folders, public headers in include/dnnpart/, private ones in
    engine/internal/);
  - no file of the engine (engine/, include/) is over 700 lines, nor any
    other C source or header (main.c, jobs/, views/, cli/, tui/, bench/,
    fuzz/, tests/ with tests/lib/);
  - no include circle between files, nor between modules (a module is
    X.c with its X.h: actions.c including prompt.h while prompt.c includes
    actions.h makes the two modules depend on each other);
  - every #include "..." resolves inside the layers its folder may use (the
    same rule as the Makefile's INC_* include paths);
  - public headers include only public headers and system headers, and
    every function, static inline helper and macro they declare is named
    dp_* / DP_*;
  - with --lib FILE: at least 90 % of the library's exported symbols start
    with dp_ (the public prefix).
Prints one "ok - NAME" or "not ok - NAME: why" line per rule (tests/run.sh
counts them). --report prints the layer drawing instead: which folders each
folder includes, for docs/architecture.md.
"""
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# layer -> include folders (relative to ROOT) it may use, in search order;
# the folder of the including file comes first, as for #include "...".
LAYERS = {
    'include': ['include'],
    'engine': ['include', 'engine'],
    'jobs': ['include', 'jobs'],
    'views': ['include', 'views'],
    'cli': ['include', 'cli', 'jobs', 'views'],
    'tui': ['include', 'tui', 'cli', 'jobs', 'views'],
    'main': ['include', 'cli', 'tui'],
    'bench': ['include', 'jobs', 'views', 'bench', 'engine'],
    'fuzz': ['include', 'engine', 'fuzz'],
    'tests': ['include', 'engine', 'jobs', 'views', 'cli', 'tui', 'tests'],
}
SOURCE_DIRS = ['include', 'engine', 'jobs', 'views', 'cli', 'tui', 'bench',
               'fuzz', 'tests']
MAX_LINES = 700
INCLUDE_RE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def layer_of(rel):
    if rel == 'main.c':
        return 'main'
    return rel.split('/', 1)[0]


def sources():
    out = ['main.c'] if os.path.exists(os.path.join(ROOT, 'main.c')) else []
    for d in SOURCE_DIRS:
        for base, _, files in os.walk(os.path.join(ROOT, d)):
            for f in files:
                if f.endswith(('.c', '.h')):
                    out.append(os.path.relpath(os.path.join(base, f), ROOT))
    return sorted(out)


def resolve(rel, name):
    """The file an #include "name" in rel finds, or None."""
    here = os.path.normpath(os.path.join(os.path.dirname(rel), name))
    if os.path.exists(os.path.join(ROOT, here)):
        return here
    for d in LAYERS[layer_of(rel)]:
        p = os.path.normpath(os.path.join(d, name))
        if os.path.exists(os.path.join(ROOT, p)):
            return p
    return None


def include_graph(files):
    graph, unresolved = {}, []
    for rel in files:
        with open(os.path.join(ROOT, rel), encoding='utf-8',
                  errors='replace') as fh:
            text = fh.read()
        deps = []
        for name in INCLUDE_RE.findall(text):
            target = resolve(rel, name)
            if target is None:
                unresolved.append((rel, name))
            else:
                deps.append(target)
        graph[rel] = deps
    return graph, unresolved


def cycles(graph):
    """Strongly connected components of more than one node (Tarjan): graph
    maps a node to the nodes it depends on (a list, or a dict's keys)."""
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]
    sys.setrecursionlimit(10000)

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph.get(v, []):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1 or v in graph.get(v, []):
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


class Checker:
    """Prints "ok - arch/NAME" or "not ok - arch/NAME: the first 8
    problems" per rule and counts the rules broken (also for
    tools/arch_symbols.py)."""

    def __init__(self):
        self.bad = 0

    def check(self, name, problems):
        if problems:
            self.bad += 1
            shown = '; '.join(problems[:8])
            more = len(problems) - 8
            print('not ok - arch/%s: %s%s' % (name, shown,
                  ' (+%d more)' % more if more > 0 else ''))
        else:
            print('ok - arch/%s' % name)


def module_graph(graph):
    """The include graph with X.c and X.h of one folder as one module."""
    def module(rel):
        return os.path.splitext(rel)[0]
    out = {}
    for rel, targets in graph.items():
        deps = out.setdefault(module(rel), [])
        for t in targets:
            if module(t) != module(rel) and module(t) not in deps:
                deps.append(module(t))
    return out


def report(graph):
    def folder(rel):
        parts = rel.split('/')
        if parts[0] == 'engine' and len(parts) > 2:
            return '/'.join(parts[:-1])
        return parts[0] if len(parts) > 1 else rel
    deps = {}
    for rel, targets in graph.items():
        if layer_of(rel) in ('tests', 'bench', 'fuzz'):
            continue
        a = folder(rel)
        for t in targets:
            b = folder(t)
            if a != b:
                deps.setdefault(a, set()).add(b)
    for a in sorted(deps):
        print('%-20s -> %s' % (a, ', '.join(sorted(deps[a]))))


def main(argv):
    lib = None
    if '--lib' in argv:
        lib = argv[argv.index('--lib') + 1]
    files = sources()
    graph, unresolved = include_graph(files)
    if '--report' in argv:
        report(graph)
        return 0
    checker = Checker()
    check = checker.check

    check('engine-root-empty',
          [f for f in files if f.startswith('engine/') and f.count('/') == 1])
    long = {True: [], False: []}  # engine or include: the files
    for f in files:
        with open(os.path.join(ROOT, f), encoding='utf-8',
                  errors='replace') as fh:
            n = sum(1 for _ in fh)
        if n > MAX_LINES:
            long[layer_of(f) in ('engine', 'include')].append(
                '%s has %d lines (at most %d)' % (f, n, MAX_LINES))
    check('engine-files-short', long[True])
    check('files-short', long[False])
    check('no-include-circle',
          [' <-> '.join(c) for c in cycles(graph)])
    check('no-module-circle',
          [' <-> '.join(c) for c in cycles(module_graph(graph))])
    check('includes-resolve-in-layer',
          ['%s includes "%s", not found in %s' %
           (f, n, ' '.join(LAYERS[layer_of(f)])) for f, n in unresolved])
    check('public-headers-public',
          ['%s includes %s' % (f, t) for f in files
           if f.startswith('include/') for t in graph[f]
           if not t.startswith('include/')])
    names = []
    decl = re.compile(r'^(?:static inline |extern )?[A-Za-z_][\w \t\*]*?'
                      r'\b([A-Za-z_]\w*)\s*\(')
    for f in files:
        if not f.startswith('include/'):
            continue
        with open(os.path.join(ROOT, f), encoding='utf-8') as fh:
            for n, line in enumerate(fh, 1):
                m = re.match(r'#\s*define\s+(\w+)', line)
                if m and not m.group(1).startswith(('DP_', 'DNNPART_')):
                    names.append('%s:%d: macro %s' % (f, n, m.group(1)))
                m = decl.match(line)
                if (m and not line.startswith('typedef') and
                        not m.group(1).startswith('dp_')):
                    names.append('%s:%d: %s' % (f, n, m.group(1)))
    check('public-names-prefixed', names)
    if lib:
        try:
            nm = subprocess.run(['nm', '-g', '--defined-only', lib],
                                capture_output=True, text=True, check=True)
        except (OSError, subprocess.CalledProcessError) as e:
            check('exports-prefixed', ['cannot run nm on %s: %s' % (lib, e)])
        else:
            # the sanitizers' own symbols (__odr_asan.NAME, one per
            # global of the library) are the compiler's, not our API
            syms = sorted({l.split()[2] for l in nm.stdout.splitlines()
                           if len(l.split()) == 3 and
                           not l.split()[2].startswith(('__odr_asan',
                                                        '__asan',
                                                        '__ubsan'))})
            other = [s for s in syms if not s.startswith('dp_')]
            share = (len(syms) - len(other)) / len(syms) if syms else 0
            problems = []
            if not syms:
                problems.append('%s exports no symbol' % lib)
            elif share < 0.9:
                problems.append('%d of %d exported symbols start with dp_ '
                                '(%.0f %%, want at least 90 %%); others: %s' %
                                (len(syms) - len(other), len(syms),
                                 100 * share, ' '.join(other[:20])))
            check('exports-prefixed', problems)
    return 1 if checker.bad else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))

#!/usr/bin/env python3
"""standalone_check.py - the repository stands alone (docs/architecture.md).

Reads every file of the tree (the tracked ones where git knows the tree,
else every file but build outputs) and checks:
  - standalone/no-design-citations: no file cites the design brief that is
    not in the repository (its name in capitals followed by a section
    number, or its file name): what the code relies on is in docs/, and
    citations point there;
  - standalone/no-reads-outside: no file names a path in ../shared, except
    the optional ParDNN authors' ResNet folder (pardnn-resnet, which states
    no licence and so is not copied): a line naming ../shared must name
    pardnn-resnet itself or within three lines of it.
Prints one "ok - NAME" or "not ok - NAME: file:line ..." line per rule
(tests/run.sh counts them); exit status 0 either way. --root DIR checks
another tree (the suite's test of the check itself).
"""
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# spelled in two parts so that this file does not match itself
DESIGN_RE = re.compile('DESI' + r'GN(\.md\b|\s+(section\s+)?\d)')
SHARED = '../' + 'shared'
ALLOWED = 'pardnn-resnet'
NEAR = 3  # lines either side


def files():
    try:
        out = subprocess.run(['git', 'ls-files', '-z'], cwd=ROOT,
                             capture_output=True, check=True).stdout
        names = [n for n in out.decode('utf-8', 'replace').split('\0') if n]
        if names:
            return names
    except (OSError, subprocess.CalledProcessError):
        pass
    names = []
    for d, subs, fs in os.walk(ROOT):
        rel = os.path.relpath(d, ROOT)
        subs[:] = [s for s in subs
                   if not (s == '.git' or s.startswith('build')
                           and rel == '.')]
        names += [os.path.normpath(os.path.join(rel, f)) for f in fs]
    return sorted(names)


def text(rel):
    path = os.path.join(ROOT, rel)
    if not os.path.isfile(path) or os.path.islink(path):
        return None
    with open(path, 'rb') as f:
        data = f.read()
    if b'\0' in data:
        return None
    return data.decode('utf-8', 'replace').split('\n')


def main():
    global ROOT
    if len(sys.argv) == 3 and sys.argv[1] == '--root':
        ROOT = os.path.abspath(sys.argv[2])
    elif len(sys.argv) != 1:
        sys.stderr.write('usage: standalone_check.py [--root DIR]\n')
        return 2
    cites, outside = [], []
    for rel in files():
        lines = text(rel)
        if lines is None:
            continue
        for i, line in enumerate(lines):
            if DESIGN_RE.search(line):
                cites.append('%s:%d' % (rel, i + 1))
            if SHARED in line:
                near = lines[max(0, i - NEAR):i + NEAR + 1]
                if not any(ALLOWED in x for x in near):
                    outside.append('%s:%d' % (rel, i + 1))
    for name, found, what in (
            ('standalone/no-design-citations', cites,
             'cites the design brief outside the repository (point to '
             'docs/ instead)'),
            ('standalone/no-reads-outside', outside,
             'names %s beyond the optional %s' % (SHARED, ALLOWED))):
        if found:
            more = ' (and %d more)' % (len(found) - 5) if len(found) > 5 \
                else ''
            print('not ok - %s: %s %s%s' % (name, ', '.join(found[:5]),
                                            what, more))
        else:
            print('ok - %s' % name)
    return 0


if __name__ == '__main__':
    sys.exit(main())

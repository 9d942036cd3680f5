#!/usr/bin/env python3
"""pardnn_folder.py - writes a graph of ours as a ParDNN input folder.

The ParDNN reference (Qararyah et al. 2021) reads a training graph as a
folder of text files (docs/formats.md, "ParDNN folder"). The real example,
a TensorFlow ResNet, states no licence and stays out of the repository; the
tests of dnnpart's ParDNN loader and of its pardnn algorithm use this
script's folder instead, made from one of our own sample graphs (native
JSON, sample_graphs/). Regenerate after changing this script or the
source graph, and commit the output:

  python3 tools/pardnn_folder.py        # tests/data/pardnn-resnet50/

What it writes, as TensorFlow would have exported the same step:
  - every `param` op becomes a variable (var_nodes.txt) and gets a read op
    `NAME/read` (ref_nodes.txt) between it and the ops that used it;
  - every `update` op is a ref op too, with an edge from its variable;
  - `backward` and `grad` ops move under the `gradients/` name scope;
  - a no-op `train_op` (no_ops.txt) waits for every update (control edges);
  - `src` precedes the ops without predecessors and `snk` follows those
    without successors (crn_src_sink_low.dot);
  - durations: integer microseconds, no line for an op of time 0 (such an
    op takes the reference's default, 1 us); tensor sizes: the op's output
    bytes (a variable's and a read's: the bytes of the weight it feeds);
    memory.txt: the same, but a variable's whole param_bytes (weight and
    optimizer state);
  - vanilla_cleaned.place: device 0 for every op, -1 (the host CPU) for the
    `input` ops, as TensorFlow places a dataset iterator; collocations.txt
    is empty, as in the real example;
  - reference/layers-K4.place: a placement in the reference's output format
    (every op but the no-ops and the host's, src and snk included) that is
    NOT ParDNN's
    output: the ops in order cut into 4 blocks of equal work, each
    variable, read and update on the device of the read's first consumer.

Python 3 standard library only; the output is deterministic.
Usage: python3 tools/pardnn_folder.py [--graph FILE] [--out DIR] [--k K]
"""
import argparse
import json
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def convert(g):
    """The folder's ops (name -> dict) in order and its edges."""
    roles = {o['name']: o.get('role', '') for o in g['ops']}
    grad_scope = ('backward', 'grad')

    def tf(name):
        return 'gradients/' + name if roles[name] in grad_scope else name

    ops, order = {}, []

    def add(name, **kw):
        ops[name] = kw
        order.append(name)

    weight = {}  # variable -> bytes of the weight its consumers read
    for e in g['edges']:
        if roles[e['from']] == 'param':
            weight[e['from']] = max(weight.get(e['from'], 0), e['bytes'])
    for o in g['ops']:
        n, r = o['name'], o.get('role', '')
        if r == 'param':
            w = weight.get(n, 0)
            add(n, kind='var', time=0, size=w, mem=o.get('param_bytes', 0))
            add(n + '/read', kind='ref', time=0, size=w, mem=w)
        else:
            kind = 'ref' if r == 'update' else ''
            add(tf(n), kind=kind, time=o['time_us'],
                size=o['output_bytes'], mem=o['output_bytes'],
                cpu=(r == 'input'))
    edges = []
    for e in g['edges']:
        a, b = e['from'], e['to']
        edges.append((a + '/read' if roles[a] == 'param' else tf(a), tf(b)))
    for o in g['ops']:
        if o.get('role') == 'update':
            var = o.get('colocate')
            if var not in ops or ops[var]['kind'] != 'var':
                sys.exit('pardnn_folder.py: update op %s has no variable '
                         '(colocate)' % o['name'])
            edges.append((var, o['name']))
    for n in g['ops']:
        if n.get('role') == 'param':
            edges.append((n['name'], n['name'] + '/read'))
    add('train_op', kind='noop', time=0, size=0, mem=0)
    for o in g['ops']:
        if o.get('role') == 'update':
            edges.append((o['name'], 'train_op'))
    seen, uniq = set(), []
    for e in edges:
        if e not in seen:
            seen.add(e)
            uniq.append(e)
    return ops, order, uniq


def reference_placement(ops, order, edges, k):
    """Blocks of equal work in order; each variable group on the device of
    its read's first consumer."""
    total = sum(ops[n]['time'] for n in order) or 1.0
    dev, acc = {}, 0.0
    for n in order:
        dev[n] = min(k - 1, int(acc * k / total))
        acc += ops[n]['time']
    first = {}
    for a, b in edges:
        if a.endswith('/read') and ops.get(a, {}).get('kind') == 'ref':
            first.setdefault(a, b)
    for n in order:
        if ops[n]['kind'] == 'var':
            d = dev[first.get(n + '/read', n)]
            dev[n] = dev[n + '/read'] = d
    for a, b in edges:
        if ops[a]['kind'] == 'var' and not b.endswith('/read'):
            dev[b] = dev[a]  # the update joins its variable
    return dev


def write(path, lines):
    with open(path, 'w', encoding='utf-8', newline='\n') as f:
        for line in lines:
            f.write(line + '\n')


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--graph',
                    default=os.path.join(ROOT, 'sample_graphs',
                                         'resnet50.json'))
    ap.add_argument('--out',
                    default=os.path.join(ROOT, 'tests', 'data',
                                         'pardnn-resnet50'))
    ap.add_argument('--k', type=int, default=4)
    a = ap.parse_args()
    with open(a.graph, encoding='utf-8') as f:
        g = json.load(f)
    ops, order, edges = convert(g)
    preds, succs = set(), set()
    for x, y in edges:
        succs.add(x)
        preds.add(y)
    os.makedirs(os.path.join(a.out, 'reference'), exist_ok=True)
    dot = ['digraph{']
    dot += ['"src"->"%s"' % n for n in order if n not in preds]
    dot += ['"%s"->"%s"' % e for e in edges]
    dot += ['"%s"->"snk"' % n for n in order if n not in succs]
    dot.append('}')
    write(os.path.join(a.out, 'crn_src_sink_low.dot'), dot)
    real = [n for n in order if ops[n]['kind'] != 'noop']
    write(os.path.join(a.out, 'nodes_average_durations_fixed.txt'),
          ['%s::%d' % (n, round(ops[n]['time'])) for n in real
           if ops[n]['time'] > 0])
    write(os.path.join(a.out, 'tensors_sz_32_low.txt'),
          ['"%s":: %d' % (n, ops[n]['size']) for n in real])
    write(os.path.join(a.out, 'memory.txt'),
          ['%s::%d' % (n, ops[n]['mem']) for n in real])
    for fname, kind in (('var_nodes.txt', 'var'), ('ref_nodes.txt', 'ref'),
                        ('no_ops.txt', 'noop')):
        write(os.path.join(a.out, fname),
              [n for n in order if ops[n]['kind'] == kind])
    write(os.path.join(a.out, 'collocations.txt'), [])
    write(os.path.join(a.out, 'vanilla_cleaned.place'),
          ['src 0'] + ['%s %d' % (n, -1 if ops[n].get('cpu') else 0)
                       for n in real] + ['snk 0'])
    dev = reference_placement(ops, order, edges, a.k)
    write(os.path.join(a.out, 'reference', 'layers-K%d.place' % a.k),
          ['src 0'] + ['%s %d' % (n, dev[n]) for n in real
                       if not ops[n].get('cpu')] + ['snk 0'])
    print('%s: %d ops (src, snk and %d no-op included), %d edges' %
          (os.path.relpath(a.out), len(order) + 2,
           len(order) - len(real), len(edges)))


if __name__ == '__main__':
    main()

#!/usr/bin/env python3
"""from_pytorch.py - export a PyTorch model's training step as a dnnpart graph.

The forward graph is traced with torch.fx and run on the meta device at the
example inputs' shapes (tools/torch_trace.py: no arithmetic, no memory) for
every tensor's shape, dtype and whether a weight influences it; with --real
or --measure on real tensors. nn.MultiheadAttention becomes the ops PyTorch
runs for it (tools/torch_attn.py). From it, the training step is built the way
tools/gen_samples.py builds the sample graphs (same code): one op per traced
call (views, reshapes and tuple indexing are folded into their producer),
one Variable op per parameter holding weight + optimizer state, a loss op,
gradient ops by reverse-mode differentiation (input gradient and one weight
gradient per parameter), and one optimizer update per parameter, colocated
with its Variable. Buffers (batch-norm running statistics) are persistent
memory of the op that owns them.

Every op gets an iteration space (dims, out, param, elem_bytes; edges the
consumer's dims; batch_dim "b", the inputs' first axis): named by rules for
Linear, matmul, Conv2d, pooling, embedding, norms, element-wise calls and
reductions, else plain (the batch axis b and d1, d2, ...), and the backward
and update ops built from them (see docs/pytorch.md). Layers are leaf
modules.

Times are FLOP-based on a reference GPU (roofline: V100 fp32 by default, see
--peak-tflops and friends), or, with --measure, measured with torch.profiler
for each op in isolation (forward, input gradient and each weight gradient)
on the GPU when one is present, else on the CPU (then they are CPU times).

Usage:
  /usr/bin/python3 tools/from_pytorch.py PACKAGE.MODULE:FACTORY \\
      --input 8x3x224x224 [--input 8:long ...] -o model.json
  /usr/bin/python3 tools/from_pytorch.py --demo mlp -o mlp.json
or from Python:
  sys.path.insert(0, "tools"); import from_pytorch
  from_pytorch.export(model, (x,), "model.json")
See docs/pytorch.md.
"""

import argparse
import warnings
import importlib
import operator
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_samples as gs  # noqa: E402  (the shared training-graph builder)

try:
    import torch
    import torch.fx
    import torch.nn as nn
    from torch.fx.passes.shape_prop import TensorMetadata
    import torch_attn as ta
    import torch_trace as tt
except ImportError as e:  # pragma: no cover - reported to the user
    sys.stderr.write("from_pytorch.py: PyTorch is not available (%s); on "
                     "Debian install python3-torch and run /usr/bin/python3\n"
                     % e)
    sys.exit(2)

# ---- what a call does, for the backward pass ----

# calls that only re-describe a tensor: folded into the producer
VIEW_METHODS = {"view", "reshape", "permute", "transpose", "flatten",
                "unsqueeze", "squeeze", "expand", "expand_as", "t",
                "contiguous", "view_as", "reshape_as", "unflatten",
                "narrow", "chunk", "split", "unbind", "detach", "type_as",
                "to", "float", "half", "double", "long", "int", "bool"}
VIEW_FUNCS = {torch.flatten, torch.reshape, torch.transpose, torch.permute,
              torch.squeeze, torch.unsqueeze, torch.t, torch.narrow,
              torch.chunk, torch.split, torch.unbind, operator.getitem}
NO_TENSOR_METHODS = {"size", "dim", "numel"}
# ops whose gradient needs only the output gradient (and shapes)
SAVE_NONE = {"add", "sub", "neg", "cat", "sum", "mean", "iadd", "isub",
             "Identity", "Flatten", "AdaptiveAvgPool2d", "AvgPool2d",
             "AdaptiveAvgPool1d", "AvgPool1d"}
# ops whose gradient needs their output
SAVE_OUT = {"relu", "relu_", "sigmoid", "tanh", "exp", "softmax",
            "log_softmax", "dropout", "ReLU", "Sigmoid", "Tanh", "Softmax",
            "LogSoftmax", "Dropout", "Dropout2d", "ReLU6", "ELU", "Hardtanh"}
TRANSCENDENTAL = {"exp", "tanh", "sigmoid", "gelu", "erf", "softmax",
                  "log_softmax", "log", "sqrt", "rsqrt", "pow", "GELU",
                  "Sigmoid", "Tanh", "Softmax", "LogSoftmax", "SiLU", "silu"}
# calls whose input gradient is dy times the weight (it reads neither the
# input nor the bias) and whose bias gradient needs dy only
DX_NEEDS_W_ONLY = {"Linear", "Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d",
                   "ConvTranspose2d", "ConvTranspose3d", "Embedding",
                   "linear", "conv1d", "conv2d", "conv3d", "embedding"}
# normalisations: dx reads the input and the scale; the shift's gradient
# needs dy only
NORMS = {"LayerNorm", "BatchNorm1d", "BatchNorm2d", "BatchNorm3d",
         "GroupNorm", "InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d",
         "layer_norm", "batch_norm", "group_norm"}
# a product's gradient for one factor reads the others (and dy) only
PRODUCTS = {"matmul", "bmm", "mm", "mul", "imul", "einsum"}
MATMUL_FUNCS = {"matmul", "bmm", "mm", "baddbmm", "addmm", "linear",
                "einsum"}


def is_bias(qual):
    """Whether parameter qual is a bias (its gradient sums dy)."""
    return qual.rsplit(".", 1)[-1].startswith("bias")


def numel(shape):
    n = 1
    for d in shape:
        n *= int(d)
    return n


def metas(m):
    """The TensorMetadata inside a (nested) ShapeProp result."""
    if isinstance(m, TensorMetadata):
        return [m]
    if isinstance(m, (list, tuple)):
        return [t for x in m for t in metas(x)]
    if isinstance(m, dict):
        return [t for x in m.values() for t in metas(x)]
    return []


def elem_size(dtype):
    return torch.empty((), dtype=dtype).element_size()


def meta_bytes(ms):
    return sum(numel(t.shape) * elem_size(t.dtype) for t in ms)


def call_name(node, gm):
    """Type of a call: the module class, the function or method name."""
    if node.op == "call_module":
        return type(gm.get_submodule(node.target)).__name__
    if node.op == "call_method":
        return node.target
    t = node.target
    return getattr(t, "__name__", str(t)).lstrip("_")


def fw_flops(node, gm, typ, ins, outs):
    """Forward FLOPs of a call, from its shapes (multiply-add = 2)."""
    out_n = sum(numel(t.shape) for t in outs)
    in_n = sum(numel(t.shape) for t in ins)
    if node.op == "call_module":
        m = gm.get_submodule(node.target)
        if isinstance(m, nn.Linear):
            return 2 * out_n * m.in_features
        if isinstance(m, (nn.Conv1d, nn.Conv2d, nn.Conv3d)):
            k = numel(m.kernel_size)
            return 2 * out_n * (m.in_channels // m.groups) * k
        if isinstance(m, (nn.ConvTranspose1d, nn.ConvTranspose2d,
                          nn.ConvTranspose3d)):
            k = numel(m.kernel_size)
            return 2 * in_n * (m.out_channels // m.groups) * k
        if isinstance(m, (nn.LSTM, nn.GRU, nn.RNN)):
            gates = {"LSTM": 4, "GRU": 3}.get(typ, 1)
            x = ins[0].shape
            steps_batch = numel(x[:-1])
            dirs = 2 if m.bidirectional else 1
            total, width = 0, m.input_size
            for _ in range(m.num_layers):
                total += (2 * steps_batch * (width + m.hidden_size) * gates *
                          m.hidden_size * dirs)
                width = m.hidden_size * dirs
            return total
        if isinstance(m, nn.MultiheadAttention):
            q = ins[0].shape  # (L, N, E) or (N, L, E)
            e = m.embed_dim
            tokens = numel(q[:-1])
            seq = max(q[0], q[1]) if len(q) == 3 else q[0]
            return 2 * tokens * e * e * 4 + 4 * tokens * seq * e
        if isinstance(m, (nn.MaxPool2d, nn.AvgPool2d, nn.MaxPool1d,
                          nn.AvgPool1d)):
            return out_n * numel(m.kernel_size if isinstance(
                m.kernel_size, tuple) else (m.kernel_size,) * (
                    2 if "2d" in typ else 1))
        if "Norm" in typ:
            return 8 * out_n
    if typ in MATMUL_FUNCS or node.target is operator.matmul:
        a = ins[0].shape if ins else (1,)
        k = a[-1] if len(a) else 1
        if typ == "linear" and len(ins) > 1:
            k = ins[1].shape[-1]
        return 2 * out_n * k
    if typ in ("conv1d", "conv2d", "conv3d") and len(ins) > 1:
        w = ins[1].shape
        return 2 * out_n * numel(w[1:])
    per = 4 if typ in TRANSCENDENTAL else 1
    return per * max(out_n, in_n)


# ---- iteration spaces from the traced shapes (docs/pytorch.md) ----
#
# Every tensor keeps the names its producer's `out` gives its axes (T.axes,
# in the producer's order) and, per axis of the shape a consumer sees (after
# folded views), the group of producer axes it holds: a flatten merges them,
# a permute reorders them, an axis of size 1 holds none. An op names its
# dims after its inputs' groups (fresh names for new axes), so an edge's dims
# are the op's names for the producer's axes. Where the shapes do not say
# it (slices, expands, calls the bridge does not know), the op or edge gets
# no dims; gen_samples' writer drops whatever disagrees with the bytes.

RESHAPES = {"view", "reshape", "flatten", "unsqueeze", "squeeze",
            "unflatten", "view_as", "reshape_as"}
SAME_AXES = {"detach", "contiguous", "to", "float", "half", "double",
             "long", "int", "bool", "type_as"}
POINTWISE = {"add", "sub", "mul", "truediv", "div", "neg", "iadd", "isub",
             "imul", "relu", "relu_", "sigmoid", "tanh", "exp", "log",
             "sqrt", "rsqrt", "pow", "gelu", "silu", "erf", "softmax",
             "log_softmax", "dropout", "abs", "clamp", "ReLU", "ReLU6",
             "GELU", "SiLU", "ELU", "Hardtanh", "Sigmoid", "Tanh", "Softmax",
             "LogSoftmax", "Dropout", "Dropout2d", "Identity"}


def fresh(base, taken):
    """base, or base2, base3, ... : the first not in taken."""
    if base not in taken:
        return base
    i = 2
    while "%s%d" % (base, i) in taken:
        i += 1
    return "%s%d" % (base, i)


def out_groups(names, shape):
    """Groups of an op's output: one name per axis, none for an axis of
    size 1 (but the batch dim b, kept so that the graph has it)."""
    return [[n] if (z != 1 or n == "b") else [] for n, z in zip(names, shape)]


def input_groups(shape, integer):
    """Names of a traced input's axes: batch first, then by rank."""
    rest = {1: [], 2: ["s"] if integer else ["h"], 3: ["s", "h"],
            4: ["c", "y", "x"]}.get(len(shape))
    if rest is None:
        rest = ["d%d" % i for i in range(1, len(shape))]
    return out_groups(["b"] + rest, shape)


def view_groups(node, groups, sizes, new_shape):
    """(groups, sizes) of a folded view of a tensor with groups; None when
    the view is not a reorder or regrouping of its axes."""
    g = _view_groups(node, groups, sizes, new_shape)
    return None if g is None else (g, sizes)


def slice_groups(groups, sizes, old_shape, new_shape):
    """(groups, sizes) of a slice (x[..., :d]) of a tensor with groups: the
    axes it keeps whole keep their names, a sliced one gets a fresh name;
    None when the rank changes."""
    if len(old_shape) != len(new_shape):
        return None
    out, sz, taken = [], {}, set(sizes)
    for g, zo, zn in zip(groups, old_shape, new_shape):
        if zo == zn:
            out.append(list(g))
            sz.update((n, sizes[n]) for n in g)
        else:
            n = fresh(g[0] if len(g) == 1 else "d", taken)
            taken.add(n)
            out.append([n])
            sz[n] = zn
    return out, sz


def part_slice(node, view, old_shape, new_shape):
    """The output groups of an aligned slice that takes one part of a
    factored axis (q of a fused [qkv, heads, dh] output: its first name
    leaves, the others stay), or None: such a slice is an op of its own
    (as the sample graphs' Split) so that its edge has dims."""
    i = _slice_axis(node, old_shape, new_shape)
    if i is None:
        return None
    groups, sizes = view
    g = groups[i]
    if len(g) < 2 or numel(sizes[n] for n in g[1:]) != new_shape[i]:
        return None
    return [list(gg) if k != i else list(g[1:])
            for k, gg in enumerate(groups)]


def _view_groups(node, groups, sizes, new_shape):
    t = node.target
    name = t if isinstance(t, str) else getattr(t, "__name__", "")
    if name in SAME_AXES:
        return [list(g) for g in groups]
    if name in ("permute", "transpose", "t"):
        r = len(groups)
        args = list(node.args[1:])
        if name == "t":
            perm = list(range(r - 2)) + [r - 1, r - 2] if r >= 2 else [0]
        elif name == "transpose":
            if len(args) < 2 or not all(isinstance(a, int) for a in args):
                return None
            a, b = args[0] % r, args[1] % r
            perm = list(range(r))
            perm[a], perm[b] = perm[b], perm[a]
        else:
            if len(args) == 1 and isinstance(args[0], (list, tuple)):
                args = list(args[0])
            if len(args) != r or not all(isinstance(a, int) for a in args):
                return None
            perm = [a % r for a in args]
        return [list(groups[p]) for p in perm]
    if name not in RESHAPES:
        return None
    seq = [n for g in groups for n in g]
    split = split_axes(seq, sizes, new_shape, keep_ones=True)
    if split is None or any(sizes[n] != 1 for n in split[1]):
        return None
    return split[0]


def split_axes(seq, sizes, shape, keep_ones=False):
    """Splits the axis names seq (sizes: name -> size) into consecutive
    groups whose sizes multiply to those of shape: (groups, names left
    over), or None. With keep_ones, a size-1 name after a group of size 1
    joins it (a batch of 1 stays where it was)."""
    out, i = [], 0
    for z in shape:
        g, prod = [], 1
        while i < len(seq) and prod < z:
            g.append(seq[i])
            prod *= sizes[seq[i]]
            i += 1
        if keep_ones and z == 1 and i < len(seq) and sizes[seq[i]] == 1:
            g.append(seq[i])
            i += 1
        if prod != z:
            return None
        out.append(g)
    return out, seq[i:]


def align(groups, sizes, ref, ref_sizes, m):
    """Maps the names of groups onto those of ref, right-aligned as
    broadcasting does, into m; False when they do not match."""
    off = len(ref) - len(groups)
    if off < 0:
        return False
    for i, g in enumerate(groups):
        gz = [sizes[n] for n in g]
        tz = [ref_sizes[n] for n in ref[off + i]]
        if gz == tz:
            m.update(zip(g, ref[off + i]))
        elif numel(gz) != 1:
            return False
    return True


def edge_names(t, m):
    """The op's names (map m) of tensor t's producer axes, or None."""
    if m is None or t.axes is None:
        return None
    names = [m.get(n) for n, _ in t.axes]
    return None if None in names else names


def iteration_space(node, gm, typ, acts, views, shape, elem, out_hint=None):
    """(It, output groups) of a traced call, or (None, None). acts: its
    input tensors; views: their (groups, sizes) or None; out_hint: names
    and sizes [(name, size)] for a Linear's output features (out_hints)."""
    mod = gm.get_submodule(node.target) if node.op == "call_module" else None
    sizes = {}
    for v in views:
        if v is not None:
            sizes.update(v[1])
    maps = [None] * len(acts)
    ws, param = None, None
    if isinstance(mod, nn.Linear) or (mod is None and typ in MATMUL_FUNCS
                                      or node.target is operator.matmul):
        if isinstance(mod, nn.Linear):
            if not views or views[0] is None:
                return None, None
            g, sz = views[0]
            if not g or numel(sz[n] for n in g[-1]) != mod.in_features:
                return None, None
            taken = set(sz)
            ons = []
            for hint, z in out_hint or [(None, mod.out_features)]:
                on = fresh(hint, taken) if hint else next(
                    c for c in ("n", "k", fresh("n", taken))
                    if c not in taken)
                taken.add(on)
                ons.append((on, z))
            dims = [(n, sz[n]) for gg in g for n in gg] + ons
            ons = [n for n, _ in ons]
            lead = [n for gg in g[:-1] for n in gg]
            out, og = lead + ons, g[:-1] + [ons]
            maps[0] = {n: n for n in sz}
            ws = [ons + g[-1], ons]
            param = ons + g[-1]
        else:  # a @ b
            if len(views) != 2 or None in views:
                return None, None
            (ga, sa), (gb, sb) = views
            if len(ga) < 2 or len(gb) < 2:
                return None, None
            if [sa[n] for n in ga[-1]] != [sb[n] for n in gb[-2]]:
                return None, None
            mb = dict(zip(gb[-2], ga[-1]))
            if not align(gb[:-2], sb, ga[:-2], sa, mb):
                return None, None
            taken = set(sa)
            gn = []
            for n in gb[-1]:
                mb[n] = fresh(n, taken)
                taken.add(mb[n])
                gn.append(mb[n])
            allsz = dict(sa)
            allsz.update((mb[n], sb[n]) for n in gb[-1])
            dims = [(n, allsz[n]) for gg in ga for n in gg] + \
                [(n, allsz[n]) for n in gn]
            lead = [n for gg in ga[:-1] for n in gg]
            out, og = lead + gn, ga[:-1] + [gn]
            maps = [{n: n for n in sa}, mb]
    elif isinstance(mod, (nn.Conv2d, nn.MaxPool2d, nn.AvgPool2d)):
        if not views or views[0] is None or len(views[0][0]) != 4 or \
                len(shape) != 4 or any(len(g) > 1 for g in views[0][0]):
            return None, None
        if isinstance(mod, nn.Conv2d) and mod.groups != 1:
            return None, None
        g, sz = views[0]
        xs = acts[0].shape
        ks = mod.kernel_size
        kh, kw = (ks, ks) if isinstance(ks, int) else tuple(ks)
        yn = "y" if xs[2] == shape[2] else "yi"
        xn = "x" if xs[3] == shape[3] else "xi"
        conv = isinstance(mod, nn.Conv2d)
        ch = "o" if conv else "c"
        dims = [("b", shape[0]), (ch, shape[1]), ("y", shape[2]),
                ("x", shape[3])]
        if conv:
            dims.append(("c", xs[1]))
        dims += [("kh", kh), ("kw", kw)]
        if yn == "yi":
            dims.append(("yi", xs[2]))
        if xn == "xi":
            dims.append(("xi", xs[3]))
        maps[0] = {gg[0]: nm for gg, nm in zip(g, ("b", "c", yn, xn)) if gg}
        og = out_groups(["b", ch, "y", "x"], shape)
        out = [n for gg in og for n in gg]
        if conv:
            ws, param = [["o", "c", "kh", "kw"], ["o"]], ["o", "c", "kh", "kw"]
    elif typ == "cat" and mod is None:
        # the output's axis d is c; each input's part of it has dims of
        # its own (c0 ... as the sample graphs' ConcatV2), read whole
        seq = node.args[0] if node.args else node.kwargs.get("tensors")
        d = node.args[1] if len(node.args) > 1 else node.kwargs.get("dim", 0)
        r = len(shape)
        if not isinstance(seq, (list, tuple)) or len(seq) != len(acts) or \
                None in views or not isinstance(d, int) or r == 0 or \
                any(len(v[0]) != r for v in views):
            return None, None
        d %= r
        g0, sz0 = views[0]
        taken = set(n for v in views for n in v[1])
        cn = fresh("c", taken)
        taken.add(cn)
        head = [(n, sz0[n]) for i, gg in enumerate(g0) for n in
                (gg if i != d else [])]
        dims, extra, maps = [], [], []
        for v in views:
            m = {}
            for i, (gg, tt) in enumerate(zip(v[0], g0)):
                if i == d:
                    for n in gg:
                        m[n] = fresh(n, taken)
                        taken.add(m[n])
                        extra.append((m[n], v[1][n]))
                elif [v[1][n] for n in gg] == [sz0[n] for n in tt]:
                    m.update(zip(gg, tt))
                else:
                    return None, None
            maps.append(m)
        og = [list(gg) if i != d else [cn] for i, gg in enumerate(g0)]
        allsz = dict(head)
        allsz[cn] = shape[d]
        dims = [(n, allsz[n]) for gg in og for n in gg] + extra
        out = [n for gg in og for n in gg]
    elif mod is not None and isinstance(mod, nn.Embedding):
        if not views or views[0] is None:
            return None, None
        g, sz = views[0]
        taken = set(sz)
        v = fresh("v", taken)
        h = fresh("h", taken | {v})
        dims = [(n, sz[n]) for gg in g for n in gg] + \
            [(v, mod.num_embeddings), (h, mod.embedding_dim)]
        out, og = [n for gg in g for n in gg] + [h], g + [[h]]
        maps[0] = {n: n for n in sz}
        ws, param = [[v, h]], [v, h]
    else:
        ref = next((i for i, t in enumerate(acts) if views[i] is not None and
                    tuple(t.shape) == tuple(shape)), None)
        if ref is None:
            # a reduction: to a scalar, or to 1 along some axes
            if len(acts) != 1 or views[0] is None or \
                    not (typ in ("mean", "sum", "amax", "max") or
                         "AdaptiveAvgPool" in typ or "AdaptiveMaxPool" in typ):
                return None, None
            g, sz = views[0]
            xs = tuple(acts[0].shape)
            dim = node.kwargs.get("dim", node.args[1] if len(node.args) > 1
                                  else None)
            if isinstance(dim, int):
                dim = [dim]
            if len(shape) == 0:
                og = []
            elif isinstance(dim, (list, tuple)) and dim and all(
                    isinstance(d, int) for d in dim) and \
                    len(shape) == len(xs) - len(dim):
                gone = {d % len(xs) for d in dim}
                og = [gg for i, gg in enumerate(g) if i not in gone]
            elif len(shape) == len(xs) and all(
                    a == b or b == 1 for a, b in zip(xs, shape)):
                og = [gg if a == b else [] for gg, a, b in zip(g, xs, shape)]
            else:
                return None, None
            dims = [(n, sz[n]) for gg in g for n in gg]
            out = [n for gg in og for n in gg]
            maps[0] = {n: n for n in sz}
        else:
            if not (typ in POINTWISE or "Norm" in typ):
                return None, None
            g, sz = views[ref]
            dims = [(n, sz[n]) for gg in g for n in gg]
            out, og = [n for gg in g for n in gg], g
            for i, v in enumerate(views):
                if v is not None:
                    m = {}
                    if align(v[0], v[1], g, sz, m):
                        maps[i] = m
            if isinstance(mod, (nn.BatchNorm1d, nn.BatchNorm2d)) and \
                    len(g) >= 2 and len(g[1]) == 1:
                ws, param = [g[1], g[1]], g[1]
            elif isinstance(mod, nn.LayerNorm):
                k = len(mod.normalized_shape)
                last = [n for gg in g[len(g) - k:] for n in gg]
                ws, param = [last, last], last
    it = gs.It(dims, out, param, elem=elem, ws=ws)
    it.ins = [edge_names(t, m) for t, m in zip(acts, maps)]
    return it, og


# ---- names for a Linear's output features, from how it is used ----
#
# A Linear whose output is sliced and reshaped into heads (q, k, v of a
# fused projection, then view(b, s, heads, dh)) gets one output axis per
# factor the later views need: [qkv, heads, dh]; one whose output reaches
# another Linear through element-wise calls only is an MLP's first layer:
# its width is f. These are the names the sample graphs and Megatron use.


def _shape(node):
    ms = metas(node.meta.get("tensor_meta"))
    return tuple(int(z) for z in ms[0].shape) if len(ms) == 1 else None


def _is_view(node):
    return ((node.op == "call_method" and node.target in VIEW_METHODS) or
            (node.op == "call_function" and node.target in VIEW_FUNCS))


def _slice_axis(node, old, new):
    """The axis an aligned slice x[..., a:a+n] cuts (a a multiple of n),
    or None."""
    if len(old) != len(new) or len(node.args) < 2:
        return None
    cut = [i for i, (a, b) in enumerate(zip(old, new)) if a != b]
    spec = node.args[1] if isinstance(node.args[1], tuple) else \
        (node.args[1],)
    if len(cut) != 1 or any(x is not Ellipsis and not isinstance(x, slice)
                            for x in spec):
        return None
    if Ellipsis in spec:
        k = spec.index(Ellipsis)
        spec = spec[:k] + (slice(None),) * (len(old) - len(spec) + 1) + \
            spec[k + 1:]
    i = cut[0]
    if len(spec) <= i:
        return None
    sl = spec[i]
    start = 0 if sl.start is None else sl.start
    if sl.step not in (None, 1) or not isinstance(start, int) or \
            start % new[i] or old[i] % new[i]:
        return None
    return i


def _refine_input(node, fv, old):
    """The factors [(hint, size)] per axis of view node's input (shape
    old) that its own factors fv need, or None."""
    t = node.target
    name = t if isinstance(t, str) else getattr(t, "__name__", "")
    if name in SAME_AXES:
        return fv
    if t is operator.getitem:
        i = _slice_axis(node, old, _shape(node))
        if i is None or len(fv[i]) < 2:
            return None
        k = old[i] // numel(z for _, z in fv[i])
        return fv[:i] + [[("qkv" if k == 3 else "part", k)] + fv[i]] + \
            fv[i + 1:]
    if name not in RESHAPES:
        return None
    flat = [f for axis in fv for f in axis if f[1] != 1]
    out, j = [], 0
    for z in old:
        axis, prod = [], 1
        while z != 1 and prod < z and j < len(flat):
            axis.append(flat[j])
            prod *= flat[j][1]
            j += 1
        if prod != z:
            return None
        if len(axis) == 2 and axis[0][0] is None and axis[1][0] is None:
            axis = [("heads", axis[0][1]), ("dh", axis[1][1])]
        out.append(axis)
    return out if j == len(flat) else None


def out_hints(gm):
    """{Linear node: [(name hint, size)] of its output features} (see
    above)."""
    fac = {}  # node -> factors per axis of its output, from its views
    for node in reversed(list(gm.graph.nodes)):
        if not _is_view(node) or not node.all_input_nodes or \
                _shape(node) is None:
            continue
        a = node.all_input_nodes[0]
        old = _shape(a)
        if old is None:
            continue
        fv = fac.get(node) or [[(None, z)] for z in _shape(node)]
        got = _refine_input(node, fv, old)
        if got is not None and fac.get(a, got) == got:
            fac[a] = got
        elif got is not None:
            fac[a] = [[(None, z)] for z in old]  # users disagree: none
    hints = {}
    for node in gm.graph.nodes:
        if node.op != "call_module" or \
                not isinstance(gm.get_submodule(node.target), nn.Linear):
            continue
        last = fac.get(node, [[]])[-1]
        if len(last) > 1:
            hints[node] = last
        elif _feeds_linear(node, gm):
            hints[node] = [("f", _shape(node)[-1])]
    return hints


def _feeds_linear(node, gm):
    """Whether node's output reaches an nn.Linear's input through
    element-wise calls of one input only."""
    while len(node.users) == 1:
        node = next(iter(node.users))
        if node.op == "call_module" and \
                isinstance(gm.get_submodule(node.target), nn.Linear):
            return True
        if call_name(node, gm) not in POINTWISE or \
                len(node.all_input_nodes) != 1:
            return False
    return False


def regroup(axes, shape):
    """Groups of a tensor with producer axes [(name, size)] seen with
    shape (consecutive axes merged), or None."""
    split = split_axes([n for n, z in axes], dict(axes), shape)
    return split[0] if split and not split[1] else None


def is_identity(node, gm):
    """Whether node is a dropout with p = 0 (PyTorch returns its input:
    no op, nothing saved)."""
    if node.op == "call_module":
        m = gm.get_submodule(node.target)
        return isinstance(m, (nn.Dropout, nn.Dropout1d, nn.Dropout2d,
                              nn.Dropout3d, nn.AlphaDropout)) and m.p == 0
    if node.op == "call_function" and node.target is \
            torch.nn.functional.dropout:
        p = node.kwargs.get("p", node.args[1] if len(node.args) > 1
                            else 0.5)
        return p == 0
    return False


def batch_axes(gm, meta_in):
    """The batch size (the first input's first axis), after recording in
    node.meta["shape2"] each node's output shape at twice that batch (an
    axis that doubles holds the batch); None when the model does not run at
    twice the batch."""
    if not meta_in or not meta_in[0].dim():
        return None
    big = [torch.empty((2 * x.shape[0],) + tuple(x.shape[1:]),
                       dtype=x.dtype, device="meta") if x.dim() else x
           for x in meta_in]
    try:
        with tt.on_meta(gm):
            tt.propagate(gm, big)
    except tt.TraceFailure:
        return None
    for node in gm.graph.nodes:
        ms = metas(node.meta.pop("tensor_meta", None))
        if len(ms) == 1:
            node.meta["shape2"] = tuple(int(z) for z in ms[0].shape)
    return int(meta_in[0].shape[0])


def generic_space(shape, shape2, batch, elem, acts, wshapes):
    """(It, output groups) of a call the bridge has no rule for: its
    output's axes, the batch axis (the one that doubles with the batch,
    shape2) named b (split b x rest when it holds more), the others d1,
    d2, ...; each weight's axes under names of their own (a vector the size
    of an output axis indexes that axis); an input of the output's sizes is
    indexed by the output's names. Enough for --batch to scale the op and
    for its gradients to have dims; strategies that split other dims leave
    it whole."""
    dims, og, taken, k = [], [], {"b"}, 1
    for i, z in enumerate(shape):
        doubles = shape2 is not None and len(shape2) == len(shape) and \
            batch and shape2[i] == 2 * z and z % batch == 0 and \
            "b" not in [n for n, _ in dims]
        g = []
        if doubles:
            g.append(("b", batch))
            if z != batch:
                g.append((fresh("d%d" % k, taken), z // batch))
        elif z != 1:  # an axis of size 1 indexes nothing
            g.append((fresh("d%d" % k, taken), z))
        for n, _ in g:
            taken.add(n)
        k += 1
        dims += g
        og.append([n for n, _ in g])
    out = [n for n, _ in dims]
    ws = []
    for wi, ws_shape in enumerate(wshapes):
        names = None
        if len(ws_shape) == 1:
            names = next(([n] for n, z in reversed(dims)
                          if z == ws_shape[0] and n != "b"), None)
        if names is None:
            names = []
            for j, z in enumerate(ws_shape):
                n = fresh("w%d_%d" % (wi, j), taken)
                taken.add(n)
                names.append(n)
                dims.append((n, z))
        ws.append(names)
    it = gs.It(dims, out, ws[0] if ws else None, elem=elem,
               ws=ws if ws else None)
    sizes = [z for n, z in dims if n in out]
    it.ins = [out if t.axes is not None and
              [z for _, z in t.axes] == sizes else None for t in acts]
    return it, og


def module_of(target):
    """"layer1.0.conv1.weight" -> "layer1.0.conv1" (the module that holds
    a parameter)."""
    return target.rsplit(".", 1)[0] if "." in target else target


def build(model, example_inputs, name, optimizer="adam", loss="auto",
          real=False):
    """Traces model and returns (net, gm, info) with the training graph.
    Shapes come from a run on the meta device (no arithmetic, no memory),
    or, with real, from a run on example_inputs themselves."""
    model = model.train()
    meta_in = [tt.to_meta(x) for x in example_inputs]
    gm, how = tt.trace(model, meta_in)
    batch = batch_axes(gm, meta_in)
    try:
        if real:
            tt.propagate(gm, example_inputs)
        else:
            with tt.on_meta(gm):
                tt.propagate(gm, meta_in)
    except tt.TraceFailure as e:
        raise tt.located(model, meta_in, e)
    hints = out_hints(gm)
    net = gs.Net(name, optimizer)
    net.batch_dim = "b"
    net.split_grads = True
    net.products = PRODUCTS
    tens = {}     # fx node -> gs.T (after folding views)
    grp = {}      # fx node -> groups of its tensor's axes (see above)
    vsz = {}      # fx node -> sizes of the names in its groups
    layer_of = {}
    vars_ = {}    # parameter qualified name -> gs.Var
    packs = {}    # fx node of a namedtuple(...) -> its fields' nodes
    info = {"ops": {}, "trace": how}  # fx node name -> op (--measure)
    params = dict(gm.named_parameters())

    def var_for(qual, axes=None):
        """The Variable of parameter qual; axes: the names of its axes
        [(name, size)] from its first user, else w0, w1, ..."""
        if qual not in vars_:
            p = params[qual]
            if axes is None or numel(z for _, z in axes) != p.numel():
                axes = [("w%d" % i, z) for i, z in enumerate(p.shape)]
            vars_[qual] = net.var(qual, tuple(p.shape),
                                  nbytes=p.numel() * p.element_size(),
                                  axes=[(n, int(z)) for n, z in axes])
        return vars_[qual]

    def view(a):
        """(groups, sizes) of input node a's tensor, or None."""
        if grp.get(a) is None:
            return None
        return grp[a], vsz[a]

    out_node = None
    for node in gm.graph.nodes:
        ms = metas(node.meta.get("tensor_meta"))
        ins = [tens[a] for a in node.all_input_nodes if a in tens]
        in_layers = [layer_of[a] for a in node.all_input_nodes
                     if a in layer_of]
        net.layer = in_layers[0] if in_layers else "input"
        if node.op == "placeholder":
            net.layer = "input"
            nb = meta_bytes(ms)
            shape = tuple(ms[0].shape) if ms else ()
            it, axes = None, None
            if len(ms) == 1:
                g = input_groups(shape, not ms[0].dtype.is_floating_point)
                axes = [(n, shape[i]) for i, gg in enumerate(g) for n in gg]
                it = gs.It(axes, [n for n, _ in axes],
                           elem=elem_size(ms[0].dtype))
                grp[node], vsz[node] = g, dict(axes)
            net._op("input:" + node.name, "Input", 0.0, nb, "input",
                    role="input", it=it)
            tens[node] = gs.T("input:" + node.name, shape, False, nb, axes)
            layer_of[node] = "input"
            continue
        if node.op == "output":
            out_node = node
            continue
        if node.op == "get_attr":
            if node.target in params:
                v = var_for(node.target)
                # a parameter used directly: a tensor that needs gradients
                tens[node] = gs.T(v.name, v.shape, True, 0, v.axes)
                tens[node].bytes = v.bytes
                grp[node], vsz[node] = regroup(v.axes, v.shape), dict(v.axes)
                layer_of[node] = module_of(node.target)
            continue
        if node.op == "call_function" and isinstance(node.target, type) \
                and issubclass(node.target, tuple):
            packs[node] = list(node.all_input_nodes)  # a namedtuple
            continue
        typ = call_name(node, gm)
        if not ms:
            continue  # size(), dim(): shape arithmetic, no tensor
        if is_identity(node, gm) and ins and \
                node.all_input_nodes[0] in tens:
            a = node.all_input_nodes[0]  # dropout with p = 0: the input
            tens[node], grp[node], vsz[node] = tens[a], grp.get(a), \
                vsz.get(a)
            layer_of[node] = layer_of.get(a, "input")
            continue
        if ((node.op == "call_method" and node.target in VIEW_METHODS) or
                (node.op == "call_function" and node.target in VIEW_FUNCS)):
            if ins:
                src = ins[0]
                sliced = node.target is operator.getitem
                a = node.all_input_nodes[0]
                part = None
                if sliced and a in tens and view(a) is not None and \
                        tens[a].axes is not None:
                    part = part_slice(node, view(a), tuple(tens[a].shape),
                                      tuple(ms[0].shape))
                if part is not None:
                    g, sz = view(a)
                    it = gs.It([(n, sz[n]) for gg in g for n in gg],
                               [n for gg in part for n in gg],
                               elem=elem_size(ms[0].dtype),
                               ins=[edge_names(src, {n: n for n in sz})])
                    t = net.op(node.name, "getitem", [src],
                               tuple(ms[0].shape), numel(ms[0].shape),
                               out_bytes=meta_bytes(ms), it=it)
                    t.grad = src.grad
                    tens[node], grp[node] = t, part
                    vsz[node] = dict(t.axes)
                    layer_of[node] = in_layers[0] if in_layers else "input"
                    continue
                g = None
                if a in tens and view(a) is not None:
                    g = (slice_groups(*view(a), tuple(tens[a].shape),
                                      tuple(ms[0].shape)) if sliced else
                         view_groups(node, *view(a), tuple(ms[0].shape)))
                tens[node] = gs.T(src.name, tuple(ms[0].shape), src.grad,
                                  meta_bytes(ms) if sliced else src.bytes,
                                  src.axes if g is not None and not sliced
                                  else None)
                # a slice's axes are no producer's out: its edges get no
                # dims, but the ops that read it name their dims after it
                grp[node], vsz[node] = g if g is None else g[0], \
                    None if g is None else g[1]
                layer_of[node] = in_layers[0] if in_layers else "input"
            continue
        if node.op == "call_module" and ta.expandable(
                node, gm.get_submodule(node.target)) and \
                ta.qkv_args(node)[0] in tens:
            net.layer = node.target
            xa = ta.qkv_args(node)[0]
            got = ta.expand(net, node.name, node.target,
                            gm.get_submodule(node.target), tens[xa],
                            view(xa), var_for, elem_size(ms[0].dtype))
            if got is not None:
                t, og = got
                t.grad = True
                tens[node], grp[node], vsz[node] = t, og, dict(t.axes)
                layer_of[node] = net.layer
                continue
        weights, extra_param, quals = [], 0, []
        if node.op == "call_module":
            mod = gm.get_submodule(node.target)
            net.layer = node.target  # leaf-module granularity
            quals = [node.target + "." + pn
                     for pn, _ in mod.named_parameters()]
            extra_param = sum(b.numel() * b.element_size()
                              for b in mod.buffers())
        # a parameter passed as an argument (F.linear(x, self.w)) is a
        # weight of this op, not an activation
        var_names = {v.name: v for v in vars_.values()}
        act_nodes = [a for a in node.all_input_nodes
                     if a in tens and tens[a].name not in var_names]
        acts = [tens[a] for a in act_nodes]
        it, og = (None, None)
        if len(ms) == 1:
            it, og = iteration_space(node, gm, typ, acts,
                                     [view(a) for a in act_nodes],
                                     tuple(ms[0].shape),
                                     elem_size(ms[0].dtype),
                                     hints.get(node))
            if it is None:
                it, og = generic_space(tuple(ms[0].shape),
                                       node.meta.get("shape2"), batch,
                                       elem_size(ms[0].dtype), acts,
                                       [tuple(params[q].shape)
                                        for q in quals])
        for i, q in enumerate(quals):
            names = it.wnames(i) if it is not None else None
            weights.append(var_for(q, None if names is None else
                                   [(n, it.size(n)) for n in names]))
        for t in ins:
            v = var_names.get(t.name)
            if v is not None and v not in weights:
                weights.append(v)
        in_ms = [m for a in node.all_input_nodes if a in tens
                 for m in metas(a.meta.get("tensor_meta"))]
        flops = fw_flops(node, gm, typ, in_ms, ms)
        wsave, dxw = (0,) if acts else (), bool(weights)
        # tensor operands that are activations (x * x counts twice)
        n_act_args = sum(1 for a in node.args if a in act_nodes)
        if typ in DX_NEEDS_W_ONLY or (n_act_args == 1 and (
                typ in MATMUL_FUNCS or typ in PRODUCTS or
                typ in ("truediv", "div"))):
            # dx = dy W: the input gradient reads the weight (or nothing,
            # for a constant factor), not the input nor the bias; a bias's
            # gradient sums dy (reads nothing else)
            save_in, save_out = (), False
        elif typ in NORMS:
            # dx reads x, dy and the scale; the shift's gradient sums dy
            save_in, save_out = (0,) if acts else (), False
        elif typ in SAVE_NONE:
            save_in, save_out = (), False
        elif typ in SAVE_OUT:
            save_in, save_out = (), True
        else:
            save_in, save_out = tuple(range(len(acts))), False
        if save_in == () and weights or typ in NORMS:
            bias = [is_bias(w.name) for w in weights]
            dxw = tuple(i for i, b in enumerate(bias) if not b)
            wsave = [() if b else wsave for b in bias]
        # a matrix or kernel costs as much again for its gradient; a bias or
        # a norm's scale is a reduction over the output gradient
        out_n = sum(numel(m.shape) for m in ms)
        wflops = [flops if len(w.shape) >= 2 else 2 * out_n
                  for w in weights]
        t = net.op(node.name, typ, acts, tuple(ms[0].shape), flops,
                   weights=weights, save_in=save_in, save_out=save_out,
                   dx_needs_w=dxw, wsave=wsave,
                   wflops=wflops, out_bytes=meta_bytes(ms),
                   it=it if it is not None else False)
        if extra_param:
            net.ops[net.index[node.name]]["param_bytes"] = extra_param
        t.grad = any(m.requires_grad for m in ms)
        tens[node] = t
        grp[node] = og if t.axes is not None else None
        vsz[node] = dict(t.axes) if t.axes is not None else None
        layer_of[node] = net.layer
        info["ops"][node.name] = node
    if out_node is None:
        raise ValueError("the traced graph has no output")
    out_nodes = [a for a in out_node.all_input_nodes if a in tens]
    for a in out_node.all_input_nodes:  # a namedtuple of outputs
        out_nodes += [p for p in packs.get(a, []) if p in tens]
    if not out_nodes:
        raise ValueError("the model returns no tensor")
    # the loss reads the first output and every other output of its shape
    # (an auxiliary classifier's logits, as Inception's and GoogLeNet's)
    outs = [a for a in out_nodes
            if tuple(tens[a].shape) == tuple(tens[out_nodes[0]].shape)]
    logits = [tens[a] for a in outs]
    lv = view(outs[0])
    net.layer = "loss"
    if loss == "auto":
        loss = "xent" if len(logits[0].shape) == 2 else "mean"
    names = [n for g in lv[0] for n in g] if lv else None

    def loss_ins():
        """The loss's names for each output's axes (positional)."""
        got = []
        for a in outs:
            v = view(a)
            flat = [n for g in v[0] for n in g] if v else None
            got.append(edge_names(tens[a], dict(zip(flat, names)))
                       if flat is not None and len(flat) == len(names)
                       else None)
        return got
    n_el = sum(gs.numel(t.shape) for t in logits)
    if loss == "xent":
        b = logits[0].shape[0]
        lab = net._op("input:labels", "Input", 0.0, 8 * b, "input",
                      role="input", it=gs.It([("b", b)], ["b"], elem=8))
        labels = gs.T(lab, (b,), False, 8 * b, [("b", b)])
        it = None
        if lv and len(lv[0]) == 2 and len(lv[0][0]) == 1:
            it = gs.It(list(logits[0].axes), [],
                       ins=loss_ins() + [[lv[0][0][0]]])
        per = net.op("loss/cross_entropy", "CrossEntropyLoss",
                     logits + [labels], (), 5 * n_el,
                     save_in=tuple(range(len(logits) + 1)),
                     it=it if it is not None else False)
    else:
        it = None
        if lv:
            it = gs.It(list(logits[0].axes), [], ins=loss_ins())
        per = net.op("loss/mean", "Mean", logits, (), n_el,
                     it=it if it is not None else False)
    net.backward(per)
    net.update()
    info["gm"] = gm
    info["vars"] = vars_
    return net, gm, info


def _profile_us(fn, device, reps=3):
    """Device time of fn() in microseconds, measured with torch.profiler
    (sum of the self time of every event), averaged over reps runs."""
    from torch.profiler import ProfilerActivity, profile
    acts = [ProfilerActivity.CPU]
    if device.type == "cuda":
        acts.append(ProfilerActivity.CUDA)
    fn()  # warm up
    if device.type == "cuda":
        torch.cuda.synchronize()
    with profile(activities=acts) as prof:
        for _ in range(reps):
            fn()
        if device.type == "cuda":
            torch.cuda.synchronize()
    total = 0.0
    for e in prof.key_averages():
        total += (e.self_cuda_time_total if device.type == "cuda"
                  else e.self_cpu_time_total)
    return total / reps


def measure(net, gm, info, example_inputs):
    """Replaces FLOP-based times by measured ones: each traced call runs in
    isolation on its recorded inputs; forward, input gradient and each
    weight gradient are timed separately."""
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    gm = gm.to(device)
    env = {}

    class Rec(torch.fx.Interpreter):
        def run_node(self, n):
            r = super().run_node(n)
            env[n] = r
            return r

    Rec(gm).run(*[x.to(device) for x in example_inputs])

    def load(a):
        v = env[a] if isinstance(a, torch.fx.Node) else a
        if isinstance(v, torch.Tensor) and v.is_floating_point():
            return v.detach().requires_grad_(v.requires_grad)
        return v

    def set_time(opname, us):
        if opname in net.index:
            net.ops[net.index[opname]]["time_us"] = round(max(us, 0.0), 3)

    for name, node in info["ops"].items():
        args = torch.fx.node.map_arg(node.args, load)
        kwargs = torch.fx.node.map_arg(node.kwargs, load)
        if node.op == "call_module":
            fn = gm.get_submodule(node.target)
        elif node.op == "call_method":
            fn = None
        else:
            fn = node.target

        def run():
            if fn is None:
                return getattr(args[0], node.target)(*args[1:], **kwargs)
            return fn(*args, **kwargs)

        with torch.no_grad():
            set_time(name, _profile_us(run, device))
        out = run()
        outs = [o for o in (out if isinstance(out, (tuple, list)) else [out])
                if isinstance(o, torch.Tensor) and o.requires_grad]
        if not outs:
            continue
        grads = [torch.ones_like(o) for o in outs]
        xs = [a for a in args if isinstance(a, torch.Tensor) and
              a.requires_grad]
        if xs:
            set_time(name + "/grad", _profile_us(
                lambda: torch.autograd.grad(outs, xs, grads,
                                            retain_graph=True,
                                            allow_unused=True), device))
        if node.op == "call_module":
            for pn, p in fn.named_parameters():
                qual = node.target + "." + pn
                set_time(name + "/grad_" + qual, _profile_us(
                    lambda p=p: torch.autograd.grad(
                        outs, [p], grads, retain_graph=True,
                        allow_unused=True), device))
    return device


def export(model, example_inputs, path, name=None, optimizer="adam",
           loss="auto", measure_times=False, machine=None,
           description=None, real=False):
    """Writes the training graph of model on example_inputs to path (the
    native dnnpart JSON). Returns a short summary string. Shapes come from
    the meta device unless real or measure_times (then from a run on
    example_inputs). Raises tt.TraceFailure for a model that cannot be
    traced or fails on the inputs."""
    name = name or type(model).__name__
    net, gm, info = build(model, example_inputs, name, optimizer, loss,
                          real or measure_times)
    how = ("FLOP-based on %.1f TFLOP/s at %d %%, %.0f GB/s at %d %%"
           % (gs.PEAK_FLOPS / 1e12, round(100 * gs.FLOP_EFF),
              gs.MEM_BW / 1e9, round(100 * gs.MEM_EFF)))
    if measure_times:
        dev = measure(net, gm, info, example_inputs)
        how = "measured with torch.profiler on " + (
            torch.cuda.get_device_name(0) if dev.type == "cuda" else
            "the CPU")
    desc = description or ("%s exported by tools/from_pytorch.py; inputs %s;"
                           " optimizer %s; times %s" % (
                               name, ", ".join(
                                   "x".join(str(d) for d in x.shape)
                                   for x in example_inputs),
                               optimizer, how))
    net.write(path, desc, machine or {})
    st = net.stats
    return ("%s: %d ops, %d edges, %.2fM parameters; times %s; dims on %d "
            "of %d compute ops and %d of %d data edges" % (
                path, len(net.ops), len(net.edges), net.params() / 1e6, how,
                st["compute_dims"], st["compute"], st["edge_dims"],
                st["edges"])) + (
        "; traced concretely (sizes fixed to these inputs)"
        if info["trace"] == "concrete" else "")


# ---- demo models (used by tests/suite_pytorch.sh and docs/pytorch.md) ----

class DemoMLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(784, 512)
        self.fc2 = nn.Linear(512, 256)
        self.fc3 = nn.Linear(256, 10)

    def forward(self, x):
        x = torch.relu(self.fc1(x.flatten(1)))
        x = torch.relu(self.fc2(x))
        return self.fc3(x)


class DemoCNN(nn.Module):
    """A small residual CNN with batch norm (CIFAR-sized)."""

    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 32, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(32)
        self.conv2 = nn.Conv2d(32, 32, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(32)
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(32, 10)

    def forward(self, x):
        y = torch.relu(self.bn1(self.conv1(x)))
        z = self.bn2(self.conv2(y))
        y = torch.relu(y + z)
        return self.fc(self.pool(y).flatten(1))


def block_layers(m, d):
    """A transformer block's layers (pre-LN attention and MLP) on m."""
    m.ln1 = nn.LayerNorm(d)
    m.qkv = nn.Linear(d, 3 * d)
    m.proj = nn.Linear(d, d)
    m.ln2 = nn.LayerNorm(d)
    m.fc1 = nn.Linear(d, 4 * d)
    m.fc2 = nn.Linear(4 * d, d)


class DemoTransformer(nn.Module):
    """One pre-LN transformer block (single head) on token embeddings."""

    def __init__(self, vocab=1000, d=128):
        super().__init__()
        self.emb = nn.Embedding(vocab, d)
        block_layers(self, d)
        self.head = nn.Linear(d, vocab)
        self.d = d  # the width as an attribute (x.shape would do as well)

    def forward(self, ids):
        x = self.emb(ids)
        d = self.d
        h = self.qkv(self.ln1(x))
        q, k, v = h[..., :d], h[..., d:2 * d], h[..., 2 * d:]
        att = torch.softmax(q @ k.transpose(1, 2) / 8.0, dim=-1)
        x = x + self.proj(att @ v)
        x = x + self.fc2(torch.nn.functional.gelu(self.fc1(self.ln2(x))))
        return self.head(x)


class DemoGPTBlock(nn.Module):
    """A pre-LN GPT block with multi-head attention and a GELU MLP."""

    def __init__(self, d, heads):
        super().__init__()
        block_layers(self, d)
        self.d, self.heads = d, heads

    def forward(self, x):
        d, nh = self.d, self.heads
        b, s = x.shape[0], x.shape[1]
        h = self.qkv(self.ln1(x))
        q, k, v = h[..., :d], h[..., d:2 * d], h[..., 2 * d:]
        q = q.reshape(b, s, nh, d // nh).transpose(1, 2)
        k = k.reshape(b, s, nh, d // nh).transpose(1, 2)
        v = v.reshape(b, s, nh, d // nh).transpose(1, 2)
        att = torch.softmax(q @ k.transpose(2, 3) / 8.0, dim=-1)
        y = (att @ v).transpose(1, 2).reshape(b, s, d)
        x = x + self.proj(y)
        return x + self.fc2(torch.nn.functional.gelu(self.fc1(self.ln2(x))))


class DemoGPT(nn.Module):
    """Two GPT blocks on token embeddings (tests/data/torch_gpt.json)."""

    def __init__(self, vocab=256, d=64, heads=4, layers=2):
        super().__init__()
        self.emb = nn.Embedding(vocab, d)
        self.blocks = nn.ModuleList(DemoGPTBlock(d, heads)
                                    for _ in range(layers))
        self.ln_f = nn.LayerNorm(d)
        self.head = nn.Linear(d, vocab)

    def forward(self, ids):
        x = self.emb(ids)
        for blk in self.blocks:
            x = blk(x)
        return self.head(self.ln_f(x))


DEMOS = {
    "mlp": (DemoMLP, lambda: (torch.randn(64, 1, 28, 28),)),
    "cnn": (DemoCNN, lambda: (torch.randn(32, 3, 32, 32),)),
    "transformer": (DemoTransformer,
                    lambda: (torch.randint(0, 1000, (8, 64)),)),
    "gpt": (DemoGPT, lambda: (torch.randint(0, 256, (8, 32)),)),
}


def parse_input(spec):
    """"8x3x224x224" (float32) or "8x128:long" -> (shape, dtype)."""
    shape, _, kind = spec.partition(":")
    parts = shape.lower().split("x")
    if not all(p.isdigit() and int(p) > 0 for p in parts):
        raise argparse.ArgumentTypeError(
            "'%s': expected sizes > 0 joined by x, e.g. 8x3x224x224 or "
            "8x128:long" % spec)
    kinds = {"": torch.float32, "float": torch.float32,
             "float32": torch.float32, "long": torch.int64,
             "int64": torch.int64, "int": torch.int64}
    if kind not in kinds:
        raise argparse.ArgumentTypeError("'%s': unknown input kind '%s' "
                                         "(expected float or long)"
                                         % (spec, kind))
    return tuple(int(p) for p in parts), kinds[kind]


def make_input(spec, real):
    """A tensor for (shape, dtype): on the meta device, or with real
    values (random floats, token ids 0 and 1) for a real run."""
    shape, dtype = spec
    if not real:
        return torch.empty(shape, dtype=dtype, device="meta")
    if dtype.is_floating_point:
        return torch.randn(*shape, dtype=dtype)
    return torch.randint(0, 2, shape, dtype=dtype)


class Fail(Exception):
    """An error for the user: one line, exit status 2."""


class Parser(argparse.ArgumentParser):
    def error(self, message):
        raise Fail(message + " (see --help)")


def load_model(spec, real):
    """The nn.Module that MODULE:FACTORY returns (its weights on the meta
    device unless real), or Fail."""
    if ":" not in spec:
        raise Fail("'%s': expected MODULE:FACTORY (e.g. "
                   "torchvision.models:resnet50) or --demo NAME" % spec)
    mod, _, fn = spec.partition(":")
    sys.path.insert(0, os.getcwd())
    try:
        module = importlib.import_module(mod)
    except ImportError as e:
        hint = ""
        if (getattr(e, "name", "") or "").split(".")[0] == "torchvision":
            hint = "; on Debian install python3-torchvision (make deps)"
        raise Fail("cannot load %s: %s (expected MODULE:FACTORY, the module "
                   "importable from the current folder%s)"
                   % (spec, tt.one_line(e), hint))
    except Exception as e:  # noqa: BLE001 - the module's own code failed
        raise Fail("cannot load %s: importing %s failed at %s: %s"
                   % (spec, mod, tt.where_of(e), tt.one_line(e)))
    factory = getattr(module, fn, None)
    if not callable(factory):
        raise Fail("cannot load %s: module %s has no function '%s' (expected"
                   " MODULE:FACTORY, FACTORY returning an nn.Module)"
                   % (spec, mod, fn))
    model = None
    if not real:
        try:
            model = tt.meta_model(factory)
        except Exception:  # noqa: BLE001 - its init needs real weights
            model = None
    if model is None:
        try:
            model = factory()
        except Exception as e:  # noqa: BLE001
            raise Fail("%s() failed at %s: %s"
                       % (spec, tt.where_of(e), tt.one_line(e)))
    if not isinstance(model, nn.Module):
        raise Fail("%s() returned %s, not a torch.nn.Module"
                   % (spec, type(model).__name__))
    return model


def main(argv):
    try:
        return run(argv)
    except Fail as e:
        sys.stderr.write("from_pytorch.py: %s\n" % e)
        return 2


def run(argv):
    ap = Parser(
        description="Export a PyTorch model's training step as a dnnpart "
                    "graph (native JSON).")
    ap.add_argument("model", nargs="?",
                    help="MODULE:FACTORY, a callable returning an "
                         "nn.Module (e.g. torchvision.models:resnet50)")
    ap.add_argument("--demo", choices=sorted(DEMOS),
                    help="export a built-in demo model instead")
    ap.add_argument("--input", action="append", type=parse_input,
                    metavar="SHAPE[:long]",
                    help="example input, e.g. 8x3x224x224 or 8x128:long; "
                         "repeat for several inputs")
    ap.add_argument("-o", "--output", required=True)
    ap.add_argument("--name")
    ap.add_argument("--optimizer", choices=("adam", "momentum"),
                    default="adam")
    ap.add_argument("--loss", choices=("auto", "xent", "mean"),
                    default="auto",
                    help="auto: cross-entropy for [batch, classes] outputs, "
                         "else the mean")
    ap.add_argument("--measure", action="store_true",
                    help="measure op times with torch.profiler (GPU if "
                         "present, else CPU)")
    ap.add_argument("--real", action="store_true",
                    help="learn the shapes by running the model on real "
                         "tensors at full size (slow; the default runs it "
                         "on the meta device)")
    ap.add_argument("--peak-tflops", type=float, default=15.7)
    ap.add_argument("--efficiency", type=float, default=0.5)
    ap.add_argument("--mem-gbs", type=float, default=900.0)
    ap.add_argument("--mem-efficiency", type=float, default=0.7)
    ap.add_argument("--devices", type=int,
                    help="machine block: default device count")
    ap.add_argument("--memory", help="machine block: memory per device, "
                                     "e.g. 16GiB")
    a = ap.parse_args(argv)
    gs.PEAK_FLOPS = a.peak_tflops * 1e12
    gs.FLOP_EFF = a.efficiency
    gs.MEM_BW = a.mem_gbs * 1e9
    gs.MEM_EFF = a.mem_efficiency
    real = a.real or a.measure
    warnings.simplefilter("ignore")  # torchvision's notices on init
    torch.manual_seed(0)
    if a.demo:
        cls, inputs = DEMOS[a.demo]
        model, example = cls(), inputs()
        name = a.name or "demo-" + a.demo
        spec = a.demo
    else:
        if not a.model:
            raise Fail("give MODULE:FACTORY or --demo NAME")
        if not a.input:
            raise Fail("give the example input shape(s) with --input, e.g. "
                       "--input 8x3x224x224")
        model = load_model(a.model, real)
        example = tuple(make_input(x, real) for x in a.input)
        name = a.name or type(model).__name__
        spec = a.model
    machine = {}
    if a.devices:
        machine["devices"] = a.devices
    if a.memory:
        machine["memory"] = a.memory
    try:
        summary = export(model, example, a.output, name, a.optimizer,
                         a.loss, a.measure, machine, real=real)
    except tt.TraceFailure as e:
        shapes = " ".join("--input " + "x".join(str(d) for d in x.shape)
                          for x in example)
        msg = "%s: %s" % (e.where, e.what) if e.where else e.what
        if e.running:
            raise Fail("%s fails on %s: %s" % (spec, shapes, msg))
        raise Fail("cannot trace the model %s: %s" % (spec, msg))
    print(summary)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

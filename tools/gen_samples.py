#!/usr/bin/env python3
"""gen_samples.py - op-level training graphs of real architectures.

Writes sample_graphs/*.json (the native dnnpart format, one op or edge per
line) for: GPT-2 small and XL, BERT-large, ResNet-50, Inception-v3 and a
2-layer LSTM language model like ParDNN's Word-RNN. Each graph is one
training step: forward ops, their backward (gradient) ops made by reverse-
mode differentiation of the forward graph, and one optimizer update per
weight tensor.

Cost model (sample_graphs/README.md says the same):
- reference GPU: NVIDIA V100-SXM2 16 GB, fp32: 15.7 TFLOP/s peak at 50 %
  efficiency, 900 GB/s HBM2 at 70 %; op time = 3 us (kernel launch) +
  max(FLOPs / 7.85 TFLOP/s, bytes moved / 630 GB/s) (a roofline);
- tensors are fp32 (4 bytes) except integer token ids and labels (4 bytes
  too, int32); sizes are exact products of the real shapes;
- a weight is a Variable op holding param_bytes = weight + optimizer state
  for the whole step (Adam: 2 extra copies; SGD with momentum: 1); its
  update op (ApplyAdam / ApplyMomentum) is colocated with it; gradients are
  transient outputs of the backward ops;
- backward: every forward op on a path from a weight to the loss gets a
  gradient op (MatMul/Conv get separate input- and weight-gradient ops,
  as TensorFlow does); tensors the gradient needs (inputs, or the output
  for ReLU/Tanh/Sigmoid/Exp/Softmax...) are edges from the forward op, so
  they stay alive until the backward has used them; a tensor consumed by
  several ops gets an AddN that sums its gradients.
- roles (docs/formats.md): input, param (a Variable), forward, loss (the
  op whose gradient starts the backward pass), backward (input gradients
  and their sums), grad (weight gradients and their accumulation), update.
- iteration spaces (docs/formats.md): every op's dims, out, param (the
  weights it reads) and elem_bytes, every data edge's dims, the graph's
  batch_dim "b", named by the convention of docs/formats.md ("Dim names of
  the sample graphs"); whatever would disagree with the bytes is left out
  and counted on stderr (an op whose output is several tensors, as an
  Add's gradient, has no out, so the edges out of it have no dims).

Python 3 standard library only; the output is deterministic. Usage:
  python3 tools/gen_samples.py [--out sample_graphs] [--only NAME]
"""

import argparse
import json
import os
import sys

DT = 4  # bytes per element (fp32 / int32)

# ---- reference GPU (roofline) ----
PEAK_FLOPS = 15.7e12
FLOP_EFF = 0.5
MEM_BW = 900e9
MEM_EFF = 0.7
LAUNCH_US = 3.0


def op_time_us(flops, bytes_moved):
    """Roofline time of one kernel on the reference GPU, in microseconds."""
    compute = flops / (PEAK_FLOPS * FLOP_EFF)
    memory = bytes_moved / (MEM_BW * MEM_EFF)
    return round(LAUNCH_US + 1e6 * max(compute, memory), 3)


def numel(shape):
    n = 1
    for d in shape:
        n *= d
    return n


# ---- iteration spaces (docs/formats.md "Iteration spaces and roles") ----
#
# An op's iteration space is its loop nest: named dims with sizes, the dims
# that index its output (`out`), the dims that index the weights it reads
# (`param`), and, for each input tensor and weight, the op's own dims that
# index that tensor's axes (written on the edge). A tensor keeps the names
# its producer's `out` gives its axes, in order, plus canonical names (what
# a consumer calls them unless it says otherwise). Backward, weight-gradient,
# gradient-sum and update ops take theirs from the forward op and variable.
# The writer checks every field against the bytes (graph.h's rules) and
# leaves out, and counts, whatever does not agree. An op whose output is
# several tensors (an input gradient of several inputs) has dims but no
# out; an edge out of it names the consumer's dims and, in from_dims, the
# op's own dims of the tensor it carries (docs/formats.md).


class It:
    """An op's iteration space: dims [(name, size)], out / param (names or
    None), ins (per input tensor: the op's names for its axes, or None),
    w (the op's names for its weight's axes, or None; ws: per weight, for
    an op with several), elem (bytes)."""

    __slots__ = ("dims", "out", "param", "ins", "w", "ws", "elem")

    def __init__(self, dims, out=None, param=None, ins=None, w=None,
                 elem=DT, ws=None):
        self.dims = [(n, int(z)) for n, z in dims]
        self.out = list(out) if out is not None else None
        self.param = list(param) if param is not None else None
        self.ins = list(ins) if ins is not None else []
        self.w = list(w) if w is not None else None
        self.ws = list(ws) if ws is not None else None
        self.elem = elem

    def wnames(self, i):
        """The op's names for the axes of its weight i, or None."""
        if self.ws is not None:
            return self.ws[i] if i < len(self.ws) else None
        return self.w if i == 0 else None

    def size(self, name):
        for n, z in self.dims:
            if n == name:
                return z
        return None

    def names(self):
        return [n for n, _ in self.dims]

    def fits(self, names, axes):
        """Whether the op's dims `names` index a tensor with `axes`."""
        if names is None or axes is None or len(names) != len(axes):
            return False
        if len(set(names)) != len(names):
            return False
        return all(self.size(n) == z for n, (_, z) in zip(names, axes))


def _nred(w):
    """How many leading axes of weight w [K, N] hold its K rows."""
    for nk in range(1, len(w.axes)):
        if numel(z for _, z in w.axes[:nk]) == w.shape[0]:
            return nk
    return len(w.axes)


def axes_of(it, names):
    """[(name, size)] of it's dims names."""
    return tuple((n, it.size(n)) for n in names)


class T:
    """A forward tensor: the output of one op. axes: its canonical
    [(name, size)] (None: unknown), whose sizes multiply to its elements."""

    __slots__ = ("name", "shape", "bytes", "grad", "axes")

    def __init__(self, name, shape, grad, nbytes=None, axes=None):
        self.name = name
        self.shape = tuple(shape)
        self.bytes = nbytes if nbytes is not None else numel(shape) * DT
        self.grad = grad  # True when a weight influences it
        self.axes = tuple(axes) if axes is not None else None
        if self.axes is not None and \
                numel(z for _, z in self.axes) != numel(self.shape):
            raise ValueError("%s: axes %s do not hold shape %s"
                             % (name, self.axes, self.shape))

    def names(self):
        return [n for n, _ in self.axes] if self.axes is not None else None

    def elem(self):
        n = numel(self.shape)
        return self.bytes // n if n and self.bytes % n == 0 else DT


class Var:
    __slots__ = ("name", "shape", "bytes", "layer", "grads", "axes")

    def __init__(self, name, shape, layer, nbytes=None, axes=None):
        self.name = name
        self.shape = tuple(shape)
        self.bytes = nbytes if nbytes is not None else numel(shape) * DT
        self.layer = layer
        self.grads = []  # (op name) producing a gradient of this weight
        self.axes = None
        if axes is not None:
            names = list(axes)
            if all(isinstance(n, str) for n in names) and \
                    len(names) == len(self.shape):
                self.axes = tuple(zip(names, self.shape))
            elif not all(isinstance(n, str) for n in names) and \
                    numel(self.shape) == numel(z for _, z in axes):
                self.axes = tuple(axes)  # (name, size) pairs that hold it
            else:
                raise ValueError("%s: axes %s do not hold shape %s"
                                 % (name, axes, self.shape))

    def names(self):
        return [n for n, _ in self.axes] if self.axes is not None else None


def _per_weight(dx_needs_w, weights):
    """The indices of the weights an input gradient reads: all (True),
    none (False) or those given."""
    if dx_needs_w is True:
        return tuple(range(len(weights)))
    return tuple(dx_needs_w or ())


def _wsave(wsave, weights, inputs):
    """Per weight, the inputs its gradient needs (wsave: one tuple for
    all, or a list of one per weight)."""
    if all(isinstance(i, int) for i in wsave):
        wsave = [wsave] * len(weights)
    return [tuple(i for i in w if i < len(inputs)) for w in wsave]


class Rec:
    """What the backward pass needs to know about one forward op."""

    __slots__ = ("out", "type", "inputs", "weights", "flops", "save_in",
                 "save_out", "dx_needs_w", "layer", "wflops", "wsave", "it")

    def __init__(self, **kw):
        for k in self.__slots__:
            setattr(self, k, kw.get(k))


def ew_it(inputs, weights, shape, out_axes=None):
    """The iteration space of an element-wise op: its output's axes (given,
    or those of the first input of the same shape); every input and weight
    whose axes are a subset of them is indexed by their names."""
    if out_axes is None:
        if not inputs or inputs[0].axes is None or \
                tuple(inputs[0].shape) != tuple(shape):
            return None
        out_axes = inputs[0].axes
    it = It(out_axes, [n for n, _ in out_axes])
    it.ins = [t.names() if it.fits(t.names(), t.axes) else None
              for t in inputs]
    if weights:
        w = weights[0]
        if it.fits(w.names(), w.axes):
            it.w = w.names()
            it.param = w.names()
    return it


class Net:
    """Builds a training graph: forward ops by the model builders, then
    backward() and update() add the rest."""

    def __init__(self, name, optimizer):
        self.name = name
        self.optimizer = optimizer  # "adam" or "momentum"
        self.ops = []
        self.index = {}
        self.edges = {}  # (from, to) -> bytes; insertion ordered
        self.edge_dims = {}  # (from, to) -> the consumer's dim names
        # (from, to) -> the producer's dim names, for a producer whose
        # output is several tensors (no out): its from_dims
        self.edge_src = {}
        self.gnames = {}  # (op, tensor) -> the op's names for that output
        self.recs = []
        self.vars = []
        self.layer = ""
        self.batch_dim = None  # written when some op has it
        # one input-gradient op per input of an op with several (the
        # PyTorch bridge); products: types whose gradient for one input
        # reads the other inputs only
        self.split_grads = False
        self.products = ()
        self.stats = {}

    # -- low level --
    def _op(self, name, typ, time_us, out_bytes, layer, param=0,
            coloc=None, role=None, it=None):
        if name in self.index:
            raise ValueError("duplicate op name " + name)
        o = {"name": name, "type": typ, "time_us": time_us,
             "output_bytes": out_bytes}
        if param:
            o["param_bytes"] = param
        if layer:
            o["layer"] = layer
        if coloc:
            o["colocate"] = coloc
        if role:
            o["role"] = role
        self.index[name] = len(self.ops)
        self.ops.append(o)
        self.set_it(name, it)
        return name

    def set_it(self, name, it):
        """Gives op name the iteration space it (None: none); checked
        against the bytes when the graph is written."""
        o = self.ops[self.index[name]]
        for k in ("dims", "out", "param", "elem_bytes"):
            o.pop(k, None)
        if it is None:
            return
        o["dims"] = dict(it.dims)
        if it.out is not None:
            o["out"] = list(it.out)
        if it.param is not None:
            o["param"] = list(it.param)
        o["elem_bytes"] = it.elem

    def _edge(self, a, b, nbytes, dims=None, src=None):
        key = (a, b)
        old = self.edges.get(key, -1)
        src = list(src) if src is not None else None
        if old < nbytes:
            self.edges[key] = nbytes
            self.edge_dims[key] = list(dims) if dims is not None else None
            self.edge_src[key] = src
        elif old == nbytes and (self.edge_dims.get(key) != (
                list(dims) if dims is not None else None) or
                self.edge_src.get(key) != src):
            self.edge_dims[key] = None  # the same tensor seen two ways

    # -- forward building blocks --
    def data(self, name, shape, axes=None, nbytes=None):
        """An input tensor; axes: its dim names (one per axis of shape, or
        (name, size) pairs that hold it)."""
        nb = nbytes if nbytes is not None else numel(shape) * DT
        ax = None
        if axes is not None:
            ax = (tuple(zip(axes, shape)) if len(axes) == len(shape) and
                  all(isinstance(n, str) for n in axes) else tuple(axes))
        t = T(name, shape, False, nb, ax)
        it = It(ax, t.names(), elem=t.elem()) if ax is not None else None
        self._op(name, "Input", 0.0, nb, self.layer, role="input", it=it)
        return t

    def var(self, name, shape, nbytes=None, axes=None):
        v = Var(name, shape, self.layer, nbytes, axes)
        state = 2 if self.optimizer == "adam" else 1
        it = None
        if v.axes is not None:
            it = It(v.axes, v.names(), v.names(),
                    elem=v.bytes // max(numel(v.shape), 1))
        self._op(name, "Variable", 0.0, 0, self.layer,
                 param=v.bytes * (1 + state), coloc=name, role="param",
                 it=it)
        self.vars.append(v)
        return v

    def op(self, name, typ, inputs, shape, flops, weights=(), save_in=(),
           save_out=False, dx_needs_w=False, wflops=None, wsave=(0,),
           out_bytes=None, extra_bytes=0, it=None, axes=None):
        """A forward op. inputs: tensors; weights: Vars it reads. save_in:
        indices of inputs its gradient needs; save_out: the gradient needs
        its output; dx_needs_w: the input gradient needs the weights
        (MatMul, Conv: True, or the indices of those it needs); wflops:
        FLOPs of the weight gradient (one number, or one per weight); wsave: inputs the weight gradient needs (one
        tuple, or a list of one per weight: a bias's needs none).
        it: the iteration space (None: element-wise, from the inputs;
        False: none);
        axes: the output's canonical names, one per name of it.out (None:
        it.out's)."""
        if it is None:
            it = ew_it(inputs, weights, shape)
        elif it is False:
            it = None
        oax = None
        if it is not None and it.out is not None:
            oax = axes_of(it, it.out)
            if axes is not None:
                oax = tuple(zip(axes, (z for _, z in oax)))
            if numel(z for _, z in oax) != numel(shape):
                oax = None
        out = T(name, shape, any(t.grad for t in inputs) or bool(weights),
                out_bytes, oax)
        moved = (sum(t.bytes for t in inputs) + sum(w.bytes for w in weights)
                 + out.bytes + extra_bytes)
        self._op(name, typ, op_time_us(flops, moved), out.bytes, self.layer,
                 role="forward", it=it)
        ins = it.ins if it is not None else []
        for i, t in enumerate(inputs):
            self._edge(t.name, name, t.bytes, ins[i] if i < len(ins) else None)
        for i, w in enumerate(weights):
            self._edge(w.name, name, w.bytes, it.wnames(i) if it else None)
        self.recs.append(Rec(out=out, type=typ, inputs=list(inputs),
                             weights=list(weights), flops=flops,
                             save_in=tuple(save_in), save_out=save_out,
                             dx_needs_w=_per_weight(dx_needs_w, weights),
                             layer=self.layer,
                             wflops=wflops if wflops is not None else flops,
                             wsave=_wsave(wsave, weights, inputs), it=it))
        return out

    # -- common layers --
    def matmul(self, name, x, w):
        """x [..., K] times w [K, N]. With axes, the weight's leading axes
        are the reduction (x's last axes, as many, of the same sizes) and
        the rest index the output: out = x's other axes + those."""
        k, n = w.shape
        m = numel(x.shape) // k
        it = None
        if x.axes is not None and w.axes is not None:
            xn = x.names()
            nk = _nred(w)
            lead = x.axes[:len(x.axes) - nk]
            red, wo = w.axes[:nk], w.axes[nk:]
            xk = [z for _, z in x.axes[len(x.axes) - nk:]]
            out = [a for a, _ in lead] + [a for a, _ in wo]
            if xk == [z for _, z in red]:
                it = It(list(lead) + list(red) + list(wo), out, w.names(),
                        w=w.names())
                it.ins = [xn[:len(lead)] + [a for a, _ in red]]
        return self.op(name, "MatMul", [x], x.shape[:-1] + (n,),
                       2 * m * k * n, weights=[w], save_in=(0,),
                       dx_needs_w=True, it=it)

    def bias_add(self, name, x, b):
        return self.op(name, "BiasAdd", [x], x.shape, numel(x.shape),
                       weights=[b], wflops=numel(x.shape), wsave=())

    def dense(self, scope, x, n_out, bias=True, w_axes=None):
        """w_axes: the weight's dim names, reduction first (they must
        index x's last axes), then the output's."""
        w = self.var(scope + "/w", (x.shape[-1], n_out), axes=w_axes)
        y = self.matmul(scope + "/matmul", x, w)
        if bias:
            b_axes = w.axes[_nred(w):] if w.axes is not None else None
            b = self.var(scope + "/b", (n_out,), axes=b_axes)
            y = self.bias_add(scope + "/add", y, b)
        return y

    def ew(self, name, typ, inputs, flops_per=1, save_in=(), save_out=False,
           shape=None, it=None, axes=None):
        shape = shape or inputs[0].shape
        return self.op(name, typ, inputs, shape, flops_per * numel(shape),
                       save_in=save_in, save_out=save_out, it=it, axes=axes)

    def reshape_ew(self, name, typ, x, shape, out, flops_per=0):
        """An op that reads x whole and writes its axes out (names of x's,
        reordered: a transpose; or fewer: a slice, which the writer names
        as a contraction with a constant selector over the sliced axes)."""
        it = None
        if x.axes is not None:
            it = It(x.axes, out, ins=[x.names()])
        return self.ew(name, typ, [x], flops_per, shape=shape, it=it)

    def reduce(self, name, typ, x, shape, save_in=(), save_out=False,
               out=None):
        """out: the names of x's axes the result keeps (default: all but
        the last for a [..., 1] result, none for a scalar)."""
        it = None
        if x.axes is not None:
            if out is None:
                if tuple(shape) == tuple(x.shape[:-1]) + (1,):
                    out = x.names()[:-1]
                elif tuple(shape) == ():
                    out = []
            if out is not None:
                it = It(x.axes, out, ins=[x.names()])
        return self.op(name, typ, [x], shape, numel(x.shape),
                       save_in=save_in, save_out=save_out, it=it)

    def scale(self, name, x, typ="Mul"):
        """Multiply by a constant: the gradient needs nothing saved."""
        return self.ew(name, typ, [x])

    def layer_norm(self, scope, x):
        """GPT-2's norm(): u = mean(x); s = mean((x-u)^2);
        x = (x-u) * rsqrt(s + eps); x*g + b (TensorFlow primitive ops)."""
        red = x.shape[:-1] + (1,)
        u = self.reduce(scope + "/mean", "Mean", x, red)
        d = self.ew(scope + "/sub", "Sub", [x, u])
        sq = self.ew(scope + "/square", "Square", [d], save_in=(0,))
        s = self.reduce(scope + "/variance", "Mean", sq, red)
        e = self.ew(scope + "/add_eps", "Add", [s])
        r = self.ew(scope + "/rsqrt", "Rsqrt", [e], 4, save_out=True)
        n = self.ew(scope + "/normalize", "Mul", [d, r], save_in=(0, 1))
        last = [x.axes[-1]] if x.axes is not None else None
        g = self.var(scope + "/g", (x.shape[-1],), axes=last)
        y = self.op(scope + "/scale", "Mul", [n], n.shape, numel(n.shape),
                    weights=[g], dx_needs_w=True,
                    wflops=2 * numel(n.shape))
        b = self.var(scope + "/b", (x.shape[-1],), axes=last)
        return self.bias_add(scope + "/shift", y, b)

    def gelu(self, scope, x):
        """0.5*x*(1+tanh(sqrt(2/pi)*(x+0.044715*x^3))), op by op."""
        p = self.ew(scope + "/pow", "Pow", [x], 2, save_in=(0,))
        c = self.scale(scope + "/mul_c", p)
        a = self.ew(scope + "/add", "Add", [x, c])
        s = self.scale(scope + "/mul_sqrt", a)
        t = self.ew(scope + "/tanh", "Tanh", [s], 4, save_out=True)
        o = self.ew(scope + "/add_one", "Add", [t])
        h = self.scale(scope + "/mul_half", x)
        return self.ew(scope + "/mul", "Mul", [h, o], save_in=(0, 1))

    def softmax_ops(self, scope, x):
        """GPT-2's softmax(): x - max, exp, / sum."""
        red = x.shape[:-1] + (1,)
        m = self.reduce(scope + "/max", "Max", x, red, save_in=(0,),
                        save_out=True)
        d = self.ew(scope + "/sub", "Sub", [x, m])
        e = self.ew(scope + "/exp", "Exp", [d], 4, save_out=True)
        s = self.reduce(scope + "/sum", "Sum", e, red)
        return self.ew(scope + "/truediv", "RealDiv", [e, s], save_in=(0, 1),
                       save_out=True)

    # -- backward and update --
    def backward(self, loss):
        """Gradient ops have their forward op's dims: the input gradient's
        out is the op's names for that input when it is the only one (with
        several, the output is several tensors: no out), and it reads the
        weights as the forward op does; a weight gradient's out is the
        op's names for the weight; a gradient sum has the tensor's axes."""
        self.ops[self.index[loss.name]]["role"] = "loss"
        grads = {}  # tensor name -> [(op, bytes)]
        for r in reversed(self.recs):
            out = r.out
            fit = r.it
            self.layer = r.layer
            if out.name == loss.name:
                dout = None
            else:
                parts = grads.get(out.name)
                if not parts:
                    continue
                if len(parts) == 1:
                    dout = parts[0]
                else:
                    nm = out.name + "/grad_sum"
                    k = len(parts)
                    sit = None
                    if out.axes is not None:
                        sit = It(out.axes, out.names(), elem=out.elem())
                    self._op(nm, "AddN",
                             op_time_us(k * numel(out.shape),
                                        (k + 1) * out.bytes),
                             out.bytes, r.layer, role="backward", it=sit)
                    for p in parts:
                        self._edge(p, nm, out.bytes, out.names(),
                                   self.gnames.get((p, out.name)))
                    dout = nm
            fout = fit.out if fit is not None else None
            fins = fit.ins if fit is not None else []

            def in_names(i):
                return fins[i] if i < len(fins) else None

            need = [t for t in r.inputs if t.grad]
            saved = [(t, in_names(i)) for i, t in enumerate(r.inputs)
                     if i in r.save_in]
            if r.save_out:
                saved.append((out, fout))
            parts = [(out.name + "/grad", need, saved)] if need else []
            if len(need) > 1 and fit is not None and self.split_grads:
                # one op per input (as autograd's): its out is the input's
                # names; a product's reads the other factors only
                parts = [(out.name + "/grad%d" % i, [t],
                          [(u, n) for u, n in saved if u is not t or
                           r.type not in self.products])
                         for i, t in enumerate(r.inputs) if t.grad]
            for nm, ts, sv in parts:
                gbytes = sum(t.bytes for t in ts)
                dxw = [(i, r.weights[i]) for i in r.dx_needs_w]
                moved = (out.bytes + sum(t.bytes for t, _ in sv) + gbytes
                         + sum(w.bytes for _, w in dxw))
                flops = (r.flops if r.dx_needs_w else 2 * r.flops) // \
                    len(parts)
                git = None
                if fit is not None:
                    gout = None
                    if len(ts) == 1:
                        gout = in_names(r.inputs.index(ts[0]))
                    git = It(fit.dims, gout,
                             fit.param if r.dx_needs_w else None,
                             elem=ts[0].elem())
                self._op(nm, r.type + "Grad", op_time_us(flops, moved),
                         gbytes, r.layer, role="backward", it=git)
                if dout:
                    self._edge(dout, nm, out.bytes, fout,
                               self.gnames.get((dout, out.name)))
                for t, names in sv:
                    self._edge(t.name, nm, t.bytes, names)
                for i, w in dxw:
                    self._edge(w.name, nm, w.bytes,
                               fit.wnames(i) if fit else None)
                for t in ts:
                    grads.setdefault(t.name, []).append(nm)
                    if len(ts) > 1:  # several outputs: name each
                        self.gnames[(nm, t.name)] = in_names(
                            r.inputs.index(t))
            for wi, w in enumerate(r.weights):
                nm = out.name + "/grad_" + w.name.rsplit("/", 1)[-1]
                acts = [r.inputs[i] for i in r.wsave[wi]]
                moved = out.bytes + sum(t.bytes for t in acts) + w.bytes
                wf = (r.wflops[wi] if isinstance(r.wflops, (list, tuple))
                      else r.wflops)
                wit = None
                if fit is not None:
                    # a gradient that reads only dy (a bias's) loops over
                    # dy's dims only, not the op's reduction
                    dims, wn = fit.dims, fit.wnames(wi)
                    if not r.wsave[wi] and fit.out is not None and \
                            wn is not None and set(wn) <= set(fit.out):
                        dims = axes_of(fit, fit.out)
                    wit = It(dims, wn,
                             elem=w.bytes // max(numel(w.shape), 1))
                self._op(nm, r.type + "GradWeight",
                         op_time_us(wf, moved), w.bytes, r.layer, role="grad",
                         it=wit)
                if dout:
                    self._edge(dout, nm, out.bytes, fout,
                               self.gnames.get((dout, out.name)))
                for i in r.wsave[wi]:
                    self._edge(r.inputs[i].name, nm, r.inputs[i].bytes,
                               in_names(i))
                w.grads.append(nm)

    def update(self):
        """Gradient accumulations have the weights' dims and out; an update
        indexes its variable's weights (param), which it does not hold."""
        adam = self.optimizer == "adam"
        for v in self.vars:
            self.layer = v.layer
            if not v.grads:
                continue  # not trained (no path to the loss)
            names = v.names()
            elem = v.bytes // max(numel(v.shape), 1)
            # gradients of a shared weight are summed as they arrive (as
            # PyTorch accumulates into .grad), so each is freed early
            g = v.grads[0]
            for i, p in enumerate(v.grads[1:]):
                acc = "%s/grad_acc_%d" % (v.name, i + 1)
                self._op(acc, "Add", op_time_us(v.bytes // DT, 3 * v.bytes),
                         v.bytes, v.layer, role="grad",
                         it=It(v.axes, names, elem=elem) if names else None)
                self._edge(g, acc, v.bytes, names)
                self._edge(p, acc, v.bytes, names)
                g = acc
            n = v.bytes // DT
            uit = It(v.axes, None, names, elem=elem) if names else None
            if adam:  # read p g m v, write p m v; ~12 flops per element
                nm = self._op(v.name + "/adam", "ApplyAdam",
                              op_time_us(12 * n, 7 * v.bytes), 0, v.layer,
                              coloc=v.name, role="update", it=uit)
            else:  # read p g m, write p m
                nm = self._op(v.name + "/momentum", "ApplyMomentum",
                              op_time_us(4 * n, 5 * v.bytes), 0, v.layer,
                              coloc=v.name, role="update", it=uit)
            self._edge(g, nm, v.bytes, names)

    def params(self):
        return sum(v.bytes for v in self.vars) // DT

    def check_dims(self):
        """Drops every iteration-space field that disagrees with the bytes
        or with another op (graph.h's rules), and counts what the graph
        holds in self.stats: ops with dims, with an out, edges with dims,
        and why the others have none."""
        st = {"ops": len(self.ops), "ops_dims": 0, "compute": 0,
              "compute_dims": 0, "no_out": 0, "edges": 0, "edge_dims": 0,
              "why": {}}

        def why(reason):
            st["why"][reason] = st["why"].get(reason, 0) + 1

        for o in self.ops:
            if o["role"] in ("forward", "backward", "grad", "update",
                             "loss"):
                st["compute"] += 1
            d = o.get("dims")
            if d is None:
                continue
            e = o["elem_bytes"]
            if "out" in o and o["output_bytes"] and \
                    numel(d[n] for n in o["out"]) * e != o["output_bytes"]:
                del o["out"]
                why("op out disagrees with output_bytes")
            if "param" in o and o.get("param_bytes") and \
                    numel(d[n] for n in o["param"]) * e > o["param_bytes"]:
                del o["param"]
                why("op param larger than param_bytes")
            st["ops_dims"] += 1
            if o["role"] in ("forward", "backward", "grad", "update",
                             "loss"):
                st["compute_dims"] += 1
            if "out" not in o and o["output_bytes"]:
                st["no_out"] += 1
        for key, nb in self.edges.items():
            if nb == 0:
                continue  # a control edge
            st["edges"] += 1
            names = self.edge_dims.get(key)
            if names is None:
                why("edge: a slice, concat or mismatch the op cannot name")
                continue
            p = self.ops[self.index[key[0]]]
            c = self.ops[self.index[key[1]]]
            pd, cd = p.get("dims"), c.get("dims") or {}
            src = self.edge_src.get(key)
            if "out" not in p and pd is not None and src is not None:
                # one of several outputs: from_dims name the producer's
                ok = (len(src) == len(names) and
                      len(set(names)) == len(names) and
                      all(n in cd and m in pd and cd[n] == pd[m]
                          for n, m in zip(names, src)) and
                      numel(cd[n] for n in names) * p["elem_bytes"] == nb)
                if not ok:
                    self.edge_dims[key] = None
                    why("edge dims disagree with the producer's output")
                    continue
                st["edge_dims"] += 1
                continue
            if "out" not in p:
                self.edge_dims[key] = None
                why("edge from an op whose output is several tensors "
                    "without names" if pd is not None else
                    "edge from an op without dims")
                continue
            ok = (len(names) == len(p["out"]) and
                  len(set(names)) == len(names) and
                  all(n in cd and cd[n] == pd[m]
                      for n, m in zip(names, p["out"])) and
                  numel(pd[m] for m in p["out"]) * p["elem_bytes"] == nb)
            if not ok:
                self.edge_dims[key] = None
                why("edge dims disagree with the producer's out")
                continue
            st["edge_dims"] += 1
        self.stats = st
        return st

    def write(self, path, description, machine):
        self.check_dims()
        lines = ['{"format":"dnnpart-graph","version":1,"name":%s,'
                 % json.dumps(self.name)]
        lines.append('"description":%s,' % json.dumps(description))
        if machine:
            lines.append('"machine":%s,' % json.dumps(
                machine, separators=(",", ":")))
        if self.batch_dim and any(self.batch_dim in o.get("dims", {})
                                  for o in self.ops):
            lines.append('"batch_dim":%s,' % json.dumps(self.batch_dim))
        lines.append('"ops":[')
        for i, o in enumerate(self.ops):
            lines.append(json.dumps(o, separators=(",", ":")) +
                         ("," if i + 1 < len(self.ops) else ""))
        lines.append('],"edges":[')
        items = list(self.edges.items())
        for i, ((a, b), nb) in enumerate(items):
            e = {"from": a, "to": b}
            if nb == 0:
                e["control"] = True
            else:
                e["bytes"] = nb
                if self.edge_dims.get((a, b)) is not None:
                    e["dims"] = self.edge_dims[(a, b)]
                    if self.edge_src.get((a, b)) is not None and \
                            "out" not in self.ops[self.index[a]]:
                        e["from_dims"] = self.edge_src[(a, b)]
            lines.append(json.dumps(e, separators=(",", ":")) +
                         ("," if i + 1 < len(items) else ""))
        lines.append("]}")
        tmp = path + ".tmp"
        with open(tmp, "w", encoding="utf-8") as f:
            f.write("\n".join(lines) + "\n")
        os.replace(tmp, path)


# ---------------------------------------------------------------- models --

def lookup(net, name, ids, table, shape, pos=None):
    """Embedding lookup (GatherV2): the weight gradient is a scatter of the
    output gradient; the ids are saved for it. Its dims are those of
    one_hot(ids) @ table: the ids' axes, the table's rows (a reduction:
    splitting them leaves partial sums, as a vocabulary-parallel embedding
    does) and its columns. Without ids (positions 0..n-1), pos names the
    output's row axis; a table of exactly n rows is read as [pos, ...]."""
    rows, cols = table.axes[0], list(table.axes[1:])
    cn = [a for a, _ in cols]
    if ids is not None:
        it = It(list(ids.axes) + [rows] + cols, ids.names() + cn,
                table.names(), ins=[ids.names()], w=table.names())
    elif rows[1] == shape[0]:
        it = It([(pos, rows[1])] + cols, [pos] + cn, [pos] + cn,
                w=[pos] + cn)
    else:
        it = It([(pos, shape[0]), rows] + cols, [pos] + cn, table.names(),
                w=table.names())
    return net.op(name, "GatherV2", [ids] if ids else [], shape,
                  numel(shape), weights=[table], wflops=numel(shape),
                  wsave=(0,) if ids else (), it=it)


def xent(net, name, logits, labels, shape):
    """SparseSoftmaxCrossEntropyWithLogits: one fused op whose gradient
    needs the logits (softmax) and the labels; dims: the logits' axes, the
    last (classes) reduced."""
    it = It(logits.axes, logits.names()[:-1],
            ins=[logits.names(), labels.names()])
    return net.op(name, "SparseSoftmaxCrossEntropyWithLogits",
                  [logits, labels], shape, 5 * numel(logits.shape),
                  save_in=(0, 1), it=it)


def heads(net, name, x, b, h, s, dh):
    """[b, s, heads, dh] -> [b, heads, s, dh]"""
    n = x.names()
    return net.reshape_ew(name, "Transpose", x, (b, h, s, dh),
                          [n[0], n[2], n[1], n[3]])


def attn_matmul(net, name, x, y, out, first):
    """One of attention's two per-head products over the dims b, heads,
    s (query), sk (key), dh: out and the first input name their last two
    dims (the second input is always [b, heads, sk, dh])."""
    b, h, s, dh = y.shape
    size = {"s": s, "sk": s, "dh": dh}
    it = It([("b", b), ("heads", h), ("s", s), ("sk", s), ("dh", dh)],
            ["b", "heads"] + out,
            ins=[["b", "heads"] + first, ["b", "heads", "sk", "dh"]])
    return net.op(name, "BatchMatMul", [x, y],
                  (b, h) + tuple(size[d] for d in out),
                  2 * b * h * s * s * dh, save_in=(0, 1), it=it)


def attn_qk(net, name, q, k):
    """q @ k^T per head: [b, heads, s, sk]."""
    return attn_matmul(net, name, q, k, ["s", "sk"], ["s", "dh"])


def attn_av(net, name, w, v):
    """softmax(q k^T) @ v per head: [b, heads, s, dh]."""
    return attn_matmul(net, name, w, v, ["s", "dh"], ["s", "sk"])


def merge_heads(net, name, o, shape):
    """[b, heads, s, dh] -> [b, s, heads, dh] (= [b, s, h] in memory)"""
    n = o.names()
    return net.reshape_ew(name, "Transpose", o, shape,
                          [n[0], n[2], n[1], n[3]])


def tied_logits(net, name, x, table, shape, flops):
    """x [..., h] @ table[v, h]^T -> [..., v] (the tied output layer)."""
    v, h = table.axes
    lead = list(x.axes[:-1])
    ln = [a for a, _ in lead]
    it = It(lead + [h, v], ln + [v[0]], table.names(),
            ins=[ln + [h[0]]], w=table.names())
    return net.op(name, "MatMul", [x], shape, flops, weights=[table],
                  save_in=(0,), dx_needs_w=True, it=it)


def text_input(name, batch, seq):
    """A transformer's net (batch dim b, Adam) and its token ids [b, s]
    in the layer "input"."""
    net = Net(name, "adam")
    net.batch_dim = "b"
    net.layer = "input"
    return net, net.data("input_ids", (batch, seq), ("b", "s"))


def gpt2(name, n_layer, d, n_head, batch, seq, vocab=50257, n_ctx=1024):
    """GPT-2 (Radford et al. 2019) after the reference TensorFlow model.py:
    pre-LN blocks, norm() and gelu() as primitive ops, fused QKV, tied
    input/output embedding, no dropout (the reference has none)."""
    net, ids = text_input(name, batch, seq)
    B, S, D, H, dh = batch, seq, d, n_head, d // n_head
    labels = net.data("labels", (B, S), ("b", "s"))
    net.layer = "embed"
    wte = net.var("model/wte", (vocab, D), axes=("v", "h"))
    wpe = net.var("model/wpe", (n_ctx, D), axes=("p", "h"))
    te = lookup(net, "model/wte_lookup", ids, wte, (B, S, D))
    pe = lookup(net, "model/wpe_lookup", None, wpe, (S, D), pos="s")
    x = net.ew("model/embed_add", "Add", [te, pe], shape=(B, S, D))
    for i in range(n_layer):
        p = "model/h%d" % i
        net.layer = p + "/attn"
        a = net.layer_norm(p + "/ln_1", x)
        c = net.dense(p + "/attn/c_attn", a, 3 * D,
                      w_axes=[("h", D), ("qkv", 3), ("heads", H),
                              ("dh", dh)])
        qkv = []
        for part in "qkv":
            t = net.reshape_ew(p + "/attn/split_" + part, "Split", c,
                               (B, S, D), ["b", "s", "heads", "dh"])
            qkv.append(heads(net, p + "/attn/heads_" + part, t, B, H, S, dh))
        q, k, v = qkv
        w = attn_qk(net, p + "/attn/qk", q, k)
        w = net.scale(p + "/attn/scale", w)
        w = net.scale(p + "/attn/mask_mul", w)
        w = net.ew(p + "/attn/mask_sub", "Sub", [w])
        w = net.softmax_ops(p + "/attn/softmax", w)
        o = attn_av(net, p + "/attn/av", w, v)
        o = merge_heads(net, p + "/attn/merge_heads", o, (B, S, D))
        o = net.dense(p + "/attn/c_proj", o, D,
                      w_axes=[("heads", H), ("dh", dh), ("h", D)])
        x = net.ew(p + "/add_1", "Add", [x, o])
        net.layer = p + "/mlp"
        m = net.layer_norm(p + "/ln_2", x)
        h = net.dense(p + "/mlp/c_fc", m, 4 * D, w_axes=("h", "f"))
        h = net.gelu(p + "/mlp/gelu", h)
        h = net.dense(p + "/mlp/c_proj", h, D, w_axes=("f", "h"))
        x = net.ew(p + "/add_2", "Add", [x, h])
    net.layer = "head"
    x = net.layer_norm("model/ln_f", x)
    logits = tied_logits(net, "model/logits", x, wte, (B, S, vocab),
                         2 * B * S * D * vocab)
    per = xent(net, "loss/xent", logits, labels, (B, S))
    loss = net.reduce("loss/mean", "Mean", per, ())
    net.backward(loss)
    net.update()
    return net


def bert(name, n_layer, d, n_head, d_ff, batch, seq, vocab=30522,
         n_pos=512, n_pred=80):
    """BERT (Devlin et al. 2019) pre-training step after the reference
    TensorFlow modeling.py / run_pretraining.py: post-LN blocks, separate
    Q/K/V dense layers, fused Softmax, dropout as one op, GELU and
    LayerNorm as primitive ops, masked-LM head on n_pred positions per
    sequence with the output layer tied to the word embedding, and the
    next-sentence head."""
    net, ids = text_input(name, batch, seq)
    B, S, D, H, dh = batch, seq, d, n_head, d // n_head
    types = net.data("segment_ids", (B, S), ("b", "s"))
    mask = net.data("input_mask", (B, S), ("b", "s"))
    pos = net.data("masked_lm_positions", (B, n_pred), ("b", "p"))
    mlm_labels = net.data("masked_lm_ids", (B * n_pred,),
                          [("b", B), ("p", n_pred)])
    nsp_labels = net.data("next_sentence_labels", (B,), ("b",))
    # the mask over key positions, broadcast over heads and queries
    adder = net.ew("bert/attention_mask", "Mul", [mask], 2,
                   shape=(B, 1, 1, S),
                   it=It([("b", B), ("sk", S)], ["b", "sk"],
                         ins=[["b", "sk"]]))
    net.layer = "bert/embeddings"
    wemb = net.var("bert/embeddings/word_embeddings", (vocab, D),
                   axes=("v", "h"))
    temb = net.var("bert/embeddings/token_type_embeddings", (2, D),
                   axes=("v", "h"))
    pemb = net.var("bert/embeddings/position_embeddings", (n_pos, D),
                   axes=("p", "h"))
    x = lookup(net, "bert/embeddings/word_lookup", ids, wemb, (B, S, D))
    t = lookup(net, "bert/embeddings/type_lookup", types, temb, (B, S, D))
    pe = lookup(net, "bert/embeddings/position_lookup", None, pemb, (S, D),
                pos="s")
    x = net.ew("bert/embeddings/add_type", "Add", [x, t])
    x = net.ew("bert/embeddings/add_position", "Add", [x, pe])
    x = net.layer_norm("bert/embeddings/LayerNorm", x)
    x = net.ew("bert/embeddings/dropout", "Dropout", [x], 2, save_out=True)
    for i in range(n_layer):
        p = "bert/encoder/layer_%d" % i
        net.layer = p + "/attention"
        qkv = []
        for part in ("query", "key", "value"):
            y = net.dense(p + "/attention/self/" + part, x, D,
                          w_axes=[("h", D), ("heads", H), ("dh", dh)])
            qkv.append(heads(net, p + "/attention/self/" + part + "_heads",
                             y, B, H, S, dh))
        q, k, v = qkv
        w = attn_qk(net, p + "/attention/self/qk", q, k)
        w = net.scale(p + "/attention/self/scale", w)
        w = net.ew(p + "/attention/self/add_mask", "Add", [w, adder])
        w = net.ew(p + "/attention/self/softmax", "Softmax", [w], 5,
                   save_out=True)
        w = net.ew(p + "/attention/self/dropout", "Dropout", [w], 2,
                   save_out=True)
        o = attn_av(net, p + "/attention/self/av", w, v)
        o = merge_heads(net, p + "/attention/self/merge_heads", o,
                        (B, S, D))
        o = net.dense(p + "/attention/output/dense", o, D,
                      w_axes=[("heads", H), ("dh", dh), ("h", D)])
        o = net.ew(p + "/attention/output/dropout", "Dropout", [o], 2,
                   save_out=True)
        o = net.ew(p + "/attention/output/add", "Add", [o, x])
        x = net.layer_norm(p + "/attention/output/LayerNorm", o)
        net.layer = p + "/ffn"
        h = net.dense(p + "/intermediate/dense", x, d_ff, w_axes=("h", "f"))
        h = net.gelu(p + "/intermediate/gelu", h)
        h = net.dense(p + "/output/dense", h, D, w_axes=("f", "h"))
        h = net.ew(p + "/output/dropout", "Dropout", [h], 2, save_out=True)
        h = net.ew(p + "/output/add", "Add", [h, x])
        x = net.layer_norm(p + "/output/LayerNorm", h)
    net.layer = "cls/predictions"
    # a gather along s: one_hot(pos) @ x, s reduced
    g = net.op("cls/predictions/gather", "GatherV2", [x, pos],
               (B * n_pred, D), B * n_pred * D, save_in=(1,),
               it=It([("b", B), ("p", n_pred), ("s", S), ("h", D)],
                     ["b", "p", "h"],
                     ins=[["b", "s", "h"], ["b", "p"]]))
    g = net.dense("cls/predictions/transform/dense", g, D,
                  w_axes=("k", "h"))
    g = net.gelu("cls/predictions/transform/gelu", g)
    g = net.layer_norm("cls/predictions/transform/LayerNorm", g)
    logits = tied_logits(net, "cls/predictions/logits", g, wemb,
                         (B * n_pred, vocab), 2 * B * n_pred * D * vocab)
    ob = net.var("cls/predictions/output_bias", (vocab,), axes=("v",))
    logits = net.bias_add("cls/predictions/bias_add", logits, ob)
    mlm = xent(net, "cls/predictions/xent", logits, mlm_labels,
               (B * n_pred,))
    mlm = net.reduce("cls/predictions/mean", "Mean", mlm, ())
    net.layer = "cls/seq_relationship"
    first = net.reshape_ew("bert/pooler/first_token", "StridedSlice", x,
                           (B, D), ["b", "h"])
    pooled = net.dense("bert/pooler/dense", first, D, w_axes=("k", "h"))
    pooled = net.ew("bert/pooler/tanh", "Tanh", [pooled], 4, save_out=True)
    nsp = net.dense("cls/seq_relationship/dense", pooled, 2,
                    w_axes=("h", "n"))
    nsp = xent(net, "cls/seq_relationship/xent", nsp, nsp_labels, (B,))
    nsp = net.reduce("cls/seq_relationship/mean", "Mean", nsp, ())
    net.layer = "loss"
    loss = net.ew("loss/total", "Add", [mlm, nsp], shape=())
    net.backward(loss)
    net.update()
    return net


def conv(net, name, x, cout, k, stride=1, kw=None, padding="same"):
    """2-D convolution, NCHW shapes, no bias (a batch norm follows)."""
    kh, kw = k, (kw or k)
    b, cin, h, w = x.shape
    if padding == "same":
        ho, wo = -(-h // stride), -(-w // stride)
    else:  # valid
        ho, wo = (h - kh) // stride + 1, (w - kw) // stride + 1
    wt = net.var(name + "/weights", (kh, kw, cin, cout),
                 axes=("kh", "kw", "c", "o"))
    flops = 2 * b * ho * wo * cout * cin * kh * kw
    wn = ["kh", "kw", "c", "o"]
    dims, xin = spatial([("b", b), ("o", cout), ("y", ho), ("x", wo),
                         ("c", cin), ("kh", kh), ("kw", kw)], h, w, ho, wo)
    it = It(dims, ["b", "o", "y", "x"], wn, ins=[["b", "c"] + xin], w=wn)
    return net.op(name + "/Conv2D", "Conv2D", [x], (b, cout, ho, wo), flops,
                  weights=[wt], save_in=(0,), dx_needs_w=True, it=it,
                  axes=("b", "c", "y", "x"))


def spatial(dims, h, w, ho, wo):
    """A conv's or pool's dims plus yi, xi where its input is larger than
    its output; and the names its input's spatial axes have."""
    xin = ["y" if h == ho else "yi", "x" if w == wo else "xi"]
    if h != ho:
        dims.append(("yi", h))
    if w != wo:
        dims.append(("xi", w))
    return dims, xin


def batch_norm(net, name, x):
    """FusedBatchNorm with scale and offset (gamma, beta) trained."""
    c = x.shape[1]
    v = net.var(name + "/gamma_beta", (2, c), axes=("g", "c"))
    it = It(list(x.axes) + [("g", 2)], x.names(), ["g", "c"],
            ins=[x.names()], w=["g", "c"])
    return net.op(name + "/FusedBatchNorm", "FusedBatchNorm", [x], x.shape,
                  8 * numel(x.shape), weights=[v], save_in=(0,),
                  dx_needs_w=True, wflops=4 * numel(x.shape), it=it)


def relu(net, name, x):
    return net.ew(name, "Relu", [x], save_out=True)


def conv_bn(net, name, x, cout, k, stride=1, kw=None, padding="same",
            act=True):
    y = conv(net, name, x, cout, k, stride, kw, padding)
    y = batch_norm(net, name + "/BatchNorm", y)
    return relu(net, name + "/Relu", y) if act else y


def pool(net, name, typ, x, k, stride, padding="same"):
    b, c, h, w = x.shape
    if padding == "same":
        ho, wo = -(-h // stride), -(-w // stride)
    else:
        ho, wo = (h - k) // stride + 1, (w - k) // stride + 1
    shape = (b, c, ho, wo)
    dims, xin = spatial([("b", b), ("c", c), ("y", ho), ("x", wo),
                         ("kh", k), ("kw", k)], h, w, ho, wo)
    it = It(dims, ["b", "c", "y", "x"], ins=[["b", "c"] + xin])
    # max pooling's gradient needs the input and the output
    return net.op(name, typ, [x], shape, numel(shape) * k * k,
                  save_in=(0,) if typ == "MaxPool" else (),
                  save_out=typ == "MaxPool", it=it)


def classifier(net, x, labels, n_classes, scope):
    b, c = x.shape[0], x.shape[1]
    g = net.reduce(scope + "/global_pool", "Mean", x, (b, c), out=["b", "c"])
    logits = net.dense(scope + "/logits", g, n_classes, w_axes=("c", "n"))
    return xent(net, scope + "/xent", logits, labels, (b,))


def image_input(name, batch, size):
    """An image classifier's net (batch dim b, momentum), its images
    [b, 3, size, size] and labels [b] in the layer "input"."""
    net = Net(name, "momentum")
    net.batch_dim = "b"
    net.layer = "input"
    x = net.data("images", (batch, 3, size, size), ("b", "c", "y", "x"))
    return net, x, net.data("labels", (batch,), ("b",))


def resnet50(batch=64, size=224):
    """ResNet-50 v1 (He et al. 2016) as in torchvision/TF-slim: bottleneck
    blocks [3, 4, 6, 3], stride on the 3x3 conv, projection shortcuts."""
    net, x, labels = image_input("resnet50", batch, size)
    net.layer = "stem"
    x = conv_bn(net, "conv1", x, 64, 7, 2)
    x = pool(net, "pool1/MaxPool", "MaxPool", x, 3, 2)
    for si, (n, w) in enumerate([(3, 64), (4, 128), (6, 256), (3, 512)]):
        for bi in range(n):
            p = "block%d/unit%d" % (si + 1, bi + 1)
            net.layer = p
            stride = 2 if bi == 0 and si > 0 else 1
            sc = x
            if bi == 0:
                sc = conv_bn(net, p + "/shortcut", x, 4 * w, 1, stride,
                             act=False)
            y = conv_bn(net, p + "/conv1", x, w, 1)
            y = conv_bn(net, p + "/conv2", y, w, 3, stride)
            y = conv_bn(net, p + "/conv3", y, 4 * w, 1, act=False)
            y = net.ew(p + "/add", "Add", [y, sc])
            x = relu(net, p + "/Relu", y)
    net.layer = "logits"
    per = classifier(net, x, labels, 1000, "logits")
    loss = net.reduce("loss/mean", "Mean", per, ())
    net.backward(loss)
    net.update()
    return net


def concat(net, name, parts):
    """Channels c of the output; the channels of input i are its dim ci
    (the output reads as a sum over them of constant placements)."""
    b, _, h, w = parts[0].shape
    c = sum(t.shape[1] for t in parts)
    cs = [("c%d" % i, t.shape[1]) for i, t in enumerate(parts)]
    it = It([("b", b), ("c", c), ("y", h), ("x", w)] + cs,
            ["b", "c", "y", "x"],
            ins=[["b", n, "y", "x"] for n, _ in cs])
    return net.ew(name, "ConcatV2", parts, 0, shape=(b, c, h, w), it=it)


def inception_v3(batch=32, size=299):
    """Inception-v3 (Szegedy et al. 2016) as in torchvision /
    TF-slim inception_v3: every conv is conv + batch norm + ReLU; the
    auxiliary classifier after Mixed_6e is part of the training step."""
    net, x, labels = image_input("inception-v3", batch, size)
    net.layer = "stem"
    x = conv_bn(net, "Conv2d_1a_3x3", x, 32, 3, 2, padding="valid")
    x = conv_bn(net, "Conv2d_2a_3x3", x, 32, 3, padding="valid")
    x = conv_bn(net, "Conv2d_2b_3x3", x, 64, 3)
    x = pool(net, "MaxPool_3a_3x3", "MaxPool", x, 3, 2, "valid")
    x = conv_bn(net, "Conv2d_3b_1x1", x, 80, 1, padding="valid")
    x = conv_bn(net, "Conv2d_4a_3x3", x, 192, 3, padding="valid")
    x = pool(net, "MaxPool_5a_3x3", "MaxPool", x, 3, 2, "valid")

    def block_a(p, x, pool_ch):
        net.layer = p
        b0 = conv_bn(net, p + "/Branch_0/Conv2d_0a_1x1", x, 64, 1)
        b1 = conv_bn(net, p + "/Branch_1/Conv2d_0a_1x1", x, 48, 1)
        b1 = conv_bn(net, p + "/Branch_1/Conv2d_0b_5x5", b1, 64, 5)
        b2 = conv_bn(net, p + "/Branch_2/Conv2d_0a_1x1", x, 64, 1)
        b2 = conv_bn(net, p + "/Branch_2/Conv2d_0b_3x3", b2, 96, 3)
        b2 = conv_bn(net, p + "/Branch_2/Conv2d_0c_3x3", b2, 96, 3)
        b3 = pool(net, p + "/Branch_3/AvgPool_0a_3x3", "AvgPool", x, 3, 1)
        b3 = conv_bn(net, p + "/Branch_3/Conv2d_0b_1x1", b3, pool_ch, 1)
        return concat(net, p + "/concat", [b0, b1, b2, b3])

    def block_b(p, x):
        net.layer = p
        b0 = conv_bn(net, p + "/Branch_0/Conv2d_1a_3x3", x, 384, 3, 2,
                     padding="valid")
        b1 = conv_bn(net, p + "/Branch_1/Conv2d_0a_1x1", x, 64, 1)
        b1 = conv_bn(net, p + "/Branch_1/Conv2d_0b_3x3", b1, 96, 3)
        b1 = conv_bn(net, p + "/Branch_1/Conv2d_1a_3x3", b1, 96, 3, 2,
                     padding="valid")
        b2 = pool(net, p + "/Branch_2/MaxPool_1a_3x3", "MaxPool", x, 3, 2,
                  "valid")
        return concat(net, p + "/concat", [b0, b1, b2])

    def block_c(p, x, c7):
        net.layer = p
        b0 = conv_bn(net, p + "/Branch_0/Conv2d_0a_1x1", x, 192, 1)
        b1 = conv_bn(net, p + "/Branch_1/Conv2d_0a_1x1", x, c7, 1)
        b1 = conv_bn(net, p + "/Branch_1/Conv2d_0b_1x7", b1, c7, 1, kw=7)
        b1 = conv_bn(net, p + "/Branch_1/Conv2d_0c_7x1", b1, 192, 7, kw=1)
        b2 = conv_bn(net, p + "/Branch_2/Conv2d_0a_1x1", x, c7, 1)
        b2 = conv_bn(net, p + "/Branch_2/Conv2d_0b_7x1", b2, c7, 7, kw=1)
        b2 = conv_bn(net, p + "/Branch_2/Conv2d_0c_1x7", b2, c7, 1, kw=7)
        b2 = conv_bn(net, p + "/Branch_2/Conv2d_0d_7x1", b2, c7, 7, kw=1)
        b2 = conv_bn(net, p + "/Branch_2/Conv2d_0e_1x7", b2, 192, 1, kw=7)
        b3 = pool(net, p + "/Branch_3/AvgPool_0a_3x3", "AvgPool", x, 3, 1)
        b3 = conv_bn(net, p + "/Branch_3/Conv2d_0b_1x1", b3, 192, 1)
        return concat(net, p + "/concat", [b0, b1, b2, b3])

    def block_d(p, x):
        net.layer = p
        b0 = conv_bn(net, p + "/Branch_0/Conv2d_0a_1x1", x, 192, 1)
        b0 = conv_bn(net, p + "/Branch_0/Conv2d_1a_3x3", b0, 320, 3, 2,
                     padding="valid")
        b1 = conv_bn(net, p + "/Branch_1/Conv2d_0a_1x1", x, 192, 1)
        b1 = conv_bn(net, p + "/Branch_1/Conv2d_0b_1x7", b1, 192, 1, kw=7)
        b1 = conv_bn(net, p + "/Branch_1/Conv2d_0c_7x1", b1, 192, 7, kw=1)
        b1 = conv_bn(net, p + "/Branch_1/Conv2d_1a_3x3", b1, 192, 3, 2,
                     padding="valid")
        b2 = pool(net, p + "/Branch_2/MaxPool_1a_3x3", "MaxPool", x, 3, 2,
                  "valid")
        return concat(net, p + "/concat", [b0, b1, b2])

    def block_e(p, x):
        net.layer = p
        b0 = conv_bn(net, p + "/Branch_0/Conv2d_0a_1x1", x, 320, 1)
        b1 = conv_bn(net, p + "/Branch_1/Conv2d_0a_1x1", x, 384, 1)
        b1 = concat(net, p + "/Branch_1/concat", [
            conv_bn(net, p + "/Branch_1/Conv2d_0b_1x3", b1, 384, 1, kw=3),
            conv_bn(net, p + "/Branch_1/Conv2d_0b_3x1", b1, 384, 3, kw=1)])
        b2 = conv_bn(net, p + "/Branch_2/Conv2d_0a_1x1", x, 448, 1)
        b2 = conv_bn(net, p + "/Branch_2/Conv2d_0b_3x3", b2, 384, 3)
        b2 = concat(net, p + "/Branch_2/concat", [
            conv_bn(net, p + "/Branch_2/Conv2d_0c_1x3", b2, 384, 1, kw=3),
            conv_bn(net, p + "/Branch_2/Conv2d_0d_3x1", b2, 384, 3, kw=1)])
        b3 = pool(net, p + "/Branch_3/AvgPool_0a_3x3", "AvgPool", x, 3, 1)
        b3 = conv_bn(net, p + "/Branch_3/Conv2d_0b_1x1", b3, 192, 1)
        return concat(net, p + "/concat", [b0, b1, b2, b3])

    x = block_a("Mixed_5b", x, 32)
    x = block_a("Mixed_5c", x, 64)
    x = block_a("Mixed_5d", x, 64)
    x = block_b("Mixed_6a", x)
    for p, c7 in (("Mixed_6b", 128), ("Mixed_6c", 160), ("Mixed_6d", 160),
                  ("Mixed_6e", 192)):
        x = block_c(p, x, c7)
    net.layer = "AuxLogits"
    a = pool(net, "AuxLogits/AvgPool_1a_5x5", "AvgPool", x, 5, 3, "valid")
    a = conv_bn(net, "AuxLogits/Conv2d_1b_1x1", a, 128, 1)
    a = conv_bn(net, "AuxLogits/Conv2d_2a_5x5", a, 768, 5, padding="valid")
    aux = classifier(net, a, labels, 1000, "AuxLogits")
    x = block_d("Mixed_7a", x)
    x = block_e("Mixed_7b", x)
    x = block_e("Mixed_7c", x)
    net.layer = "Logits"
    main = classifier(net, x, labels, 1000, "Logits")
    net.layer = "loss"
    m = net.reduce("loss/main_mean", "Mean", main, ())
    a = net.reduce("loss/aux_mean", "Mean", aux, ())
    a = net.scale("loss/aux_weight", a)
    loss = net.ew("loss/total", "Add", [m, a], shape=())
    net.backward(loss)
    net.update()
    return net


def lstm_lm(vocab=10000, emb=1024, hidden=1024, layers=2, steps=200,
            batch=64):
    """A 2-layer LSTM word language model like ParDNN's Word-RNN (the
    TensorFlow word-rnn model: embedding, static_rnn over `steps` unrolled
    time steps with BasicLSTMCell as primitive ops, outputs concatenated
    into one softmax layer, sequence loss)."""
    net = Net("lstm-lm", "adam")
    net.batch_dim = "b"
    B, H = batch, hidden
    net.layer = "input"
    ids = net.data("input_ids", (B, steps), ("b", "t"))
    # the outputs are concatenated step-major: the targets too
    labels = net.data("targets", (B * steps,), [("t", steps), ("b", B)])
    net.layer = "embedding"
    table = net.var("embedding", (vocab, emb), axes=("v", "h"))
    e = lookup(net, "embedding_lookup", ids, table, (B, steps, emb))
    xs = [net.reshape_ew("split/step_%d" % t, "Split", e, (B, emb),
                         ["b", "h"]) for t in range(steps)]
    for l in range(layers):
        p = "rnn/multi_rnn_cell/cell_%d" % l
        net.layer = p
        nin = xs[0].shape[1]
        w = net.var(p + "/kernel", (nin + H, 4 * H),
                    axes=[("k", nin + H), ("g", 4), ("h", H)])
        b = net.var(p + "/bias", (4 * H,), axes=[("g", 4), ("h", H)])
        h = c = None
        outs = []
        for t in range(steps):
            q = "%s/step_%d" % (p, t)
            net.layer = "%s/t%d" % (p, t // 25 * 25)
            x = xs[t]
            # [x, h]: k, whose parts the inputs index as c0 and c1 (on the
            # first step h is a constant zero state, not an input)
            cit = It([("b", B), ("k", nin + H), ("c0", nin), ("c1", H)],
                     ["b", "k"], ins=[["b", "c0"], ["b", "c1"]])
            xh = net.ew(q + "/concat", "ConcatV2", [x, h] if h else [x], 0,
                        shape=(B, x.shape[1] + H), it=cit)
            z = net.matmul(q + "/matmul", xh, w)
            z = net.bias_add(q + "/bias_add", z, b)
            i, g, f, o = [net.reshape_ew(q + "/split_" + n, "Split", z,
                                         (B, H), ["b", "h"])
                          for n in "igfo"]
            i = net.ew(q + "/sigmoid_i", "Sigmoid", [i], 4, save_out=True)
            f = net.ew(q + "/sigmoid_f", "Sigmoid", [f], 4, save_out=True)
            o = net.ew(q + "/sigmoid_o", "Sigmoid", [o], 4, save_out=True)
            g = net.ew(q + "/tanh_g", "Tanh", [g], 4, save_out=True)
            ig = net.ew(q + "/mul_ig", "Mul", [i, g], save_in=(0, 1))
            if c is not None:
                fc = net.ew(q + "/mul_fc", "Mul", [f, c], save_in=(0, 1))
                c = net.ew(q + "/add_c", "Add", [fc, ig])
            else:
                c = ig
            tc = net.ew(q + "/tanh_c", "Tanh", [c], 4, save_out=True)
            h = net.ew(q + "/mul_h", "Mul", [o, tc], save_in=(0, 1))
            outs.append(h)
        xs = outs
    net.layer = "softmax"
    # 200 inputs, one dim each, would not fit an op's 32: the inputs are
    # read whole (edges without dims)
    out = net.ew("rnn/concat_outputs", "ConcatV2", xs, 0,
                 shape=(B * steps, H),
                 it=It([("t", steps), ("b", B), ("h", H)], ["t", "b", "h"],
                       ins=[None] * steps))
    logits = net.dense("softmax", out, vocab, w_axes=("h", "v"))
    per = xent(net, "loss/xent", logits, labels, (B * steps,))
    loss = net.reduce("loss/mean", "Mean", per, ())
    net.backward(loss)
    net.update()
    return net


# name -> (builder, description, machine hint)
MODELS = {
    "gpt2-small": (
        lambda: gpt2("gpt2-small", 12, 768, 12, batch=8, seq=1024),
        "GPT-2 small (124M parameters; 12 layers, d=768, 12 heads), "
        "training step, batch 8 x 1024 tokens, fp32, Adam",
        {"devices": 4, "memory": "16GiB"}),
    "gpt2-xl": (
        lambda: gpt2("gpt2-xl", 48, 1600, 25, batch=1, seq=1024),
        "GPT-2 XL (1.56B parameters; 48 layers, d=1600, 25 heads), "
        "training step, batch 1 x 1024 tokens, fp32, Adam",
        {"devices": 8, "memory": "16GiB"}),
    "bert-large": (
        lambda: bert("bert-large", 24, 1024, 16, 4096, batch=4, seq=512),
        "BERT-large (335M parameters; 24 layers, d=1024, 16 heads) "
        "pre-training step (masked LM on 80 positions + next sentence), "
        "batch 4 x 512 tokens, fp32, Adam",
        {"devices": 4, "memory": "16GiB"}),
    "resnet50": (
        lambda: resnet50(batch=64, size=224),
        "ResNet-50 v1 (25.6M parameters), training step, batch 64 of "
        "224x224 images, fp32, SGD with momentum",
        {"devices": 2, "memory": "16GiB"}),
    "inception-v3": (
        lambda: inception_v3(batch=32, size=299),
        "Inception-v3 with its auxiliary classifier (27.2M parameters), "
        "training step, batch 32 of 299x299 images, fp32, SGD with momentum",
        {"devices": 2, "memory": "16GiB"}),
    "lstm-lm": (
        lambda: lstm_lm(),
        "2-layer LSTM word language model like ParDNN's Word-RNN "
        "(vocabulary 10000, embedding 1024, hidden 1024; 37M parameters), "
        "unrolled over 200 steps, batch 64, fp32, Adam",
        {"devices": 4, "memory": "16GiB"}),
}


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default="sample_graphs")
    ap.add_argument("--only", choices=sorted(MODELS))
    ap.add_argument("--stats", action="store_true",
                    help="print ops, edges, parameters, total time")
    a = ap.parse_args(argv)
    os.makedirs(a.out, exist_ok=True)
    for name, (build, desc, machine) in MODELS.items():
        if a.only and name != a.only:
            continue
        net = build()
        path = os.path.join(a.out, name + ".json")
        net.write(path, desc, machine)
        st = net.stats
        print("%-13s dims on %d of %d ops (%d of %d compute ops, %.1f %%; "
              "%d with several output tensors: no out), on %d of %d data "
              "edges" % (name, st["ops_dims"], st["ops"], st["compute_dims"],
                         st["compute"],
                         100.0 * st["compute_dims"] / max(st["compute"], 1),
                         st["no_out"], st["edge_dims"], st["edges"]),
              file=sys.stderr)
        for why, n in sorted(st["why"].items()):
            print("%-13s   without: %6d %s" % ("", n, why), file=sys.stderr)
        if a.stats:
            work = sum(o["time_us"] for o in net.ops)
            print("%-13s %6d ops %6d edges %10.1fM params %9.1f ms work" %
                  (name, len(net.ops), len(net.edges), net.params() / 1e6,
                   work / 1000), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

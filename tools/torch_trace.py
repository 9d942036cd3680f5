"""torch_trace.py - how tools/from_pytorch.py gets a model's graph and shapes.

- meta_model(factory): builds the model with its parameters and buffers on
  PyTorch's meta device (shapes and dtypes, no storage, no initialisation
  cost), so that a 600M-parameter model costs no memory.
- trace(model, inputs): the forward graph, by torch.fx. First symbolically
  (the graph holds for any input), with tuple unpacking of a traced value
  (`n, c, h, w = x.shape`, `x, _ = self.attn(...)`) fixed for Python 3.11,
  where PyTorch 1.13's own check reads the wrong bytecode instruction; when
  that fails (control flow on a size, `if x.shape[1] == 3:`), concretely:
  every traced call also runs on the meta device, sizes are plain ints and
  the graph holds for the example shapes only. A model whose control flow
  depends on tensor values cannot be traced either way: TraceFailure names
  the file and line of the Python that failed.
- propagate(gm, inputs): every node's output shape, dtype and whether it
  needs a gradient (node.meta["tensor_meta"], as torch.fx's ShapeProp), by
  running the graph on meta tensors: no arithmetic, no memory, whatever the
  batch. A call that fails raises TraceFailure naming the line of the model
  that made it.

The bridge converts at the full input size this way; docs/pytorch.md says
why no small-batch run and scaling is needed.
"""

import dis
import inspect
import os
import traceback

import torch
import torch.fx
import torch.nn as nn
from torch.fx.node import map_aggregate
from torch.fx.passes.shape_prop import _extract_tensor_metadata

_HERE = os.path.dirname(os.path.abspath(__file__))


class TraceFailure(Exception):
    """A model that cannot be traced or run on its example inputs: where
    (FILE:LINE of the model's Python, or None) and what."""

    def __init__(self, where, what, running=False, node=None):
        super().__init__("%s: %s" % (where, what) if where else what)
        self.where, self.what = where, what
        self.running = running  # failed running the traced graph
        self.node = node  # the name of the fx node that failed


def _user_frame(tb_frames):
    """FILE:LINE of the innermost frame that is neither PyTorch's nor the
    bridge's (the model's own code), or None."""
    for f in reversed(tb_frames):
        fn = f.filename.replace(os.sep, "/")
        if "/torch/" in fn or fn.startswith(_HERE + "/") or \
                fn.startswith("<"):
            continue
        return "%s:%d" % (f.filename, f.lineno)
    return None


def where_of(exc):
    """FILE:LINE in the model's code where exception exc was raised."""
    return _user_frame(traceback.extract_tb(exc.__traceback__))


def one_line(exc):
    """The first line of an exception's message (its type if empty)."""
    s = str(exc).strip().splitlines()
    return s[0].strip() if s else type(exc).__name__


# ---- the model on the meta device ----

def meta_model(factory):
    """factory() with every parameter and buffer created on the meta
    device (they are moved there as they are registered, one at a time)."""
    rp, rb = nn.Module.register_parameter, nn.Module.register_buffer

    def reg_param(self, name, p):
        if p is not None and p.device.type != "meta":
            p = nn.Parameter(torch.empty_like(p, device="meta"),
                             requires_grad=p.requires_grad)
        return rp(self, name, p)

    def reg_buffer(self, name, b, persistent=True):
        if b is not None and b.device.type != "meta":
            b = torch.empty_like(b, device="meta")
        return rb(self, name, b, persistent)

    nn.Module.register_parameter = reg_param
    nn.Module.register_buffer = reg_buffer
    try:
        model = factory()
    finally:
        nn.Module.register_parameter, nn.Module.register_buffer = rp, rb
    # attributes assigned without registration stay where they were
    return model.to("meta") if isinstance(model, nn.Module) else model


def to_meta(x):
    return torch.empty_like(x, device="meta") if \
        isinstance(x, torch.Tensor) else x


# ---- tracing ----

def _unpack_count(frame):
    """The n of an UNPACK_SEQUENCE n that frame is executing, or None."""
    for inst in dis.get_instructions(frame.f_code):
        if inst.offset == frame.f_lasti:
            return inst.argval if inst.opname == "UNPACK_SEQUENCE" else None
    return None


class _Proxy(torch.fx.Proxy):
    def __iter__(self):
        n = _unpack_count(inspect.currentframe().f_back)
        if n is not None:
            return (self[i] for i in range(n))
        return self.tracer.iter(self)

    def __getattr__(self, k):
        tr = self.tracer
        if getattr(tr, "concrete", False) and k in ("shape", "ndim", "dtype",
                                                    "device"):
            v = tr.vals.get(self.node)
            if isinstance(v, torch.Tensor):
                return getattr(v, k)
        return super().__getattr__(k)


class _Tracer(torch.fx.Tracer):
    """torch.fx's tracer with unpacking that works on Python 3.11; with
    concrete inputs (meta tensors), sizes are ints (see the top)."""

    def __init__(self, inputs=None, stacks=False):
        super().__init__()
        self.record_stack_traces = stacks  # costs a third of the trace
        self.concrete = inputs is not None
        self.inputs = list(inputs or [])
        self.vals = {}
        self.computing = False  # running a call on meta values

    def call_module(self, m, forward, args, kwargs):
        if self.computing:
            return forward(*args, **kwargs)
        return super().call_module(m, forward, args, kwargs)

    def getattr(self, attr, attr_val, parameter_proxy_cache):
        if self.computing:
            return attr_val
        return super().getattr(attr, attr_val, parameter_proxy_cache)

    def proxy(self, node):
        return _Proxy(node, self)

    def iter(self, obj):
        n = _unpack_count(inspect.currentframe().f_back.f_back)
        if n is not None:
            return (obj[i] for i in range(n))
        return super().iter(obj)

    def _value(self, kind, target, args, kwargs):
        def val(a):
            if isinstance(a, torch.fx.Proxy):
                if a.node not in self.vals:
                    raise KeyError(a.node)
                return self.vals[a.node]
            return a
        if kind == "placeholder":
            return self.inputs.pop(0) if self.inputs else None
        if kind == "get_attr":
            v = self.root
            for part in target.split("."):
                v = getattr(v, part)
            return v
        a, kw = map_aggregate(args, val), map_aggregate(kwargs, val)
        if kind == "call_module":
            return self.root.get_submodule(target)(*a, **kw)
        if kind == "call_method":
            return getattr(a[0], target)(*a[1:], **kw)
        return target(*a, **kw)

    def create_proxy(self, kind, target, args, kwargs, name=None,
                     type_expr=None, proxy_factory_fn=None):
        p = super().create_proxy(kind, target, args, kwargs, name,
                                 type_expr, proxy_factory_fn)
        if not self.concrete or kind == "output":
            return p
        self.computing = True
        try:
            v = self._value(kind, target, args, kwargs)
        except KeyError:
            return p  # an input without a value: stays symbolic
        finally:
            self.computing = False
        if kind == "call_method" and target in ("size", "dim", "numel") or \
                (kind == "call_function" and target is getattr and
                 not isinstance(v, torch.Tensor)):
            self.graph.erase_node(p.node)
            return v  # a size: a plain value from here on
        self.vals[p.node] = v
        return p

    def to_bool(self, obj):
        raise torch.fx.proxy.TraceError(
            "the control flow depends on a tensor's values, which tracing "
            "does not know")


def trace(model, meta_inputs, stacks=False):
    """(GraphModule, how): how is "symbolic" or "concrete"; raises
    TraceFailure when neither works. The model's weights are untouched (the
    concrete trace runs on meta copies of them, see on_meta). stacks: each
    node records the Python stack that made it (for error messages)."""
    try:
        graph, how = _Tracer(None, stacks).trace(model), "symbolic"
    except Exception:  # noqa: BLE001 - any failure: try the concrete way
        try:
            with on_meta(model):
                graph = _Tracer(list(meta_inputs), True).trace(model)
            how = "concrete"
        except Exception as e:  # noqa: BLE001
            raise TraceFailure(where_of(e), one_line(e))
    return torch.fx.GraphModule(model, graph, type(model).__name__), how


# ---- shapes ----

class _Prop(torch.fx.Interpreter):
    def run_node(self, n):
        try:
            result = super().run_node(n)
        except Exception as e:  # noqa: BLE001 - reported with the node
            raise TraceFailure(_node_where(n) or where_of(e),
                               "%s (in %s%s)" % (one_line(e), n.name,
                                                 _shapes(n, self.env)),
                               True, n.name)
        found = []

        def meta(obj):
            if isinstance(obj, torch.Tensor):
                found.append(1)
                return _extract_tensor_metadata(obj)
            return obj
        m = map_aggregate(result, meta)
        if found:
            n.meta["tensor_meta"] = m
        n.meta["type"] = type(result)
        return result


def _shapes(n, env):
    """", on " the shapes of node n's tensor inputs ("[2, 3, 224]")."""
    got = [list(env[a].shape) for a in n.all_input_nodes
           if isinstance(env.get(a), torch.Tensor)]
    return ", on " + ", ".join(str(s) for s in got) if got else ""


def _node_where(n):
    """FILE:LINE of the model's Python that made fx node n, or None."""
    st = getattr(n, "stack_trace", None)
    if not st:
        return None
    frames = traceback.StackSummary.from_list([])
    for line in st.splitlines():
        line = line.strip()
        if line.startswith('File "'):
            fn, _, rest = line[6:].partition('", line ')
            num = rest.split(",")[0]
            if num.isdigit():
                frames.append(traceback.FrameSummary(fn, int(num), None,
                                                     lookup_line=False))
    # the stack is innermost first
    return _user_frame(list(reversed(frames)))


def propagate(gm, inputs):
    """Records node.meta["tensor_meta"] for every node (see the top)."""
    _Prop(gm).run(*inputs)


def located(model, meta_inputs, failure):
    """failure (of propagate on a graph traced without stacks) with the
    model's FILE:LINE of the node that failed, found by tracing again with
    stacks."""
    if not failure.running or failure.node is None:
        return failure
    try:
        gm, _ = trace(model, meta_inputs, True)
    except TraceFailure:
        return failure
    for n in gm.graph.nodes:
        if n.name == failure.node and _node_where(n):
            return TraceFailure(_node_where(n), failure.what, True, n.name)
    return failure


class on_meta:
    """with on_meta(m1, m2, ...): every parameter and buffer of the modules
    (and their submodules) is a meta tensor of its shape inside the block,
    restored after it: the caller's weights are neither copied nor
    changed."""

    def __init__(self, *modules):
        self.mods = []
        seen = set()
        for m in modules:
            for s in m.modules():
                if id(s) not in seen:
                    seen.add(id(s))
                    self.mods.append(s)
        self.saved = []

    def __enter__(self):
        for m in self.mods:
            p, b = dict(m._parameters), dict(m._buffers)
            self.saved.append((m, p, b))
            for k, v in p.items():
                if v is not None and v.device.type != "meta":
                    m._parameters[k] = nn.Parameter(
                        torch.empty_like(v, device="meta"),
                        requires_grad=v.requires_grad)
            for k, v in b.items():
                if v is not None and v.device.type != "meta":
                    m._buffers[k] = torch.empty_like(v, device="meta")
        return self

    def __exit__(self, *exc):
        for m, p, b in self.saved:
            m._parameters.clear()
            m._parameters.update(p)
            m._buffers.clear()
            m._buffers.update(b)
        return False

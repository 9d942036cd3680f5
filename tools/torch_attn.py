"""torch_attn.py - nn.MultiheadAttention as the ops PyTorch runs for it.

tools/from_pytorch.py traces nn.MultiheadAttention as one call (torch.fx
keeps torch.nn modules whole). One op would store only its output for the
backward pass; PyTorch 1.13's F.multi_head_attention_forward (self-
attention, packed in_proj_weight, training) runs and saves:

  in_proj    Linear x -> [.., 3, heads, dh]      saves x (weight gradient)
  q, k, v    the three parts (a copy)            k, v saved by the products
  scale      q / sqrt(dh)                        saved by q @ k^T
  scores     q @ k^T      [b, heads, s, s2]      saves q (scaled) and k
  softmax    probabilities                       saves its output
  dropout    on the probabilities (p > 0 only)   saves its output (mask)
  context    probs @ v    [.., heads, dh]        saves probs and v
  out_proj   Linear -> [.., n]                   saves context

so the expansion here writes these ops, with dims named as the sample
graphs' (qkv, heads, dh, s2; docs/pytorch.md), and the gradient builder of
tools/gen_samples.py saves what each op's gradient reads. Other uses of the
module (cross-attention, separate q/k/v weights, masks, bias_k/v) stay one
op.
"""

import torch.nn as nn

import gen_samples as gs


def _fresh(base, taken):
    n, i = base, 2
    while n in taken:
        n = "%s%d" % (base, i)
        i += 1
    taken.add(n)
    return n


def expandable(node, mod):
    """Whether fx node (a call of nn.MultiheadAttention mod) is plain
    self-attention with a packed projection and no mask."""
    if not isinstance(mod, nn.MultiheadAttention) or \
            not mod._qkv_same_embed_dim or mod.bias_k is not None or \
            mod.add_zero_attn or mod.in_proj_weight is None:
        return False
    q, k, v = qkv_args(node)
    if q is None or not (q is k is v):
        return False
    for a in ("key_padding_mask", "attn_mask"):
        if node.kwargs.get(a) is not None:
            return False
    return len(node.args) <= 4


def qkv_args(node):
    """The query, key and value arguments of a call of the module (fx
    passes them by position or by name)."""
    got = list(node.args[:3])
    for i, a in enumerate(("query", "key", "value")):
        if len(got) <= i:
            got.append(node.kwargs.get(a))
    return got


def expand(net, name, prefix, mod, x, view, var_for, elem=4):
    """Writes the ops above for the call name of mod (the module at
    prefix) on tensor x (its
    groups and sizes: view); returns (output tensor, output groups), or
    None when x's axes are not [batch or seq, seq or batch, features] with
    one name each. var_for(qualified parameter name, axes) -> gs.Var."""
    if view is None or x.axes is None:
        return None
    g, sz = view
    if len(g) != 3 or any(len(gg) != 1 for gg in g):
        return None
    lead, hn = [g[0][0], g[1][0]], g[2][0]
    sn = lead[1] if mod.batch_first else lead[0]
    E, H = mod.embed_dim, mod.num_heads
    dh = E // H
    if sz[hn] != E:
        return None
    S = sz[sn]
    rows = sz[lead[0]] * sz[lead[1]]  # batch x sequence
    l2 = (sz[lead[0]], sz[lead[1]])
    taken = set(sz)
    qkv, hd, dn = (_fresh(n, taken) for n in ("qkv", "heads", "dh"))
    s2, nn_ = _fresh("s2", taken), _fresh("n", taken)
    dims = {n: sz[n] for n in lead}
    dims.update({hn: E, qkv: 3, hd: H, dn: dh, s2: S, nn_: E})

    def it(names, out, ins, ws=None):
        return gs.It([(n, dims[n]) for n in names], out, ws[0] if ws else
                     None, ins=ins, elem=elem, ws=ws)

    def var(p, names):
        return var_for(prefix + "." + p, [(n, dims[n]) for n in names])

    heads = [hd, dn]
    xin = lead + [hn]
    pw = [qkv] + heads + [hn]
    pb = [qkv] + heads
    ws = [var("in_proj_weight", pw)]
    wn = [pw]
    if mod.in_proj_bias is not None:
        ws.append(var("in_proj_bias", pb))
        wn.append(pb)
    f = 2 * rows * E * 3 * E
    proj = net.op(name + "/in_proj", "Linear", [x], l2 + (3, H, dh), f,
                  weights=ws, dx_needs_w=(0,),
                  wsave=[(0,)] + [()] * (len(ws) - 1),
                  wflops=[f] + [2 * rows * 3 * E] * (len(ws) - 1),
                  out_bytes=rows * 3 * E * elem,
                  it=it(xin + pb, lead + pb, [xin], wn))
    part = lead + heads  # [.., heads, dh]
    n_part = rows * E
    q, k, v = (net.op(name + "/" + p, "getitem", [proj], l2 + (H, dh), n_part,
                      out_bytes=n_part * elem,
                      it=it(lead + pb, part, [lead + pb]))
               for p in ("q", "k", "v"))
    qs = net.op(name + "/scale", "truediv", [q], l2 + (H, dh), n_part,
                out_bytes=n_part * elem, it=it(part, part, [part]))
    other = [s2 if n == sn else n for n in lead]  # k's and v's names
    bn = [n for n in lead if n != sn][0]
    att = [bn, hd, sn, s2]
    n_att = rows * H * S
    sh = (rows // S, H, S, S)
    f = 2 * rows * H * S * dh
    sc = net.op(name + "/scores", "bmm", [qs, k], sh, f,
                save_in=(0, 1), out_bytes=n_att * elem,
                it=it(att + [dn], att, [part, other + heads]))
    p = net.op(name + "/softmax", "softmax", [sc], sh, 4 * n_att,
               save_out=True, out_bytes=n_att * elem,
               it=it(att, att, [att]))
    if mod.dropout > 0:
        p = net.op(name + "/dropout", "Dropout", [p], sh, n_att,
                   save_out=True, out_bytes=n_att * elem,
                   it=it(att, att, [att]))
    ctx = net.op(name + "/context", "bmm", [p, v], l2 + (H, dh), f,
                 save_in=(0, 1), out_bytes=n_part * elem,
                 it=it(att + [dn], part, [att, other + heads]))
    ow, ob = [nn_] + heads, [nn_]
    ws, wn = [var("out_proj.weight", ow)], [ow]
    if mod.out_proj.bias is not None:
        ws.append(var("out_proj.bias", ob))
        wn.append(ob)
    f = 2 * rows * E * E
    out = net.op(name + "/out_proj", "Linear", [ctx], l2 + (E,), f,
                 weights=ws, dx_needs_w=(0,),
                 wsave=[(0,)] + [()] * (len(ws) - 1),
                 wflops=[f] + [2 * rows * E] * (len(ws) - 1),
                 out_bytes=rows * E * elem,
                 it=it(part + [nn_], lead + [nn_], [part], wn))
    return out, [[lead[0]], [lead[1]], [nn_]]

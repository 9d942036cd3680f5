#!/bin/sh
# suite_pytorch.sh - the PyTorch bridge (tools/from_pytorch.py).
#
# Runs only where Debian's python3-torch is installed (/usr/bin/python3 can
# import torch); otherwise it prints one honest skip line. Checks:
# - the demo CNN exports to a graph dnnpart loads, with the op count worked
#   out by hand below, and that plans on two devices;
# - its gradient ops read what autograd uses (no bias gradient reads x);
# - the export is deterministic (two runs, same bytes);
# - the demo transformer exports and loads;
# - tests/data/torch_gpt.json is what tests/data/torch_gpt.sh makes;
# - the MLP, transformer and GPT exports carry dims (iteration spaces; the
#   GPT's attention by heads);
# - --measure times ops with torch.profiler (on the CPU here);
# - a model torch.fx cannot trace is an error with exit status 2 naming the
#   model's line; control flow on sizes is traced concretely.
# Where python3-torchvision is installed too (else one skip line):
# - errors (input shape, factory, missing torch / torchvision) are one line,
#   exit 2, no traceback, no file;
# - shapes from the meta device equal those of a real run (--real);
# - sample_graphs/resnet152.json and vit-b16.json are what
#   tools/torch_samples.sh makes; ViT-B/16's activation peak is within 25 %
#   of the hand count in docs/pytorch.md;
# - one model of each torchvision family converts with torchvision's
#   parameter count and dims on every compute op, and --batch 2B doubles
#   its single-device step within 10 %.
set -u
: "${DNNPART:=$PWD/dnnpart}"
PY=${DNNPART_TORCH_PYTHON:-/usr/bin/python3}
if ! "$PY" -c "import torch, torch.fx" >/dev/null 2>&1; then
	echo "skip - pytorch bridge: python3-torch not installed ($PY cannot import torch; make deps installs it)"
	exit 0
fi
TMP=$(mktemp -d /tmp/dnnpart-torch.XXXXXX) || exit 1
trap 'rm -rf "$TMP"' EXIT

ok() { echo "ok - pytorch/$1"; }
fail() { echo "not ok - pytorch/$1: $2"; }

# DemoCNN: conv1 bn1 relu conv2 bn2 add relu_1 pool fc (flatten is a view,
# folded) = 9 forward ops; inputs x and labels = 2; parameters conv1.weight,
# bn1.weight, bn1.bias, conv2.weight, bn2.weight, bn2.bias, fc.weight,
# fc.bias = 8 Variables + 8 updates; the [32, 10] output gets a
# cross-entropy loss = 1; gradient ops for the loss and every forward op
# whose input needs a gradient (all but conv1, whose input is the data), the
# add's one per input (add/grad0, add/grad1) = 10; one weight gradient per
# parameter = 8; relu's output feeds conv2 and the add, so its gradients
# are summed = 1. Total 47 ops, 8 colocation groups.
if "$PY" tools/from_pytorch.py --demo cnn -o "$TMP/cnn.json" >"$TMP/log" 2>&1; then
	if "$DNNPART" info "$TMP/cnn.json" >"$TMP/info" 2>&1; then
		if grep -q '^ops  *47$' "$TMP/info" &&
			grep -q '^colocation  *8 groups, 16 ops' "$TMP/info"; then
			ok cnn-export-loads
		else
			fail cnn-export-loads "want 47 ops in 8 groups: $(grep -E '^(ops|colocation)' "$TMP/info" | tr '\n' ' ')"
		fi
	else
		fail cnn-export-loads "dnnpart info failed: $(head -n 1 "$TMP/info")"
	fi
	if "$DNNPART" plan "$TMP/cnn.json" -k 2 --algo mtopo >"$TMP/plan" 2>&1 &&
		grep -q '^makespan' "$TMP/plan"; then
		ok cnn-plans
	else
		fail cnn-plans "$(head -n 3 "$TMP/plan" | tr '\n' ' ')"
	fi
	# each gradient op reads what autograd uses: a weight gradient the
	# input and dy, a bias (or norm shift) gradient dy only, the input
	# gradient of a Linear or conv dy and the weight, of a norm also x
	cat >"$TMP/preds.py" <<'EOF'
import json, sys
g = json.load(open(sys.argv[1]))
pre = {}
for e in g["edges"]:
    pre.setdefault(e["to"], []).append(e["from"])
want = json.loads(sys.argv[2])
print("; ".join("%s reads %s" % (n, " ".join(sorted(pre.get(n, []))))
                for n, w in want.items()
                if sorted(pre.get(n, [])) != w.split()))
EOF
	# the CNN's, and in the GPT export q @ k^T's (each factor's gradient
	# reads dy and the other factor) and the division by a constant's
	if out=$("$PY" "$TMP/preds.py" "$TMP/cnn.json" '{"fc/grad": "fc.weight loss/cross_entropy/grad", "fc/grad_fc.weight": "loss/cross_entropy/grad pool", "fc/grad_fc.bias": "loss/cross_entropy/grad", "bn2/grad": "add/grad1 bn2.weight conv2", "bn2/grad_bn2.weight": "add/grad1 conv2", "bn2/grad_bn2.bias": "add/grad1", "relu/grad_sum": "add/grad0 conv2/grad", "conv2/grad": "bn2/grad conv2.weight", "conv2/grad_conv2.weight": "bn2/grad relu"}' 2>&1) &&
		[ -z "$out" ] &&
		out=$("$PY" "$TMP/preds.py" tests/data/torch_gpt.json '{"matmul/grad0": "getitem_3 truediv/grad", "matmul/grad1": "getitem_2 truediv/grad", "truediv/grad": "softmax/grad", "blocks_0_proj/grad_blocks.0.proj.bias": "add/grad1"}' 2>&1) &&
		[ -z "$out" ]; then
		ok gradients-read-what-autograd-uses
	else
		fail gradients-read-what-autograd-uses "$out"
	fi
	"$PY" tools/from_pytorch.py --demo cnn -o "$TMP/cnn2.json" >/dev/null 2>&1
	if cmp -s "$TMP/cnn.json" "$TMP/cnn2.json"; then
		ok export-deterministic
	else
		fail export-deterministic "two exports of the same model differ"
	fi
else
	fail cnn-export-loads "from_pytorch.py failed: $(tail -n 2 "$TMP/log" | tr '\n' ' ')"
fi

if "$PY" tools/from_pytorch.py --demo transformer -o "$TMP/tr.json" \
	--devices 2 --memory 8GiB >"$TMP/log" 2>&1 &&
	"$DNNPART" info "$TMP/tr.json" >"$TMP/info" 2>&1 &&
	grep -q 'from the file: 2 devices, 8.00 GiB each' "$TMP/info"; then
	ok transformer-export-loads
else
	fail transformer-export-loads "$(tail -n 2 "$TMP/log" "$TMP/info" | tr '\n' ' ')"
fi

# tests/data/torch_gpt.json (test_megatron's PyTorch export) is what its
# script makes today
if sh tests/data/torch_gpt.sh "$TMP/gpt.json" >"$TMP/log" 2>&1 &&
	cmp -s "$TMP/gpt.json" tests/data/torch_gpt.json; then
	ok gpt-fixture-current
else
	fail gpt-fixture-current "tests/data/torch_gpt.json differs from what tests/data/torch_gpt.sh makes; rerun it ($(tail -n 1 "$TMP/log"))"
fi

if "$PY" tools/from_pytorch.py --demo mlp --measure -o "$TMP/mlp.json" \
	>"$TMP/log" 2>&1 && grep -q 'measured with torch.profiler' "$TMP/mlp.json" &&
	"$DNNPART" info "$TMP/mlp.json" >/dev/null 2>&1; then
	ok measured-times
else
	fail measured-times "$(tail -n 2 "$TMP/log" | tr '\n' ' ')"
fi

# The exports carry iteration spaces (docs/pytorch.md), which dnnpart
# checked against the bytes when it loaded them above: batch_dim b; the MLP
# (fc1 reads the flattened [b, y, x] input; its 1 channel is no axis) on
# every op and edge; the transformer block on every compute op and on at
# least 80 % of its data edges (its q, k, v are slices of the qkv output:
# their edges have none); the GPT export on every op and edge, its fused
# projection's output [qkv, heads, dh], q a slice op of it, attention by
# heads, the output projection reducing heads and dh, the MLP's width f.
cat >"$TMP/dims.py" <<'EOF'
import json, sys
g = json.load(open(sys.argv[1]))
ops = {o["name"]: o for o in g["ops"]}
comp = [o for o in g["ops"] if o.get("role") in
        ("forward", "backward", "grad", "update", "loss")]
data = [e for e in g["edges"] if not e.get("control")]
nd = [o["name"] for o in comp if "dims" not in o]
ed = sum("dims" in e for e in data)
want = json.loads(sys.argv[2])
bad = []
if g.get("batch_dim") != "b":
    bad.append("batch_dim %r" % g.get("batch_dim"))
if not comp or nd:
    bad.append("no dims on " + ", ".join(nd[:5]))
if ed * 100 < int(sys.argv[3]) * len(data):
    bad.append("dims on %d of %d data edges" % (ed, len(data)))
for name, (dims, out, param) in want.items():
    o = ops.get(name, {})
    got = [o.get("dims"), o.get("out"), o.get("param")]
    if got != [dims, out, param]:
        bad.append("%s: %s" % (name, got))
print("; ".join(bad))
EOF
# NAME FILE WANT MIN: the export FILE carries the dims WANT (dims.py)
check_dims() {
	if [ -s "$2" ] && out=$("$PY" "$TMP/dims.py" "$2" "$3" "$4" 2>&1) &&
		[ -z "$out" ]; then
		ok "$1"
	else
		fail "$1" "${out:-no export}"
	fi
}
check_dims mlp-export-carries-dims "$TMP/mlp.json" '{"fc1": [{"b":64,"y":28,"x":28,"f":512}, ["b","f"], ["f","y","x"]], "fc2": [{"b":64,"f":512,"f2":256}, ["b","f2"], ["f2","f"]], "input:x": [{"b":64,"y":28,"x":28}, ["b","y","x"], null]}' 100
check_dims transformer-export-carries-dims "$TMP/tr.json" '{"qkv": [{"b":8,"s":64,"h":128,"n":384}, ["b","s","n"], ["n","h"]], "emb": [{"b":8,"s":64,"v":1000,"h":128}, ["b","s","h"], ["v","h"]], "matmul": [{"b":8,"s":64,"n2":128,"s2":64}, ["b","s","s2"], null]}' 80
check_dims gpt-export-carries-heads tests/data/torch_gpt.json '{"blocks_0_qkv": [{"b":8,"s":32,"h":64,"qkv":3,"heads":4,"dh":16}, ["b","s","qkv","heads","dh"], ["qkv","heads","dh","h"]], "getitem_2": [{"b":8,"s":32,"qkv":3,"heads":4,"dh":16}, ["b","s","heads","dh"], null], "matmul": [{"b":8,"heads":4,"s":32,"dh":16,"s2":32}, ["b","heads","s","s2"], null], "blocks_0_proj": [{"b":8,"s":32,"heads":4,"dh":16,"n":64}, ["b","s","n"], ["n","heads","dh"]], "blocks_0_fc1": [{"b":8,"s":32,"h":64,"f":256}, ["b","s","f"], ["f","h"]]}' 100

# data-dependent control flow cannot be traced
cat >"$TMP/untraceable.py" <<'EOF'
import torch


class Branchy(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(4, 4)

    def forward(self, x):
        if x.sum() > 0:
            return self.fc(x)
        return x


def build():
    return Branchy()


class Sized(torch.nn.Module):
    """control flow on a size (and `n, c = x.shape`): the symbolic trace
    fails, the concrete one (sizes as ints, on the meta device) works"""

    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(4, 4)

    def forward(self, x):
        n, c = x.shape
        if c == 4:
            return self.fc(x).reshape(n, c)
        return x


def sized():
    return Sized()
EOF
(cd "$TMP" && "$PY" "$OLDPWD/tools/from_pytorch.py" untraceable:build \
	--input 2x4 -o "$TMP/u.json") >"$TMP/log" 2>&1
rc=$?
if [ "$rc" -eq 2 ] && grep -q 'cannot trace the model' "$TMP/log" &&
	grep -q 'untraceable.py:10: the control flow depends on a tensor' "$TMP/log" &&
	[ "$(wc -l <"$TMP/log")" -eq 1 ] && [ ! -e "$TMP/u.json" ]; then
	ok untraceable-model-exit-2-names-the-line
else
	fail untraceable-model-exit-2-names-the-line "exit $rc: $(tail -n 1 "$TMP/log")"
fi

# control flow on a size (untraceable.py's Sized) is traced concretely
if (cd "$TMP" && "$PY" "$OLDPWD/tools/from_pytorch.py" untraceable:sized \
	--input 2x4 -o "$TMP/sized.json") >"$TMP/log" 2>&1 &&
	grep -q 'traced concretely' "$TMP/log" &&
	"$DNNPART" info "$TMP/sized.json" >/dev/null 2>&1; then
	ok shape-control-flow-traced-concretely
else
	fail shape-control-flow-traced-concretely "$(tail -n 1 "$TMP/log")"
fi

if ! "$PY" -c "import torchvision" >/dev/null 2>&1; then
	echo "skip - pytorch torchvision models: python3-torchvision not installed ($PY cannot import torchvision; make deps installs it)"
	exit 0
fi

# Errors are one line on stderr, exit status 2, no traceback, no file:
# NAME WANT ARGS...: the message contains WANT
check_error() {
	name=$1 want=$2
	shift 2
	rm -f "$TMP/e.json"
	"$@" -o "$TMP/e.json" >"$TMP/out" 2>"$TMP/err"
	rc=$?
	if [ "$rc" -eq 2 ] && [ "$(wc -l <"$TMP/err")" -eq 1 ] &&
		grep -qF -- "$want" "$TMP/err" && ! grep -q Traceback "$TMP/err" &&
		[ ! -e "$TMP/e.json" ] && [ ! -s "$TMP/out" ]; then
		ok "$name"
	else
		fail "$name" "exit $rc: $(head -n 2 "$TMP/err" | tr '\n' ' ')"
	fi
}
FP="tools/from_pytorch.py"
check_error error-wrong-input-shape 'fails on --input 2x3x224: ' \
	"$PY" "$FP" torchvision.models:resnet18 --input 2x3x224
check_error error-wrong-input-shape-names-the-line 'torchvision/models/resnet.py:' \
	"$PY" "$FP" torchvision.models:resnet18 --input 2x3x224
check_error error-bad-input-spec "argument --input: '2xfoo'" \
	"$PY" "$FP" torchvision.models:resnet18 --input 2xfoo
check_error error-wrong-factory "has no function 'resnet1522'" \
	"$PY" "$FP" torchvision.models:resnet1522 --input 2x3x32x32
check_error error-not-a-module "returned int, not a torch.nn.Module" \
	"$PY" "$FP" builtins:int --input 2x3x32x32
mkdir -p "$TMP/no_tv/torchvision" "$TMP/no_torch/torch"
echo 'raise ModuleNotFoundError("No module named torchvision", name="torchvision")' \
	>"$TMP/no_tv/torchvision/__init__.py"
echo 'raise ModuleNotFoundError("No module named torch", name="torch")' \
	>"$TMP/no_torch/torch/__init__.py"
check_error error-missing-torchvision "install python3-torchvision" \
	env PYTHONPATH="$TMP/no_tv" "$PY" "$FP" torchvision.models:resnet18 --input 2x3x32x32
check_error error-missing-torch "install python3-torch" \
	env PYTHONPATH="$TMP/no_torch" "$PY" "$FP" --demo mlp

# shapes from the meta device are those of a real run at the full size
"$PY" "$FP" --demo gpt -o "$TMP/meta.json" >/dev/null 2>&1
"$PY" "$FP" --demo gpt --real -o "$TMP/real.json" >/dev/null 2>&1
"$PY" "$FP" torchvision.models:resnet18 --input 4x3x32x32 -o "$TMP/meta2.json" >/dev/null 2>&1
"$PY" "$FP" torchvision.models:resnet18 --input 4x3x32x32 --real -o "$TMP/real2.json" >/dev/null 2>&1
if [ -s "$TMP/meta.json" ] && cmp -s "$TMP/meta.json" "$TMP/real.json" &&
	[ -s "$TMP/meta2.json" ] && cmp -s "$TMP/meta2.json" "$TMP/real2.json"; then
	ok meta-shapes-equal-a-real-run
else
	fail meta-shapes-equal-a-real-run "the demo GPT's or ResNet-18's export differs with --real"
fi

# the sample graphs made by the bridge are what tools/torch_samples.sh makes
mkdir -p "$TMP/samples"
if sh tools/torch_samples.sh "$TMP/samples" >"$TMP/log" 2>&1 &&
	cmp -s "$TMP/samples/resnet152.json" sample_graphs/resnet152.json &&
	cmp -s "$TMP/samples/vit-b16.json" sample_graphs/vit-b16.json; then
	ok torch-samples-current
else
	fail torch-samples-current "sample_graphs/resnet152.json or vit-b16.json differs from what tools/torch_samples.sh makes; rerun it ($(tail -n 1 "$TMP/log"))"
fi

# ViT-B/16 (sample_graphs/vit-b16.json, batch 64): the activation peak on
# one device against a hand count of what PyTorch saves for backward
# (docs/pytorch.md): the image; per block 16 x b.s.E (LN inputs, the
# projection's input, the k and v copies, scaled q, attention output,
# fc1's input, GELU's input and output: 1+1+2+1+1+1+1+4+4) and the
# probabilities b.H.s.s; the final LN's input, the head's input, logits.
B=64 S=197 E=768 H=12 L=12
want=$(( 4 * (B*3*224*224 + L*(16*B*S*E + B*H*S*S) + B*S*E + B*E + B*1000) ))
got=$("$DNNPART" plan sample_graphs/vit-b16.json -k 1 --algo single --json 2>/dev/null |
	"$PY" -c 'import json,sys; d=json.load(sys.stdin); print(max(x["peak_by_role"]["activations"] for x in d["devices"]))' 2>/dev/null)
if [ -n "$got" ] && "$PY" -c "import sys; g, w = $got, $want; sys.exit(0 if abs(g - w) <= 0.25 * w else 1)"; then
	ok vit-b16-activations-match-hand-count
else
	fail vit-b16-activations-match-hand-count "peak activations ${got:-?} B, hand count $want B"
fi

# One model of each family of torchvision 0.14's classifiers, converted at
# batch 32 of their own image size (on the meta device: the size costs no
# time; the smallest model of each family keeps the suite short; a small
# image would make the step launch-bound, not batch-bound): parameters equal to
# torchvision's, dims on every compute op (so --batch scales the whole
# step), nn.MultiheadAttention expanded (ViT), leaf-module layers (VGG)
cat >"$TMP/families.py" <<'EOF2'
import json, sys
sys.path.insert(0, "tools")
import torch, torchvision
import from_pytorch as fp, torch_trace as tt
fams = [("resnet", "resnet18", 224), ("vgg", "vgg11", 224),
        ("vit", "vit_b_16", 224), ("swin", "swin_t", 224),
        ("convnext", "convnext_tiny", 224),
        ("efficientnet", "efficientnet_b0", 224),
        ("mobilenet", "mobilenet_v3_small", 224),
        ("densenet", "densenet121", 224),
        ("inception", "inception_v3", 299), ("regnet", "regnet_y_400mf", 224)]
out = sys.argv[1]
for fam, fn, size in fams:
    bad = []
    try:
        model = tt.meta_model(getattr(torchvision.models, fn))
        want = sum(p.numel() for p in model.parameters())
        path = "%s/%s.json" % (out, fam)
        fp.export(model, (torch.empty(32, 3, size, size, device="meta"),),
                  path, name=fn)
        g = json.load(open(path))
    except Exception as e:  # reported as a failure
        print("not ok - pytorch/family-%s: %s: %s" % (fam, fn, e))
        continue
    ops = {o["name"]: o for o in g["ops"]}
    got = sum(o["param_bytes"] for o in g["ops"]
              if o["type"] == "Variable") // 12  # fp32 weight + Adam's 2
    if got != want:
        bad.append("%d parameters, torchvision %d" % (got, want))
    nd = [o["name"] for o in g["ops"] if o.get("role") in
          ("forward", "backward", "grad", "update", "loss") and
          "dims" not in o]
    if nd:
        bad.append("no dims on %d ops (%s)" % (len(nd), nd[0]))
    if fam == "vit":
        p = "encoder_layers_encoder_layer_0_self_attention/"
        for part in ("in_proj", "q", "k", "v", "scale", "scores", "softmax",
                     "context", "out_proj"):
            if p + part not in ops:
                bad.append("no op " + p + part)
        d = ops.get(p + "scores", {}).get("dims", {})
        if d.get("heads") != 12 or d.get("s2") != 197 or d.get("dh") != 64:
            bad.append("scores dims %s" % d)
    if fam == "vgg":
        layers = {o["layer"] for o in g["ops"]}
        want_l = {"features.%d" % i for i in range(21)}
        if not want_l <= layers:
            bad.append("layers missing: %s" % sorted(want_l - layers)[:3])
    print(("not ok - pytorch/family-%s: %s: %s" % (fam, fn, "; ".join(bad)))
          if bad else "ok - pytorch/family-%s (%s)" % (fam, fn))
EOF2
"$PY" "$TMP/families.py" "$TMP" 2>"$TMP/log" || fail families "$(tail -n 1 "$TMP/log")"

# --batch 2B doubles each family's single-device step (within 10 %), and
# info loads it without a warning about ops without dims
for fam in resnet vgg vit swin convnext efficientnet mobilenet densenet inception regnet; do
	f="$TMP/$fam.json"
	[ -s "$f" ] || continue
	a=$("$DNNPART" plan "$f" -k 1 --algo single --json 2>/dev/null |
		"$PY" -c 'import json,sys; print(json.load(sys.stdin)["makespan_us"])' 2>/dev/null)
	b=$("$DNNPART" plan "$f" -k 1 --algo single --batch 64 --json 2>/dev/null |
		"$PY" -c 'import json,sys; print(json.load(sys.stdin)["makespan_us"])' 2>/dev/null)
	"$DNNPART" info "$f" >/dev/null 2>"$TMP/err"
	if [ -n "$a" ] && [ -n "$b" ] && [ ! -s "$TMP/err" ] &&
		"$PY" -c "import sys; r = $b / $a; sys.exit(0 if 1.8 <= r <= 2.2 else 1)"; then
		ok "batch-doubles-step-$fam"
	else
		fail "batch-doubles-step-$fam" "step ${a:-?} us at batch 32, ${b:-?} us at --batch 64; info: $(head -n 1 "$TMP/err")"
	fi
done
exit 0

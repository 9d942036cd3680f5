#!/bin/sh
# torch_samples.sh - the sample graphs made by the PyTorch bridge:
# sample_graphs/resnet152.json and sample_graphs/vit-b16.json, from
# torchvision 0.14's models (Debian's python3-torch and python3-torchvision;
# make deps installs them). Run from the repository root:
#   sh tools/torch_samples.sh [OUTDIR]
# tests/suite_pytorch.sh checks that the committed files are what this
# makes.
set -e
PY=${DNNPART_TORCH_PYTHON:-/usr/bin/python3}
out=${1:-sample_graphs}
"$PY" tools/from_pytorch.py torchvision.models:resnet152 \
	--input 64x3x224x224 --optimizer momentum --devices 4 --memory 16GiB \
	--name resnet152 -o "$out/resnet152.json"
"$PY" tools/from_pytorch.py torchvision.models:vit_b_16 \
	--input 64x3x224x224 --optimizer adam --devices 4 --memory 16GiB \
	--name vit-b16 -o "$out/vit-b16.json"

#!/bin/sh
# torch_gpt.sh - regenerates tests/data/torch_gpt.json, the PyTorch bridge's
# export of its demo GPT (two pre-LN blocks, 4 heads, d 64, batch 8 x 32
# tokens; tools/from_pytorch.py --demo gpt), read by tests/test_megatron.c.
# Run from the repository root; tests/suite_pytorch.sh checks that the
# committed file is what this makes.
set -e
exec "${DNNPART_TORCH_PYTHON:-/usr/bin/python3}" tools/from_pytorch.py \
	--demo gpt -o "${1:-tests/data/torch_gpt.json}"

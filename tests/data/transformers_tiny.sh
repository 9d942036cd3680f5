#!/bin/sh
# transformers_tiny.sh - regenerates tests/data/gpt2_tiny.json and
# tests/data/bert_tiny.json: the sample graphs' GPT-2 and BERT made by
# tools/gen_samples.py at a tiny size (2 layers, d 64, 4 heads, batch 2 x 16
# tokens, vocabulary 128; BERT: d_ff 256, 4 predicted positions), read by
# tests/test_megatron_closed.c. Run from the repository root.
set -e
exec python3 - <<'PY'
import sys
sys.path.insert(0, "tools")
import gen_samples as g
g.gpt2("gpt2-tiny", 2, 64, 4, batch=2, seq=16, vocab=128, n_ctx=16).write(
    "tests/data/gpt2_tiny.json", "GPT-2 at 2 layers, d 64, 4 heads, "
    "batch 2 x 16, vocabulary 128 (tests/data/transformers_tiny.sh)", None)
g.bert("bert-tiny", 2, 64, 4, 256, batch=2, seq=16, vocab=128, n_pos=16,
       n_pred=4).write(
    "tests/data/bert_tiny.json", "BERT at 2 layers, d 64, 4 heads, d_ff "
    "256, batch 2 x 16, vocabulary 128, 4 predicted positions "
    "(tests/data/transformers_tiny.sh)", None)
PY

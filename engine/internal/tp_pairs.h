/* tp_pairs.h - Megatron's layout found by the graph's structure instead of
 * by dim names (engine/algo/tp_pairs.c; internal to the engine; used by
 * `megatron`, docs/algorithms.md).
 *
 * Graphs whose ops name their dims each in their own way (the PyTorch
 * bridge's exports: a Linear's output dim is `n` in one op, `k` in the
 * next) have no `f` or `heads` to read. There a column/row pair is
 * recognised by its dims: a forward op B with a weight whose reduction dim
 * r (in B's param, not in its out, not the batch) is fed, through a chain
 * of element-wise forward ops (every dim in their out, at most a bias on
 * the dim, one data input, no norm), by a forward op A whose out and
 * weight hold the same axis and which reduces another weight dim (a
 * MatMul). A, the chain and B are split on that axis; from them the split
 * spreads along the edges' dims: into the variables that feed them, into
 * every op that reads a tensor split on the axis (the backward ops, weight
 * gradients and updates: an op that reduces the axis holds partial sums
 * and spreads no further), and to the members of their colocation groups
 * with a dim of the same name and size. An op gets the first dim that
 * reaches it (ops in graph order, breadth first). */
#ifndef DNNPART_TP_PAIRS_H
#define DNNPART_TP_PAIRS_H

#include <stdint.h>

#include "dnnpart/graph.h"

/* Fills dim[u] (g->nops entries) with the index of the dim of op u that
 * the tensor axis splits, -1 for none; pinned ops and dims smaller than
 * min_size are left out. Returns the number of ops split, -1 when out of
 * memory. */
int dpi_tp_pairs(const dp_graph *g, int64_t min_size, int8_t *dim);

/* Megatron's tensor-parallel dim of every op (-1 none): `f`, else
 * `heads`, else the vocabulary `v` (a dim `v` of the largest size: the
 * word embedding, the logits and the cross-entropy split over the
 * vocabulary), when the graph names f or heads (the samples' convention,
 * docs/formats.md); else dpi_tp_pairs(). Pinned ops get -1. Returns the
 * number of ops with one, -1 when out of memory. */
int dpi_tp_dims(const dp_graph *g, int8_t *dim);

#endif

/* megatron.h - Megatron-LM's tensor-parallel layout of transformer blocks
 * (engine/algo/algo_megatron.c; internal to the engine), shared by the
 * `megatron` algorithm (a flat spmd strategy) and `hybrid` (the same layout
 * inside every pipeline stage).
 */
#ifndef DNNPART_MEGATRON_H
#define DNNPART_MEGATRON_H

#include <stdbool.h>

#include "dnnpart/algo.h"
#include "dnnpart/strategy.h"

/* Whether every op with dim `name` has a size that t divides. */
bool dpi_megatron_divides(const dp_graph *g, const char *name, int t);

/* Fills s->spmd.axes (allocated, zeroed) and s->spmd.device with
 * Megatron's layout on a mesh [d, t] (algo_megatron.c): axis 0 (bit 1)
 * splits the batch dim d ways where d divides it, axis 1 (bit 2) each op's
 * tensor dim (`heads` or `f`, or the column/row pairs found by structure,
 * internal/tp_pairs.h), unevenly where t does not divide it; whole ops of
 * a batch role split along their implicit batch when d > 1; a pinned op is
 * placed whole on its pin; with s->sp (sequence parallelism) the ops the
 * tensor axis leaves whole that index their output by the sequence `s`
 * are split along it on axis 1. DP_ENOMEM is the only error. */
dp_status dpi_megatron_layout(const dp_graph *g, dp_strategy *s, int d, int t,
			      dp_err *err);

/* megatron's registry entry (engine/algo/algo_megatron.c): pase's
 * safeguard runs it directly, not through the registry above it. */
extern const dp_algo dpi_algo_megatron;

#endif

/* megatron.h - Megatron-LM's tensor-parallel layout of transformer blocks
 * (engine/algo/algo_megatron.c; internal to the engine), shared by the
 * `megatron` algorithm (a flat spmd strategy) and `hybrid` (the same layout
 * inside every pipeline stage).
 */
#ifndef DNNPART_MEGATRON_H
#define DNNPART_MEGATRON_H

#include <stdbool.h>

#include "dnnpart/strategy.h"

/* Whether every op with dim `name` has a size that t divides. */
bool dpi_megatron_divides(const dp_graph *g, const char *name, int t);

/* Fills s->spmd.axes (allocated, zeroed) and s->spmd.device with
 * Megatron's layout on a mesh [d, t]: axis 0 (bit 1) splits the batch dim
 * d ways where d divides it, axis 1 (bit 2) splits every op's `f` dim,
 * else its `heads` dim when t divides every `heads`; whole ops of a
 * batch role split along their implicit batch when d > 1; a pinned op is
 * placed whole on its pin. */
void dpi_megatron_layout(const dp_graph *g, dp_strategy *s, int d, int t);

#endif

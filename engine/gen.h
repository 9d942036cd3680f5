/* gen.h - deterministic synthetic training graphs of a given size.
 *
 * gen_graph() builds the op graph of one training step of a CNN with an
 * exact number of ops: a stem, four stages of residual and inception-like
 * blocks (branches and joins, skip connections), a classifier and a loss;
 * a backward pass that mirrors the forward one (one gradient op per forward
 * op, forward -> backward edges for saved activations); and one optimizer
 * update op per parameter tensor, colocated with the variable op that holds
 * the parameter memory. Times are FLOP- or bandwidth-based for a reference
 * GPU (see gen.c), sizes are the real tensor sizes of that network.
 *
 * The output depends only on the options: the PRNG is the generator's own
 * (xoshiro256**) and all cost arithmetic is done on integers, so every
 * machine produces the same graph, bit for bit.
 *
 * gen_write_json() writes any graph as native dnnpart JSON (docs/formats.md)
 * through afile, streaming, so that a 1,000,000-op graph takes seconds.
 */
#ifndef DNNPART_GEN_H
#define DNNPART_GEN_H

#include <stdint.h>

#include "err.h"
#include "graph.h"

/* The smallest graph: data, stem, classifier, loss and their gradients. */
#define DP_GEN_MIN_OPS 22u
/* The largest graph gen_graph() agrees to build. */
#define DP_GEN_MAX_OPS 20000000u

typedef struct dp_gen_opts {
	uint32_t ops;  /* exact op count, DP_GEN_MIN_OPS..DP_GEN_MAX_OPS */
	uint64_t seed; /* any value; same seed, same graph */
	int devices;   /* machine hint written with the graph; 0 = none */
	int64_t memory_bytes; /* per-device cap hint; 0 = none */
	const char *name;     /* graph name; NULL = "synthetic-N" */
} dp_gen_opts;

/* ops 10000, seed 1, no machine hint, default name. */
void gen_opts_default(dp_gen_opts *o);

/* Builds and finalizes the graph. Errors: op count out of range (DP_EINPUT,
 * saying the range), no memory. *out is set only on success. */
dp_status gen_graph(const dp_gen_opts *o, dp_graph **out, dp_err *err);

/* Writes g (finalized or not) as native JSON to path, atomically. Fields
 * equal to their defaults are left out; edge bytes are written only when
 * they differ from the producer's output_bytes. The machine hint, when the
 * graph has one, becomes the "machine" block. Numbers are written so that
 * reading them back gives the same doubles. */
dp_status gen_write_json(const char *path, const dp_graph *g, dp_err *err);

#endif

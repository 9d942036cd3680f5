/* gen.h - deterministic synthetic training graphs of a given size.
 *
 * dp_gen_graph() builds the op graph of one training step of a CNN with an
 * exact number of ops: a stem, then T parallel towers of four stages of
 * residual and inception-like blocks (branches and joins, skip connections;
 * neighbouring towers exchange features where a stage begins), a classifier
 * over the towers' pooled features and a loss; a backward pass that mirrors
 * the forward one (one gradient op per forward op, forward -> backward edges
 * for saved activations); and one optimizer update op per parameter tensor,
 * colocated with the variable op that holds the parameter memory. Times are
 * FLOP- or bandwidth-based for a reference GPU (see gen.c), sizes are the
 * real tensor sizes of that network.
 *
 * Scale rule. Depth grows with the op count; so that one step still needs
 * a realistic amount of memory (not one that grows with N), the model's
 * scale is chosen from the op count unless the options fix it:
 *   - towers: 1 below 4,000 ops, one more each time the count quadruples
 *     (2 from 4k, 3 from 16k, 4 from 64k, 5 from 256k, 6 from 1,024k), at
 *     most 8: parallelism (total work / critical path) grows with size;
 *   - width (stage-1 channels per tower; the stages have 1x, 2x, 4x, 8x):
 *     the widest of 64, 48, 32, 24, 16, 12, 8, 6, 4 whose weights, counted
 *     four times (weights, Adam's two moments, weight gradients), take at
 *     most a quarter of DP_GEN_MEMORY_TARGET;
 *   - image side and batch: the largest image of 224, 192, 160, 128, 96,
 *     64, 32 at which the rest of the target holds at least 8 samples, and
 *     as many samples as it holds (at most 64).
 * The estimate the rule fills is the single-device peak of the simulator
 * (gen_scale.c says how it is computed); for the default options at 10k,
 * 100k and 1M ops it and the simulated peak are 18-21 GiB. Past about 10M
 * ops even the smallest model (width 4, 32x32, batch 1) exceeds it.
 *
 * Every op carries its iteration space and role (docs/formats.md): activations
 * are [b, c, h, w] with b the graph's batch_dim, each op's dims are its loop
 * nest (a conv's b, k, c, h, w, r, s), and the edges that carry one op's
 * whole output say which of the consumer's dims index it; see
 * engine/gen/gen_dims.c. These fields change no time or size.
 *
 * The output depends only on the options: the PRNG is the generator's own
 * (xoshiro256**) and all cost arithmetic is done on integers, so every
 * machine produces the same graph, bit for bit.
 *
 * dp_gen_write_json() writes any graph as native dnnpart JSON (docs/formats.md)
 * through afile, streaming, so that a 1,000,000-op graph takes seconds.
 */
#ifndef DNNPART_GEN_H
#define DNNPART_GEN_H

#include <stdint.h>

#include "err.h"
#include "graph.h"

/* The smallest graph: data, stem, classifier, loss and their gradients
 * (one tower; each further tower needs 2 more ops, and 2 for the concat). */
#define DP_GEN_MIN_OPS 22u
/* The largest graph dp_gen_graph() agrees to build. */
#define DP_GEN_MAX_OPS 20000000u
/* What the scale rule aims the memory estimate at (see above). */
#define DP_GEN_MEMORY_TARGET ((int64_t)20 << 30)
#define DP_GEN_MAX_TOWERS 32u
#define DP_GEN_MAX_WIDTH 1024u
#define DP_GEN_MAX_BATCH 4096u
#define DP_GEN_MAX_IMAGE 2048u /* image sides are multiples of 32 */

typedef struct dp_gen_opts {
	uint32_t ops;  /* exact op count, DP_GEN_MIN_OPS..DP_GEN_MAX_OPS */
	uint64_t seed; /* any value; same seed, same graph */
	int devices;   /* machine hint written with the graph; 0 = none */
	int64_t memory_bytes; /* per-device cap hint; 0 = none */
	const char *name;     /* graph name; NULL = "synthetic-N" */
	/* model scale; 0 = chosen by the scale rule */
	uint32_t towers; /* 1..DP_GEN_MAX_TOWERS */
	uint32_t width;	 /* stage-1 channels per tower, 4..DP_GEN_MAX_WIDTH */
	uint32_t batch;	 /* 1..DP_GEN_MAX_BATCH */
	uint32_t image;	 /* input side in pixels, 32..DP_GEN_MAX_IMAGE, a
			  * multiple of 32 */
} dp_gen_opts;

/* The model a set of options resolves to, with its memory estimate. */
typedef struct dp_gen_scale {
	uint32_t towers, width, batch, image;
	int64_t weight_bytes;	/* every weight tensor once */
	int64_t act_bytes;	/* every forward output (activations) */
	int64_t estimate_bytes; /* one-device peak (see gen_scale.c) */
} dp_gen_scale;

/* ops 10000, seed 1, no machine hint, default name, scale by the rule. */
void dp_gen_opts_default(dp_gen_opts *o);

/* Resolves the scale rule for o (without building the graph) into *sc.
 * Errors (DP_EINPUT, saying the accepted range): op count or a scale field
 * out of range, or fewer ops than the towers need. */
dp_status dp_gen_compute_scale(const dp_gen_opts *o, dp_gen_scale *sc,
			       dp_err *err);

/* Builds and finalizes the graph. Errors: those of dp_gen_compute_scale(), no memory.
 * *out is set only on success. */
dp_status dp_gen_graph(const dp_gen_opts *o, dp_graph **out, dp_err *err);

/* Writes g (finalized or not) as native JSON to path, atomically. Fields
 * equal to their defaults are left out; edge bytes are written only when
 * they differ from the producer's output_bytes. The machine hint, when the
 * graph has one, becomes the "machine" block. Numbers are written so that
 * reading them back gives the same doubles. */
dp_status dp_gen_write_json(const char *path, const dp_graph *g, dp_err *err);

#endif

/* tofu.h - the cost model of the `tofu` strategy search
 * (engine/algo/tofu_cost.c, engine/algo/algo_tofu.c; internal to the
 * engine; docs/algorithms.md, "tofu").
 *
 * Tofu splits every op at each level of a recursion into f parts along one
 * of its dims. At one level, with every op's choice of dim (or none), the
 * bytes a data edge u -> v moves among the f devices of a group, summed
 * over all groups, are the edge's bytes x:
 *   0          u replicated (each device reads its own copy), or u and v
 *              split the same axis of the tensor;
 *   (f-1)/f    u and v split two different axes (an all-to-all);
 *   f-1        u split on an axis, v needs the whole tensor (an
 *              all-gather); or u split on a reduction dim (partial sums)
 *              and v split (a reduce-scatter);
 *   2(f-1)     partial sums into a v that needs the whole tensor (a
 *              reduce-scatter plus an all-gather: an all-reduce);
 * which is what the spmd lowering (lower_spmd_edges.c) moves for that
 * split on a mesh of f devices; plus a price per message (below). The
 * tensor's axes, and which dims of u and v index them, follow the
 * lowering's rules for an edge with or without dims. At a level below
 * others, each of the `groups` groups moves its own part of the tensor:
 * the tensor's bytes / the parts the levels before divided it into, at
 * the consumer for a gather (each consumer needs its whole block), at the
 * producer otherwise (the partial sums or the block it holds). So a
 * weight gradient that no level divides is all-reduced in every group:
 * the lowering's 2(K-1) x its bytes for K devices is 2(f-1) x (1 + f +
 * f^2 ...) over the levels, and a gather into a consumer that needs the
 * whole tensor moves (K-1) x it, as the lowering does.
 * The cost of a strategy is the sum over its levels (mesh axes), from the
 * first.
 */
#ifndef DNNPART_TOFU_H
#define DNNPART_TOFU_H

#include <stdbool.h>
#include <stdint.h>

#include "dnnpart/strategy.h"

#define DPI_TOFU_NONE (-1)    /* the dim does not index the tensor */
#define DPI_TOFU_PARTIAL (-2) /* a producer's reduction dim */

/* How the dims of an edge's two ends index the tensor it carries: for the
 * producer's dim i (entry 0 for an op without dims) the tensor axis it
 * indexes or DPI_TOFU_PARTIAL; for the consumer's dim k the axis or
 * DPI_TOFU_NONE. */
typedef struct dpi_tofu_edge {
	uint32_t from, to;
	double bytes;
	double pdiv, cdiv; /* the parts the levels before divided the
			      tensor into, at the producer and at the
			      consumer (their splits of its axes); 1, 1
			      before any */
	int8_t pmap[DP_MAX_OP_DIMS];
	int8_t cmap[DP_MAX_OP_DIMS];
} dpi_tofu_edge;

/* Fills te[] for every data edge of g (control edges get bytes 0), div 1. */
void dpi_tofu_edges(const dp_graph *g, dpi_tofu_edge *te);

/* After a level of f parts where te's producer split its dim iu and its
 * consumer its dim iv: each end's part of the tensor is f times smaller
 * when its dim indexes one of the tensor's axes. */
static inline void dpi_tofu_divide(dpi_tofu_edge *te, int iu, int iv, int f)
{
	if (iu >= 0 && te->pmap[iu] >= 0)
		te->pdiv *= f;
	if (iv >= 0 && te->cmap[iv] >= 0)
		te->cdiv *= f;
}

/* One level of the recursion: f parts in each of `groups` groups of
 * devices (the product of the earlier levels' parts); alpha: the bytes a
 * message is worth (the link's latency x its bandwidth), so that many
 * small transfers are not free. */
typedef struct dpi_tofu_level {
	int f;
	double groups;
	double alpha;
} dpi_tofu_level;

/* The message weights tofu searches (ours): alpha = the link's latency x
 * bandwidth times each of these, every one searched and simulated (the
 * model sums bytes and messages over all devices; the simulator's step
 * waits for each message of a dependent chain, so the right weight of a
 * message against a byte is not known in advance). */
#define DPI_TOFU_NSCALES 3
extern const double dpi_tofu_msg_scales[DPI_TOFU_NSCALES];

/* The cost of edge te at level lv, when its producer splits its dim iu and
 * its consumer its dim iv (-1: not split, i.e. replicated; -2: whole on
 * one device, a pinned op): the bytes above plus alpha x groups x the
 * messages (f(f-1) for a gather, an all-to-all or a reduce-scatter, twice
 * that for an all-reduce; f-1 to or from a pinned op). */
double dpi_tofu_edge_cost(const dpi_tofu_edge *te, int iu, int iv,
			  const dpi_tofu_level *lv);

/* Whether op u may stay whole at a level for free: a weight (role param
 * or update) or an op without the batch in a graph with one (a position
 * embedding), as data parallelism keeps weights. */
bool dpi_tofu_free_replica(const dp_graph *g, uint32_t u);

/* The price of keeping any other op u whole at a level of f parts in
 * `groups` groups (ours): the compute it repeats, (f-1) x groups x its
 * time / the parts the levels before split it into, summed over the
 * devices, at bw bytes per microsecond (what the link would move in that
 * time), so that replicating an op is chosen only where it saves more
 * communication than it wastes compute (Megatron's replicated layer
 * norms). 0 for a free replica. */
double dpi_tofu_replica_cost(const dp_graph *g, uint32_t u, double prev_parts,
			     const dpi_tofu_level *lv, double bw);

/* The price of splitting op u's dim of size n, already in `parts` parts,
 * f ways more at level lv when f x parts does not divide n (ours: uneven
 * blocks, as megatron splits 25 heads): the devices with the larger
 * blocks run longer, ceil(n / (f parts)) x parts / n of the op's time
 * / prev_parts instead of 1/f of it; that difference over the level's
 * f x groups devices, at bw bytes per microsecond. 0 when it divides. */
double dpi_tofu_uneven_cost(const dp_graph *g, uint32_t u, int64_t n,
			    int64_t parts, double prev_parts,
			    const dpi_tofu_level *lv, double bw);

/* The cost of an spmd strategy s in tofu's model with message cost alpha
 * and compute priced at bw bytes per microsecond (0: communication
 * alone): the sum over the mesh axes (levels, in order) of every data
 * edge's cost at that level (each op's choice at level l: the dim whose
 * axes mask holds bit l) and of every op kept whole there. Negative when
 * out of memory. */
double dpi_tofu_cost(const dp_graph *g, const dp_strategy *s, double alpha,
		     double bw);

/* The edges the spmd lowering makes for s, estimated: per data or
 * control edge, one per consumer shard for each level where the edge
 * moves nothing (the same block, or a replicated producer), times the
 * level's parts where it does (a gather, an all-to-all or partial sums:
 * each shard hears from every part). */
double dpi_tofu_lowered_edges(const dp_graph *g, const dp_strategy *s);

/* Per-device memory estimate of an spmd strategy s (the caps' test):
 * params, gradients and optimizer state divided by the parts of their
 * param dims, plus activations (forward, input, no role) divided by the
 * parts of their out dims. */
double dpi_tofu_estimate(const dp_graph *g, const dp_strategy *s);

/* Tofu's mesh for k devices: k's prime factors, ascending, the smallest
 * merged while there are more than DP_MAX_MESH_AXES. Returns the number of
 * axes written into mesh. */
int dpi_tofu_mesh(int k, int *mesh);

#endif

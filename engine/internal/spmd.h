/* spmd.h - the pieces of the spmd lowering (engine/strategy/lower_spmd*.c;
 * internal to the engine).
 *
 * lower_spmd.c checks a strategy and makes every op's instances;
 * lower_spmd_edges.c connects them: each data edge becomes a tensor whose
 * axes the producer and the consumer split in their own ways, and a
 * consumer instance receives from each producer instance the intersection
 * of their boxes (through reduce ops when the producer holds partial sums).
 */
#ifndef DNNPART_SPMD_H
#define DNNPART_SPMD_H

#include <stdbool.h>
#include <stdint.h>

#include "internal/lower.h"
#include "internal/spmd_tensor.h"

/* The mesh and every op's instances while lowering. */
typedef struct dpi_spmd_ctx {
	const dp_graph *g;
	const dp_spmd *sp;
	const dp_progress *p;
	int size;		      /* devices of the mesh */
	int stride[DP_MAX_MESH_AXES]; /* row-major: d = sum coord x stride */
	dpi_mesh mesh;		      /* the same, for internal/spmd_tensor.h */
	int8_t *bidx;		      /* per op: index of the batch dim in its
					   dims, -1 none, -2 whole op whose
					   entry 0 is its implicit batch */
	uint32_t *upd;	 /* per param op: its update op (same colocation
			  group, else a consumer), UINT32_MAX none */
	uint8_t *carry;	 /* per op: mesh axes over which it holds partial
			    sums summed from its inputs' (a linear op;
			    lower_spmd_edges.c), 0 none */
	uint32_t *psum;	 /* per sum op split on its inputs' partial axes:
			    its first local sum "v/psum#d0", 0 none yet */
	uint32_t *first; /* per op: its first lowered op; a
					   whole-placed op has one, the
					   others one per mesh device, in
					   device order */
	dpi_lower_buf b;
	char *name; /* scratch for lowered names */
	size_t name_cap;
	uint64_t work; /* steps done, for progress */
} dpi_spmd_ctx;

/* Coordinate of mesh device d on axis a. */
static inline int dpi_spmd_coord(const dpi_spmd_ctx *c, int d, int a)
{
	return (d / c->stride[a]) % c->sp->mesh[a];
}

/* The axes mask that splits dim i of op u (0 for a whole-placed op). */
static inline uint8_t dpi_spmd_mask(const dpi_spmd_ctx *c, uint32_t u,
				    uint32_t i)
{
	if (!c->sp->axes || (c->sp->device && c->sp->device[u] >= 0))
		return 0;
	return c->sp->axes[(size_t)u * DP_MAX_OP_DIMS + i];
}

/* Whether a whole op (no dims) with role r may be split along the batch:
 * input, forward, backward and loss ops divide their work and output; a
 * grad op (a weight gradient) divides its work, and each part holds a
 * partial sum of the whole gradient. */
static inline bool dpi_spmd_batch_role(dp_role r)
{
	return r == DP_ROLE_INPUT || r == DP_ROLE_FORWARD ||
	       r == DP_ROLE_BACKWARD || r == DP_ROLE_LOSS || r == DP_ROLE_GRAD;
}

/* Which dim of op u carries the batch, for the block rule of an edge
 * between two batch-split ops: 0 for a whole op whose role splits along
 * the batch (bidx -2), the batch dim's index bidx when u has it, -1 when
 * it has none. As a producer, the batch must index u's output (a grad op's
 * output, a weight gradient, has no batch). The lowering and pase's cost
 * model both read an edge's batch overlap by this one rule. */
static inline int dpi_spmd_batch_dim(const dp_graph *g, int8_t bidx, uint32_t u,
				     bool producer)
{
	if (bidx == -2) {
		dp_role r = dp_op_role(g, u);
		return dpi_spmd_batch_role(r) &&
				       !(producer && r == DP_ROLE_GRAD)
			       ? 0
			       : -1;
	}
	if (bidx < 0)
		return -1;
	if (producer) {
		dp_dims d;
		dp_op_dims(g, u, &d);
		bool in = d.nout < 0;
		for (int k = 0; k < d.nout; k++)
			in = in || d.out[k] == (uint8_t)bidx;
		if (!in)
			return -1;
	}
	return bidx;
}

/* Number of parts of a mask (product of its axes' sizes). */
int dpi_spmd_mask_parts(const dpi_spmd_ctx *c, uint8_t mask);
/* Part index of device d under mask (row-major over its axes). */
int dpi_spmd_mask_part(const dpi_spmd_ctx *c, uint8_t mask, int d);
/* The device of a whole-placed op, or -1. */
static inline int dpi_spmd_whole(const dpi_spmd_ctx *c, uint32_t u)
{
	return c->sp->device ? c->sp->device[u] : -1;
}

/* Block q of n of a dim of size `size` is [lo(q), lo(q+1)) with
 * lo(q) = floor(q x size / n): equal blocks when n divides size, else
 * blocks of ceil and floor size (a split need not divide its dim). */
static inline int64_t dpi_spmd_lo(int64_t size, int64_t q, int64_t n)
{
	return q * size / n;
}

/* The block (of n over a dim of size `size`) that holds index x. */
static inline int64_t dpi_spmd_block_at(int64_t size, int64_t x, int64_t n)
{
	return ((x + 1) * n - 1) / size;
}

/* The mesh as "[2,4]", into buf of n bytes, for messages; returns buf. */
const char *dpi_spmd_mesh_text(const dp_spmd *sp, char *buf, size_t n);

/* The share of total for part q of n parts: floor((q+1)t/n) - floor(qt/n),
 * so that the n shares add up to total exactly. */
int64_t dpi_spmd_share(int64_t total, int64_t q, int64_t n);

/* Writes the lowered name of op u into c->name: NAME + tag (+ layout when
 * > 1) + "#d" + dev, e.g. "fc1#d3", "fc2/rs#d0", "fc2/rs2#d0"; DP_ENOMEM. */
dp_status dpi_spmd_name(dpi_spmd_ctx *c, uint32_t u, const char *tag,
			int layout, int dev, dp_err *err);

/* Connects every data and control edge of the graph (lower_spmd_edges.c). */
dp_status dpi_spmd_edges(dpi_spmd_ctx *c, dp_err *err);

#endif

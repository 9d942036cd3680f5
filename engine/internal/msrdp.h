/* msrdp.h - msr-dp's units and ideals (internal to the engine).
 *
 * msr-dp (engine/algo/algo_msrdp.c) is the dynamic program over ideals of
 * Tarnawski et al., NeurIPS 2020. Its search space is built here:
 * - units: the ops it places together. A colocation group is one unit; in
 *   a training graph (ops with roles), a backward-side op (backward, grad,
 *   update) goes with the forward-side ops of its group, and the ideals are
 *   those of the forward side only, as in the paper; a backward-side unit
 *   without a forward op takes the mirror place of its backward edges (the
 *   paper's artificial forward node). Units that the edges put on a cycle
 *   are merged (strongly connected components). Units are numbered in a
 *   topological order of what remains, a DAG.
 * - ideals (downsets) of the unit DAG: a device gets the difference of two
 *   nested ideals, a contiguous set. Each ideal keeps its bitset over the
 *   units, its time and bytes, and its frontier: the units inside with a
 *   data neighbour outside and the units outside with a data neighbour
 *   inside, the only places where the load of a difference can have a cut
 *   edge.
 */
#ifndef DNNPART_MSRDP_H
#define DNNPART_MSRDP_H

#include <stdbool.h>
#include <stdint.h>

#include "dnnpart/algo.h"

typedef struct msr_units {
	uint32_t nu;
	uint32_t *unit;		 /* per op: its unit */
	uint32_t *uop_off, *uop; /* ops of unit a: uop[uop_off[a] .. +1) */
	double *utime;		 /* per unit: sum of time_us */
	double *umem;		 /* per unit: sum of param+output+temp bytes */
	int32_t *upin;		 /* per unit: pin, -1 none */
	uint32_t *upred_off, *upred; /* DAG predecessors (smaller numbers) */
	uint32_t *unb_off, *unb;     /* data neighbours, either direction */
	double *xfer;		     /* per op: dp_op_xfer_us */
	uint32_t npinned;
	uint32_t *pinned;  /* the pinned units */
	bool pin_conflict; /* a unit holds ops pinned to two devices */
} msr_units;

/* A family of ideals, sorted by (time, size): every proper subset of an
 * ideal comes before it; 0 is the empty ideal, ni - 1 the full one. */
typedef struct msr_ideals {
	uint32_t ni, w; /* ideals, 64-bit words per bitset */
	uint64_t *bits; /* ni * w; NULL for a chain of prefixes */
	uint32_t *pos;	/* a chain: ideal i is the units below pos[i] */
	double *time, *mem;
	uint32_t *fr_off, *fr; /* frontier units of ideal i (all ideals) */
	double *comm; /* a chain: ni x ni, [j * ni + i] the communication of
			 the piece between prefixes j < i */
} msr_ideals;

dp_status dpi_msr_units_build(const dp_graph *g, const dp_machine *m,
			      msr_units *u, dp_err *err);
void dpi_msr_units_free(msr_units *u);

/* Every ideal of the unit DAG, when there are at most max_ideals of them
 * (and their frontiers fit the work bound): DP_OK with *complete true;
 * *complete false (and id empty) when there are more. Polls p. */
dp_status dpi_msr_ideals_all(const msr_units *u, uint32_t max_ideals,
			     const dp_progress *p, msr_ideals *id,
			     bool *complete, dp_err *err);
/* The prefixes of the unit order, at most nb + 1 of them (consecutive
 * units merged into blocks of about equal time when there are more), with
 * the communication of every piece between two of them, from rectangles
 * per op summed in one 2-D prefix sum: O(e log e + nb^2). */
dp_status dpi_msr_ideals_chain(const dp_graph *g, const msr_units *u,
			       uint32_t nb, msr_ideals *id, dp_err *err);
void dpi_msr_ideals_free(msr_ideals *id);

static inline bool dpi_msr_has(const msr_ideals *id, uint32_t i, uint32_t a)
{
	if (id->pos)
		return a < id->pos[i];
	return (id->bits[(uint64_t)i * id->w + a / 64] >> (a % 64)) & 1u;
}

#endif

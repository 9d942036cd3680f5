/* algo_int.h - what every algorithm shares at its start and end, beyond
 * dp_algo_place() (engine/algo/algo_common.c; internal to the engine).
 *
 * The options an algorithm is given (or the defaults), the one device a
 * colocation group is pinned to, and the check an algorithm makes every so
 * many ops: is the run cancelled, and how far has it got. One message for a
 * cancelled algorithm everywhere: "NAME: canceled". And the one way an
 * algorithm file defines its registry entry, DPI_ALGO_DEFINE (or
 * DPI_ALGO_ENTRY).
 */
#ifndef DNNPART_ALGO_INT_H
#define DNNPART_ALGO_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "dnnpart/algo.h"
#include "internal/intmath.h"
#include "internal/poll.h"

/* o itself, or the defaults (dp_algo_opts_default) written into *def when
 * o is NULL. */
const dp_algo_opts *dpi_algo_opts_or_default(const dp_algo_opts *o,
					     dp_algo_opts *def);

/* Placements shared between runs on one graph and one machine
 * (dp_algo_opts.shared): best gives one to its candidate runs, so that
 * pardnn's lanes and METIS seeds and best's lanes and metis candidates are
 * made once. Its owner sets g, m (the objects the runs get) and a buffer
 * of g->nops entries per kind (NULL: that kind is not kept), has[] false;
 * the first run that makes a kind keeps it (dpi_shared_put), the later
 * ones copy it (dpi_shared_get). A run on another graph or machine (a
 * part's pardnn inside pardnn, a strategy's) neither reads nor writes it. */
typedef enum dpi_shared_kind {
	DPI_SHARED_LANES, /* dpi_lanes (engine/internal/best.h) */
	DPI_SHARED_METIS, /* the metis algorithm's placement */
	DPI_SHARED_KINDS
} dpi_shared_kind;

typedef struct dp_algo_shared {
	const dp_graph *g;
	const dp_machine *m;
	int32_t *pl[DPI_SHARED_KINDS];
	bool has[DPI_SHARED_KINDS];
} dp_algo_shared;

/* Copies the placement of kind that sh keeps for g on m into pl (g->nops
 * entries); false (pl untouched) when it keeps none. */
bool dpi_shared_get(const dp_algo_shared *sh, const dp_graph *g,
		    const dp_machine *m, dpi_shared_kind kind, int32_t *pl);
/* Keeps pl as the placement of kind for g on m when sh is for them. */
void dpi_shared_put(dp_algo_shared *sh, const dp_graph *g,
		    const dp_machine *m, dpi_shared_kind kind,
		    const int32_t *pl);

/* The device colocation group grp is pinned to (the pin of any member: a
 * finalized graph has no group with two different pins), or -1. */
int32_t dpi_algo_group_pin(const dp_graph *g, uint32_t grp);

/* Puts op u and its whole colocation group on device d in pl. */
void dpi_algo_unit_set(const dp_graph *g, int32_t *pl, uint32_t u, int32_t d);

/* The part of an SPMD layout (dp, zero, megatron) every op starts with, on
 * a mesh whose axis 0 is data parallel of size data: a pinned op goes whole
 * to its pin, and an op without dims is split along axis 0 when its role
 * splits along the batch and data > 1; both return -2 (u is laid out).
 * Otherwise *d gets u's dims and the result is the index of its batch dim,
 * -1 when it has none. */
int dpi_algo_spmd_op_start(const dp_graph *g, uint32_t u, int data,
			   struct dp_strategy *s, dp_dims *d);

/* DP_OK when o's micro-batches are 0 (the default) to
 * DP_MAX_MICROBATCHES, else DP_EINPUT with "NAME: a pipeline needs 1 to
 * N micro-batches, got M". */
dp_status dpi_algo_check_microbatches(const dp_algo_opts *o, const char *name,
				      dp_err *err);

/* How an input of v reaches device e (the polishes' earliest device). */
typedef struct dpi_input_cost {
	/* the transfer time of edge's data to device e (0 when local) */
	double (*comm)(const void *ud, uint32_t edge, int32_t e);
	/* whether v may go to e; NULL: every device */
	bool (*allowed)(const void *ud, int32_t e);
	const void *ud;
} dpi_input_cost;

/* The device other than pl[v] (of k) where v's inputs would arrive first in
 * r's schedule: the latest r->end[from] + comm of its in-edges, among the
 * allowed devices; ties: the less busy device, then the smaller index. -1
 * if none is allowed. */
int32_t dpi_earliest_input_device(const dp_graph *g, const dp_sim_result *r,
				  int k, const int32_t *pl, uint32_t v,
				  const dpi_input_cost *cost);


/* Defines const dp_algo dpi_algo_ID, the entry engine/plan/registry.c lists:
 * named ID itself (what --algo takes), so the symbol and the name cannot
 * differ, with its one-line summary, its source and its run function. */
#define DPI_ALGO_DEFINE(id, summary_, source_, run_)                           \
	DPI_ALGO_ENTRY(id, #id, summary_, source_, .run = run_)

/* The same for an entry DPI_ALGO_DEFINE cannot write: a name that is no C
 * identifier ("msr-dp"), or other fields, given as designated initializers
 * (.strategize = f, .on_request = true). */
#define DPI_ALGO_ENTRY(id, name_, summary_, source_, ...)                      \
	const dp_algo dpi_algo_##id = {                                        \
		.name = name_,                                                 \
		.summary = summary_,                                           \
		.source = source_,                                             \
		__VA_ARGS__,                                                   \
	}

/* METIS k-way partition of g on m's devices whose balance constraints are
 * the work in each of nwin time windows along the critical path, edges
 * weighted by what a cut costs (engine/algo/algo_metis.c; pardnn's second
 * seed). Pins and colocation groups are kept. placement: g->nops. */
dp_status dpi_metis_windows(const dp_graph *g, const dp_machine *m, int nwin,
			    int32_t *placement, dp_err *err);

#endif

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

/* The device colocation group grp is pinned to (the pin of any member: a
 * finalized graph has no group with two different pins), or -1. */
int32_t dpi_algo_group_pin(const dp_graph *g, uint32_t grp);

/* DP_OK when o's micro-batches are 0 (the default) to
 * DP_MAX_MICROBATCHES, else DP_EINPUT with "NAME: a pipeline needs 1 to
 * N micro-batches, got M". */
dp_status dpi_algo_check_microbatches(const dp_algo_opts *o, const char *name,
				      dp_err *err);


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

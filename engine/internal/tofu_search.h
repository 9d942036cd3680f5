/* tofu_search.h - the state of the `tofu` search, shared by its driver
 * (engine/algo/algo_tofu.c: groups, levels, orders, memory rounds) and
 * its per-level solver (engine/algo/tofu_level.c); internal to the
 * engine. docs/algorithms.md, "tofu". */
#ifndef DNNPART_TOFU_SEARCH_H
#define DNNPART_TOFU_SEARCH_H

#include <stdbool.h>
#include <stdint.h>

#include "dnnpart/strategy.h"
#include "internal/tofu.h"

#define DPI_TOFU_MAXC (DP_MAX_OP_DIMS + 1)

typedef struct dpi_tofu_search {
	const dp_graph *g;
	const dp_progress *p;
	dpi_tofu_edge *te;
	uint32_t ng;
	uint32_t *grp;	   /* op -> group */
	uint32_t *rep;	   /* group -> its first op */
	uint32_t *order;   /* groups by topological position */
	uint32_t *adj_off; /* group -> its edges to other groups */
	uint32_t *adj;
	int8_t *own;	/* op x rep dim -> the op's own dim index */
	int32_t *parts; /* op x dim -> parts so far */
	int8_t *cand;	/* group x DPI_TOFU_MAXC: rep dim, -1 none (whole),
			   -2 pinned */
	uint8_t *ncand;
	uint8_t *weights; /* group holds a param or update op, or one
			     without the batch (a position embedding): it
			     may stay replicated, as data parallelism keeps
			     weights */
	int8_t *tp;	  /* op -> Megatron's tensor-parallel dim, -1 none
			     (internal/tp_pairs.h): a second start */
	double *unary;	  /* group x DPI_TOFU_MAXC */
	uint8_t *a, *b;	  /* assignments: index into cand */
	double *dp;
	uint8_t *bp;
	double lambda;
	double bw; /* bytes per microsecond: the price of repeated compute */
	int f;
	dpi_tofu_level lv;
} dpi_tofu_search;

/* Op u's own dim for its group's choice c (a rep dim, -1 or -2). */
static inline int dpi_tofu_dim_of(const dpi_tofu_search *t, uint32_t u, int c)
{
	return c < 0 ? c : t->own[(size_t)u * DP_MAX_OP_DIMS + c];
}

static inline int dpi_tofu_choice(const dpi_tofu_search *t, uint32_t u,
				  const uint8_t *a)
{
	uint32_t k = t->grp[u];
	return dpi_tofu_dim_of(t, u, t->cand[(size_t)k * DPI_TOFU_MAXC + a[k]]);
}

/* One level of t->f parts: fills t->a with every group's choice (index
 * into its candidates), by exhaustive search when small, else Viterbi
 * passes and coordinate descent from two starts (tofu_level.c). Progress
 * at frac; DP_ECANCELED. */
dp_status dpi_tofu_solve_level(dpi_tofu_search *t, double frac, dp_err *err);

#endif

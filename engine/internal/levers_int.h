/* levers_int.h - the op sets the levers' transforms work on
 * (graph_levers_sets.c), shared with the builder (graph_levers.c). */
#ifndef DNNPART_LEVERS_INT_H
#define DNNPART_LEVERS_INT_H

#include "dnnpart/levers.h"

/* What recomputation and fusion do to each op of the user's graph. */
typedef struct dpi_lv_sets {
	/* per op: 0 = not re-run, else the segment (1..nseg) whose re-run
	 * copies include it: a layer (full) or an attention core (selective,
	 * fused attention) */
	uint32_t *seg;
	uint32_t nseg;
	/* per op: -1 when no fused kernel runs it, else the bytes of its
	 * output the kernel does not store (the whole output of a fused
	 * attention core op; one scores tensor of a backward op of one); a
	 * fused op's time is its arithmetic, not its memory traffic
	 * (graph_levers.c). NULL without fusion */
	int64_t *drop;
	/* gates: the re-run copies of segment gate[2i+1] start after op
	 * gate[2i] (an op of the backward pass outside the segment) */
	uint32_t *gate;
	uint32_t ngates;
} dpi_lv_sets;

/* Whether the data edge u -> v, from a re-run op u, is read in the
 * backward pass of u's layer: then the builder points it at u's copy. */
bool dpi_levers_redirects(const dp_graph *g, uint32_t u, uint32_t v);

/* Fills s for lv on g (finalized). Errors (DP_EINPUT): recomputation on
 * a graph without layers or roles, selective or fused attention on a
 * graph without an attention core. */
dp_status dpi_levers_sets(const dp_graph *g, const dp_levers *lv,
			  dpi_lv_sets *s, dp_err *err);
void dpi_levers_sets_free(dpi_lv_sets *s);

#endif

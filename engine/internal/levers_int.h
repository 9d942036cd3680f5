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
	/* extra data edges extra[2i] -> extra[2i+1], with the producer's
	 * bytes: a fused element-wise chain's inputs, read by the backward
	 * ops that recompute its intermediates (graph_levers_fuse.c) */
	uint32_t *extra;
	uint32_t nextra;
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

/* Appends the pair (a, b) to *arr (*n pairs, room for *cap); DP_ENOMEM. */
dp_status dpi_levers_push_pair(uint32_t **arr, uint32_t *n, uint32_t *cap,
				uint32_t a, uint32_t b, dp_err *err);

/* --fuse elementwise: marks in s->drop (allocated, -1 where nothing
 * fused it yet) what the fused element-wise chains keep on chip, and in
 * s->extra the inputs their backward reads. DP_EINPUT when g has no
 * chain; DP_ENOMEM. */
dp_status dpi_levers_fuse_elementwise(const dp_graph *g, dpi_lv_sets *s,
				      dp_err *err);

#endif

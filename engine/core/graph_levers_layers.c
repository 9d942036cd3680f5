/* graph_levers_layers.c - the layers as `--recompute auto` weighs them
 * (levers.h, dp_levers_layers; docs/memory.md).
 *
 * Layer i is the i-th `layer` label in the order its first forward op
 * appears (the numbering of dp_levers.rc_sel and of full recomputation's
 * segments). Re-running it frees the outputs of its forward ops that its
 * own backward reads and no other layer's backward does (those stay held
 * from the forward to the backward without recomputation), in the step's
 * precision and fusion; it costs its forward ops' time once more.
 */
#include <stdlib.h>
#include <string.h>

#include "internal/graph_int.h"
#include "internal/levers_int.h"
#include "internal/nomem.h"

/* Whether some backward op of another layer than u's reads u. */
static bool read_by_other_layer(const dp_graph *g, uint32_t u)
{
	for (uint32_t k = g->succ_off[u]; k < g->succ_off[u + 1]; k++) {
		const dp_edge *e = &g->edges[g->succ_edge[k]];
		dp_role r = dp_op_role(g, e->to);
		if (!e->control &&
		    (r == DP_ROLE_BACKWARD || r == DP_ROLE_GRAD) &&
		    g->ops[e->to].layer != g->ops[u].layer)
			return true;
	}
	return false;
}

/* Whether the backward of u's own layer reads u. */
static bool read_by_own_backward(const dp_graph *g, uint32_t u)
{
	for (uint32_t k = g->succ_off[u]; k < g->succ_off[u + 1]; k++) {
		const dp_edge *e = &g->edges[g->succ_edge[k]];
		if (!e->control && dpi_levers_redirects(g, u, e->to))
			return true;
	}
	return false;
}

/* Fills L (n layers) from g, its transform t (precision and fusion: the
 * same op ids) and full recomputation's segments seg. */
static void fill(const dp_graph *g, const dp_graph *t, const uint32_t *seg,
		 const uint32_t *idx, dp_lv_layer *L)
{
	for (uint32_t u = 0; u < g->nops; u++) {
		uint32_t l = g->ops[u].layer;
		if (!l || dp_op_role(g, u) != DP_ROLE_FORWARD)
			continue;
		dp_lv_layer *y = &L[idx[l] - 1];
		y->name = dp_graph_str(g, l);
		y->eligible |= seg[u] != 0;
		y->cost_us += t->ops[u].time_us;
		if (read_by_own_backward(g, u) && !read_by_other_layer(g, u))
			y->save_bytes += t->ops[u].output_bytes;
	}
}

dp_status dp_levers_layers(const dp_graph *g, const dp_levers *lv,
			   dp_lv_layer **out, uint32_t *n, dp_err *err)
{
	*out = NULL;
	*n = 0;
	uint32_t *idx = calloc((size_t)g->strs_len + 1, sizeof *idx);
	if (!idx)
		return dpi_nomem(err, "--recompute auto");
	uint32_t nl = 0;
	for (uint32_t u = 0; u < g->nops; u++) {
		uint32_t l = g->ops[u].layer;
		if (l && dp_op_role(g, u) == DP_ROLE_FORWARD && !idx[l])
			idx[l] = ++nl;
	}
	dp_status st = DP_OK;
	if (!nl || nl > DP_RC_MAX_LAYERS) {
		free(idx);
		return dp_err_set(err, DP_EINPUT, NULL, 0, 0,
				  "--recompute auto: graph '%s' has %s "
				  "(docs/memory.md)",
				  g->name,
				  nl ? "more than 1024 layers"
				     : "no forward ops with `layer` labels");
	}
	dp_levers base = *lv, full = *lv;
	base.recompute = DP_RECOMP_NONE;
	full.recompute = DP_RECOMP_FULL;
	dp_graph *t = NULL;
	dpi_lv_sets sets;
	memset(&sets, 0, sizeof sets);
	dp_lv_layer *L = calloc(nl, sizeof *L);
	if (!L)
		st = dpi_nomem(err, "--recompute auto");
	if (!st)
		st = dp_levers_apply(g, &base, &t, err);
	if (!st)
		st = dpi_levers_sets(g, &full, &sets, err);
	if (!st)
		fill(g, t, sets.seg, idx, L);
	dpi_levers_sets_free(&sets);
	dp_graph_free(t);
	free(idx);
	if (st) {
		free(L);
		return st;
	}
	*out = L;
	*n = nl;
	return DP_OK;
}

/* algo_pardnn_slice.c - pardnn step 1: slicing the graph into linear paths.
 *
 * Paper (arXiv 2008.08636, Sec. 4, graph slicing): node weight = time, edge
 * weight = communication cost if the edge is cut. Bottom levels
 * b(u) = w(u) + max over children (c(u,v) + b(v)). K primary paths are
 * extracted one after the other, each the critical path of the graph left
 * after removing the earlier ones (levels recomputed on the remainder); the
 * first is the graph's critical path. Every other op is then covered by
 * secondary linear paths, started at ops in decreasing priority (top level +
 * bottom level, where an edge inside one primary costs nothing) and walking
 * to the heaviest unvisited child.
 *
 * Ours: fixed (pinned) ops are taken out of slicing and counted as already
 * placed; after PD_RECOMPUTE_MAX primaries the levels are no longer
 * recomputed (further primaries use the last levels), so that a machine with
 * hundreds of devices does not cost hundreds of passes over the graph.
 */
#include <stdlib.h>
#include <string.h>

#include "internal/pardnn.h"
#include "internal/sort_key.h"

#define PD_RECOMPUTE_MAX 32

/* Bottom levels on the ops not removed (removed ops are skipped, also as
 * children). Reverse topological order. */
static dp_status bottom_levels(pd_ctx *c, const uint8_t *removed, double *b)
{
	const dp_graph *g = c->g;
	for (uint32_t k = c->n; k-- > 0;) {
		uint32_t u = g->topo[k];
		if ((k & 0xffff) == 0 && dpi_pd_check_cancel(c))
			return DP_ECANCELED;
		if (removed[u])
			continue;
		double best = 0;
		for (uint32_t i = g->succ_off[u]; i < g->succ_off[u + 1]; i++) {
			uint32_t e = g->succ_edge[i], v = g->edges[e].to;
			if (removed[v])
				continue;
			double x = c->c[e] + b[v];
			if (x > best)
				best = x;
		}
		b[u] = c->w[u] + best;
	}
	return DP_OK;
}

/* The child of u (not removed) that continues u's heaviest path: largest
 * c(u,v) + b(v), ties by smaller topological position. PD_NONE if none. */
static uint32_t heaviest_child(const pd_ctx *c, uint32_t u,
			       const uint8_t *removed, const double *b,
			       const double *ec)
{
	const dp_graph *g = c->g;
	uint32_t best = PD_NONE;
	double bx = 0;
	for (uint32_t i = g->succ_off[u]; i < g->succ_off[u + 1]; i++) {
		uint32_t e = g->succ_edge[i], v = g->edges[e].to;
		if (removed[v])
			continue;
		double x = ec[e] + b[v];
		if (best == PD_NONE || x > bx ||
		    (x == bx && g->topo_pos[v] < g->topo_pos[best])) {
			best = v;
			bx = x;
		}
	}
	return best;
}

/* Appends a path starting at u to the path arrays, walking to the heaviest
 * child not yet removed; marks its ops removed. */
static void walk_path(pd_ctx *c, uint32_t u, uint8_t *removed, const double *b,
		      const double *ec, uint32_t *nout)
{
	uint32_t id = c->npaths;
	while (u != PD_NONE) {
		removed[u] = 1;
		c->path_of[u] = id;
		c->path_ops[(*nout)++] = u;
		u = heaviest_child(c, u, removed, b, ec);
	}
	c->path_off[++c->npaths] = *nout;
}

/* Device of an op that is already placed before mapping: a fixed op, or an
 * op of primary path i (device devorder[i]); -1 otherwise. */
static int32_t pre_device(const pd_ctx *c, uint32_t u)
{
	if (c->fix[u] >= 0)
		return c->fix[u];
	uint32_t p = c->path_of[u];
	return p < (uint32_t)c->k ? c->devorder[p] : -1;
}

/* Top and bottom levels of the whole graph where an edge between two ops
 * already on the same device (same primary, or fixed there) costs nothing;
 * stored in c->tlev and c->blev, edge costs in ec. */
static dp_status levels_for_secondaries(pd_ctx *c, double *ec)
{
	const dp_graph *g = c->g;
	for (uint32_t e = 0; e < g->nedges; e++) {
		int32_t a = pre_device(c, g->edges[e].from);
		int32_t b = pre_device(c, g->edges[e].to);
		ec[e] = a >= 0 && a == b ? 0.0 : c->c[e];
	}
	for (uint32_t k = 0; k < c->n; k++) {
		uint32_t u = g->topo[k];
		if ((k & 0xffff) == 0 && dpi_pd_check_cancel(c))
			return DP_ECANCELED;
		double t = 0;
		for (uint32_t i = g->pred_off[u]; i < g->pred_off[u + 1]; i++) {
			uint32_t e = g->pred_edge[i], p = g->edges[e].from;
			double x = c->tlev[p] + c->w[p] + ec[e];
			if (x > t)
				t = x;
		}
		c->tlev[u] = t;
	}
	for (uint32_t k = c->n; k-- > 0;) {
		uint32_t u = g->topo[k];
		double best = 0;
		for (uint32_t i = g->succ_off[u]; i < g->succ_off[u + 1]; i++) {
			uint32_t e = g->succ_edge[i], v = g->edges[e].to;
			double x = ec[e] + c->blev[v];
			if (x > best)
				best = x;
		}
		c->blev[u] = c->w[u] + best;
	}
	return DP_OK;
}

dp_status dpi_pd_slice(pd_ctx *c)
{
	const dp_graph *g = c->g;
	uint32_t n = c->n;
	dp_status st = DP_OK;
	uint8_t *removed = calloc((size_t)n + 1, 1);
	double *b = malloc(((size_t)n + 1) * sizeof *b);
	double *ec = malloc(((size_t)g->nedges + 1) * sizeof *ec);
	dpi_sort_key *keys = NULL;
	c->path_of = malloc(((size_t)n + 1) * sizeof *c->path_of);
	c->path_ops = malloc(((size_t)n + 1) * sizeof *c->path_ops);
	/* at most k primaries plus one path per free op */
	c->path_off =
		malloc(((size_t)n + (size_t)c->k + 1) * sizeof *c->path_off);
	c->tlev = malloc(((size_t)n + 1) * sizeof *c->tlev);
	c->blev = malloc(((size_t)n + 1) * sizeof *c->blev);
	if (!removed || !b || !ec || !c->path_of || !c->path_ops ||
	    !c->path_off || !c->tlev || !c->blev) {
		st = dp_err_set(c->err, DP_ENOMEM, NULL, 0, 0,
				"out of memory while slicing %u ops", n);
		goto out;
	}
	uint32_t nout = 0;
	c->npaths = 0;
	c->path_off[0] = 0;
	for (uint32_t u = 0; u < n; u++) {
		c->path_of[u] = PD_NONE;
		removed[u] = c->fix[u] >= 0;
	}

	/* primaries: the critical path of what is left, K times */
	for (int i = 0; i < c->k; i++) {
		if (i < PD_RECOMPUTE_MAX && (st = bottom_levels(c, removed, b)))
			goto out;
		uint32_t start = PD_NONE;
		for (uint32_t k = 0; k < n; k++) {
			uint32_t u = g->topo[k];
			if (!removed[u] &&
			    (start == PD_NONE || b[u] > b[start]))
				start = u;
		}
		if (start == PD_NONE) {
			c->path_off[++c->npaths] = nout; /* empty primary */
			continue;
		}
		walk_path(c, start, removed, b, c->c, &nout);
		dpi_pd_progress(c, "slicing", 0.0, 0.2, 0.7 * (i + 1) / c->k);
	}

	/* secondaries, in decreasing priority of their first op */
	if ((st = levels_for_secondaries(c, ec)))
		goto out;
	uint32_t nfree = 0;
	for (uint32_t u = 0; u < n; u++)
		nfree += !removed[u];
	keys = malloc(((size_t)nfree + 1) * sizeof *keys);
	if (!keys) {
		st = dp_err_set(c->err, DP_ENOMEM, NULL, 0, 0,
				"out of memory while slicing %u ops", n);
		goto out;
	}
	nfree = 0;
	for (uint32_t u = 0; u < n; u++)
		if (!removed[u])
			keys[nfree++] = (dpi_sort_key){c->tlev[u] + c->blev[u],
						       g->topo_pos[u], u};
	qsort(keys, nfree, sizeof *keys, dpi_sort_key_desc);
	for (uint32_t i = 0; i < nfree; i++) {
		if ((i & 0xffff) == 0 && (st = dpi_pd_check_cancel(c)))
			goto out;
		if (!removed[keys[i].op])
			walk_path(c, keys[i].op, removed, c->blev, ec, &nout);
	}
	dpi_pd_progress(c, "slicing", 0.0, 0.2, 1.0);
out:
	free(removed);
	free(b);
	free(ec);
	free(keys);
	return st;
}

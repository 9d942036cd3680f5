/* export_coarsen_edges.c - the edges of an export picture (coarsen.h):
 * graph edges merged between nodes, the critical path's hops flagged,
 * coarsened pictures thinned, and the estimate of dot's layout work. */
#include <stdlib.h>
#include <string.h>

#include "internal/arrays.h"
#include "internal/coarsen.h"
#include "internal/sort_key.h"

#define CANCEL_EVERY 65536u

DPI_CMP_DEFINE(cmp_cedge, dp_cedge, DPI_CMP(x->from, y->from),
	       DPI_CMP(x->to, y->to))

/* Keeps the critical path's edges and each node's largest input (most
 * bytes, then most edges merged, then the first in order); see coarsen.h. */
static dp_status thin_edges(dp_coarse *c)
{
	uint32_t *best = malloc(((size_t)c->n + 1) * sizeof *best);
	if (!best)
		return DP_ENOMEM;
	for (uint32_t i = 0; i < c->n; i++)
		best[i] = UINT32_MAX;
	for (uint32_t i = 0; i < c->nedges; i++) {
		const dp_cedge *e = &c->edges[i];
		if (e->nedges == 0)
			continue;
		uint32_t b = best[e->to];
		if (b == UINT32_MAX || e->bytes > c->edges[b].bytes ||
		    (e->bytes == c->edges[b].bytes &&
		     e->nedges > c->edges[b].nedges))
			best[e->to] = i;
	}
	uint32_t w = 0;
	for (uint32_t i = 0; i < c->nedges; i++)
		if (c->edges[i].hop || best[c->edges[i].to] == i)
			c->edges[w++] = c->edges[i];
	c->nedges = w;
	free(best);
	return DP_OK;
}

dp_status dpi_coarsen_edges(const dp_graph *g, const uint32_t *cp,
			    const uint8_t *cause, uint32_t cp_len,
			    const dp_progress *p, dp_coarse *c)
{
	size_t cap = (size_t)g->nedges + cp_len + 1;
	dp_cedge *e = malloc(cap * sizeof *e);
	if (!e)
		return DP_ENOMEM;
	size_t ne = 0;
	for (uint32_t i = 0; i < g->nedges; i++) {
		if ((i & (CANCEL_EVERY - 1)) == 0 && dp_progress_canceled(p)) {
			free(e);
			return DP_ECANCELED;
		}
		const dp_edge *ge = &g->edges[i];
		uint32_t a = c->of[ge->from], b = c->of[ge->to];
		if (a == b)
			continue;
		e[ne++] = (dp_cedge){
			a, b, ge->control ? 0 : ge->bytes, 1, ge->control, 0};
	}
	for (uint32_t i = 1; i < cp_len; i++) {
		uint32_t a = c->of[cp[i - 1]], b = c->of[cp[i]];
		if (a != b)
			e[ne++] = (dp_cedge){a, b, 0, 0, true, cause[i]};
	}
	qsort(e, ne, sizeof *e, cmp_cedge);
	size_t w = 0;
	for (size_t i = 0; i < ne; i++) {
		if (w > 0 && e[w - 1].from == e[i].from &&
		    e[w - 1].to == e[i].to) {
			dp_cedge *m = &e[w - 1];
			if (e[i].nedges) {
				m->control =
					m->nedges ? m->control && e[i].control
						  : e[i].control;
				m->nedges += e[i].nedges;
				m->bytes += e[i].bytes;
			}
			if (e[i].hop > m->hop)
				m->hop = e[i].hop;
		} else {
			e[w++] = e[i];
		}
	}
	c->edges = e;
	c->nedges = (uint32_t)w;
	c->edges_all = (uint32_t)w;
	if (c->method != DP_COARSE_NONE)
		return thin_edges(c);
	return DP_OK;
}

uint64_t dpi_coarsen_layout_cost(const dp_coarse *c)
{
	/* longest-path layering in a topological order of the picture (Kahn;
	 * a cycle is broken at its smallest node), as dot's ranking roughly
	 * does; edges are sorted by from, so off[] indexes them */
	uint32_t n = c->n;
	uint32_t *depth = calloc((size_t)n + 1, sizeof *depth);
	uint32_t *indeg = calloc((size_t)n + 1, sizeof *indeg);
	uint32_t *off = calloc((size_t)n + 2, sizeof *off);
	uint32_t *queue = malloc(((size_t)n + 1) * sizeof *queue);
	uint8_t *done = calloc((size_t)n + 1, 1);
	uint64_t cost = UINT64_MAX;
	if (!depth || !indeg || !off || !queue || !done)
		goto out;
	for (uint32_t i = 0; i < c->nedges; i++) {
		off[c->edges[i].from + 1]++;
		indeg[c->edges[i].to]++;
	}
	for (uint32_t v = 0; v < n; v++)
		off[v + 1] += off[v];
	uint32_t head = 0, tail = 0, next_free = 0;
	for (uint32_t v = 0; v < n; v++)
		if (indeg[v] == 0)
			queue[tail++] = v;
	for (uint32_t seen = 0; seen < n; seen++) {
		if (head == tail) { /* a cycle: start at its smallest node */
			while (done[next_free] || indeg[next_free] == 0)
				next_free++;
			queue[tail++] = next_free;
			indeg[next_free] = 0;
		}
		uint32_t v = queue[head++];
		done[v] = 1;
		for (uint32_t i = off[v]; i < off[v + 1]; i++) {
			uint32_t w = c->edges[i].to;
			if (done[w])
				continue;
			if (depth[w] < depth[v] + 1)
				depth[w] = depth[v] + 1;
			if (--indeg[w] == 0)
				queue[tail++] = w;
		}
	}
	cost = 0;
	for (uint32_t i = 0; i < c->nedges; i++) {
		uint32_t a = depth[c->edges[i].from], b = depth[c->edges[i].to];
		uint32_t span = a > b ? a - b : b - a;
		cost += span > 1 ? span - 1 : 0;
	}
out:
	DPI_FREE_ALL(depth, indeg, off, queue, done);
	return cost;
}

/* algo_mincut_coarsen.c - mincut's level-0 graph and its coarsening (see
 * internal/mincut.h).
 *
 * Level 0: a vertex per free op (not pinned) or per unpinned colocation
 * group, placed in the order of the earliest topological position of its
 * ops. An edge that goes forward in that order is an edge of the DAG; one
 * that goes back is a soft edge. Only a group makes such an edge: with a
 * and c grouped, a -> b -> c is a cycle (in a training graph, a variable
 * and its update op close a cycle through the whole step), so merging
 * cycles would merge everything; a soft edge is priced in the cut but
 * does not order the parts. Edges to pinned ops become terminals of the
 * free vertex.
 *
 * Coarsening contracts a matching of edges, heaviest first (Herrmann et
 * al., SISC 2019, Sec. 4: acyclic matching). An edge u -> v is contracted
 * only when u has no other successor or v has no other predecessor. Then
 * every edge into the pair reaches every edge out of it through the pair,
 * so a cycle of the coarse graph would be a cycle of the finer one: any set
 * of such pairs contracted at once keeps the graph acyclic (this is our
 * simple sufficient condition; Herrmann et al. use top levels). A pair is
 * also refused when its time would exceed c->maxw, so that the initial
 * split can balance. Coarsening stops at 30 K vertices or when a level
 * shrinks by less than 5 %.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "internal/algo_int.h"
#include "internal/arrays.h"
#include "internal/mincut.h"
#include "internal/sort_key.h"

void dpi_mc_level_free(mc_level *lv)
{
	DPI_FREE_ALL(lv->out_off, lv->out_dst, lv->out_w, lv->in_off,
		     lv->in_src, lv->in_w, lv->time, lv->mem, lv->t_off,
		     lv->t_dev, lv->t_w, lv->s_off, lv->s_nb, lv->s_w,
		     lv->cmap);
	memset(lv, 0, sizeof *lv);
}

/* CSR of ne (s, d, w) triples over nv sources, destinations < nd, parallel
 * triples merged (weights added); order: by source, then first appearance.
 * Returns -1 when out of memory. */
static int csr_merge(uint32_t nv, uint32_t ne, const uint32_t *s,
		     const uint32_t *d, const double *w, uint32_t nd,
		     uint32_t **off_out, uint32_t **dst_out, double **w_out)
{
	uint32_t *off = calloc((size_t)nv + 2, sizeof *off);
	uint32_t *td = malloc(((size_t)ne + 1) * sizeof *td);
	double *tw = malloc(((size_t)ne + 1) * sizeof *tw);
	uint32_t *seen = malloc(((size_t)nd + 1) * sizeof *seen);
	uint32_t *noff = malloc(((size_t)nv + 1) * sizeof *noff);
	if (!off || !td || !tw || !seen || !noff)
		goto fail;
	for (uint32_t i = 0; i < ne; i++)
		off[s[i] + 2]++;
	for (uint32_t a = 0; a < nv; a++)
		off[a + 2] += off[a + 1];
	for (uint32_t i = 0; i < ne; i++) {
		uint32_t at = off[s[i] + 1]++;
		td[at] = d[i];
		tw[at] = w[i];
	}
	for (uint32_t b = 0; b < nd; b++)
		seen[b] = MC_NONE;
	uint32_t m = 0;
	for (uint32_t a = 0; a < nv; a++) {
		noff[a] = m;
		for (uint32_t i = off[a]; i < off[a + 1]; i++) {
			uint32_t b = td[i];
			if (seen[b] != MC_NONE && seen[b] >= noff[a]) {
				tw[seen[b]] += tw[i];
				continue;
			}
			seen[b] = m;
			td[m] = b;
			tw[m++] = tw[i];
		}
	}
	noff[nv] = m;
	free(off);
	free(seen);
	*off_out = noff;
	*dst_out = td;
	*w_out = tw;
	return 0;
fail:
	DPI_FREE_ALL(off, td, tw, seen, noff);
	return -1;
}

/* Triples (source, destination, weight) of one kind of edge. */
typedef struct triples {
	uint32_t n;
	uint32_t *s, *d;
	double *w;
} triples;

static int triples_alloc(triples *t, size_t cap)
{
	t->n = 0;
	t->s = malloc((cap + 1) * sizeof *t->s);
	t->d = malloc((cap + 1) * sizeof *t->d);
	t->w = malloc((cap + 1) * sizeof *t->w);
	return t->s && t->d && t->w ? 0 : -1;
}

static void triples_free(triples *t)
{
	free(t->s);
	free(t->d);
	free(t->w);
}

static void triples_add(triples *t, uint32_t s, uint32_t d, double w)
{
	t->s[t->n] = s;
	t->d[t->n] = d;
	t->w[t->n++] = w;
}

/* Fills lv's edges (out and in), terminals and soft edges (each given
 * both ways) from triples. */
static int level_edges(mc_level *lv, const triples *e, const triples *t,
		       const triples *soft, int k)
{
	uint32_t nv = lv->nv;
	if (csr_merge(nv, e->n, e->s, e->d, e->w, nv, &lv->out_off,
		      &lv->out_dst, &lv->out_w) ||
	    csr_merge(nv, t->n, t->s, t->d, t->w, (uint32_t)k, &lv->t_off,
		      &lv->t_dev, &lv->t_w) ||
	    csr_merge(nv, soft->n, soft->s, soft->d, soft->w, nv, &lv->s_off,
		      &lv->s_nb, &lv->s_w))
		return -1;
	uint32_t m = lv->out_off[nv];
	lv->in_off = calloc((size_t)nv + 2, sizeof *lv->in_off);
	lv->in_src = malloc(((size_t)m + 1) * sizeof *lv->in_src);
	lv->in_w = malloc(((size_t)m + 1) * sizeof *lv->in_w);
	if (!lv->in_off || !lv->in_src || !lv->in_w)
		return -1;
	for (uint32_t i = 0; i < m; i++)
		lv->in_off[lv->out_dst[i] + 2]++;
	for (uint32_t a = 0; a < nv; a++)
		lv->in_off[a + 2] += lv->in_off[a + 1];
	for (uint32_t a = 0; a < nv; a++)
		for (uint32_t i = lv->out_off[a]; i < lv->out_off[a + 1]; i++) {
			uint32_t at = lv->in_off[lv->out_dst[i] + 1]++;
			lv->in_src[at] = a;
			lv->in_w[at] = lv->out_w[i];
		}
	return 0;
}

/* A level's edges, terminals and soft edges mapped through map (a vertex
 * -> new vertex), self-loops dropped, into a new level of nv vertices. */
static int level_mapped(const mc_level *from, const uint32_t *map, uint32_t nv,
			int k, mc_level *to)
{
	uint32_t n = from->nv;
	triples e, t, soft;
	int rc = -1;
	memset(to, 0, sizeof *to);
	to->nv = nv;
	to->time = calloc((size_t)nv + 1, sizeof *to->time);
	to->mem = calloc((size_t)nv + 1, sizeof *to->mem);
	if (triples_alloc(&e, from->out_off[n]) |
		    triples_alloc(&t, from->t_off[n]) |
		    triples_alloc(&soft, from->s_off[n]) ||
	    !to->time || !to->mem)
		goto out;
	for (uint32_t a = 0; a < n; a++) {
		uint32_t ma = map[a];
		to->time[ma] += from->time[a];
		to->mem[ma] += from->mem[a];
		for (uint32_t i = from->out_off[a]; i < from->out_off[a + 1];
		     i++)
			if (ma != map[from->out_dst[i]])
				triples_add(&e, ma, map[from->out_dst[i]],
					    from->out_w[i]);
		for (uint32_t i = from->t_off[a]; i < from->t_off[a + 1]; i++)
			triples_add(&t, ma, from->t_dev[i], from->t_w[i]);
		for (uint32_t i = from->s_off[a]; i < from->s_off[a + 1]; i++)
			if (ma != map[from->s_nb[i]])
				triples_add(&soft, ma, map[from->s_nb[i]],
					    from->s_w[i]);
	}
	rc = level_edges(to, &e, &t, &soft, k);
out:
	triples_free(&e);
	triples_free(&t);
	triples_free(&soft);
	return rc;
}

/* Units: c->unit per op, level 0's vertices with their time and bytes,
 * the fixed loads of pinned ops; upos: each unit's earliest position. */
static int make_units(mc_ctx *c, mc_level *lv, uint32_t *upos)
{
	const dp_graph *g = c->g;
	uint32_t n = g->nops, nv = 0;
	uint32_t *gunit = malloc(((size_t)g->ngroups + 1) * sizeof *gunit);
	if (!gunit)
		return -1;
	for (uint32_t grp = 0; grp < g->ngroups; grp++)
		gunit[grp] = MC_NONE;
	for (uint32_t u = 0; u < n; u++) {
		int32_t grp = g->ops[u].colocate;
		if (c->cons.forced[u] >= 0)
			c->unit[u] = MC_NONE;
		else if (grp < 0)
			c->unit[u] = nv++;
		else if (gunit[grp] != MC_NONE)
			c->unit[u] = gunit[grp];
		else
			c->unit[u] = gunit[grp] = nv++;
	}
	free(gunit);
	lv->nv = nv;
	lv->time = calloc((size_t)nv + 1, sizeof *lv->time);
	lv->mem = calloc((size_t)nv + 1, sizeof *lv->mem);
	if (!lv->time || !lv->mem)
		return -1;
	for (uint32_t v = 0; v < nv; v++)
		upos[v] = MC_NONE;
	for (uint32_t u = 0; u < n; u++) {
		const dp_op *op = &g->ops[u];
		double bytes = (double)op->param_bytes +
			       (double)op->output_bytes +
			       (double)op->temp_bytes;
		uint32_t v = c->unit[u];
		if (v == MC_NONE) {
			c->fixed_t[c->cons.forced[u]] += op->time_us;
			c->fixed_m[c->cons.forced[u]] += bytes;
			continue;
		}
		lv->time[v] += op->time_us;
		lv->mem[v] += bytes;
		if (g->topo_pos[u] < upos[v])
			upos[v] = g->topo_pos[u];
	}
	return 0;
}

dp_status dpi_mc_build(mc_ctx *c)
{
	const dp_graph *g = c->g;
	const dp_machine *m = c->m;
	mc_level *lv = &c->lv[0];
	triples e, t, soft;
	int rc = -1;
	uint32_t *upos = malloc(((size_t)g->nops + 1) * sizeof *upos);
	memset(lv, 0, sizeof *lv);
	if (triples_alloc(&e, g->nedges) | triples_alloc(&t, g->nedges) |
		    triples_alloc(&soft, 2 * (size_t)g->nedges) ||
	    !upos)
		goto out;
	if (make_units(c, lv, upos))
		goto out;
	c->total_w = 0;
	for (uint32_t i = 0; i < g->nedges; i++) {
		const dp_edge *ed = &g->edges[i];
		uint32_t a = c->unit[ed->from], b = c->unit[ed->to];
		double cost = m->lat +
			      (ed->control ? 0.0 : (double)ed->bytes / m->bw);
		if (a == b)
			continue;
		if (a == MC_NONE || b == MC_NONE) {
			triples_add(&t, a != MC_NONE ? a : b,
				    (uint32_t)c->cons
					    .forced[a != MC_NONE ? ed->to
								 : ed->from],
				    cost);
		} else if (upos[a] < upos[b]) {
			triples_add(&e, a, b, cost);
		} else {
			triples_add(&soft, a, b, cost);
			triples_add(&soft, b, a, cost);
		}
		c->total_w += cost;
	}
	rc = level_edges(lv, &e, &t, &soft, c->k);
out:
	triples_free(&e);
	triples_free(&t);
	triples_free(&soft);
	free(upos);
	if (rc) {
		dpi_mc_level_free(lv);
		return dpi_mc_nomem(c);
	}
	c->nlv = 1;
	return DP_OK;
}

/* One level coarser: returns 1 when made, 0 when the matching stalls, -1
 * when out of memory. */
static int coarsen_once(mc_ctx *c)
{
	mc_level *lv = &c->lv[c->nlv - 1];
	uint32_t nv = lv->nv, m = lv->out_off[nv];
	dpi_sort_key *es = malloc(((size_t)m + 1) * sizeof *es);
	uint32_t *match = malloc(((size_t)nv + 1) * sizeof *match);
	uint32_t *cmap = malloc(((size_t)nv + 1) * sizeof *cmap);
	int rc = -1;
	if (!es || !match || !cmap)
		goto out;
	for (uint32_t a = 0; a < nv; a++) {
		match[a] = MC_NONE;
		for (uint32_t i = lv->out_off[a]; i < lv->out_off[a + 1]; i++)
			es[i] = (dpi_sort_key){lv->out_w[i], a, lv->out_dst[i]};
	}
	/* heavier edges first, ties by (source, target) */
	qsort(es, m, sizeof *es, dpi_sort_key_desc);
	for (uint32_t i = 0; i < m; i++) {
		uint32_t s = es[i].tie, d = es[i].op;
		if (match[s] != MC_NONE || match[d] != MC_NONE)
			continue;
		bool only_succ = lv->out_off[s + 1] - lv->out_off[s] == 1;
		bool only_pred = lv->in_off[d + 1] - lv->in_off[d] == 1;
		if (!only_succ && !only_pred)
			continue;
		if (lv->time[s] + lv->time[d] > c->maxw)
			continue;
		match[s] = d;
		match[d] = s;
	}
	for (uint32_t v = 0; v < nv; v++)
		cmap[v] = MC_NONE;
	uint32_t ncv = 0;
	for (uint32_t v = 0; v < nv; v++) {
		if (cmap[v] != MC_NONE)
			continue;
		cmap[v] = ncv;
		if (match[v] != MC_NONE)
			cmap[match[v]] = ncv;
		ncv++;
	}
	if ((double)ncv > 0.95 * (double)nv) {
		rc = 0;
		goto out;
	}
	if (level_mapped(lv, cmap, ncv, c->k, &c->lv[c->nlv])) {
		dpi_mc_level_free(&c->lv[c->nlv]);
		goto out;
	}
	lv->cmap = cmap;
	cmap = NULL;
	c->nlv++;
	rc = 1;
out:
	free(es);
	free(match);
	free(cmap);
	return rc;
}

dp_status dpi_mc_coarsen(mc_ctx *c)
{
	uint32_t target = 30u * (uint32_t)c->k;
	if (target < 64)
		target = 64;
	while (c->nlv < MC_MAX_LEVELS && c->lv[c->nlv - 1].nv > target) {
		dp_status st = dpi_mc_poll(c, 0.05 + 0.01 * c->nlv);
		if (st)
			return st;
		int rc = coarsen_once(c);
		if (rc < 0)
			return dpi_mc_nomem(c);
		if (rc == 0)
			break;
	}
	return DP_OK;
}

/* msrdp_units.c - msr-dp's units: colocation groups, backward ops with
 * their forward ops, cycles merged, numbered in a topological order (see
 * internal/msrdp.h). */
#include <stdlib.h>
#include <string.h>

#include "dnnpart/throughput.h"
#include "internal/arrays.h"
#include "internal/minheap.h"
#include "internal/msrdp.h"
#include "internal/nomem.h"

#define NONE UINT32_MAX

static uint32_t uf_find(uint32_t *par, uint32_t x)
{
	while (par[x] != x) {
		par[x] = par[par[x]];
		x = par[x];
	}
	return x;
}

static bool backward_side(const dp_graph *g, uint32_t op)
{
	dp_role r = dp_op_role(g, op);
	return r == DP_ROLE_BACKWARD || r == DP_ROLE_GRAD ||
	       r == DP_ROLE_UPDATE;
}

/* CSR of n nodes from (from, to) pairs, deduplicated, each list sorted. */
static dp_status csr_build(uint32_t n, const uint32_t *from, const uint32_t *to,
			   uint32_t ne, uint32_t **off_out, uint32_t **adj_out)
{
	uint32_t *off = calloc((size_t)n + 2, sizeof *off);
	uint32_t *adj = malloc(((size_t)ne + 1) * sizeof *adj);
	uint32_t *fill = malloc(((size_t)n + 1) * sizeof *fill);
	if (!off || !adj || !fill) {
		free(off);
		free(adj);
		free(fill);
		return DP_ENOMEM;
	}
	for (uint32_t i = 0; i < ne; i++)
		off[from[i] + 1]++;
	for (uint32_t a = 0; a < n; a++)
		off[a + 1] += off[a];
	memcpy(fill, off, (size_t)n * sizeof *fill);
	for (uint32_t i = 0; i < ne; i++)
		adj[fill[from[i]]++] = to[i];
	/* sort each list (insertion sort: lists are short) and drop repeats */
	uint32_t w = 0;
	for (uint32_t a = 0; a < n; a++) {
		uint32_t lo = off[a], hi = off[a + 1];
		for (uint32_t i = lo + 1; i < hi; i++) {
			uint32_t v = adj[i], j = i;
			while (j > lo && adj[j - 1] > v) {
				adj[j] = adj[j - 1];
				j--;
			}
			adj[j] = v;
		}
		off[a] = w;
		for (uint32_t i = lo; i < hi; i++)
			if (i == lo || adj[i] != adj[i - 1])
				adj[w++] = adj[i];
	}
	off[n] = w;
	free(fill);
	*off_out = off;
	*adj_out = adj;
	return DP_OK;
}

/* Tarjan's strongly connected components, iteratively, over the n nodes of
 * the CSR (off, adj); comp[v] gets its component, *ncomp their count. */
static dp_status scc(uint32_t n, const uint32_t *off, const uint32_t *adj,
		     uint32_t *comp, uint32_t *ncomp)
{
	uint32_t *idx = malloc(((size_t)n + 1) * sizeof *idx);
	uint32_t *low = malloc(((size_t)n + 1) * sizeof *low);
	uint32_t *stk = malloc(((size_t)n + 1) * sizeof *stk);
	uint32_t *cs = malloc(((size_t)n + 1) * sizeof *cs); /* call stack */
	uint32_t *it = malloc(((size_t)n + 1) * sizeof *it);
	uint8_t *on = calloc((size_t)n + 1, 1);
	if (!idx || !low || !stk || !cs || !it || !on) {
		DPI_FREE_ALL(idx, low, stk, cs, it, on);
		return DP_ENOMEM;
	}
	for (uint32_t v = 0; v < n; v++)
		idx[v] = NONE;
	uint32_t next = 0, sp = 0, nc = 0;
	for (uint32_t s = 0; s < n; s++) {
		if (idx[s] != NONE)
			continue;
		uint32_t depth = 0;
		cs[depth++] = s;
		idx[s] = low[s] = next++;
		it[s] = off[s];
		stk[sp++] = s;
		on[s] = 1;
		while (depth) {
			uint32_t v = cs[depth - 1];
			if (it[v] < off[v + 1]) {
				uint32_t w = adj[it[v]++];
				if (idx[w] == NONE) {
					idx[w] = low[w] = next++;
					it[w] = off[w];
					stk[sp++] = w;
					on[w] = 1;
					cs[depth++] = w;
				} else if (on[w] && idx[w] < low[v]) {
					low[v] = idx[w];
				}
				continue;
			}
			if (low[v] == idx[v]) {
				uint32_t w;
				do {
					w = stk[--sp];
					on[w] = 0;
					comp[w] = nc;
				} while (w != v);
				nc++;
			}
			depth--;
			if (depth) {
				uint32_t p = cs[depth - 1];
				if (low[v] < low[p])
					low[p] = low[v];
			}
		}
	}
	*ncomp = nc;
	DPI_FREE_ALL(idx, low, stk, cs, it, on);
	return DP_OK;
}

/* The DAG edges between union-find roots (see internal/msrdp.h): forward
 * edges as they are, backward edges mirrored where either end has no
 * forward op. */
static uint32_t root_edges(const dp_graph *g, uint32_t *par,
			   const uint8_t *fwd_root, uint32_t *from,
			   uint32_t *to)
{
	uint32_t ne = 0;
	for (uint32_t e = 0; e < g->nedges; e++) {
		uint32_t x = g->edges[e].from, y = g->edges[e].to;
		uint32_t rx = uf_find(par, x), ry = uf_find(par, y);
		if (rx == ry)
			continue;
		bool bx = backward_side(g, x), by = backward_side(g, y);
		if (!bx && !by) {
			from[ne] = rx;
			to[ne++] = ry;
		} else if (bx && by && (!fwd_root[rx] || !fwd_root[ry])) {
			from[ne] = ry;
			to[ne++] = rx;
		}
	}
	return ne;
}

/* Numbers the components in a topological order of the condensation, the
 * ready one holding the op earliest in g->topo first. */
static dp_status order_units(const dp_graph *g, const uint32_t *comp_of_op,
			     uint32_t nc, const uint32_t *ef,
			     const uint32_t *et, uint32_t ne, uint32_t *rank)
{
	uint32_t n = g->nops;
	uint32_t *key = malloc(((size_t)nc + 1) * sizeof *key);
	uint32_t *by_key = malloc(((size_t)n + 1) * sizeof *by_key);
	uint32_t *indeg = calloc((size_t)nc + 1, sizeof *indeg);
	uint32_t *heap = malloc(((size_t)nc + 1) * sizeof *heap);
	uint32_t *off = NULL, *adj = NULL;
	dp_status st = DP_OK;
	if (!key || !by_key || !indeg || !heap ||
	    csr_build(nc, ef, et, ne, &off, &adj)) {
		st = DP_ENOMEM;
		goto done;
	}
	for (uint32_t c = 0; c < nc; c++)
		key[c] = NONE;
	for (uint32_t v = 0; v < n; v++) {
		uint32_t c = comp_of_op[v], p = g->topo_pos[v];
		if (p < key[c])
			key[c] = p;
	}
	for (uint32_t c = 0; c < nc; c++) {
		by_key[key[c]] = c;
		for (uint32_t i = off[c]; i < off[c + 1]; i++)
			indeg[adj[i]]++;
	}
	uint32_t hn = 0, next = 0;
	for (uint32_t c = 0; c < nc; c++)
		if (!indeg[c])
			dpi_u32heap_push(heap, &hn, key[c]);
	while (hn) {
		uint32_t c = by_key[dpi_u32heap_pop(heap, &hn)];
		rank[c] = next++;
		for (uint32_t i = off[c]; i < off[c + 1]; i++)
			if (--indeg[adj[i]] == 0)
				dpi_u32heap_push(heap, &hn, key[adj[i]]);
	}
	if (next != nc)
		st = DP_EINTERNAL; /* the condensation has a cycle: a bug */
done:
	DPI_FREE_ALL(key, by_key, indeg, heap, off, adj);
	return st;
}

/* Per-unit sums, pins, op lists, predecessor and neighbour lists. */
static dp_status unit_tables(const dp_graph *g, msr_units *u,
			     const uint32_t *ef, const uint32_t *et,
			     uint32_t ne, uint32_t *scratch_a,
			     uint32_t *scratch_b)
{
	uint32_t n = g->nops, nu = u->nu;
	const dpi_arr arrs[] = {
		DPI_ARR0(u->uop_off, (size_t)nu + 2),
		DPI_ARR(u->uop, (size_t)n + 1),
		DPI_ARR0(u->utime, (size_t)nu + 1),
		DPI_ARR0(u->umem, (size_t)nu + 1),
		DPI_ARR(u->upin, (size_t)nu + 1),
		DPI_ARR(u->pinned, (size_t)nu + 1),
	};
	if (dpi_arrays_alloc(arrs, DPI_NARR(arrs)))
		return DP_ENOMEM;
	for (uint32_t a = 0; a < nu; a++)
		u->upin[a] = -1;
	for (uint32_t v = 0; v < n; v++) {
		uint32_t a = u->unit[v];
		const dp_op *op = &g->ops[v];
		u->uop_off[a + 1]++;
		u->utime[a] += op->time_us;
		u->umem[a] += (double)op->param_bytes +
			      (double)op->output_bytes + (double)op->temp_bytes;
		if (op->pin >= 0) {
			if (u->upin[a] >= 0 && u->upin[a] != op->pin)
				u->pin_conflict = true;
			else
				u->upin[a] = op->pin;
		}
	}
	for (uint32_t a = 0; a < nu; a++)
		u->uop_off[a + 1] += u->uop_off[a];
	memcpy(scratch_a, u->uop_off, (size_t)nu * sizeof *scratch_a);
	for (uint32_t v = 0; v < n; v++)
		u->uop[scratch_a[u->unit[v]]++] = v;
	for (uint32_t a = 0; a < nu; a++)
		if (u->upin[a] >= 0)
			u->pinned[u->npinned++] = a;
	/* predecessors: the root edges mapped to units, reversed */
	uint32_t m = 0;
	for (uint32_t i = 0; i < ne; i++) {
		uint32_t a = u->unit[ef[i]], b = u->unit[et[i]];
		if (a == b)
			continue;
		scratch_a[m] = b;
		scratch_b[m++] = a;
	}
	if (csr_build(nu, scratch_a, scratch_b, m, &u->upred_off, &u->upred))
		return DP_ENOMEM;
	/* data neighbours, both directions */
	m = 0;
	for (uint32_t e = 0; e < g->nedges; e++) {
		const dp_edge *ed = &g->edges[e];
		uint32_t a = u->unit[ed->from], b = u->unit[ed->to];
		if (ed->control || a == b)
			continue;
		scratch_a[m] = a;
		scratch_b[m++] = b;
		scratch_a[m] = b;
		scratch_b[m++] = a;
	}
	if (csr_build(nu, scratch_a, scratch_b, m, &u->unb_off, &u->unb))
		return DP_ENOMEM;
	return DP_OK;
}

dp_status dpi_msr_units_build(const dp_graph *g, const dp_machine *m,
			      msr_units *u, dp_err *err)
{
	memset(u, 0, sizeof *u);
	uint32_t n = g->nops;
	size_t cap = 2 * (size_t)g->nedges + (size_t)n + 1;
	uint32_t *par = malloc(((size_t)n + 1) * sizeof *par);
	uint8_t *fwd_root = calloc((size_t)n + 1, 1);
	uint32_t *ef = malloc(cap * sizeof *ef);
	uint32_t *et = malloc(cap * sizeof *et);
	uint32_t *comp = malloc(((size_t)n + 1) * sizeof *comp);
	uint32_t *rank = malloc(((size_t)n + 1) * sizeof *rank);
	uint32_t *off = NULL, *adj = NULL;
	u->unit = malloc(((size_t)n + 1) * sizeof *u->unit);
	u->xfer = malloc(((size_t)n + 1) * sizeof *u->xfer);
	dp_status st = DP_OK;
	if (!par || !fwd_root || !ef || !et || !comp || !rank || !u->unit ||
	    !u->xfer) {
		st = DP_ENOMEM;
		goto done;
	}
	for (uint32_t v = 0; v < n; v++)
		par[v] = v;
	for (uint32_t c = 0; c < g->ngroups; c++)
		for (uint32_t i = g->group_off[c] + 1; i < g->group_off[c + 1];
		     i++) {
			uint32_t a =
				uf_find(par, g->group_ops[g->group_off[c]]);
			uint32_t b = uf_find(par, g->group_ops[i]);
			if (a != b)
				par[b] = a;
		}
	for (uint32_t v = 0; v < n; v++)
		if (!backward_side(g, v))
			fwd_root[uf_find(par, v)] = 1;
	uint32_t ne = root_edges(g, par, fwd_root, ef, et);
	/* components over ops (non-roots have no edges and join their root
	 * below) */
	if ((st = csr_build(n, ef, et, ne, &off, &adj)) ||
	    (st = scc(n, off, adj, comp, &u->nu)))
		goto done;
	for (uint32_t v = 0; v < n; v++)
		comp[v] = comp[uf_find(par, v)];
	/* renumber components densely: only roots' components are used */
	uint32_t *dense = rank; /* reuse as scratch, then as the rank */
	for (uint32_t c = 0; c < u->nu; c++)
		dense[c] = NONE;
	uint32_t nc = 0;
	for (uint32_t v = 0; v < n; v++)
		if (dense[comp[v]] == NONE)
			dense[comp[v]] = nc++;
	for (uint32_t v = 0; v < n; v++)
		comp[v] = dense[comp[v]];
	u->nu = nc;
	for (uint32_t i = 0; i < ne; i++) {
		ef[i] = comp[ef[i]];
		et[i] = comp[et[i]];
	}
	uint32_t w = 0;
	for (uint32_t i = 0; i < ne; i++)
		if (ef[i] != et[i]) {
			ef[w] = ef[i];
			et[w++] = et[i];
		}
	ne = w;
	if ((st = order_units(g, comp, nc, ef, et, ne, rank)))
		goto done;
	for (uint32_t v = 0; v < n; v++)
		u->unit[v] = rank[comp[v]];
	/* the root edges again, as op pairs for unit_tables */
	ne = root_edges(g, par, fwd_root, ef, et);
	{
		uint32_t *sa = malloc(cap * sizeof *sa);
		uint32_t *sb = malloc(cap * sizeof *sb);
		st = sa && sb ? unit_tables(g, u, ef, et, ne, sa, sb)
			      : DP_ENOMEM;
		free(sa);
		free(sb);
	}
	for (uint32_t v = 0; !st && v < n; v++)
		u->xfer[v] = dp_op_xfer_us(g, m, v);
done:
	DPI_FREE_ALL(par, fwd_root, ef, et, comp, rank, off, adj);
	if (st) {
		dpi_msr_units_free(u);
		if (st == DP_ENOMEM)
			return dpi_nomem(err, "computing msr-dp's units");
		return dp_err_set(err, st, NULL, 0, 0,
				  "msr-dp: the units do not form a DAG");
	}
	return DP_OK;
}

void dpi_msr_units_free(msr_units *u)
{
	DPI_FREE_ALL(u->unit, u->uop_off, u->uop, u->utime, u->umem, u->upin,
		     u->upred_off, u->upred, u->unb_off, u->unb, u->xfer,
		     u->pinned);
	memset(u, 0, sizeof *u);
}

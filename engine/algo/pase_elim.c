/* pase_elim.c - the `pase` search by vertex elimination in the paper's
 * greedy min-degree order (Elango, IPDPS 2021, section IV; the authors'
 * scheduler.py, SortNodes and ProcessVertex). internal/pase.h.
 *
 * Each op is a variable over its configurations; each op's compute time
 * is a unary cost and each data edge a cost over its two ends (ops with
 * one configuration are constants: their edges fold into the other end).
 * The vertex to process next is the one whose table would be smallest:
 * the product of the configurations of its unprocessed neighbours, fill-in
 * included (the paper counts the neighbours; ours weighs them by their
 * configurations, ties by count, then op id). Processing v joins every
 * table that holds v with v's own costs, indexed by v's neighbours (its
 * dependent set), and minimises v out, remembering the argmin; the
 * neighbours then become neighbours of each other. A backward pass in
 * reverse order reads every choice. Exact within the model.
 *
 * A transformer's training graph is a ladder (the forward chain, the
 * backward chain, and an edge from each forward activation to the
 * backward op that reads it), whose dependent sets stay a few vertices
 * wide in this order, where a breadth-first order keeps every pending
 * activation (hundreds). When the next table would pass the bound anyway,
 * this gives up and the caller runs the windowed breadth-first search.
 */
#include <stdlib.h>
#include <string.h>

#include "internal/algo_int.h"
#include "internal/grow.h"
#include "internal/minheap.h"
#include "internal/pase.h"

/* Most neighbours of a vertex processed (a guard beside the bound). */
#define MAXS 24
#define CFGS DPI_PASE_MAX_CFGS
#define ELIM_TABLE ((uint64_t)1 << 12)
#define ELIM_BUDGET ((uint64_t)1 << 24)

typedef struct vec {
	uint32_t *a;
	uint32_t n, cap;
} vec;

typedef struct factor {
	uint32_t soff; /* scope in spool[soff .. soff+n), ascending ids */
	uint32_t voff; /* values in vpool, the first variable fastest */
	uint8_t n;
	uint8_t dead;
} factor;

typedef struct estep {
	uint32_t v;
	uint32_t soff; /* its dependent set in spool */
	uint32_t aoff; /* argmins in apool */
	uint8_t n;
} estep;

typedef struct hent {
	uint64_t size;
	uint32_t deg, v;
} hent;

static int hent_less(const hent *a, const hent *b)
{
	if (a->size != b->size)
		return a->size < b->size;
	if (a->deg != b->deg)
		return a->deg < b->deg;
	return a->v < b->v;
}

DPI_HEAP_DEFINE(eheap, hent, hent_less)

typedef struct elim {
	const dpi_pase_model *pm;
	uint32_t n;
	uint32_t *dom;
	double *un; /* n x CFGS unary costs */
	vec *adj;   /* unprocessed neighbours, ascending */
	vec *inc;   /* factors holding each vertex */
	factor *f;
	uint32_t nf, capf;
	uint32_t *spool;
	uint32_t nspool, capspool;
	double *vpool;
	uint32_t nvpool, capvpool;
	uint8_t *apool;
	uint32_t napool, capapool;
	estep *steps;
	uint32_t nsteps, capsteps;
	hent *heap;
	uint32_t nheap, capheap;
	uint64_t *key; /* current table size per vertex */
	uint8_t *done;
	double base;	/* costs of constants alone */
	uint32_t *lead; /* per op: its group's leader (pase_coarsen.c) */
	uint8_t *map;	/* per op x leader config: its local config */
	uint32_t merged;
	bool coarsen;
} elim;

/* Op u's local config when its leader has config c. */
#define CFG(E, u, c) ((uint32_t)(E)->map[(size_t)(u)*CFGS + (c)])

static int vec_push(vec *v, uint32_t x)
{
	if (dpi_grow((void **)&v->a, &v->cap, (uint64_t)v->n + 1, sizeof *v->a,
		     4))
		return -1;
	v->a[v->n++] = x;
	return 0;
}

static int push_heap(elim *E, uint32_t v)
{
	if (dpi_grow((void **)&E->heap, &E->capheap, (uint64_t)E->nheap + 1,
		     sizeof *E->heap, 256))
		return -1;
	hent h = {E->key[v], E->adj[v].n, v};
	eheap_push(E->heap, &E->nheap, h);
	return 0;
}

/* The table size of processing v now (saturates beyond the bound). */
static uint64_t table_size(const elim *E, uint32_t v)
{
	uint64_t s = 1;
	for (uint32_t j = 0; j < E->adj[v].n; j++) {
		s *= E->dom[E->adj[v].a[j]];
		if (s > ((uint64_t)1 << 40))
			return (uint64_t)1 << 40;
	}
	return s;
}

/* A new factor over scope (ascending) with values vals (NULL: zeros). */
static int add_factor(elim *E, const uint32_t *scope, uint8_t n,
		      const double *vals, uint32_t size)
{
	if (dpi_grow((void **)&E->f, &E->capf, (uint64_t)E->nf + 1,
		     sizeof *E->f, 256) ||
	    dpi_grow((void **)&E->spool, &E->capspool, (uint64_t)E->nspool + n,
		     sizeof *E->spool, 1024) ||
	    dpi_grow((void **)&E->vpool, &E->capvpool,
		     (uint64_t)E->nvpool + size, sizeof *E->vpool, 4096))
		return -1;
	uint32_t id = E->nf;
	factor *f = &E->f[E->nf++];
	f->soff = E->nspool;
	f->voff = E->nvpool;
	f->n = n;
	f->dead = 0;
	if (n) /* an empty scope may be NULL, the pool not yet made */
		memcpy(E->spool + E->nspool, scope, n * sizeof *scope);
	E->nspool += n;
	if (vals)
		memcpy(E->vpool + E->nvpool, vals, size * sizeof *vals);
	else
		memset(E->vpool + E->nvpool, 0, size * sizeof *E->vpool);
	E->nvpool += size;
	for (uint8_t j = 0; j < n; j++)
		if (vec_push(&E->inc[scope[j]], id))
			return -1;
	return 0;
}

/* Removes x from u's neighbours and queues u at its new size. */
static int drop(elim *E, uint32_t u, uint32_t x)
{
	vec *nu = &E->adj[u];
	uint32_t w = 0;
	for (uint32_t i = 0; i < nu->n; i++)
		if (nu->a[i] != x)
			nu->a[w++] = nu->a[i];
	nu->n = w;
	E->key[u] = table_size(E, u);
	return push_heap(E, u);
}

/* N(u) := N(u) + N(v) - {u, v} for every neighbour u of v. */
static int fill_in(elim *E, uint32_t v)
{
	const vec *nv = &E->adj[v];
	for (uint32_t j = 0; j < nv->n; j++) {
		uint32_t u = nv->a[j];
		vec *nu = &E->adj[u];
		uint32_t tmp[2 * MAXS + 2], k = 0, a = 0, b = 0;
		if (nu->n > MAXS + 1) {
			/* too wide to process anyway: only drop v */
			if (drop(E, u, v))
				return -1;
			continue;
		}
		while (a < nu->n || b < nv->n) {
			uint32_t x;
			if (b >= nv->n || (a < nu->n && nu->a[a] < nv->a[b]))
				x = nu->a[a++];
			else if (a >= nu->n || nv->a[b] < nu->a[a])
				x = nv->a[b++];
			else {
				x = nu->a[a++];
				b++;
			}
			if (x != u && x != v)
				tmp[k++] = x;
		}
		nu->n = 0;
		for (uint32_t i = 0; i < k; i++)
			if (vec_push(nu, tmp[i]))
				return -1;
		E->key[u] = table_size(E, u);
		if (push_heap(E, u))
			return -1;
	}
	return 0;
}

/* Position of x in the ascending s[0..n), or -1. */
static int find_pos(const uint32_t *s, uint32_t n, uint32_t x)
{
	for (uint32_t i = 0; i < n; i++)
		if (s[i] == x)
			return (int)i;
	return -1;
}

/* Processes v: joins its factors and unary costs, minimises v out. */
static int process(elim *E, uint32_t v)
{
	uint32_t S[MAXS];
	uint8_t ns = (uint8_t)E->adj[v].n;
	if (ns) /* an op with no neighbour left has no list (NULL) */
		memcpy(S, E->adj[v].a, ns * sizeof *S);
	uint32_t size = 1, dv = E->dom[v];
	for (uint8_t j = 0; j < ns; j++)
		size *= E->dom[S[j]];
	/* each factor of v: its strides over S's digits and v's */
	uint32_t nfac = 0;
	for (uint32_t i = 0; i < E->inc[v].n; i++)
		nfac += !E->f[E->inc[v].a[i]].dead;
	/* per factor: MAXS + 2 strides and offset, then its position */
	uint32_t *fst = malloc(((size_t)nfac * (MAXS + 3) + 1) * sizeof *fst);
	double *vals = malloc((size_t)size * sizeof *vals);
	if (!fst || !vals ||
	    dpi_grow((void **)&E->apool, &E->capapool,
		     (uint64_t)E->napool + size, 1, 4096) ||
	    dpi_grow((void **)&E->steps, &E->capsteps, (uint64_t)E->nsteps + 1,
		     sizeof *E->steps, 256) ||
	    dpi_grow((void **)&E->spool, &E->capspool, (uint64_t)E->nspool + ns,
		     sizeof *E->spool, 1024)) {
		free(fst);
		free(vals);
		return -1;
	}
	uint32_t k = 0;
	for (uint32_t i = 0; i < E->inc[v].n; i++) {
		factor *f = &E->f[E->inc[v].a[i]];
		if (f->dead)
			continue;
		uint32_t *m = fst + (size_t)k * (MAXS + 2);
		memset(m, 0, (MAXS + 2) * sizeof *m);
		m[MAXS + 1] = f->voff;
		uint32_t st = 1;
		for (uint8_t j = 0; j < f->n; j++) {
			uint32_t x = E->spool[f->soff + j];
			if (x == v)
				m[MAXS] = st;
			else
				m[find_pos(S, ns, x)] = st;
			st *= E->dom[x];
		}
		f->dead = 1;
		k++;
	}
	const double *un = E->un + (size_t)v * CFGS;
	uint8_t *arg = E->apool + E->napool;
	uint32_t dig[MAXS] = {0};
	/* each factor's entry at digits dig and v's config 0, kept as the
	 * digits count up (the sums in the same order as before) */
	uint32_t *at = fst + (size_t)nfac * (MAXS + 2);
	for (uint32_t q = 0; q < nfac; q++)
		at[q] = fst[(size_t)q * (MAXS + 2) + MAXS + 1];
	const double *vp = E->vpool;
	for (uint32_t x = 0; x < size; x++) {
		double best = 0;
		for (uint32_t c = 0; c < dv; c++) {
			double s = un[c];
			for (uint32_t q = 0; q < nfac; q++)
				s += vp[at[q] +
					c * fst[(size_t)q * (MAXS + 2) + MAXS]];
			if (c == 0 || s < best) {
				best = s;
				arg[x] = (uint8_t)c;
			}
		}
		vals[x] = best;
		for (uint8_t j = 0; j < ns; j++) {
			const uint32_t *m = fst + j;
			if (++dig[j] < E->dom[S[j]]) {
				for (uint32_t q = 0; q < nfac; q++)
					at[q] += m[(size_t)q * (MAXS + 2)];
				break;
			}
			dig[j] = 0;
			for (uint32_t q = 0; q < nfac; q++)
				at[q] -= (E->dom[S[j]] - 1) *
					 m[(size_t)q * (MAXS + 2)];
		}
	}
	estep *sp = &E->steps[E->nsteps++];
	sp->v = v;
	sp->soff = E->nspool;
	sp->n = ns;
	sp->aoff = E->napool;
	if (ns)
		memcpy(E->spool + E->nspool, S, ns * sizeof *S);
	E->nspool += ns;
	E->napool += size;
	int r = 0;
	if (ns == 0)
		E->base += vals[0];
	else
		r = add_factor(E, S, ns, vals, size);
	free(fst);
	free(vals);
	return r;
}

/* Fixes x to its local config c (the degradation under the bound):
 * every table holding x is sliced at c, and x leaves its neighbours'
 * lists without fill-in. */
static int condition(elim *E, uint32_t x, uint32_t c)
{
	if (dpi_grow((void **)&E->apool, &E->capapool, (uint64_t)E->napool + 1,
		     1, 4096) ||
	    dpi_grow((void **)&E->steps, &E->capsteps, (uint64_t)E->nsteps + 1,
		     sizeof *E->steps, 256))
		return -1;
	E->steps[E->nsteps++] =
		(estep){.v = x, .soff = E->nspool, .aoff = E->napool, .n = 0};
	E->apool[E->napool++] = (uint8_t)c;
	for (uint32_t i = 0; i < E->inc[x].n; i++) {
		uint32_t fi = E->inc[x].a[i];
		if (E->f[fi].dead)
			continue;
		E->f[fi].dead = 1;
		factor f = E->f[fi];
		uint32_t scope[MAXS + 1], ns = 0, sx = 1, size = 1;
		bool before = true;
		for (uint8_t j = 0; j < f.n; j++) {
			uint32_t y = E->spool[f.soff + j];
			if (y == x) {
				before = false;
				continue;
			}
			scope[ns++] = y;
			size *= E->dom[y];
			if (before)
				sx *= E->dom[y];
		}
		if (ns == 0)
			continue; /* a constant: the total is recomputed */
		double *vals = malloc((size_t)size * sizeof *vals);
		if (!vals)
			return -1;
		for (uint32_t q = 0; q < size; q++)
			vals[q] = E->vpool[f.voff + q % sx + c * sx +
					   q / sx * sx * E->dom[x]];
		int r = add_factor(E, scope, (uint8_t)ns, vals, size);
		free(vals);
		if (r)
			return -1;
	}
	for (uint32_t j = 0; j < E->adj[x].n; j++)
		if (drop(E, E->adj[x].a[j], x))
			return -1;
	E->adj[x].n = 0;
	E->done[x] = 1;
	return 0;
}

/* The config to fix x to: the least of its own cost plus, for every
 * table holding it, that table's least entry with x at that config (each
 * table minimised on its own: a bound, not the joint optimum). */
static uint32_t best_alone(const elim *E, uint32_t x)
{
	double sum[CFGS];
	uint32_t dx = E->dom[x];
	for (uint32_t c = 0; c < dx; c++)
		sum[c] = E->un[(size_t)x * CFGS + c];
	for (uint32_t i = 0; i < E->inc[x].n; i++) {
		const factor *f = &E->f[E->inc[x].a[i]];
		if (f->dead)
			continue;
		uint32_t sx = 1, size = 1;
		bool before = true;
		for (uint8_t j = 0; j < f->n; j++) {
			uint32_t y = E->spool[f->soff + j];
			if (y == x)
				before = false;
			else if (before)
				sx *= E->dom[y];
			size *= E->dom[y];
		}
		double lo[CFGS];
		for (uint32_t c = 0; c < dx; c++)
			lo[c] = -1;
		for (uint32_t q = 0; q < size; q++) {
			uint32_t c = q / sx % dx;
			double v = E->vpool[f->voff + q];
			if (lo[c] < 0 || v < lo[c])
				lo[c] = v;
		}
		for (uint32_t c = 0; c < dx; c++)
			sum[c] += lo[c] < 0 ? 0 : lo[c];
	}
	uint32_t best = 0;
	for (uint32_t c = 1; c < dx; c++)
		if (sum[c] < sum[best])
			best = c;
	return best;
}

/* The initial tables: unary costs, and one per edge between two ops with
 * several configurations (an edge to a constant joins the unary). */
static int build(elim *E)
{
	const dpi_pase_model *pm = E->pm;
	const dp_graph *g = pm->g;
	if (E->coarsen)
		E->merged = dpi_pase_coarsen(pm, E->lead, E->map);
	else
		for (uint32_t u = 0; u < E->n; u++) {
			E->lead[u] = u;
			for (uint32_t c = 0; c < CFGS; c++)
				E->map[(size_t)u * CFGS + c] = (uint8_t)c;
		}
	/* a group's vertex is its leader; the members are no variables */
	for (uint32_t u = 0; u < E->n; u++)
		E->dom[u] = E->lead[u] == u ? pm->off[u + 1] - pm->off[u] : 1;
	for (uint32_t u = 0; u < E->n; u++) {
		uint32_t L = E->lead[u];
		for (uint32_t c = 0; c < E->dom[L]; c++) {
			uint32_t x = pm->off[u] + CFG(E, u, c);
			E->un[(size_t)L * CFGS + c] +=
				pm->node[x] + pm->lambda * (double)pm->res[x];
		}
	}
	double vals[CFGS * CFGS];
	for (uint32_t e = 0; e < g->nedges; e++) {
		const dp_edge *ed = &g->edges[e];
		if (ed->control || ed->bytes == 0)
			continue;
		uint32_t a = ed->from, b = ed->to;
		uint32_t A = E->lead[a], B = E->lead[b];
		uint32_t da = E->dom[A], db = E->dom[B];
		if (A == B || da == 1 || db == 1) {
			/* inside a group, or a constant end: a unary */
			uint32_t w = da == 1 ? B : A, dw = da == 1 ? db : da;
			for (uint32_t c = 0; c < dw; c++)
				E->un[(size_t)w * CFGS + c] += dpi_pase_ecost(
					pm, e,
					pm->off[a] + CFG(E, a, da == 1 ? 0 : c),
					pm->off[b] +
						CFG(E, b, db == 1 ? 0 : c));
			continue;
		}
		uint32_t lo = A < B ? A : B, hi = A < B ? B : A;
		for (uint32_t x = 0; x < E->dom[lo]; x++)
			for (uint32_t y = 0; y < E->dom[hi]; y++) {
				uint32_t ca = lo == A ? x : y,
					 cb = lo == A ? y : x;
				vals[x + E->dom[lo] * y] = dpi_pase_ecost(
					pm, e, pm->off[a] + CFG(E, a, ca),
					pm->off[b] + CFG(E, b, cb));
			}
		uint32_t scope[2] = {lo, hi};
		if (add_factor(E, scope, 2, vals, E->dom[lo] * E->dom[hi]))
			return -1;
		if (find_pos(E->adj[A].a, E->adj[A].n, B) < 0) {
			/* keep adjacency ascending: insert */
			for (int s = 0; s < 2; s++) {
				vec *nv = &E->adj[s ? B : A];
				uint32_t x = s ? A : B;
				if (vec_push(nv, x))
					return -1;
				uint32_t i = nv->n - 1;
				while (i > 0 && nv->a[i - 1] > x) {
					nv->a[i] = nv->a[i - 1];
					i--;
				}
				nv->a[i] = x;
			}
		}
	}
	return 0;
}

static void elim_free(elim *E)
{
	for (uint32_t u = 0; E->adj && u < E->n; u++)
		free(E->adj[u].a);
	for (uint32_t u = 0; E->inc && u < E->n; u++)
		free(E->inc[u].a);
	free(E->adj);
	free(E->inc);
	free(E->dom);
	free(E->un);
	free(E->f);
	free(E->spool);
	free(E->vpool);
	free(E->apool);
	free(E->steps);
	free(E->heap);
	free(E->key);
	free(E->done);
	free(E->lead);
	free(E->map);
}

dp_status dpi_pase_solve_elim(const dpi_pase_model *pm, const dp_progress *p,
			      uint64_t limit, bool coarsen, uint32_t *choice,
			      double *cost, uint32_t *fixed, bool *solved,
			      dp_err *err)
{
	elim E = {.pm = pm, .n = pm->g->nops, .coarsen = coarsen};
	uint32_t n = E.n;
	*solved = false;
	*fixed = 0;
	E.dom = malloc((n + 1u) * sizeof *E.dom);
	E.un = calloc((size_t)(n + 1u) * CFGS, sizeof *E.un);
	E.adj = calloc(n + 1u, sizeof *E.adj);
	E.inc = calloc(n + 1u, sizeof *E.inc);
	E.key = malloc((n + 1u) * sizeof *E.key);
	E.done = calloc(n + 1u, 1);
	E.lead = malloc((n + 1u) * sizeof *E.lead);
	E.map = malloc((size_t)(n + 1u) * CFGS);
	dp_status st = DP_OK;
	int oom = !E.dom || !E.un || !E.adj || !E.inc || !E.key || !E.done ||
		  !E.lead || !E.map;
	if (!oom)
		oom = build(&E);
	for (uint32_t u = 0; !oom && u < n; u++) {
		E.key[u] = table_size(&E, u);
		if (E.dom[u] > 1)
			oom = push_heap(&E, u);
	}
	/* one table: at most limit entries (default 2^12); the whole run's:
	 * at most 2^24 (128 MiB of values at most) */
	uint64_t budget = limit ? limit * (n ? n : 1) : ELIM_BUDGET;
	if (!limit)
		limit = ELIM_TABLE;
	uint32_t left = 0;
	for (uint32_t u = 0; u < n; u++)
		left += E.dom[u] > 1;
	while (!oom && !st && left > 0) {
		if (E.nheap == 0)
			goto out;
		hent h = eheap_pop(E.heap, &E.nheap);
		uint32_t v = h.v;
		if (E.done[v] || h.size != E.key[v] || h.deg != E.adj[v].n)
			continue; /* stale */
		if (h.size > limit || E.adj[v].n > MAXS) {
			/* fix the busiest vertex of v's dependent set */
			uint32_t x = E.adj[v].a[0];
			for (uint32_t j = 1; j < E.adj[v].n; j++) {
				uint32_t y = E.adj[v].a[j];
				if (E.adj[y].n > E.adj[x].n ||
				    (E.adj[y].n == E.adj[x].n &&
				     E.dom[y] > E.dom[x]))
					x = y;
			}
			oom = condition(&E, x, best_alone(&E, x));
			(*fixed)++;
			left--;
			continue;
		}
		if (E.napool + h.size > budget)
			goto out; /* not solved: the caller degrades */
		if ((left & 255) == 0 &&
		    (st = dpi_poll(p, "pase", "dynamic programming",
					0.2 + 0.75 * (n - left) / (n ? n : 1),
					err)))
			break;
		oom = process(&E, v);
		E.done[v] = 1;
		left--;
		if (!oom)
			oom = fill_in(&E, v);
	}
	if (oom) {
		st = dp_err_set(err, DP_ENOMEM, NULL, 0, 0,
				"pase: out of memory");
		goto out;
	}
	if (st)
		goto out;
	for (uint32_t u = 0; u < n; u++)
		choice[u] = 0;
	for (uint32_t k = E.nsteps; k-- > 0;) {
		const estep *sp = &E.steps[k];
		uint32_t idx = 0, stv = 1;
		for (uint8_t j = 0; j < sp->n; j++) {
			uint32_t x = E.spool[sp->soff + j];
			idx += choice[x] * stv;
			stv *= E.dom[x];
		}
		choice[sp->v] = E.apool[sp->aoff + idx];
	}
	/* members follow their leaders (leaders first: map[L] is identity) */
	for (uint32_t u = 0; u < n; u++)
		if (E.lead[u] != u)
			choice[u] = CFG(&E, u, choice[E.lead[u]]);
	/* the total in one order (the tables' sum up to rounding) */
	for (uint32_t u = 0; u < n; u++)
		choice[u] += pm->off[u];
	*cost = dpi_pase_total(pm, choice);
	if (pm->lambda != 0)
		for (uint32_t u = 0; u < n; u++)
			*cost += pm->lambda * (double)pm->res[choice[u]];
	*solved = true;
out:
	elim_free(&E);
	return st;
}

dp_status dpi_pase_solve_best(const dpi_pase_model *pm, const dp_progress *p,
			      uint64_t limit, uint32_t *choice, double *cost,
			      uint32_t *fixed, bool *solved, dp_err *err)
{
	dp_status st = dpi_pase_solve_elim(pm, p, limit, false, choice, cost,
					   fixed, solved, err);
	if (st || (*solved && *fixed == 0))
		return st;
	/* the bound was hit: the coarsened graph, kept when cheaper */
	uint32_t n = pm->g->nops, cfixed = 0;
	uint32_t *alt = dpi_pase_choice_new(pm, err);
	if (!alt)
		return DP_ENOMEM;
	double ccost = 0;
	bool csolved = false;
	st = dpi_pase_solve_elim(pm, p, limit, true, alt, &ccost, &cfixed,
				 &csolved, err);
	if (!st && csolved && (!*solved || ccost < *cost)) {
		memcpy(choice, alt, n * sizeof *alt);
		*cost = ccost;
		*fixed = cfixed;
		*solved = true;
	}
	free(alt);
	return st;
}

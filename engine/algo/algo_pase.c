/* algo_pase.c - `pase`: the PaSE search for an spmd strategy (Elango,
 * IPDPS 2021, section IV; internal/pase.h for the cost model).
 *
 * Vertices are visited in the graph's topological order (Kahn, smallest
 * op id first: the breadth-first order of a DAG). After visiting vertex i
 * the dependent set is the visited vertices with a neighbour not yet
 * visited; the table holds, for every configuration of the dependent set,
 * the least cost of everything visited. Visiting v extends the table by
 * v's configurations (its node cost and the edges to its visited
 * neighbours), then minimises out the vertices that leave the dependent
 * set, remembering the argmin; a backward pass reads the choices. This is
 * exact within the model (the paper's recurrence).
 *
 * Ours: the bound. A table may hold at most `limit` entries (default
 * 2^25 entries over the whole run divided by the ops, between 64 and
 * 2^16); when extending would pass it, the oldest vertex of the dependent
 * set is fixed to its configuration in the table's cheapest entry (the
 * table is sliced), until it fits. The number of vertices fixed so is
 * reported (the label says "bound"); 0 means exact.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dnnpart/strategy.h"
#include "internal/algo_int.h"
#include "internal/nomem.h"
#include "internal/pase.h"

/* Most vertices in a dependent set (a table of 2^16 entries holds at most
 * 16 vertices of two or more configs; this is a guard). */
#define MAXF 64

typedef struct step {
	uint32_t v;    /* vertex visited (UINT32_MAX: a slice) */
	uint32_t eoff; /* E vars in pool[eoff .. eoff+ne) */
	uint32_t ne;
	uint32_t foff; /* F' vars in pool[foff .. foff+nf) */
	uint32_t nf;
	uint32_t *arg; /* per F' entry: its E entry; NULL = identity */
} step;

typedef struct solver {
	const dpi_pase_model *pm;
	uint32_t *dom;	/* per op: its configs */
	int32_t *fixed; /* per op: fixed local config, -1 none */
	int32_t *fidx;	/* per op: index in the dependent set, -1 */
	uint32_t *last; /* per op: the last position of a neighbour */
	uint32_t *pool;
	size_t npool, cap_pool;
	step *steps;
	size_t nsteps, cap_steps;
} solver;

static bool pool_add(solver *s, const uint32_t *v, uint32_t n, uint32_t *off)
{
	if (s->npool + n > s->cap_pool) {
		size_t c = s->cap_pool ? s->cap_pool * 2 : 1024;
		while (c < s->npool + n)
			c *= 2;
		uint32_t *q = realloc(s->pool, c * sizeof *q);
		if (!q)
			return false;
		s->pool = q;
		s->cap_pool = c;
	}
	if (n)
		memcpy(s->pool + s->npool, v, n * sizeof *v);
	*off = (uint32_t)s->npool;
	s->npool += n;
	return true;
}

static step *step_add(solver *s)
{
	if (s->nsteps == s->cap_steps) {
		size_t c = s->cap_steps ? s->cap_steps * 2 : 256;
		step *q = realloc(s->steps, c * sizeof *q);
		if (!q)
			return NULL;
		s->steps = q;
		s->cap_steps = c;
	}
	step *st = &s->steps[s->nsteps++];
	memset(st, 0, sizeof *st);
	return st;
}

static uint32_t rad(const solver *s, uint32_t u)
{
	return s->fixed[u] >= 0 ? 1 : s->dom[u];
}

/* Edge cost between local configs of the ends of edge e. */
static double ecost(const solver *s, uint32_t e, uint32_t a, uint32_t b)
{
	const dp_graph *g = s->pm->g;
	return dpi_pase_ecost(s->pm, e, s->pm->off[g->edges[e].from] + a,
			      s->pm->off[g->edges[e].to] + b);
}

dp_status dpi_pase_solve(const dpi_pase_model *pm, const dp_progress *p,
			 uint64_t limit, uint32_t *choice, double *cost,
			 uint32_t *nfixed, dp_err *err)
{
	bool solved = false;
	dp_status st = dpi_pase_solve_best(pm, p, limit, choice, cost, nfixed,
					   &solved, err);
	if (st || solved)
		return st;
	return dpi_pase_solve_window(pm, p, limit, choice, cost, nfixed, err);
}

dp_status dpi_pase_solve_window(const dpi_pase_model *pm, const dp_progress *p,
				uint64_t limit, uint32_t *choice, double *cost,
				uint32_t *nfixed, dp_err *err)
{
	const dp_graph *g = pm->g;
	uint32_t n = g->nops;
	*nfixed = 0;
	if (!limit) {
		limit = ((uint64_t)1 << 25) / (n ? n : 1);
		limit = limit < 64 ? 64 : limit > 65536 ? 65536 : limit;
	}
	solver s = {.pm = pm};
	s.dom = malloc((n + 1u) * sizeof *s.dom);
	s.fixed = malloc((n + 1u) * sizeof *s.fixed);
	s.fidx = malloc((n + 1u) * sizeof *s.fidx);
	s.last = malloc((n + 1u) * sizeof *s.last);
	uint32_t *F = malloc((n + 1u) * sizeof *F);
	uint32_t *E = malloc((n + 2u) * sizeof *E);
	double *T = malloc(sizeof *T);
	double *VE = NULL, *M = NULL, un[DPI_PASE_MAX_CFGS];
	uint32_t nF = 0;
	size_t nT = 1;
	dp_status st = DP_OK;
	*nfixed = 0;
	if (!s.dom || !s.fixed || !s.fidx || !s.last || !F || !E || !T) {
		st = dpi_nomem(err, "running pase");
		goto out;
	}
	T[0] = 0;
	for (uint32_t u = 0; u < n; u++) {
		s.dom[u] = pm->off[u + 1] - pm->off[u];
		/* one config: fixed from the start, never in a table */
		s.fixed[u] = s.dom[u] == 1 ? 0 : -1;
		s.fidx[u] = -1;
		uint32_t l = g->topo_pos[u];
		for (uint32_t k = g->succ_off[u]; k < g->succ_off[u + 1]; k++)
			if (g->topo_pos[g->edges[g->succ_edge[k]].to] > l)
				l = g->topo_pos[g->edges[g->succ_edge[k]].to];
		s.last[u] = l;
	}
	for (uint32_t i = 0; i < n; i++) {
		uint32_t v = g->topo[i];
		if ((i & 255) == 0 &&
		    (st = dpi_poll(p, "pase", "dynamic programming",
					0.2 + 0.75 * i / n, err)))
			goto out;
		uint32_t dv = s.dom[v];
		/* the bound: fix the oldest dependent vertices */
		while ((nT * dv > limit || nF >= MAXF) && nF > 0) {
			size_t best = 0;
			for (size_t f = 1; f < nT; f++)
				if (T[f] < T[best])
					best = f;
			uint32_t x = F[0], rx = rad(&s, x);
			uint32_t val = (uint32_t)(best % rx);
			size_t nn = nT / rx;
			for (size_t f = 0; f < nn; f++)
				T[f] = T[f * rx + val];
			nT = nn;
			step *sp = step_add(&s);
			if (!sp) {
				st = dpi_nomem(err, "running pase");
				goto out;
			}
			sp->v = UINT32_MAX;
			sp->eoff = x;
			sp->ne = val;
			s.fixed[x] = (int32_t)val;
			s.fidx[x] = -1;
			memmove(F, F + 1, (nF - 1) * sizeof *F);
			nF--;
			for (uint32_t j = 0; j < nF; j++)
				s.fidx[F[j]] = (int32_t)j;
			(*nfixed)++;
		}
		size_t nE = nT * dv;
		double *nve = realloc(VE, nE * sizeof *VE);
		double *nm = realloc(M, (size_t)(nF + 1) * DPI_PASE_MAX_CFGS *
						DPI_PASE_MAX_CFGS * sizeof *M);
		if (nve)
			VE = nve;
		if (nm)
			M = nm;
		if (!nve || !nm) {
			st = dpi_nomem(err, "running pase");
			goto out;
		}
		/* pair matrices per dependent vertex, unary for fixed ones */
		memset(M, 0,
		       (size_t)(nF + 1) * DPI_PASE_MAX_CFGS *
			       DPI_PASE_MAX_CFGS * sizeof *M);
		for (uint32_t c = 0; c < dv; c++)
			un[c] = pm->node[pm->off[v] + c] +
				pm->lambda * (double)pm->res[pm->off[v] + c];
		uint32_t adj[2] = {g->pred_off[v], g->succ_off[v]};
		uint32_t end[2] = {g->pred_off[v + 1], g->succ_off[v + 1]};
		const uint32_t *lists[2] = {g->pred_edge, g->succ_edge};
		for (int dir = 0; dir < 2; dir++)
			for (uint32_t k = adj[dir]; k < end[dir]; k++) {
				uint32_t e = lists[dir][k];
				const dp_edge *ed = &g->edges[e];
				uint32_t w = dir == 0 ? ed->from : ed->to;
				if (ed->control || g->topo_pos[w] >= i)
					continue;
				for (uint32_t c = 0; c < dv; c++) {
					if (s.fixed[w] >= 0) {
						uint32_t a =
							(uint32_t)s.fixed[w];
						un[c] += dir == 0 ? ecost(&s, e,
									  a, c)
								  : ecost(&s, e,
									  c, a);
						continue;
					}
					double *mw =
						M + (size_t)s.fidx[w] *
							    DPI_PASE_MAX_CFGS *
							    DPI_PASE_MAX_CFGS;
					for (uint32_t a = 0; a < s.dom[w]; a++)
						mw[a * DPI_PASE_MAX_CFGS + c] +=
							dir == 0 ? ecost(&s, e,
									 a, c)
								 : ecost(&s, e,
									 c, a);
				}
			}
		/* E = F + v: entry f + nT x c */
		for (size_t f = 0; f < nT; f++) {
			for (uint32_t c = 0; c < dv; c++)
				VE[f + nT * c] = T[f] + un[c];
			size_t rest = f;
			for (uint32_t j = 0; j < nF; j++) {
				uint32_t r = rad(&s, F[j]);
				uint32_t a = (uint32_t)(rest % r);
				rest /= r;
				const double *mw = M +
						   (size_t)j *
							   DPI_PASE_MAX_CFGS *
							   DPI_PASE_MAX_CFGS +
						   a * DPI_PASE_MAX_CFGS;
				for (uint32_t c = 0; c < dv; c++)
					VE[f + nT * c] += mw[c];
			}
		}
		for (uint32_t j = 0; j < nF; j++)
			E[j] = F[j];
		E[nF] = v;
		uint32_t nEv = nF + 1;
		/* drop the vertices whose neighbours are all visited */
		uint32_t nF2 = 0;
		bool drop = false;
		for (uint32_t j = 0; j < nEv; j++)
			if (s.last[E[j]] > i && s.fixed[E[j]] < 0)
				F[nF2++] = E[j];
			else
				drop = true;
		step *sp = step_add(&s);
		if (!sp || !pool_add(&s, E, nEv, &sp->eoff) ||
		    !pool_add(&s, F, nF2, &sp->foff)) {
			st = dpi_nomem(err, "running pase");
			goto out;
		}
		sp->v = v;
		sp->ne = nEv;
		sp->nf = nF2;
		size_t nT2 = 1;
		for (uint32_t j = 0; j < nF2; j++)
			nT2 *= rad(&s, F[j]);
		double *nt = realloc(T, nT2 * sizeof *T);
		if (!nt) {
			st = dpi_nomem(err, "running pase");
			goto out;
		}
		T = nt;
		if (!drop) {
			memcpy(T, VE, nE * sizeof *T);
		} else {
			sp->arg = malloc(nT2 * sizeof *sp->arg);
			if (!sp->arg) {
				st = dpi_nomem(err, "running pase");
				goto out;
			}
			for (size_t f = 0; f < nT2; f++)
				T[f] = -1;
			/* F' strides over E's digits */
			uint8_t keep[MAXF + 1];
			size_t kst[MAXF + 1];
			size_t acc = 1;
			for (uint32_t j = 0, q = 0; j < nEv; j++) {
				bool kept = q < nF2 && F[q] == E[j];
				keep[j] = kept;
				kst[j] = kept ? acc : 0;
				if (kept) {
					acc *= rad(&s, E[j]);
					q++;
				}
			}
			for (size_t x = 0; x < nE; x++) {
				size_t rest = x, f2 = 0;
				for (uint32_t j = 0; j < nEv; j++) {
					uint32_t r = rad(&s, E[j]);
					if (keep[j])
						f2 += (rest % r) * kst[j];
					rest /= r;
				}
				if (T[f2] < 0 || VE[x] < T[f2]) {
					T[f2] = VE[x];
					sp->arg[f2] = (uint32_t)x;
				}
			}
		}
		nT = nT2;
		nF = nF2;
		for (uint32_t j = 0; j < nEv; j++)
			s.fidx[E[j]] = -1;
		for (uint32_t j = 0; j < nF; j++)
			s.fidx[F[j]] = (int32_t)j;
	}
	*cost = T[0];
	/* backward pass */
	for (uint32_t u = 0; u < n; u++)
		choice[u] = s.fixed[u] >= 0 ? (uint32_t)s.fixed[u] : 0;
	for (size_t k = s.nsteps; k-- > 0;) {
		step *sp = &s.steps[k];
		if (sp->v == UINT32_MAX) {
			/* a slice: the vertex was fixed from here on */
			s.fixed[sp->eoff] = -1;
			choice[sp->eoff] = sp->ne;
			continue;
		}
		size_t f2 = 0, acc = 1;
		const uint32_t *fv = s.pool + sp->foff, *ev = s.pool + sp->eoff;
		for (uint32_t j = 0; j < sp->nf; j++) {
			f2 += choice[fv[j]] * acc;
			acc *= rad(&s, fv[j]);
		}
		size_t x = sp->arg ? sp->arg[f2] : f2;
		for (uint32_t j = 0; j < sp->ne; j++) {
			uint32_t r = rad(&s, ev[j]);
			if (s.fixed[ev[j]] < 0)
				choice[ev[j]] = (uint32_t)(x % r);
			x /= r;
		}
	}
	for (uint32_t u = 0; u < n; u++)
		choice[u] += pm->off[u];
out:
	for (size_t k = 0; k < s.nsteps; k++)
		free(s.steps[k].arg);
	free(s.steps);
	free(s.pool);
	free(s.dom);
	free(s.fixed);
	free(s.fidx);
	free(s.last);
	free(F);
	free(E);
	free(T);
	free(VE);
	free(M);
	return st;
}

static dp_status pase_run(const dp_graph *g, const dp_machine *m,
			  const dp_algo_opts *o, const dp_progress *p,
			  dp_strategy *out, dp_err *err)
{
	dp_algo_opts def;
	o = dpi_algo_opts_or_default(o, &def);
	dp_status st = dpi_poll(p, "pase", "configurations", 0, err);
	if (!st)
		st = dp_algo_check_pins(g, m, err);
	if (st)
		return st;
	dpi_pase_model pm;
	if ((st = dpi_pase_model_build(&pm, g, m, p, err)))
		return st;
	uint32_t *choice = malloc((g->nops + 1u) * sizeof *choice);
	uint32_t *second = malloc((g->nops + 1u) * sizeof *second);
	double cost = 0;
	uint32_t fixed = 0, wfixed = 0;
	int which = 0, tries = 0;
	double best_ms = 0;
	bool best_fit = false, expert = false;
	bool solved = false;
	dp_strategy s;
	dp_strategy_init(&s);
	if (!choice || !second)
		st = dpi_nomem(err, "running pase");
	/* every search reads the edges' costs from one table */
	if (!st)
		st = dpi_pase_etab_build(&pm, p, err);
	if (!st)
		st = dpi_pase_sims_new(&pm, err);
	if (!st)
		st = dpi_pase_solve_best(&pm, p, 0, choice, &cost, &fixed,
					 &solved, err);
	/* the breadth-first search: the fallback, else a second candidate
	 * (not on meshes beyond the port replay: one more simulation of K
	 * times the graph) */
	bool extras = pm.size <= DPI_PASE_PORTS_MAX;
	if (!st && (!solved || extras))
		st = dpi_pase_solve_window(&pm, p, 0, solved ? second : choice,
					   &cost, solved ? &wfixed : &fixed,
					   err);
	if (!st)
		st = dpi_pase_fit(&pm, p, o->contention, choice, &tries, err);
	if (!st)
		st = dpi_pase_guard(&pm, p, o->contention, choice,
				    solved && extras ? second : NULL, &which,
				    &best_ms, &best_fit, err);
	if (!st)
		st = dpi_pase_fill(&pm, choice, &s, err);
	if (!st) {
		char mesh[24];
		size_t pos = 0;
		for (int a = 0; a < pm.naxes; a++)
			pos += (size_t)snprintf(mesh + pos, sizeof mesh - pos,
						"%s%d", a ? "x" : "",
						pm.mesh[a]);
		/* the safeguard's pick, then what the search met */
		char note[48] = "";
		int at = 0;
		if (which >= 2)
			at = snprintf(note, sizeof note, " = %s (safeguard)",
				      which == 2 ? "dp" : "replicas");
		if (pm.nover)
			snprintf(note + at, sizeof note - (size_t)at,
				 " (%u ops over cap)", pm.nover);
		else if (which == 1)
			snprintf(note + at, sizeof note - (size_t)at,
				 " (breadth-first: %u fixed)", wfixed);
		else if (which == 0 && fixed)
			snprintf(note + at, sizeof note - (size_t)at,
				 " (bound: %u fixed)", fixed);
		snprintf(s.label, sizeof s.label, "pase %.18s%.40s", mesh,
			 note);
		snprintf(s.algo, sizeof s.algo, "pase");
		st = dpi_poll(p, "pase", "expert layout", 0.99, err);
	}
	if (!st && extras)
		st = dpi_pase_expert(&pm, o, best_ms, best_fit, &s, &expert,
				     err);
	if (!st)
		st = dpi_poll(p, "pase", "done", 1, err);
	free(choice);
	free(second);
	dpi_pase_etab_free(&pm);
	dpi_pase_sims_free(&pm);
	dpi_pase_model_free(&pm);
	if (st) {
		dp_strategy_free(&s);
		return st;
	}
	*out = s;
	return DP_OK;
}

const dp_algo dpi_algo_pase = {
	.name = "pase",
	.summary = "spmd search: each op's split of its dims chosen by "
		   "dynamic programming over a vertex order (compute + "
		   "resharding), under the memory caps",
	.source = "Elango, PaSE: Parallelization Strategies for Efficient "
		  "DNN Training, IPDPS 2021",
	.run = NULL,
	.strategize = pase_run,
};

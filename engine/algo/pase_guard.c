/* pase_guard.c - the strategy a `pase` choice makes, and the safeguard
 * (ours, not the paper's): the search's choice, the breadth-first search's
 * choice, data parallelism's choice from the same configurations, and
 * everything replicated are lowered and simulated, and the best (feasible
 * first, then the shortest step, then that order) is kept; then the
 * expert layout (the `megatron` algorithm's strategy) replaces it when it
 * simulates better. The paper's cost model sums compute and transfers
 * without overlap or port contention; where the simulator disagrees with
 * it, this keeps pase from returning a plan slower than the plain ones it
 * could have chosen. docs/algorithms.md#pase.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dnnpart/sim.h"
#include "internal/algo_int.h"
#include "internal/megatron.h"
#include "internal/pase.h"

dp_status dpi_pase_fill(const dpi_pase_model *pm, const uint32_t *choice,
			dp_strategy *s, dp_err *err)
{
	const dp_graph *g = pm->g;
	dp_strategy_init(s);
	dp_status st = dp_strategy_alloc(s, DP_STRAT_SPMD, g, 0, err);
	if (st)
		return st;
	s->k = pm->size;
	s->spmd.naxes = pm->naxes;
	memcpy(s->spmd.mesh, pm->mesh, sizeof pm->mesh);
	for (uint32_t u = 0; u < g->nops; u++) {
		if (g->ops[u].pin >= 0) {
			s->spmd.device[u] = g->ops[u].pin;
			continue;
		}
		memcpy(&s->spmd.axes[(size_t)u * DP_MAX_OP_DIMS],
		       pm->cfg[choice[u]].mask, DP_MAX_OP_DIMS);
	}
	return DP_OK;
}

uint32_t dpi_pase_dp_config(const dpi_pase_model *pm, uint32_t u)
{
	uint32_t best = pm->off[u];
	int b = pm->bidx[u] == -2 ? 0 : pm->bidx[u], bp = 1;
	if (b < 0)
		return best;
	for (uint32_t j = pm->off[u]; j < pm->off[u + 1]; j++) {
		bool alone = true;
		for (int i = 0; alone && i < DP_MAX_OP_DIMS; i++)
			alone = i == b || !pm->cfg[j].mask[i];
		int q = 1;
		for (int a = 0; a < pm->naxes; a++)
			if (pm->cfg[j].mask[b] & (1u << a))
				q *= pm->mesh[a];
		if (alone && q > bp) {
			bp = q;
			best = j;
		}
	}
	return best;
}

bool dpi_pase_capped(const dpi_pase_model *pm)
{
	for (int d = 0; d < pm->m->k; d++)
		if (pm->m->cap[d] != DP_CAP_UNLIMITED)
			return true;
	return false;
}

/* Can all replicas be priced without a simulation: no caps to check and
 * no pinned op (whose one instance would send to the others)? */
static bool replicas_local(const dpi_pase_model *pm)
{
	if (dpi_pase_capped(pm))
		return false;
	for (uint32_t u = 0; u < pm->g->nops; u++)
		if (pm->g->ops[u].pin >= 0)
			return false;
	return true;
}

/* Lowers and simulates strategy s on pm's graph and machine. */
static dp_status simulate(const dpi_pase_model *pm, const dp_strategy *s,
			  dp_contention cont, double *ms, bool *fits,
			  double *over, dp_err *err)
{
	dp_lowered l;
	dp_status st = dp_strategy_lower(pm->g, pm->m, s, NULL, &l, err);
	if (st)
		return st;
	dp_sim *sim = dp_sim_new(l.g, pm->m, err);
	if (!sim) {
		dp_lowered_free(&l);
		return DP_ENOMEM;
	}
	dp_sim_result r;
	memset(&r, 0, sizeof r);
	/* without caps the memory pass decides nothing */
	dp_sim_opts o = {.contention = cont,
			 .skip_memory = !dpi_pase_capped(pm)};
	st = dp_sim_run(sim, l.placement, &o, &r, err);
	if (!st) {
		*ms = r.makespan;
		*fits = r.feasible;
		*over = 0;
		for (int d = 0; d < r.k; d++)
			if (r.dev[d].cap_bytes != DP_CAP_UNLIMITED &&
			    r.dev[d].cap_bytes > 0) {
				double f = (double)r.dev[d].peak_bytes /
					   (double)r.dev[d].cap_bytes;
				if (f > *over)
					*over = f;
			}
	}
	dp_sim_result_free(&r);
	dp_sim_free(sim);
	dp_lowered_free(&l);
	return st;
}

/* How many simulations a run remembers: the fit's first and last, and
 * the safeguard's candidates. */
#define SIMS_KEPT 4

struct dpi_pase_sims {
	uint32_t *choice[SIMS_KEPT]; /* NULL: an empty slot */
	dp_contention cont[SIMS_KEPT];
	double ms[SIMS_KEPT], over[SIMS_KEPT];
	bool fits[SIMS_KEPT];
	int next; /* the slot to fill next */
};

dp_status dpi_pase_sims_new(dpi_pase_model *pm, dp_err *err)
{
	dpi_pase_sims_free(pm);
	pm->sims = calloc(1, sizeof *pm->sims);
	if (!pm->sims)
		return dp_err_set(err, DP_ENOMEM, NULL, 0, 0,
				  "pase: out of memory");
	return DP_OK;
}

void dpi_pase_sims_free(dpi_pase_model *pm)
{
	if (!pm->sims)
		return;
	for (int i = 0; i < SIMS_KEPT; i++)
		free(pm->sims->choice[i]);
	free(pm->sims);
	pm->sims = NULL;
}

/* The slot of a choice simulated under cont, or -1. */
static int sims_find(const dpi_pase_model *pm, const uint32_t *choice,
		     dp_contention cont)
{
	size_t len = (size_t)pm->g->nops * sizeof *choice;
	for (int i = 0; pm->sims && i < SIMS_KEPT; i++)
		if (pm->sims->choice[i] && pm->sims->cont[i] == cont &&
		    memcmp(pm->sims->choice[i], choice, len) == 0)
			return i;
	return -1;
}

/* Remembers a result, over the oldest one (out of memory: forgotten). */
static void sims_put(const dpi_pase_model *pm, const uint32_t *choice,
		     dp_contention cont, double ms, bool fits, double over)
{
	dpi_pase_sims *m = pm->sims;
	size_t len = (size_t)pm->g->nops * sizeof *choice;
	if (!m)
		return;
	int i = m->next;
	if (!m->choice[i] && !(m->choice[i] = malloc(len ? len : 1)))
		return;
	memcpy(m->choice[i], choice, len);
	m->cont[i] = cont;
	m->ms[i] = ms;
	m->fits[i] = fits;
	m->over[i] = over;
	m->next = (i + 1) % SIMS_KEPT;
}

dp_status dpi_pase_simulate(const dpi_pase_model *pm, const uint32_t *choice,
			    dp_contention cont, double *ms, bool *fits,
			    double *over, dp_err *err)
{
	int i = sims_find(pm, choice, cont);
	if (i >= 0) {
		*ms = pm->sims->ms[i];
		*fits = pm->sims->fits[i];
		*over = pm->sims->over[i];
		return DP_OK;
	}
	dp_strategy s;
	dp_status st = dpi_pase_fill(pm, choice, &s, err);
	if (!st)
		st = simulate(pm, &s, cont, ms, fits, over, err);
	dp_strategy_free(&s);
	if (!st)
		sims_put(pm, choice, cont, *ms, *fits, *over);
	return st;
}

dp_status dpi_pase_expert(const dpi_pase_model *pm, const dp_algo_opts *o,
			  double ms, bool fits, dp_strategy *s, bool *won,
			  dp_err *err)
{
	*won = false;
	const dp_algo *mg = &dpi_algo_megatron;
	dp_strategy t;
	dp_strategy_init(&t);
	dp_err e2;
	/* megatron's own refusal (not a transformer) is no error of ours */
	if (mg->strategize(pm->g, pm->m, o, NULL, &t, &e2)) {
		dp_strategy_free(&t);
		return DP_OK;
	}
	double tms = 0, over = 0;
	bool tfits = false;
	dp_status st =
		simulate(pm, &t, o->contention, &tms, &tfits, &over, err);
	if (!st && tfits && (!fits || tms < ms)) {
		char label[sizeof t.label];
		/* megatron's label, cut to what fits beside ours */
		snprintf(label, sizeof label, "pase = %.40s (safeguard)",
			 t.label);
		memcpy(t.label, label, sizeof label);
		snprintf(t.algo, sizeof t.algo, "pase");
		dp_strategy_free(s);
		*s = t;
		*won = true;
		return DP_OK;
	}
	dp_strategy_free(&t);
	return st;
}

dp_status dpi_pase_guard(const dpi_pase_model *pm, const dp_progress *p,
			 dp_contention cont, uint32_t *choice,
			 const uint32_t *second, int *which, double *best_ms,
			 bool *best_fit, dp_err *err)
{
	const dp_graph *g = pm->g;
	uint32_t n = g->nops;
	uint32_t *alt = dpi_pase_choice_new(pm, err);
	if (!alt)
		return DP_ENOMEM;
	double best = 0;
	bool best_fits = false;
	*which = 0;
	dp_status st = DP_OK;
	for (int c = 0; !st && c < 4; c++) {
		if (c == 1 && !second)
			continue;
		if ((st = dpi_poll(p, "pase", "safeguard",
					0.95 + 0.0125 * c, err)))
			break;
		for (uint32_t u = 0; u < n; u++)
			alt[u] = c == 0	  ? choice[u]
				 : c == 1 ? second[u]
				 : c == 2 ? dpi_pase_dp_config(pm, u)
					  : pm->off[u];
		if (c > 0 && c < 3 && memcmp(alt, choice, n * sizeof *alt) == 0)
			continue; /* the best so far already */
		double ms = 0, over = 0;
		bool fits = false;
		if (c == 3 && replicas_local(pm)) {
			/* every device runs the whole step from local inputs:
			 * no transfers, no idle time */
			double slow = pm->m->speed[0];
			for (int d = 1; d < pm->m->k; d++)
				if (pm->m->speed[d] < slow)
					slow = pm->m->speed[d];
			ms = g->total_time_us / slow;
			fits = true;
		} else if ((st = dpi_pase_simulate(pm, alt, cont, &ms, &fits,
						   &over, err))) {
			break;
		}
		if (c == 0 || (fits && !best_fits) ||
		    (fits == best_fits && ms < best)) {
			best = ms;
			best_fits = fits;
			*which = c;
			if (c > 0)
				memcpy(choice, alt, n * sizeof *alt);
		}
	}
	free(alt);
	*best_ms = best;
	*best_fit = best_fits;
	return st;
}

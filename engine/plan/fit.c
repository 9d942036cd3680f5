/* fit.c - the smallest K or cap with which an algorithm finds a feasible
 * plan, by search over real reruns (see fit.h for what it guarantees).
 */
#include "dnnpart/fit.h"
#include "dnnpart/plan.h"
#include "dnnpart/units.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal/fit_int.h"
#include "internal/nomem.h"

#define MIB ((int64_t)1 << 20)
#define DEFAULT_MAX_K 64
#define HI_DOUBLINGS 4

int64_t dp_fit_min_cap(const dp_graph *g)
{
	int64_t best = 0;
	for (uint32_t u = 0; u < g->nops; u++) {
		const dp_op *o = &g->ops[u];
		int64_t f = o->param_bytes + o->output_bytes + o->temp_bytes;
		if (f > best)
			best = f;
	}
	if (g->finalized && g->group_off) {
		for (uint32_t c = 0; c < g->ngroups; c++) {
			int64_t sum = 0;
			for (uint32_t i = g->group_off[c];
			     i < g->group_off[c + 1]; i++)
				sum += g->ops[g->group_ops[i]].param_bytes;
			if (sum > best)
				best = sum;
		}
	}
	return best;
}

/* The search's state: what every probe needs. */
typedef struct fit_ctx {
	const dp_graph *g;
	const dp_algo *algo;
	const dp_algo_opts *ao;
	const dp_progress *p;
	dp_fit_result *r;
	size_t probes_cap;
	int bound; /* an upper bound of the probe count, for the fraction */
	dpi_fit_prober run; /* NULL: one dp_plan_run of algo per probe */
	void *run_ctx;
	dp_err *err;
} fit_ctx;

static dp_status add_probe(fit_ctx *c, const dp_fit_probe *pr)
{
	dp_fit_result *r = c->r;
	if (r->nprobes == c->probes_cap) {
		size_t n = c->probes_cap ? 2 * c->probes_cap : 16;
		dp_fit_probe *np = realloc(r->probes, n * sizeof *np);
		if (!np)
			return dpi_nomem(c->err, "searching what fits");
		r->probes = np;
		c->probes_cap = n;
	}
	r->probes[r->nprobes++] = *pr;
	return DP_OK;
}

/* Keeps m's caps as the answer (a feasible probe pr). */
static dp_status keep_answer(fit_ctx *c, const dp_machine *m,
			     const dp_fit_probe *pr)
{
	double ms = pr->makespan;
	c->r->answer = *pr;
	dp_fit_result *r = c->r;
	int64_t *caps = malloc((size_t)m->k * sizeof *caps);
	if (!caps)
		return dpi_nomem(c->err, "searching what fits");
	memcpy(caps, m->cap, (size_t)m->k * sizeof *caps);
	free(r->caps);
	r->caps = caps;
	r->k = m->k;
	r->makespan = ms;
	r->found = true;
	return DP_OK;
}

dp_status dpi_fit_rerun(const dp_graph *g, const dp_machine *m,
			const dp_algo *algo, const dp_algo_opts *ao,
			const dp_progress *p, dp_fit_probe *pr, dp_err *err)
{
	dp_plan plan;
	dp_status st = dp_plan_run(g, m, algo, ao, p, &plan, err);
	if (st)
		return st;
	memset(pr, 0, sizeof *pr);
	pr->k = m->k;
	pr->cap = m->cap[0];
	pr->makespan = plan.sim.makespan;
	pr->feasible = plan.feasible;
	pr->worst = dp_plan_worst_device(&plan);
	if (pr->worst >= 0)
		pr->over = plan.sim.dev[pr->worst].peak_bytes -
			   plan.sim.dev[pr->worst].cap_bytes;
	snprintf(pr->strategy, sizeof pr->strategy, "%s", plan.strategy);
	if (plan.kind == DP_STRAT_PIPELINE && plan.strat) {
		int V = plan.strat->pipe.virtual_stages;
		pr->virtual_stages = V > 1 ? V : 1;
		pr->stages = plan.strat->pipe.nstages / pr->virtual_stages;
		pr->microbatches = plan.strat->pipe.microbatches;
	}
	dp_plan_free(&plan);
	return DP_OK;
}

/* One rerun on m; cap is what the probe records as its cap. */
static dp_status probe(fit_ctx *c, const dp_machine *m, int64_t cap,
		       bool *feasible)
{
	char phase[64], b[32];
	if (c->r->kind == DP_FIT_K)
		snprintf(phase, sizeof phase, "fit: K=%d", m->k);
	else
		snprintf(phase, sizeof phase, "fit: cap %s",
			 dp_units_fmt_bytes(cap, b, sizeof b));
	double frac = (double)c->r->nprobes / (double)c->bound;
	dp_progress_report(c->p, phase, frac < 1 ? frac : 0.99);
	if (dp_progress_canceled(c->p))
		return dp_err_set(c->err, DP_ECANCELED, NULL, 0, 0,
				  "fit search canceled");
	/* the algorithm sees the cancel flag, not the progress line: the
	 * search reports its own */
	dp_progress inner = {NULL, NULL, c->p ? c->p->cancel : NULL};
	dp_fit_probe pr;
	dp_status st = c->run ? c->run(c->run_ctx, m, &inner, &pr, c->err)
			      : dpi_fit_rerun(c->g, m, c->algo, c->ao, &inner,
					      &pr, c->err);
	if (st)
		return st;
	pr.cap = cap;
	*feasible = pr.feasible;
	st = add_probe(c, &pr);
	if (!st && pr.feasible)
		st = keep_answer(c, m, &pr);
	return st;
}

static int max_pin(const dp_graph *g)
{
	int mp = -1;
	for (uint32_t u = 0; u < g->nops; u++)
		if (g->ops[u].pin > mp)
			mp = g->ops[u].pin;
	return mp;
}

/* The K a probe may take are the multiples of this: the T of an
 * algorithm that takes --tp (it must divide K), else 1. */
static int k_step(const dp_algo *algo, const dp_algo_opts *ao)
{
	return algo->takes_tp && ao->tp > 1 ? ao->tp : 1;
}

/* Searches K = t j over j = 1, 2, 4, ..: K that the algorithm's fixed
 * options refuse are never probed. */
static dp_status fit_k(fit_ctx *c, const dp_machine *m0, int max_k)
{
	int t = k_step(c->algo, c->ao);
	c->r->k_step = t;
	int kmin = max_pin(c->g) + 1;
	if (kmin < 1)
		kmin = 1;
	if (kmin > max_k)
		return dp_err_set(c->err, DP_EINPUT, NULL, 0, 0,
				  "the graph pins an op to device %d, beyond "
				  "the largest K to try (%d)",
				  kmin - 1, max_k);
	int jmin = (kmin + t - 1) / t, jmax = max_k / t;
	if (jmin > jmax)
		return dp_err_set(c->err, DP_EINPUT, NULL, 0, 0,
				  "%s with a tensor-parallel size of %d runs "
				  "only on K that %d divides, and none is "
				  "between %d and the largest K to try (%d)",
				  c->algo->name, t, t, kmin, max_k);
	dp_machine m;
	dp_status st = dp_machine_copy(&m, m0, c->err);
	if (st)
		return st;
	int last_bad = jmin - 1, j = jmin;
	bool ok = false;
	for (;;) {
		if ((st = dp_machine_resize(&m, t * j, c->err)) ||
		    (st = probe(c, &m, m.cap[0], &ok)))
			goto out;
		if (ok || j == jmax)
			break;
		last_bad = j;
		j = j > jmax / 2 ? jmax : 2 * j;
	}
	/* every K between the last infeasible step and the first feasible */
	for (int i = last_bad + 1; ok && i < j; i++) {
		bool oki = false;
		if ((st = dp_machine_resize(&m, t * i, c->err)) ||
		    (st = probe(c, &m, m.cap[0], &oki)))
			goto out;
		if (oki)
			break;
	}
out:
	dp_machine_free(&m);
	return st;
}

/* Sets the searched cap(s) of m to v. */
static void set_cap(dp_machine *m, int dev, int64_t v)
{
	if (dev >= 0) {
		m->cap[dev] = v;
		return;
	}
	for (int d = 0; d < m->k; d++)
		m->cap[d] = v;
}

static int64_t resolution(int64_t hi)
{
	int64_t pct = hi / 100;
	return pct > MIB ? pct : MIB;
}

/* The smallest size >= v that reads exactly as dp_units_fmt_bytes prints
 * it (3 significant digits). */
static int64_t shown_up(int64_t v)
{
	double step = (double)v;
	int64_t r = dp_units_round_bytes(step);
	while (r < v) {
		step *= 1.001;
		r = dp_units_round_bytes(step);
	}
	return r;
}

/* The peak of the whole graph on device 0 (its one-device reference). */
static dp_status one_device_peak(fit_ctx *c, const dp_machine *m, int64_t *peak)
{
	dp_machine m1;
	dp_status st = dp_machine_copy(&m1, m, c->err);
	if (st)
		return st;
	for (int d = 0; d < m1.k; d++)
		m1.cap[d] = DP_CAP_UNLIMITED;
	int32_t *zero = calloc(c->g->nops ? c->g->nops : 1, sizeof *zero);
	if (!zero) {
		dp_machine_free(&m1);
		return dpi_nomem(c->err, "searching what fits");
	}
	dp_plan plan;
	st = dp_plan_evaluate(c->g, &m1, zero, c->ao->contention, &plan,
			      c->err);
	free(zero);
	dp_machine_free(&m1);
	if (st)
		return st;
	*peak = plan.sim.dev[0].peak_bytes;
	dp_plan_free(&plan);
	return DP_OK;
}

static dp_status fit_cap(fit_ctx *c, const dp_machine *m0, int dev)
{
	dp_machine m;
	dp_status st = dp_machine_copy(&m, m0, c->err);
	if (st)
		return st;
	int64_t lo = c->algo->strategize ? 0 : dp_fit_min_cap(c->g);
	int64_t hi = 0;
	if ((st = one_device_peak(c, &m, &hi)))
		goto out;
	/* the cap whose usable part (machine.h: less the reserve) holds
	 * that peak */
	hi = (int64_t)ceil(((double)hi + (double)m.reserve_bytes) /
			   (1.0 - m.reserve_frac));
	if (hi < lo)
		hi = lo;
	if (hi < MIB)
		hi = MIB;
	hi = shown_up(hi);
	c->r->lower = lo;
	/* a feasible upper end: the one-device peak, doubled while the
	 * algorithm still fails there */
	bool ok = false, lo_probed = false;
	for (int i = 0; i <= HI_DOUBLINGS; i++) {
		set_cap(&m, dev, hi);
		if ((st = probe(c, &m, hi, &ok)))
			goto out;
		if (ok)
			break;
		lo = hi; /* probed infeasible */
		lo_probed = true;
		if (hi > DP_MAX_GRAPH_BYTES)
			break;
		hi *= 2;
	}
	if (!ok)
		goto out;
	/* lo: infeasible (probed) or the bound no plan beats (lo - 1 is
	 * infeasible); hi: feasible (probed) */
	int64_t bad = lo_probed ? lo : lo - 1;
	while (hi - bad > resolution(hi)) {
		int64_t half = bad + (hi - bad) / 2;
		/* a size that reads exactly as it is printed, so that the
		 * cap a person types from the answer is the one probed */
		int64_t mid = dp_units_round_bytes((double)half);
		if (mid <= bad || mid >= hi)
			mid = half;
		if (mid <= bad || mid >= hi)
			break;
		set_cap(&m, dev, mid);
		if ((st = probe(c, &m, mid, &ok)))
			goto out;
		if (ok)
			hi = mid;
		else
			bad = mid;
	}
	c->r->resolution = resolution(hi);
out:
	dp_machine_free(&m);
	return st;
}

dp_status dp_fit_run(const dp_graph *g, const dp_machine *m,
		     const dp_algo *algo, const dp_algo_opts *ao,
		     const dp_fit_opts *fo, const dp_progress *p,
		     dp_fit_result *r, dp_err *err)
{
	return dpi_fit_search(g, m, algo, ao, fo, p, NULL, NULL, r, err);
}

dp_status dpi_fit_search(const dp_graph *g, const dp_machine *m,
			 const dp_algo *algo, const dp_algo_opts *ao,
			 const dp_fit_opts *fo, const dp_progress *p,
			 dpi_fit_prober run, void *run_ctx, dp_fit_result *r,
			 dp_err *err)
{
	dp_err local;
	if (!err)
		err = &local;
	dp_algo_opts def;
	if (!ao) {
		dp_algo_opts_default(&def);
		ao = &def;
	}
	int max_k = fo->max_k ? fo->max_k : DEFAULT_MAX_K;
	if (max_k < 1 || max_k > DP_MAX_DEVICES)
		return dp_err_set(err, DP_EINPUT, NULL, 0, 0,
				  "largest K to try %d: expected 1 to %d",
				  max_k, DP_MAX_DEVICES);
	if (fo->kind == DP_FIT_DEVICE_CAP &&
	    (fo->device < 0 || fo->device >= m->k))
		return dp_err_set(err, DP_EINPUT, NULL, 0, 0,
				  "device %d: expected 0 to %d", fo->device,
				  m->k - 1);
	dp_fit_result res;
	memset(&res, 0, sizeof res);
	res.kind = fo->kind;
	res.k_step = 1;
	res.device = fo->kind == DP_FIT_DEVICE_CAP ? fo->device : -1;
	fit_ctx c = {.g = g,
		     .algo = algo,
		     .ao = ao,
		     .p = p,
		     .r = &res,
		     .bound = fo->kind == DP_FIT_K ? 2 * max_k : 64,
		     .run = run,
		     .run_ctx = run_ctx,
		     .err = err};
	dp_status st = fo->kind == DP_FIT_K ? fit_k(&c, m, max_k)
					    : fit_cap(&c, m, res.device);
	if (st) {
		dp_fit_result_free(&res);
		return st;
	}
	dp_progress_report(p, "fit", 1.0);
	*r = res;
	return DP_OK;
}

void dp_fit_result_free(dp_fit_result *r)
{
	if (!r)
		return;
	free(r->caps);
	free(r->probes);
	memset(r, 0, sizeof *r);
}

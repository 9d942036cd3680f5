/* explain.c - why a plan takes what it takes (see explain.h): the shares of
 * the step read off the simulated schedule, the tensors that hold each
 * device's peak, and the changes rerun one at a time. */
#include "dnnpart/explain.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dnnpart/units.h"

#include "internal/nomem.h"

static const char *const bound_names[DP_XB_COUNT] = {
	"compute", "communication", "device waits",
	"bubble",  "work",	    "memory"};

const char *dp_explain_bound_name(dp_explain_bound b)
{
	return (unsigned)b < DP_XB_COUNT ? bound_names[b] : "";
}

void dp_explain_free(dp_explain *x)
{
	if (!x)
		return;
	for (int d = 0; d < x->k && x->dev; d++)
		free(x->dev[d].top);
	free(x->dev);
	free(x->changes);
	memset(x, 0, sizeof *x);
}

static void set_share(dp_explain *x, dp_explain_bound b, double us)
{
	x->share[b].us = us;
	x->share[b].share = x->makespan > 0 ? us / x->makespan : 0;
}

/* The schedule's critical path, hop by hop: the time of its ops, and the
 * gap before each op by why it started when it did (a transfer, a busy
 * device); the three add up to the end of its last op, the makespan. */
static void critical_shares(const dp_plan *plan, dp_explain *x)
{
	const dp_sim_result *r = &plan->sim;
	double compute = 0, comm = 0, wait = 0, prev_end = 0;
	for (uint32_t i = 0; i < r->cp_len; i++) {
		uint32_t u = r->cp_ops[i];
		double gap = r->start[u] - prev_end;
		gap = gap > 0 ? gap : 0;
		if (r->cp_cause[i] == DP_HOP_TRANSFER)
			comm += gap;
		else
			wait += gap; /* a busy device (or a late start) */
		compute += r->end[u] - r->start[u];
		prev_end = r->end[u];
	}
	x->cp_ops = r->cp_len;
	set_share(x, DP_XB_COMPUTE, compute);
	set_share(x, DP_XB_COMM, comm);
	set_share(x, DP_XB_DEVICE, wait);
	x->bound = DP_XB_COMPUTE;
	if (comm > x->share[x->bound].us)
		x->bound = DP_XB_COMM;
	if (wait > x->share[x->bound].us)
		x->bound = DP_XB_DEVICE;
}

static int cmp_tensor(const void *a, const void *b)
{
	const dp_explain_tensor *x = a, *y = b;
	if (x->bytes != y->bytes)
		return x->bytes < y->bytes ? 1 : -1;
	return (x->op > y->op) - (x->op < y->op);
}

/* Device d at its peak: by role, and the top largest live tensors. */
static dp_status device_peak(const dp_graph *pg, const dp_plan *plan, int d,
			     int top, dp_explain_device *e, dp_err *err)
{
	const dp_sim_result *r = &plan->sim;
	const dp_device_stats *s = &r->dev[d];
	e->peak_bytes = s->peak_bytes;
	e->cap_bytes = s->cap_bytes;
	e->peak_time = s->peak_time;
	for (int i = 0; i < DP_MEMR_COUNT; i++)
		e->by_role[i] = 0;
	uint32_t lo = r->live_off ? r->live_off[d] : 0;
	uint32_t hi = r->live_off ? r->live_off[d + 1] : 0;
	e->nlive = hi - lo;
	dp_explain_tensor *all = malloc((size_t)(hi - lo + 1) * sizeof *all);
	if (!all)
		return dpi_nomem(err, "explaining a plan");
	for (uint32_t i = lo; i < hi; i++) {
		const dp_live_tensor *t = &r->live[i];
		dp_explain_tensor *o = &all[i - lo];
		o->op = t->op;
		o->kind = (dp_mem_kind)t->kind;
		o->role = dp_plan_live_role(pg, t);
		o->bytes = t->bytes;
		e->by_role[o->role] += t->bytes;
	}
	qsort(all, hi - lo, sizeof *all, cmp_tensor);
	e->ntop = (int)(hi - lo) < top ? (int)(hi - lo) : top;
	e->top_bytes = 0;
	for (int i = 0; i < e->ntop; i++)
		e->top_bytes += all[i].bytes;
	e->top = all; /* the first ntop are the ones shown */
	return DP_OK;
}

dp_status dp_explain_plan(const dp_graph *g, const dp_machine *m,
			  const dp_algo *algo, const dp_algo_opts *o,
			  const dp_plan *plan, const dp_explain_opts *eo,
			  const dp_progress *p, dp_explain *out, dp_err *err)
{
	memset(out, 0, sizeof *out);
	const dp_sim_result *r = &plan->sim;
	if (!r->dev || (!r->cp_len && plan->nops))
		return dp_err_set(err, DP_EINPUT, NULL, 0, 0,
				  "explain: the plan was simulated without "
				  "detail");
	dp_explain x;
	memset(&x, 0, sizeof x);
	x.makespan = r->makespan;
	x.feasible = plan->feasible;
	x.k = plan->k;
	for (int b = 0; b < DP_XB_COUNT; b++)
		x.share[b] = (dp_explain_share){-1, -1};
	critical_shares(plan, &x);
	double bubble = dp_plan_bubble(plan, -1);
	if (bubble >= 0)
		set_share(&x, DP_XB_BUBBLE, bubble * x.makespan);
	x.busiest = 0;
	for (int d = 1; d < plan->k; d++)
		if (r->dev[d].busy_us > r->dev[x.busiest].busy_us)
			x.busiest = d;
	set_share(&x, DP_XB_WORK, plan->k ? r->dev[x.busiest].busy_us : 0);
	x.dev = calloc((size_t)(plan->k ? plan->k : 1), sizeof *x.dev);
	if (!x.dev)
		return dpi_nomem(err, "explaining a plan");
	int top = eo && eo->top > 0 ? eo->top : 5;
	const dp_graph *pg = dp_plan_graph(plan, g);
	dp_status st = DP_OK;
	for (int d = 0; d < plan->k && !st; d++)
		st = device_peak(pg, plan, d, top, &x.dev[d], err);
	if (!st && eo && eo->changes)
		st = dp_explain_changes(g, m, algo, o, plan, eo, p, &x, err);
	if (!st)
		*out = x; /* out owns the arrays now */
	else
		dp_explain_free(&x);
	return st;
}

/* ---- changes: one rerun each ---- */

/* What every rerun of the changes shares: the graph and options, the
 * plan's makespan and verdict to compare with, where errors go. */
typedef struct xrun {
	const dp_graph *g;
	const dp_algo_opts *o;
	const dp_progress *p;
	double makespan;
	bool feasible;
	dp_err *err;
} xrun;

/* Reruns algo on m2 (run's graph and options) into change c. */
static dp_status rerun(const xrun *run, const dp_machine *m2,
		       const dp_algo *algo, dp_explain_change *c)
{
	const dp_progress *p = run->p;
	snprintf(c->algo, sizeof c->algo, "%s", algo->name);
	dp_progress_report(p, c->what, -1);
	/* the algorithm sees the cancel flag, not the progress line */
	dp_progress inner = {NULL, NULL, p ? p->cancel : NULL};
	dp_plan q;
	dp_err e;
	dp_err_clear(&e);
	c->status = dp_plan_run(run->g, m2, algo, run->o, &inner, &q, &e);
	if (c->status == DP_ECANCELED || c->status == DP_ENOMEM) {
		if (run->err)
			*run->err = e;
		return c->status;
	}
	if (c->status) {
		dp_err_format(&e, c->err, sizeof c->err);
		return DP_OK;
	}
	c->makespan = q.sim.makespan;
	c->feasible = q.feasible;
	c->worst = dp_plan_worst_device(&q);
	c->over_bytes = c->worst >= 0 ? q.sim.dev[c->worst].peak_bytes -
						q.sim.dev[c->worst].cap_bytes
				      : 0;
	snprintf(c->label, sizeof c->label, "%s", q.strategy);
	/* faster: by more than 0.1 %, not by rounding */
	c->helps = run->feasible ? c->feasible &&
					   c->makespan < run->makespan * 0.999
				 : c->feasible;
	dp_plan_free(&q);
	return DP_OK;
}

static int cmp_change(const void *a, const void *b)
{
	const dp_explain_change *x = a, *y = b;
	if (x->helps != y->helps)
		return x->helps ? -1 : 1;
	if ((x->status == DP_OK) != (y->status == DP_OK))
		return x->status == DP_OK ? -1 : 1;
	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	if (x->makespan != y->makespan)
		return x->makespan < y->makespan ? -1 : 1;
	return strcmp(x->what, y->what);
}

static const char *const default_algos[] = {"dp",	"zero",	    "gpipe",
					    "1f1b",	"megatron", "best"};

/* The cap every device would need: the largest peak (with its reserve),
 * rounded up to a whole MiB. */
static int64_t needed_cap(const dp_plan *plan)
{
	int64_t need = 0;
	for (int d = 0; d < plan->k; d++) {
		const dp_device_stats *s = &plan->sim.dev[d];
		int64_t b = s->peak_bytes + s->reserve_bytes;
		need = b > need ? b : need;
	}
	int64_t mib = (int64_t)1 << 20;
	return (need + mib - 1) / mib * mib;
}

dp_status dp_explain_changes(const dp_graph *g, const dp_machine *m,
			     const dp_algo *algo, const dp_algo_opts *o,
			     const dp_plan *plan, const dp_explain_opts *eo,
			     const dp_progress *p, dp_explain *x, dp_err *err)
{
	if (!algo)
		algo = dp_algo_find(plan->algo);
	const char *const *names = eo && eo->algos ? eo->algos : default_algos;
	size_t nnames = eo && eo->algos
				? eo->nalgos
				: sizeof default_algos / sizeof default_algos[0];
	bool capped = false;
	for (int d = 0; d < m->k; d++)
		capped |= m->cap[d] != DP_CAP_UNLIMITED;
	size_t most = nnames + 3;
	dp_explain_change *ch = calloc(most, sizeof *ch);
	if (!ch)
		return dpi_nomem(err, "explaining a plan");
	free(x->changes);
	x->changes = ch;
	x->nchanges = 0;
	dp_machine m2;
	dp_status st = DP_OK;
	char a[32];
	xrun run = {g, o, p, x->makespan, x->feasible, err};
	/* one more device, as the last one */
	if (algo && m->k < DP_MAX_DEVICES &&
	    !(st = dp_machine_copy(&m2, m, err))) {
		st = dp_machine_resize(&m2, m->k + 1, err);
		dp_explain_change *c = &ch[x->nchanges++];
		c->kind = DP_XC_DEVICE;
		snprintf(c->what, sizeof c->what, "K=%d (one more device)",
			 m->k + 1);
		if (!st)
			st = rerun(&run, &m2, algo, c);
		dp_machine_free(&m2);
	}
	/* caps raised to the largest peak (when it does not fit), and lifted:
	 * what the caps cost */
	for (int lift = x->feasible ? 1 : 0; algo && capped && lift < 2 && !st;
	     lift++) {
		if ((st = dp_machine_copy(&m2, m, err)))
			break;
		int64_t cap = lift ? DP_CAP_UNLIMITED : needed_cap(plan);
		for (int d = 0; d < m2.k; d++)
			if (lift || (m2.cap[d] != DP_CAP_UNLIMITED &&
				     m2.cap[d] < cap))
				m2.cap[d] = cap;
		dp_explain_change *c = &ch[x->nchanges++];
		c->kind = DP_XC_CAP;
		if (lift)
			snprintf(c->what, sizeof c->what, "no caps");
		else
			snprintf(c->what, sizeof c->what,
				 "caps %s (the largest peak)",
				 dp_units_fmt_bytes(cap, a, sizeof a));
		st = rerun(&run, &m2, algo, c);
		dp_machine_free(&m2);
		if (!st && lift && c->status == DP_OK) {
			double cost = x->makespan - c->makespan;
			set_share(x, DP_XB_MEMORY, cost > 0 ? cost : 0);
		}
	}
	/* another strategy on the same machine */
	for (size_t i = 0; i < nnames && !st; i++) {
		const dp_algo *b = dp_algo_find(names[i]);
		if (!b || b == algo)
			continue;
		dp_explain_change *c = &ch[x->nchanges++];
		c->kind = DP_XC_STRATEGY;
		snprintf(c->what, sizeof c->what, "algo %s", b->name);
		st = rerun(&run, m, b, c);
	}
	if (st)
		return st;
	qsort(ch, (size_t)x->nchanges, sizeof *ch, cmp_change);
	return DP_OK;
}

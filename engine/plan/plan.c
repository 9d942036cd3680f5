/* plan.c - a placement with its simulated schedule and metrics (see plan.h).
 *
 * dp_plan_run() times an algorithm, checks that what it returned is a valid
 * placement (a broken algorithm is an internal error, not a bad plan), and
 * simulates it with detail; dp_plan_evaluate() simulates a given placement.
 * Both add the bounds (docs/simulator.md: LB, xLB, speedup) and whether the
 * whole graph would fit on device 0 alone.
 */
#include "dnnpart/plan.h"
#include "internal/algo_int.h"
#include "internal/best_all.h"
#include "internal/clock.h"
#include "internal/nomem.h"
#include "internal/pipeline.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* An algorithm's placement must put every op on a device, honour pins and
 * keep colocation groups together (algo.h); anything else is a bug in the
 * algorithm, reported with its name and the op. */
static dp_status check_algo_placement(const dp_graph *g, const dp_machine *m,
				      const char *algo, const int32_t *pl,
				      dp_err *err)
{
	for (uint32_t u = 0; u < g->nops; u++) {
		if (pl[u] < 0 || pl[u] >= m->k)
			return dp_err_set(err, DP_EINTERNAL, NULL, 0, 0,
					  "algorithm '%s' placed op '%s' on "
					  "device %d; expected a device in "
					  "0..%d",
					  algo, dp_graph_op_name(g, u), pl[u],
					  m->k - 1);
		if (g->ops[u].pin >= 0 && pl[u] != g->ops[u].pin)
			return dp_err_set(err, DP_EINTERNAL, NULL, 0, 0,
					  "algorithm '%s' placed op '%s' on "
					  "device %d, but it is pinned to "
					  "device %d",
					  algo, dp_graph_op_name(g, u), pl[u],
					  g->ops[u].pin);
	}
	for (uint32_t c = 0; c < g->ngroups; c++) {
		uint32_t lo = g->group_off[c], hi = g->group_off[c + 1];
		for (uint32_t i = lo + 1; i < hi; i++) {
			uint32_t a = g->group_ops[lo], b = g->group_ops[i];
			if (pl[a] != pl[b])
				return dp_err_set(
					err, DP_EINTERNAL, NULL, 0, 0,
					"algorithm '%s' split colocation group "
					"'%s': op '%s' is on device %d but op "
					"'%s' on device %d",
					algo,
					dp_graph_str(g, g->group_label[c]),
					dp_graph_op_name(g, a), pl[a],
					dp_graph_op_name(g, b), pl[b]);
		}
	}
	return DP_OK;
}

/* Peak of device 0 when it runs every op (the one-device reference). The
 * schedule of a placement that is all on device 0 already is that run. */
static dp_status one_device_peak(dp_sim *s, const dp_graph *g,
				 const int32_t *pl, const dp_sim_result *r,
				 int64_t *peak, dp_err *err)
{
	bool all0 = true;
	for (uint32_t u = 0; u < g->nops && all0; u++)
		all0 = pl[u] == 0;
	if (all0) {
		*peak = r->dev[0].peak_bytes;
		return DP_OK;
	}
	int32_t *zero = calloc(g->nops ? g->nops : 1, sizeof *zero);
	if (!zero)
		return dpi_nomem(err, "allocating %s for a plan", "the one-device placement");
	dp_sim_result r1;
	memset(&r1, 0, sizeof r1);
	dp_sim_opts o = {.contention = DP_CONT_PORT, .detail = false};
	dp_status st = dp_sim_run(s, zero, &o, &r1, err);
	if (!st)
		*peak = r1.dev[0].peak_bytes;
	dp_sim_result_free(&r1);
	free(zero);
	return st;
}

/* Simulates pl (taken over by the plan on success, freed on failure) on g
 * and fills *plan. user is the graph the user gave: for a lowered graph the
 * one-device reference is user on device 0 (NULL: g itself). */
static dp_status plan_simulate(const dp_graph *g, const dp_graph *user,
			       const dp_machine *m, int32_t *pl,
			       const char *algo, dp_contention c,
			       double plan_ms, dp_plan *plan, dp_err *err)
{
	dp_err local;
	if (!err)
		err = &local;
	dp_plan p;
	memset(&p, 0, sizeof p);
	dp_sim *s = dp_sim_new(g, m, err);
	if (!s) {
		free(pl);
		return err->code;
	}
	dp_sim_opts o = {.contention = c, .detail = true};
	dp_status st = dp_sim_run(s, pl, &o, &p.sim, err);
	if (!st && !user)
		st = one_device_peak(s, g, pl, &p.sim, &p.one_device_peak, err);
	dp_sim_free(s);
	if (!st && user) {
		/* the user's graph alone on device 0: the reference a
		 * strategy is measured against */
		s = dp_sim_new(user, m, err);
		if (!s)
			st = err->code;
		int32_t *zero = NULL;
		if (!st &&
		    !(zero = calloc(user->nops ? user->nops : 1, sizeof *zero)))
			st = dpi_nomem(err, "allocating %s for a plan", "the one-device placement");
		dp_sim_result r1;
		memset(&r1, 0, sizeof r1);
		dp_sim_opts o1 = {.contention = DP_CONT_PORT, .detail = false};
		if (!st)
			st = dp_sim_run(s, zero, &o1, &r1, err);
		if (!st)
			p.one_device_peak = r1.dev[0].peak_bytes;
		dp_sim_result_free(&r1);
		free(zero);
		dp_sim_free(s);
	}
	if (!st)
		st = dp_sim_bounds_checked(g, m, &p.bounds, err);
	if (!st)
		st = dp_max_load(g, m, pl, NULL, &p.max_load, err);
	if (!st && user) {
		dp_bounds ub;
		st = dp_sim_bounds_checked(user, m, &ub, err);
		p.bounds.one_device_us = ub.one_device_us;
	}
	if (st) {
		dp_sim_result_free(&p.sim);
		free(pl);
		return st;
	}
	p.nops = g->nops;
	p.k = m->k;
	p.placement = pl;
	snprintf(p.algo, sizeof p.algo, "%s", algo);
	p.contention = c;
	p.plan_ms = plan_ms;
	p.xlb = p.bounds.lb_us > 0 ? p.sim.makespan / p.bounds.lb_us : 1.0;
	p.speedup = p.sim.makespan > 0 ? p.bounds.one_device_us / p.sim.makespan
				       : 1.0;
	p.feasible = p.sim.feasible;
	p.one_device_fits = p.one_device_peak <= dp_machine_usable_cap(m, 0);
	*plan = p;
	return DP_OK;
}

/* Lowers s and simulates it; algo names the plan. */
static dp_status plan_strategy(const dp_graph *g, const dp_machine *m,
			       const dp_strategy *s, const char *algo,
			       dp_contention c, const dp_progress *p,
			       double plan_ms, dp_plan *plan, dp_err *err)
{
	if (s->kind == DP_STRAT_PLACEMENT) {
		dp_status st = dp_strategy_check(g, m, s, err);
		if (st)
			return st;
		int32_t *pl =
			malloc((size_t)(g->nops ? g->nops : 1) * sizeof *pl);
		if (!pl)
			return dpi_nomem(err, "allocating %s for a plan", "the placement");
		if (g->nops)
			memcpy(pl, s->placement, (size_t)g->nops * sizeof *pl);
		return plan_simulate(g, NULL, m, pl, algo, c, plan_ms, plan,
				     err);
	}
	dp_lowered low;
	memset(&low, 0, sizeof low);
	dp_status st = dp_strategy_lower(g, m, s, p, &low, err);
	if (st)
		return st;
	dp_plan q;
	st = plan_simulate(low.g, g, m, low.placement, algo, c, plan_ms, &q,
			   err);
	low.placement = NULL; /* taken over or freed by plan_simulate */
	if (st) {
		dp_lowered_free(&low);
		return st;
	}
	q.kind = s->kind;
	q.steady_us = dpi_pipe_steady_us(g, s, low.source, q.placement, &q.sim);
	snprintf(q.strategy, sizeof q.strategy, "%s", s->label);
	q.lowered = low.g;
	q.source = low.source;
	q.micro = low.micro;
	q.strat = malloc(sizeof *q.strat);
	if (!q.strat || (st = dp_strategy_copy(q.strat, s, err))) {
		free(q.strat);
		q.strat = NULL;
		dp_plan_free(&q);
		return st ? st : dpi_nomem(err, "allocating %s for a plan", "the strategy");
	}
	*plan = q;
	return DP_OK;
}

/* dp_plan_run() of an algorithm that returns a strategy. */
static dp_status run_strategy(const dp_graph *g, const dp_machine *m,
			      const dp_machine *am, const dp_algo *algo,
			      const dp_algo_opts *o, const dp_progress *p,
			      dp_plan *plan, dp_err *err)
{
	dp_status st = dp_algo_check_pins(g, m, err);
	if (st)
		return st;
	dp_strategy s;
	dp_strategy_init(&s);
	double t0 = dpi_now_s();
	st = algo->strategize(g, am, o, p, &s, err);
	double ms = 1e3 * (dpi_now_s() - t0);
	if (!st && s.nops != g->nops)
		st = dp_err_set(err, DP_EINTERNAL, NULL, 0, 0,
				"algorithm '%s' made a strategy for %u ops; "
				"the graph has %u",
				algo->name, s.nops, g->nops);
	if (!st) {
		snprintf(s.algo, sizeof s.algo, "%s", algo->name);
		/* the user's buckets, unless the algorithm chose one reduce
		 * per gradient (tofu past 64 devices, algo_tofu.c) */
		if (s.bucket != 0)
			s.bucket = o->bucket;
		st = plan_strategy(g, m, &s, algo->name, o->contention, p, ms,
				   plan, err);
	}
	dp_strategy_free(&s);
	return st;
}

/* The machine an algorithm plans for: m itself, or with a reserve
 * (machine.h) a copy whose caps are what a plan may use and whose reserve
 * is 0, so that every algorithm meets cap - reserve without knowing of
 * it. *eff is set to m or to tmp (then to free). */
static dp_status usable_machine(const dp_machine *m, dp_machine *tmp,
				const dp_machine **eff, dp_err *err)
{
	*eff = m;
	if (!dp_machine_has_reserve(m))
		return DP_OK;
	dp_status st = dp_machine_copy(tmp, m, err);
	if (st)
		return st;
	for (int d = 0; d < m->k; d++)
		tmp->cap[d] = dp_machine_usable_cap(m, d);
	tmp->reserve_bytes = 0;
	tmp->reserve_frac = 0;
	*eff = tmp;
	return DP_OK;
}

static dp_status plan_run(const dp_graph *g, const dp_machine *m,
			  const dp_machine *am, const dp_algo *algo,
			  const dp_algo_opts *o, const dp_progress *p,
			  dp_plan *plan, dp_err *err);

dp_status dp_plan_run(const dp_graph *g, const dp_machine *m,
		      const dp_algo *algo, const dp_algo_opts *o,
		      const dp_progress *p, dp_plan *plan, dp_err *err)
{
	dp_machine tmp;
	const dp_machine *am;
	/* best is best of everything: its placement search and every
	 * strategy (best_all.c), unless it runs inside that or for the
	 * throughput objective, which only placements serve */
	if (algo == dp_algo_find("best") && o && !o->placements_only &&
	    o->objective == DP_OBJ_STEP)
		return dpi_best_all(g, m, algo, o, p, plan, err);
	if (algo == dp_algo_find("best") && !o) {
		dp_algo_opts def;
		dp_algo_opts_default(&def);
		return dpi_best_all(g, m, algo, &def, p, plan, err);
	}
	dp_status st = usable_machine(m, &tmp, &am, err);
	if (st)
		return st;
	st = plan_run(g, m, am, algo, o, p, plan, err);
	if (am != m)
		dp_machine_free(&tmp);
	return st;
}

/* dp_plan_run with am, the machine the algorithm sees; m is simulated. */
static dp_status plan_run(const dp_graph *g, const dp_machine *m,
			  const dp_machine *am, const dp_algo *algo,
			  const dp_algo_opts *o, const dp_progress *p,
			  dp_plan *plan, dp_err *err)
{
	dp_algo_opts def;
	o = dpi_algo_opts_or_default(o, &def);
	if (algo->strategize)
		return run_strategy(g, m, am, algo, o, p, plan, err);
	/* the algorithm writes what it proves into the plan's own record */
	dp_algo_opts mine = *o;
	dp_algo_bound proof;
	memset(&proof, 0, sizeof proof);
	mine.bound = &proof;
	dp_algo_origin origin;
	memset(&origin, 0, sizeof origin);
	mine.origin = &origin;
	int32_t *pl = malloc((size_t)(g->nops ? g->nops : 1) * sizeof *pl);
	if (!pl)
		return dpi_nomem(err, "allocating %s for a plan", "the placement");
	/* an algorithm that forgets an op is caught by the check below */
	for (uint32_t u = 0; u < g->nops; u++)
		pl[u] = -1;
	double t0 = dpi_now_s();
	dp_status st = dp_algo_place(algo, g, am, &mine, p, pl, err);
	double ms = 1e3 * (dpi_now_s() - t0);
	if (!st)
		st = check_algo_placement(g, m, algo->name, pl, err);
	if (st) {
		free(pl);
		return st;
	}
	st = plan_simulate(g, NULL, m, pl, algo->name, o->contention, ms, plan,
			   err);
	if (!st) {
		plan->proof = proof;
		plan->origin = origin;
	}
	return st;
}

dp_status dp_plan_evaluate(const dp_graph *g, const dp_machine *m,
			   const int32_t *placement, dp_contention c,
			   dp_plan *plan, dp_err *err)
{
	int32_t *pl = malloc((size_t)(g->nops ? g->nops : 1) * sizeof *pl);
	if (!pl)
		return dpi_nomem(err, "allocating %s for a plan", "the placement");
	if (g->nops)
		memcpy(pl, placement, (size_t)g->nops * sizeof *pl);
	return plan_simulate(g, NULL, m, pl, "eval", c, 0, plan, err);
}

dp_status dp_plan_evaluate_strategy(const dp_graph *g, const dp_machine *m,
				    const dp_strategy *s, dp_contention c,
				    const dp_progress *p, dp_plan *plan,
				    dp_err *err)
{
	/* a given strategy, as a given placement: "eval"; the strategy keeps
	 * the name of the algorithm that made it */
	return plan_strategy(g, m, s, "eval", c, p, 0, plan, err);
}

dp_status dp_plan_run_all(const dp_graph *g, const dp_machine *m,
			  const dp_algo *const *algos, size_t n,
			  const dp_algo_opts *o, const dp_progress *p,
			  const dp_run_hooks *hooks)
{
	static const dp_run_hooks none = {NULL, NULL, NULL};
	const dp_run_hooks *h = hooks ? hooks : &none;
	/* what ran, so that best of everything reuses it (best_all.c) */
	dpi_ran *ran = calloc(n ? n : 1, sizeof *ran);
	if (!ran)
		return DP_ENOMEM;
	const dp_algo *best = dp_algo_find("best"), *cands[64];
	dp_status done = DP_OK;
	for (size_t i = 0; i < n && !done; i++) {
		if (dp_progress_canceled(p)) {
			done = DP_ECANCELED;
			break;
		}
		if (h->before)
			h->before(h->ud, i, algos[i]);
		dp_algo_opts def, mine;
		mine = *dpi_algo_opts_or_default(o, &def);
		if (algos[i] == best && i && !mine.candidates) {
			mine.ncandidates = dpi_best_reuse(best, ran, i, cands, 64);
			mine.candidates = cands;
		}
		dp_run_result r;
		memset(&r, 0, sizeof r);
		r.algo = algos[i];
		dp_err err;
		dp_err_clear(&err);
		r.status = dp_plan_run(g, m, algos[i], &mine, p, &r.plan, &err);
		if (r.status != DP_OK)
			dp_err_format(&err, r.msg, sizeof r.msg);
		ran[i] = (dpi_ran){algos[i], r.status == DP_OK,
				   r.status ? 0 : r.plan.sim.makespan,
				   r.status ? 0 : dpi_plan_over(&r.plan)};
		bool canceled = r.status == DP_ECANCELED;
		if (h->after)
			h->after(h->ud, i, &r);
		else
			dp_plan_free(&r.plan);
		if (canceled)
			done = DP_ECANCELED;
	}
	free(ran);
	return done;
}

void dp_plan_free(dp_plan *plan)
{
	if (!plan)
		return;
	free(plan->placement);
	dp_sim_result_free(&plan->sim);
	dp_graph_free(plan->lowered);
	free(plan->source);
	free(plan->micro);
	if (plan->strat) {
		dp_strategy_free(plan->strat);
		free(plan->strat);
	}
	memset(plan, 0, sizeof *plan);
}

int dp_plan_worst_device(const dp_plan *plan)
{
	int worst = -1;
	int64_t over = 0;
	for (int d = 0; d < plan->sim.k; d++) {
		const dp_device_stats *ds = &plan->sim.dev[d];
		if (ds->peak_bytes > ds->cap_bytes &&
		    ds->peak_bytes - ds->cap_bytes > over) {
			over = ds->peak_bytes - ds->cap_bytes;
			worst = d;
		}
	}
	return worst;
}

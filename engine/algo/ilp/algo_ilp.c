/* algo_ilp.c - ilp: an exact MILP placement, solved by COIN-OR CBC.
 *
 * The yardstick for the heuristics on small graphs: a disjunctive
 * scheduling MILP (placement binaries, start times, big-M order binaries,
 * communication on cut edges, conservative memory rows; ilp_model.c and
 * docs/algorithms.md) solved to proven optimality when the time limit
 * allows. A warm start from the best heuristic placement (pardnn, heft,
 * metf, mtopo, priced by the simulator without contention) bounds the
 * horizon and gives CBC a solution from the start, so a stopped solve
 * still returns a placement, with its gap. What was proved goes to
 * dp_algo_opts.bound (the plan's `optimal` and `gap`).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dnnpart/algo.h"
#include "internal/algo_int.h"
#include "internal/clock.h"
#include "internal/ilp.h"

extern const dp_algo dpi_algo_pardnn;
extern const dp_algo dpi_algo_heft;
extern const dp_algo dpi_algo_metf;
extern const dp_algo dpi_algo_mtopo;

typedef struct warm {
	int32_t *pl;
	double *start, *end;
	double makespan; /* simulated without contention */
	bool mem_ok;	 /* meets the model's memory rows */
	bool have;
} warm;

/* The best heuristic placement as the MILP's start: a placement that
 * meets the model's memory rows first, then the shortest makespan without
 * contention (the model's own communication rule). */
static dp_status warm_start(const dp_graph *g, const dp_machine *m,
			    const dp_algo_opts *o, const dp_progress *p,
			    warm *w, dp_err *err)
{
	static const dp_algo *const heur[] = {&dpi_algo_pardnn, &dpi_algo_heft,
					      &dpi_algo_metf, &dpi_algo_mtopo};
	size_t n = (size_t)g->nops + 1;
	int32_t *cand = malloc(n * sizeof *cand);
	dp_sim *s = dp_sim_new(g, m, err);
	dp_sim_result r;
	memset(&r, 0, sizeof r);
	if (!cand || !s) {
		free(cand);
		dp_sim_free(s);
		return s ? dp_err_set(err, DP_ENOMEM, NULL, 0, 0,
				      "out of memory for ilp's warm start")
			 : err->code;
	}
	dp_algo_opts ho = *o;
	ho.bound = NULL;
	dp_sim_opts so = {.contention = DP_CONT_NONE, .skip_memory = true};
	dp_status st = DP_OK;
	for (size_t i = 0; i < sizeof heur / sizeof heur[0]; i++) {
		if ((st = dpi_poll(p, "ilp", "ilp: warm start",
					0.02 * (double)i, err)))
			break;
		dp_err e2;
		dp_err_clear(&e2);
		st = heur[i]->run(g, m, &ho, NULL, cand, &e2);
		if (st == DP_ENOMEM) {
			*err = e2;
			break;
		}
		if (st) { /* a heuristic that fails is just not a start */
			st = DP_OK;
			continue;
		}
		if ((st = dp_sim_run(s, cand, &so, &r, err)))
			break;
		bool ok = dpi_ilp_mem_ok(g, m, cand);
		if (w->have && (w->mem_ok && !ok))
			continue;
		if (w->have && w->mem_ok == ok && r.makespan >= w->makespan)
			continue;
		memcpy(w->pl, cand, (size_t)g->nops * sizeof *cand);
		memcpy(w->start, r.start, (size_t)g->nops * sizeof *r.start);
		memcpy(w->end, r.end, (size_t)g->nops * sizeof *r.end);
		w->makespan = r.makespan;
		w->mem_ok = ok;
		w->have = true;
	}
	dp_sim_result_free(&r);
	dp_sim_free(s);
	free(cand);
	return st;
}

static void set_proof(dp_algo_bound *b, bool optimal, double obj_us,
		      double bound_us)
{
	if (!b)
		return;
	b->has_bound = true;
	b->optimal = optimal;
	b->objective_us = obj_us;
	b->bound_us = bound_us;
	if (optimal)
		b->gap = 0;
	else if (isfinite(bound_us) && obj_us > 0)
		b->gap = bound_us >= obj_us ? 0 : (obj_us - bound_us) / obj_us;
	else
		b->gap = NAN;
}

static dp_status infeasible(dp_err *err)
{
	return dp_err_set(err, DP_EINPUT, NULL, 0, 0,
			  "ilp: no placement meets the memory caps in the "
			  "MILP's memory model (on each device: params, "
			  "outputs and temps of its ops plus the copies it "
			  "receives, all at once); raise the caps or use "
			  "an algorithm that prices memory over time "
			  "(pardnn, metf)");
}

/* One device: every op on it; the makespan is its total work. */
static dp_status one_device(const dp_graph *g, const dp_machine *m,
			    const dp_algo_opts *o, int32_t *placement,
			    dp_err *err)
{
	double work = 0;
	for (uint32_t u = 0; u < g->nops; u++) {
		placement[u] = 0;
		work += g->ops[u].time_us / m->speed[0];
	}
	if (!dpi_ilp_mem_ok(g, m, placement))
		return infeasible(err);
	set_proof(o->bound, true, work, work);
	return DP_OK;
}

typedef struct run {
	warm w;
	ilp_model md;
	int *cols;
	double *vals;
	ilp_answer ans;
} run;

static void run_free(run *r)
{
	free(r->w.pl);
	free(r->w.start);
	free(r->w.end);
	dpi_ilp_free(&r->md);
	free(r->cols);
	free(r->vals);
	free(r->ans.sol);
}

static dp_status ilp_algo_run(const dp_graph *g, const dp_machine *m,
			      const dp_algo_opts *o, const dp_progress *p,
			      int32_t *placement, dp_err *err)
{
	if (o->bound)
		memset(o->bound, 0, sizeof *o->bound);
	if (g->nops > DPI_ILP_MAX_OPS)
		return dp_err_set(err, DP_EINPUT, NULL, 0, 0,
				  "ilp: the graph has %u ops; the exact MILP "
				  "takes at most %u (docs/algorithms.md says "
				  "how far it proves optimality in its time "
				  "limit); use another algorithm",
				  g->nops, DPI_ILP_MAX_OPS);
	dp_status st = dpi_poll(p, "ilp", "ilp", 0, err);
	if (st)
		return st;
	if (m->k == 1 || g->nops == 0)
		return one_device(g, m, o, placement, err);
	double limit = o->time_limit_s > 0 ? o->time_limit_s : 10.0;
	double t0 = dpi_now_s();
	run r;
	memset(&r, 0, sizeof r);
	size_t n = (size_t)g->nops + 1;
	r.w.pl = malloc(n * sizeof *r.w.pl);
	r.w.start = malloc(n * sizeof *r.w.start);
	r.w.end = malloc(n * sizeof *r.w.end);
	if (!r.w.pl || !r.w.start || !r.w.end) {
		st = dp_err_set(err, DP_ENOMEM, NULL, 0, 0,
				"out of memory for ilp on %u ops", g->nops);
		goto out;
	}
	if ((st = warm_start(g, m, o, p, &r.w, err)))
		goto out;
	if ((st = dpi_poll(p, "ilp", "ilp: building the MILP", 0.08, err)))
		goto out;
	if ((st = dpi_ilp_build(&r.md, g, m, r.w.have ? r.w.pl : NULL,
				r.w.makespan, err)))
		goto out;
	size_t nc = (size_t)r.md.lp.ncols + 1;
	r.cols = malloc(nc * sizeof *r.cols);
	r.vals = malloc(nc * sizeof *r.vals);
	r.ans.sol = malloc(nc * sizeof *r.ans.sol);
	if (!r.cols || !r.vals || !r.ans.sol) {
		st = dp_err_set(err, DP_ENOMEM, NULL, 0, 0,
				"out of memory for ilp's MILP (%d columns)",
				r.md.lp.ncols);
		goto out;
	}
	int nstart = 0;
	if (r.w.have && r.w.mem_ok &&
	    (nstart = dpi_ilp_start(&r.md, r.w.pl, r.w.start, r.w.end, r.cols,
				    r.vals)) < 0) {
		st = dp_err_set(err, DP_ENOMEM, NULL, 0, 0,
				"out of memory for ilp's warm start");
		goto out;
	}
	/* the time limit covers the warm start and the build too */
	double left = limit - (dpi_now_s() - t0);
	if ((st = dpi_ilp_solve(&r.md, r.cols, r.vals, nstart,
				left > 0.05 * limit ? left : 0.05 * limit, p,
				&r.ans, err)))
		goto out;
	double sc = r.md.scale;
	/* a bound from a solve cut short before its root LP can be junk */
	double bound =
		isfinite(r.ans.bound) && r.ans.bound >= 0 && !r.ans.infeasible
			? r.ans.bound / sc
			: NAN;
	bool warm_ok = r.w.have && r.w.mem_ok;
	if (r.ans.has_solution) {
		dpi_ilp_placement(&r.md, r.ans.sol, placement);
		set_proof(o->bound, r.ans.optimal, r.ans.obj / sc, bound);
	} else if (warm_ok) {
		/* stopped before CBC took the start: the start stands (it
		 * meets every row, so "infeasible" from a solve cut short is
		 * not believed) */
		memcpy(placement, r.w.pl, (size_t)g->nops * sizeof *placement);
		set_proof(o->bound, false, r.w.makespan, bound);
	} else if (r.ans.infeasible && !r.ans.stopped) {
		st = infeasible(err);
	} else {
		st = dp_err_set(err, DP_EINPUT, NULL, 0, 0,
				"ilp: no placement that meets the MILP's "
				"memory model was found within the time limit "
				"of %g s; try a longer --time-limit",
				limit);
	}
	if (!st)
		dp_progress_report(p, "ilp", 1.0);
out:
	run_free(&r);
	return st;
}

DPI_ALGO_ENTRY(ilp, "ilp",
	       "exact MILP (COIN-OR CBC) of placement and schedule for "
	       "small graphs: optimal or a proven gap; slow, on request",
	       "disjunctive scheduling MILP (Tarnawski et al. NeurIPS "
	       "2020 style), solved by CBC",
	       .run = ilp_algo_run, .on_request = true);

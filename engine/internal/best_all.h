/* best_all.h - best of everything (plan/best_all.c): dp_plan_run() with
 * best runs best's placement search and every strategy and keeps the
 * fastest plan that fits. */
#ifndef DNNPART_INTERNAL_BEST_ALL_H
#define DNNPART_INTERNAL_BEST_ALL_H

#include "dnnpart/plan.h"

/* Runs the candidates of o (o->candidates, or every strategy of "every
 * algorithm" and best's placement search) on g and m, each simulated, and
 * fills plan with the fastest that fits (none fits: the least over); its
 * algo is best's name and its origin says which candidate made it.
 * Candidates whose conditions fail are skipped; when none ran, the first
 * error. DP_ECANCELED, DP_ENOMEM pass through. */
dp_status dpi_best_all(const dp_graph *g, const dp_machine *m,
		       const dp_algo *best, const dp_algo_opts *o,
		       const dp_progress *p, dp_plan *plan, dp_err *err);

/* A row dp_plan_run_all() ran before best: its algorithm, whether it made
 * a plan, and that plan's makespan and overflow (dpi_plan_over). */
typedef struct dpi_ran {
	const dp_algo *algo;
	bool ok;
	double makespan;
	int64_t over;
} dpi_ran;

/* How far plan q is from fitting: its worst device's peak - cap (0: it
 * fits). */
int64_t dpi_plan_over(const dp_plan *q);

/* What best of everything still has to run after the rows ran (nran of
 * them, in a comparison): its placement search, the strategy that did best
 * among them (rerun, to have its plan), and the strategies it would run
 * that were not among them. Returns their number (at most cap). */
size_t dpi_best_reuse(const dp_algo *best, const dpi_ran *ran, size_t nran,
		      const dp_algo **out, size_t cap);

#endif

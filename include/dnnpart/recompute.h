/* recompute.h - `--recompute auto`: the layers to re-run so that a plan
 * fits its caps with the least added time (docs/memory.md).
 *
 * Each layer i (dp_levers_layers) frees save_i bytes when re-run and costs
 * cost_i µs. The choice is a covering knapsack: the least Σ cost_i over
 * the layers whose Σ save_i reaches the bytes the plan is over its caps.
 * dp_recompute_choose solves it by dynamic programming over layers and the
 * memory budget in units (exact when every save_i is a multiple of the
 * unit); dp_recompute_exact solves the same problem exactly in bytes with
 * COIN-OR CBC, the yardstick. dp_recompute_auto runs the plan: without
 * recomputation first, then with the DP's layers, adding what the plan is
 * still over its caps to the need until it fits or every layer is re-run.
 */
#ifndef DNNPART_RECOMPUTE_H
#define DNNPART_RECOMPUTE_H

#include <stdbool.h>
#include <stdint.h>

#include "algo.h"
#include "err.h"
#include "graph.h"
#include "levers.h"
#include "machine.h"

/* The DP's budget resolution: at most this many units of need. */
#define DP_RC_DP_UNITS 4096

/* The least-cost subset of the eligible layers (eligible may be NULL:
 * all) whose save sum reaches need, in units of
 * max(1, ceil(need / DP_RC_DP_UNITS)) bytes (each save rounded down, so
 * the subset's bytes do reach need): pick[i] = 1 for a chosen layer.
 * Returns false, with every eligible layer picked, when all of them do not
 * reach need; *cost (may be NULL) is the picked layers' cost. need <= 0
 * picks nothing. DP_ENOMEM is reported as false with *nomem set. */
bool dp_recompute_choose(uint32_t n, const int64_t *save, const double *cost,
			 const bool *eligible, int64_t need, uint8_t *pick,
			 double *total, bool *nomem);

/* The same problem solved exactly in bytes by CBC (a binary per layer;
 * at most time_limit_s seconds): pick and *total as above. DP_EINPUT when
 * no subset reaches need; the solver's errors pass through (CBC runs in a
 * child process: engine/algo/ilp/ilp_solve.c). *optimal says whether CBC proved its answer optimal. */
dp_status dp_recompute_exact(uint32_t n, const int64_t *save,
			     const double *cost, const bool *eligible,
			     int64_t need, double time_limit_s, uint8_t *pick,
			     double *total, bool *optimal, dp_err *err);

/* What dp_recompute_auto did. */
typedef struct dp_rc_auto {
	uint32_t nlayers;   /* layers of the graph */
	uint32_t neligible; /* of them, the ones full recomputation re-runs */
	uint32_t nchosen;   /* re-run */
	int rounds;	    /* plans run */
	int64_t need_bytes; /* what the last choice had to free */
	double added_us;    /* Σ cost of the re-run layers */
	double full_us;	    /* Σ cost of every eligible layer (full) */
	bool fits;	    /* the last plan met every cap */
} dp_rc_auto;

/* Chooses the layers of g to re-run for lv (its precision and fusion;
 * lv->recompute is taken as auto) so that algo's plan on m fits, and
 * returns the levers with the choice (chosen: recompute auto, rc_sel,
 * rc_chosen) and the graph they make (*out, the caller frees it). ao and p
 * as dp_plan_run's. A plan that fits without recomputation re-runs
 * nothing; one that does not fit with every layer re-run keeps them all
 * (rep->fits false: the caller's plan then reports it). Errors: those of
 * dp_levers_layers, dp_levers_apply and dp_plan_run. */
dp_status dp_recompute_auto(const dp_graph *g, const dp_levers *lv,
			    const dp_machine *m, const dp_algo *algo,
			    const dp_algo_opts *ao, const dp_progress *p,
			    dp_levers *chosen, dp_graph **out, dp_rc_auto *rep,
			    dp_err *err);

#endif

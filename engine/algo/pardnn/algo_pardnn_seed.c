/* algo_pardnn_seed.c - pardnn's other seeds (ours, not in the paper;
 * docs/algorithms.md, "Other seeds").
 *
 * After mapping, other placements are made beside the mapped one:
 *
 * - branches: a METIS partition balanced in each of PD_SEED_WINDOWS time
 *   windows (dpi_metis_windows), which keeps parallel branches (towers,
 *   copies of a network) apart where the paper's critical-path slicing
 *   mixes them. Its phases run only when the simulator scores it better
 *   than the mapped placement. Not made under 8 ops per device (METIS would
 *   leave devices empty).
 * - list: list-scheduling placements, op by op at the earliest start or
 *   finish time, memory-aware under caps (the m-ETF and HEFT schedulers of
 *   algo_metf.c and algo_heft.c). On graphs of few, heavy ops (the
 *   msr-fiddle layer graphs) and under caps they beat path clustering,
 *   which balances paths and then leaves it to the memory phase to undo
 *   the time plan. Made only up to PD_LIST_MAX_OPS ops and while ops x K
 *   is at most PD_LIST_MAX_WORK (a list scheduler costs O(V K log V), and
 *   its phases part of a budget: best runs pardnn for every K' <= K on
 *   small graphs, so a larger graph's seeds cost the explorer seconds), and
 *   their phases always run: a list schedule's refinement and polish are
 *   where it gains, and it often ranks differently after them.
 * - parts: on a graph of independent parts (N copies of a network), each
 *   large part on a group of devices of its own (algo_pardnn_parts.c).
 * - stages: msr-dp's contiguous split (algo_msrdp.c), on graphs of
 *   PD_STAGES_MIN_OPS ops and more while ops x K is at most
 *   PD_LIST_MAX_WORK: on a long unrolled recurrent graph with many devices
 *   (lstm-lm, K=16) its stages beat every other seed. Below that size msr-dp's DP over every ideal can
 *   take seconds on wide graphs (it is bounded by a count of steps); on the
 *   bench's graphs of that size (lstm-lm, gpt2-xl, ParDNN's ResNet) it took
 *   at most 0.27 s of wall time under load.
 * - layers: whole layer units (a layer's forward and backward ops; its
 *   weight gradients apart), moved unit by unit on the simulator
 *   (algo_pardnn_layers.c), on graphs of 2..128 layer units; first in the
 *   table, since it starts from the mapped placement in c->place. Its
 *   phases run only when it beats the mapped placement.
 * - lanes: best's lanes placement (engine/algo/lanes.c: ops follow their main
 *   input, each device's share of each time window kept), where ops x K >
 *   DPI_LANES_MIN_WORK, as in best: on the generated towers it keeps one
 *   tower per device. Its phases run only when it beats the mapped
 *   placement and its makespan is shorter too. PD_SEED_LANES_ANY makes it at any size (tests).
 *
 * Each seed that runs gets the phases after mapping (refinement, memory,
 * polish) quietly (no progress reports, so the phases are still reported
 * once and in order; cancel still works), the branches seed with the
 * mapped placement's simulation budget, the others with seed_budget()'s;
 * the mapped placement runs last, exactly as without other seeds, and the
 * best final plan is kept (a seed must be strictly better than the mapped
 * plan): pardnn with the seeds is never worse than without them. A seed
 * whose maker fails (METIS's own malloc, an error of a scheduler) only
 * means one seed less; cancel and out-of-memory still end the run. Last,
 * on graphs of the list seeds' size, the plan kept is polished once more
 * with a budget of its own (final_polish).
 */
#include <stdlib.h>
#include <string.h>

#include "internal/algo_int.h"
#include "internal/best.h"
#include "internal/pardnn.h"

extern const dp_algo dpi_algo_metf;
extern const dp_algo dpi_algo_heft;
extern const dp_algo dpi_algo_msr_dp;
extern const dp_algo dpi_algo_metis;

#define PD_SEED_WINDOWS 4
#define PD_LIST_MAX_WORK (1u << 18)
#define PD_LIST_MAX_OPS 8192u
#define PD_STAGES_MIN_OPS 4096u
#define PD_EXTRA_WORK 2e6
#define PD_FINAL_WORK 4e6
#define PD_FINAL_MAX 600u

static dp_status seed_branches(pd_ctx *c, int32_t *pl, dp_err *e)
{
	return dpi_metis_windows(c->g, c->m, PD_SEED_WINDOWS, pl, e);
}

/* A placement algorithm of the registry, quietly (cancel still works). */
static dp_status seed_algo(pd_ctx *c, const dp_algo *a, int32_t *pl, dp_err *e)
{
	dp_progress quiet = {NULL, NULL, c->p ? c->p->cancel : NULL};
	dp_algo_opts o = *c->o;
	o.bound = NULL;
	o.origin = NULL;
	o.interim = NULL;
	return a->run(c->g, c->m, &o, &quiet, pl, e);
}

static dp_status seed_metf(pd_ctx *c, int32_t *pl, dp_err *e)
{
	return seed_algo(c, &dpi_algo_metf, pl, e);
}

static dp_status seed_heft(pd_ctx *c, int32_t *pl, dp_err *e)
{
	return seed_algo(c, &dpi_algo_heft, pl, e);
}

static dp_status seed_msrdp(pd_ctx *c, int32_t *pl, dp_err *e)
{
	return seed_algo(c, &dpi_algo_msr_dp, pl, e);
}

static dp_status seed_metis(pd_ctx *c, int32_t *pl, dp_err *e)
{
	return seed_algo(c, &dpi_algo_metis, pl, e);
}

static dp_status seed_lanes(pd_ctx *c, int32_t *pl, dp_err *e)
{
	return dpi_lanes(c->g, c->m, pl, e);
}

static bool branches_apply(const pd_ctx *c)
{
	return c->n >= 8 * (uint32_t)c->k;
}

/* ops x K within PD_LIST_MAX_WORK: a list scheduler costs O(V K log V) */
static bool small_work(const pd_ctx *c)
{
	return (uint64_t)c->n * (uint64_t)c->k <= PD_LIST_MAX_WORK;
}

static bool list_apply(const pd_ctx *c)
{
	return c->n <= PD_LIST_MAX_OPS && small_work(c);
}

static bool parts_apply(const pd_ctx *c)
{
	return c->k >= 2;
}

static bool stages_apply(const pd_ctx *c)
{
	return c->n >= PD_STAGES_MIN_OPS && small_work(c);
}

/* best's large graphs (DPI_LANES_MIN_WORK), where lanes wins there */
static bool lanes_apply(const pd_ctx *c)
{
	return c->k >= 2 && (double)c->n * c->k > DPI_LANES_MIN_WORK;
}

typedef struct pd_seed {
	unsigned bit; /* PD_SEED_* */
	unsigned any; /* a which bit that makes it regardless of apply, or 0 */
	bool (*apply)(const pd_ctx *c);
	dp_status (*make)(pd_ctx *c, int32_t *pl, dp_err *e);
	bool must_win; /* its phases run only when it beats the mapped one */
	bool faster;   /* ... and only when its makespan is shorter too */
	bool full;     /* its phases get the whole budget, else a smaller one */
} pd_seed;

static const pd_seed pd_seeds[] = {
	/* first: it starts from the mapped placement in c->place */
	{PD_SEED_LAYERS, 0, parts_apply, dpi_pd_seed_layers, true, false,
	 false},
	{PD_SEED_BRANCHES, 0, branches_apply, seed_branches, true, false, true},
	{PD_SEED_METF, 0, list_apply, seed_metf, false, false, false},
	{PD_SEED_HEFT, 0, list_apply, seed_heft, false, false, false},
	{PD_SEED_PARTS, 0, parts_apply, dpi_pd_seed_parts, false, false, false},
	{PD_SEED_STAGES, 0, stages_apply, seed_msrdp, true, false, false},
	/* its phases run only when it is faster at mapping too: under tight
	 * caps, less overflow alone made them run at 100k ops K=16 and lose
	 * (0.6 s of CPU) */
	{PD_SEED_LANES, PD_SEED_LANES_ANY, lanes_apply, seed_lanes, true, true,
	 false},
	/* METIS's own plan, as best's metis candidate: on the generated
	 * 100k-op graph at K=16 it is 13 % faster than every other seed */
	{PD_SEED_METIS, 0, lanes_apply, seed_metis, true, true, false},
};

/* The simulations a seed's phases may run: the whole budget, or for the
 * seeds added after the branches seed PD_EXTRA_WORK / (V + E), at least
 * 8 and at most the whole (the same on small graphs, half of it on large
 * ones, so that each costs a fraction of the mapped run there). */
static uint32_t seed_budget(const pd_ctx *c, const pd_seed *s)
{
	double b = PD_EXTRA_WORK / ((double)c->g->nops + c->g->nedges + 1.0);
	uint32_t n = b < 8		 ? 8u
		     : b < c->sim_budget ? (uint32_t)b
					 : c->sim_budget;
	return s->full || n > c->sim_budget ? c->sim_budget : n;
}

/* Runs rest on c->place (scored sc) quietly, from the sims count sims. */
static dp_status run_quiet(pd_ctx *c, dp_status (*rest)(pd_ctx *), pd_score sc,
			   uint32_t sims)
{
	const dp_progress *outer = c->p;
	dp_progress quiet = {NULL, NULL, outer ? outer->cancel : NULL};
	c->sims = sims;
	c->p = &quiet;
	c->cur = sc;
	dp_status st = rest(c);
	c->p = outer;
	return st;
}

/* The winner's polish once more, quietly, with PD_FINAL_WORK / (V + E)
 * simulations of its own (8..PD_FINAL_MAX; its moves are kept only when
 * they help, so never worse): the winner's pipeline may have ended its
 * polish for want of simulations. Small graphs only (those of the list
 * seeds), where a simulation is cheap: the explorer's 10,000-op graph and
 * larger ones do not pay for it. */
static dp_status final_polish(pd_ctx *c)
{
	if (!c->o->polish || !list_apply(c))
		return DP_OK;
	uint32_t whole = c->sim_budget, sims = c->sims;
	double b = PD_FINAL_WORK / ((double)c->g->nops + c->g->nedges + 1.0);
	c->sim_budget = b < 8		   ? 8u
			: b > PD_FINAL_MAX ? PD_FINAL_MAX
					   : (uint32_t)b;
	c->res_has = 0;
	pd_score sc;
	dp_status st = dpi_pd_simulate(c, PD_PATH | PD_MEM, &sc);
	if (!st)
		st = run_quiet(c, dpi_pd_polish, sc, 0);
	c->sim_budget = whole;
	c->sims = sims;
	return st;
}

dp_status dpi_pd_seeds(pd_ctx *c, unsigned which, dp_status (*rest)(pd_ctx *))
{
	size_t bytes = ((size_t)c->n + 1) * sizeof(int32_t);
	int32_t *mapped = malloc(bytes), *best = malloc(bytes);
	dp_status st = DP_OK;
	if (!mapped || !best) {
		st = dp_err_set(c->err, DP_ENOMEM, NULL, 0, 0,
				"out of memory in pardnn");
		goto out;
	}
	memcpy(mapped, c->place, (size_t)c->n * sizeof *mapped);
	pd_score mapped_sc = c->cur, best_sc = {0, 0}, sc;
	bool have = false;
	uint32_t sims = c->sims; /* each pipeline starts from this count */
	for (size_t i = 0; i < sizeof pd_seeds / sizeof pd_seeds[0]; i++) {
		const pd_seed *s = &pd_seeds[i];
		if (!(which & (s->bit | s->any)) ||
		    (!(which & s->any) && !s->apply(c)))
			continue;
		dp_err e;
		dp_err_clear(&e);
		st = s->make(c, c->place, &e);
		if (st == DP_ECANCELED) {
			st = dpi_canceled(c->err, "pardnn");
			goto out;
		}
		if (st == DP_ENOMEM) {
			if (c->err)
				*c->err = e;
			goto out;
		}
		c->res_has = 0;
		if (st) { /* no seed */
			st = DP_OK;
			continue;
		}
		if ((st = dpi_pd_simulate(c, PD_PATH | PD_MEM, &sc)))
			goto out;
		if (s->must_win &&
		    (!dpi_pd_better(&sc, &mapped_sc) ||
		     (s->faster && sc.makespan >= mapped_sc.makespan)))
			continue;
		uint32_t whole = c->sim_budget;
		c->sim_budget = seed_budget(c, s);
		st = run_quiet(c, rest, sc, sims);
		c->sim_budget = whole;
		if (st)
			goto out;
		if (!have || dpi_pd_better(&c->cur, &best_sc)) {
			memcpy(best, c->place, (size_t)c->n * sizeof *best);
			best_sc = c->cur;
			have = true;
		}
	}
	/* the paper's seed: the mapped placement */
	memcpy(c->place, mapped, (size_t)c->n * sizeof *mapped);
	c->res_has = 0;
	if ((st = dpi_pd_simulate(c, PD_PATH | PD_MEM, &c->cur)))
		goto out;
	c->sims = sims; /* the same run as without other seeds */
	if ((st = rest(c)))
		goto out;
	if (have && dpi_pd_better(&best_sc, &c->cur)) {
		memcpy(c->place, best, (size_t)c->n * sizeof *best);
		c->cur = best_sc;
		c->res_has = 0;
	}
	st = final_polish(c);
out:
	free(mapped);
	free(best);
	return st;
}

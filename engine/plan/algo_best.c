/* algo_best.c - best: every placement algorithm, the best few polished
 * (ours; docs/algorithms.md, "best").
 *
 * For each device count k' from K down (K only, unless the graph is small:
 * nops x K <= BEST_FEW_WORK, then K, K-1, ..., down to the largest pin + 1),
 * on the machine's first k' devices (the steps of docs/algorithms.md;
 * step 4 is this loop over k'):
 *   1-2. runs every placement algorithm of dp_algo_compared() in registry
 *      order (the strategies are left out: best returns a placement, so
 *      its plan saves as a .place file like any other; msr-dp too, a
 *      throughput objective whose cost grows with the graph's width),
 *      then, on a large graph, its own candidates (best_own, below:
 *      METIS balanced in time windows, lanes), and scores each with the
 *      simulator (dpi_best_score: feasible first, then makespan;
 *      infeasible ones by overflow);
 *   3. polishes the BEST_TOP best with the shared local search
 *      (best_polish.c), keeps the best of them and, on a small graph, gives
 *      it the deeper search (every unit to every device), then, where step
 *      5 does not run, random restarts (each followed by that search);
 *   5. on a tiny graph (placements x (ops + edges) <= BEST_EXHAUST_WORK)
 *      simulates every placement (best_exhaust.c) and keeps that optimum
 *      when it is strictly better: R(k').
 * It returns the R(k') that is best on the whole machine (devices k'..K-1
 * left empty); ties keep the larger k'. Because R(k') depends only on the
 * graph and the first k' devices, best(K) considers every plan best(K-1)
 * could return, priced on the same K devices: more devices never hurt.
 * (Priced on K-1 devices the same placement can differ a little: the list
 * scheduler's priorities weigh communication by (K-1)/K: docs/simulator.md.)
 *
 * The budget (dp_algo_opts.budget_s) is checked only before a candidate
 * run starts, in that fixed order, after at least one has run: the result
 * is the same bytes for the same input unless a run was skipped, and then
 * origin->skipped says how many.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dnnpart/algo.h"
#include "internal/algo_int.h"
#include "internal/best.h"

#define BEST_TOP 3
/* fewer-device runs when nops x K is at most this */
#define BEST_FEW_WORK DPI_LANES_MIN_WORK
/* simulations of one polish: about this many op and edge visits */
#define BEST_POLISH_WORK 2e6
#define BEST_POLISH_MIN_SIMS 4
#define BEST_POLISH_MAX_SIMS 200
/* a candidate is polished only when it might win: feasible if the best is,
 * and within this factor of the best one's makespan (the local search
 * moves one op at a time; it has never closed such a gap) */
#define BEST_POLISH_REACH 1.25
/* the deeper local search (every unit to every device) on the winner of
 * the polish: at most about this many op and edge visits, and only when
 * two passes over the units fit */
#define BEST_DESCEND_WORK 1e7
/* random restarts, each followed by the deeper search, after it: at most
 * about this many op and edge visits, and only where 100 passes fit; the
 * starts are a fixed sequence from this seed (+ k') */
#define BEST_RESTART_WORK 1e7
#define BEST_RESTART_SEED 0x5eedull
/* the exhaustive search: at most about this many op and edge visits
 * (placements x (ops + edges)) */
#define BEST_EXHAUST_WORK 6e7

extern const dp_algo dpi_algo_best;
/* left out of the candidates: its objective is the throughput (the largest
 * device load), not the step, and its DP over ideals grows with the
 * graph's width (minutes on 4 chains of 40 ops; docs/algorithms.md) */
extern const dp_algo dpi_algo_msr_dp;

/* Extra candidates on large graphs (nops x K > BEST_FEW_WORK, where best
 * runs for K only and its deeper searches do not run): METIS balanced in
 * each of W time windows of the critical path (dpi_metis_windows,
 * pardnn's branches seed with 4), for these W, and lanes (engine/algo/lanes.c).
 * More windows than pardnn's keep parallel branches (towers) apart along
 * more of the step; lanes keeps one branch per device where branches and
 * devices match. On the bench's generated graphs (docs/benchmarks.md,
 * "Results: best") they win in 7 of 8 configurations, by up to 33 %. On
 * small graphs they are left out: there they won nothing measurable in the quality bench, and a plan
 * of theirs among the BEST_TOP polished can push out one whose polish and
 * deeper search would have gone further (fiddle/op/resnet50_inference,
 * K=2, loose caps: 0.6 % worse with them). */
static dp_status windows_place(const dp_graph *g, const dp_machine *m, int nwin,
			       const dp_progress *p, int32_t *placement,
			       dp_err *err)
{
	dp_progress_report(p, "metis", 0.0);
	dp_status st = dpi_metis_windows(g, m, nwin, placement, err);
	if (!st && dp_progress_canceled(p))
		st = dpi_canceled(err, "best");
	return st;
}

static dp_status windows8_run(const dp_graph *g, const dp_machine *m,
			      const dp_algo_opts *o, const dp_progress *p,
			      int32_t *placement, dp_err *err)
{
	(void)o;
	return windows_place(g, m, 8, p, placement, err);
}

static dp_status windows12_run(const dp_graph *g, const dp_machine *m,
			       const dp_algo_opts *o, const dp_progress *p,
			       int32_t *placement, dp_err *err)
{
	(void)o;
	return windows_place(g, m, 12, p, placement, err);
}

static dp_status lanes_run(const dp_graph *g, const dp_machine *m,
			   const dp_algo_opts *o, const dp_progress *p,
			   int32_t *placement, dp_err *err)
{
	dp_status st = dpi_lanes_shared(o->shared, g, m, placement, err);
	if (!st && dp_progress_canceled(p))
		st = dpi_canceled(err, "best");
	return st;
}

/* best's own candidates (not in the registry); best_of names them */
static const dp_algo best_own[] = {
	{.name = "metis-w8",
	 .summary = "METIS balanced in 8 time windows",
	 .source = "ours",
	 .run = windows8_run},
	{.name = "metis-w12",
	 .summary = "METIS balanced in 12 time windows",
	 .source = "ours",
	 .run = windows12_run},
	{.name = "lanes",
	 .summary = "ops follow their data, each device's share of each "
		    "time window kept (engine/algo/lanes.c)",
	 .source = "ours",
	 .run = lanes_run},
};

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Progress of a candidate run, reported as best's: the phase names the
 * candidate, the fraction counts the runs. */
typedef struct best_meter {
	const dp_progress *outer;
	char phase[64];
	double lo, step; /* fraction of the run before it, and its share */
} best_meter;

static void meter_fn(void *ud, const char *phase, double fraction)
{
	(void)phase;
	best_meter *bm = ud;
	dp_progress_report(bm->outer, bm->phase, bm->lo + bm->step * fraction);
}

/* One scored candidate of a device count. */
typedef struct best_cand {
	int32_t *pl;
	dpi_best_score sc;
	const dp_algo *algo;
} best_cand;

/* the registry's algorithms and best's own candidates (room for the latter
 * is kept however long the registry grows) */
#define BEST_MAX_CANDS 64

typedef struct best_ctx {
	const dp_graph *g;
	const dp_machine *m;
	const dp_algo_opts *o;
	const dp_progress *p;
	dp_err *err;
	const dp_algo *cands[BEST_MAX_CANDS];
	size_t ncands;
	uint32_t total, done; /* candidate runs planned and made */
	double t0;
	dp_algo_origin origin;
	int32_t *scratch; /* a candidate's placement */
	best_cand top[BEST_TOP];
	int ntop;
	/* the result so far, priced on the whole machine */
	int32_t *best_pl;
	dpi_best_score best_sc;
	bool have_best;
	/* the last placement passed to o->interim (anytime) */
	dpi_best_score shown_sc;
	bool shown;
	/* what one candidate makes and another would make again (pardnn's
	 * lanes and METIS seeds, best's lanes and metis), per device count;
	 * NULL buffers when not shared */
	dp_algo_shared shared;
} best_ctx;

/* Passes pl to o->interim when it beats every placement passed before
 * (sc is its score on the whole machine). */
static void offer(best_ctx *c, const int32_t *pl, const dpi_best_score *sc,
		  const char *from, int kk, bool polished)
{
	if (!c->o->interim || (c->shown && !dpi_best_better(sc, &c->shown_sc)))
		return;
	c->shown = true;
	c->shown_sc = *sc;
	dp_algo_origin og = c->origin;
	og.has_origin = true;
	snprintf(og.best_of, sizeof og.best_of, "%s", from);
	og.devices = kk;
	og.polished = polished;
	c->o->interim(c->o->interim_ud, pl, &og);
}

/* Inserts the placement in scratch into top (kept sorted, best first; an
 * equal score stays behind the earlier one). */
static void top_insert(best_ctx *c, const dpi_best_score *sc, const dp_algo *a)
{
	int at = c->ntop;
	while (at > 0 && dpi_best_better(sc, &c->top[at - 1].sc))
		at--;
	if (at >= BEST_TOP)
		return;
	for (int i = 0; i < c->ntop; i++) /* the same plan is polished once */
		if (memcmp(c->top[i].pl, c->scratch,
			   (size_t)c->g->nops * sizeof *c->scratch) == 0)
			return;
	int32_t *spare = c->ntop == BEST_TOP ? c->top[BEST_TOP - 1].pl
					     : c->top[c->ntop].pl;
	if (c->ntop < BEST_TOP)
		c->ntop++;
	for (int i = c->ntop - 1; i > at; i--)
		c->top[i] = c->top[i - 1];
	memcpy(spare, c->scratch, (size_t)c->g->nops * sizeof *spare);
	c->top[at] = (best_cand){spare, *sc, a};
}

/* Runs every candidate on mk (the first k' devices) into c->top. */
static dp_status run_candidates(best_ctx *c, const dp_machine *mk, dp_sim *sk)
{
	dp_algo_opts sub = *c->o;
	sub.bound = NULL;
	sub.origin = NULL;
	sub.interim = NULL;
	c->shared.g = c->g;
	c->shared.m = mk;
	for (int i = 0; i < DPI_SHARED_KINDS; i++)
		c->shared.has[i] = false;
	sub.shared = &c->shared;
	dp_sim_opts so = {.contention = c->o->contention};
	dp_sim_result r;
	memset(&r, 0, sizeof r);
	dp_status st = DP_OK;
	c->ntop = 0;
	for (size_t i = 0; i < c->ncands; i++, c->done++) {
		if (c->o->budget_s > 0 && c->origin.ran > 0 &&
		    now_s() - c->t0 > c->o->budget_s) {
			c->origin.skipped++;
			continue;
		}
		best_meter bm = {c->p, "", (double)c->done / c->total,
				 1.0 / c->total};
		snprintf(bm.phase, sizeof bm.phase, "best: %s, K=%d",
			 c->cands[i]->name, mk->k);
		dp_progress sp = {meter_fn, &bm, c->p ? c->p->cancel : NULL};
		if ((st = dpi_poll(c->p, "best", bm.phase, bm.lo, c->err)))
			break;
		dp_err e2;
		dp_err_clear(&e2);
		st = dp_algo_place(c->cands[i], c->g, mk, &sub, &sp, c->scratch,
				   &e2);
		if (st == DP_ECANCELED) {
			st = dpi_canceled(c->err, "best");
			break;
		}
		if (st == DP_ENOMEM) {
			*c->err = e2;
			break;
		}
		st = DP_OK;
		if (e2.code) /* an algorithm that refuses leaves the others */
			continue;
		c->origin.ran++;
		if ((st = dp_sim_run(sk, c->scratch, &so, &r, c->err)))
			break;
		dpi_best_score sc = dpi_best_score_of(&r);
		top_insert(c, &sc, c->cands[i]);
		if (mk->k == c->m->k) /* scored on the whole machine */
			offer(c, c->scratch, &sc, c->cands[i]->name, mk->k,
			      false);
	}
	dp_sim_result_free(&r);
	return st;
}

/* Step 5 on a tiny graph, for k' devices (mk, simulated by sk): every
 * placement, the best into c->scratch and *sc; *tried: how many (0: too
 * many to try, or the budget had run out). */
static dp_status run_exhaustive(best_ctx *c, const dp_machine *mk, dp_sim *sk,
				bool relabel, dpi_best_score *sc,
				uint64_t *tried)
{
	*tried = 0;
	if (c->o->budget_s > 0 && c->origin.ran > 0 &&
	    now_s() - c->t0 > c->o->budget_s) {
		c->origin.skipped++;
		return DP_OK;
	}
	best_meter bm = {c->p, "", (double)c->done / c->total, 1.0 / c->total};
	snprintf(bm.phase, sizeof bm.phase, "best: every placement, K=%d",
		 mk->k);
	dp_progress sp = {meter_fn, &bm, c->p ? c->p->cancel : NULL};
	dp_status st = dpi_best_exhaust(sk, c->g, mk, c->o->contention, relabel,
					&sp, c->scratch, sc, tried, c->err);
	if (!st && mk->k == c->m->k) {
		c->origin.enumerated = *tried;
		c->origin.relabeled = relabel;
	}
	return st;
}

/* Steps 1, 2 and 5 for k' devices, then R(k') against the result so far. */
static dp_status run_devices(best_ctx *c, int kk, dp_sim *sfull)
{
	const dp_graph *g = c->g;
	dp_machine mk;
	dp_status st = dp_machine_copy(&mk, c->m, c->err);
	if (st)
		return st;
	if (kk != c->m->k && (st = dp_machine_resize(&mk, kk, c->err))) {
		dp_machine_free(&mk);
		return st;
	}
	dp_sim *sk = kk == c->m->k ? sfull : dp_sim_new(g, &mk, c->err);
	if (!sk) {
		dp_machine_free(&mk);
		return c->err->code;
	}
	st = run_candidates(c, &mk, sk);
	double work = (double)g->nops + (double)g->nedges + 1;
	double ms = BEST_POLISH_WORK / work;
	uint32_t max_sims = ms < BEST_POLISH_MIN_SIMS	? BEST_POLISH_MIN_SIMS
			    : ms > BEST_POLISH_MAX_SIMS ? BEST_POLISH_MAX_SIMS
							: (uint32_t)ms;
	int win = -1;
	bool win_polished = false;
	dpi_best_score win_sc = {0};
	for (int i = 0; !st && i < c->ntop; i++) {
		const dpi_best_score *lead = &c->top[0].sc, *me = &c->top[i].sc;
		if (i > 0 && lead->feasible &&
		    (!me->feasible ||
		     me->makespan > BEST_POLISH_REACH * lead->makespan))
			continue; /* it cannot win */
		dp_progress_report(c->p, "best: polish",
				   (double)c->done / c->total);
		bool improved;
		st = dpi_best_polish(sk, g, &mk, c->o->contention, max_sims,
				     c->p, c->top[i].pl, &c->top[i].sc,
				     &improved, c->err);
		if (!st &&
		    (win < 0 || dpi_best_better(&c->top[i].sc, &win_sc))) {
			win = i;
			win_sc = c->top[i].sc;
			win_polished = improved;
		}
	}
	double dsims = BEST_DESCEND_WORK / work;
	if (!st && win >= 0 && kk > 1 && 2.0 * g->nops * (kk - 1) <= dsims) {
		bool improved;
		st = dpi_best_descend(sk, g, &mk, c->o->contention,
				      (uint32_t)dsims, c->p, c->top[win].pl,
				      &c->top[win].sc, &improved, c->err);
		win_sc = c->top[win].sc;
		win_polished = win_polished || improved;
	}
	const char *wfrom = win >= 0 ? c->top[win].algo->name : NULL;
	/* step 5 where it fits, else random restarts where they fit */
	bool relabel;
	bool exhaust = dpi_best_exhaust_count(g, &mk, c->o->contention,
					      BEST_EXHAUST_WORK, &relabel) > 0;
	double rsims = BEST_RESTART_WORK / work;
	if (!st && win >= 0 && kk > 1 && !exhaust &&
	    100.0 * g->nops * (kk - 1) <= rsims) {
		bool improved;
		st = dpi_best_restarts(sk, g, &mk, c->o->contention,
				       (uint32_t)rsims, BEST_RESTART_SEED + kk,
				       c->p, c->top[win].pl, &c->top[win].sc,
				       &improved, c->err);
		win_sc = c->top[win].sc;
		if (improved) {
			wfrom = "restarts";
			win_polished = false;
		}
	}
	const int32_t *wpl = win >= 0 ? c->top[win].pl : NULL;
	dpi_best_score esc;
	uint64_t tried = 0;
	if (!st && exhaust)
		st = run_exhaustive(c, &mk, sk, relabel, &esc, &tried);
	c->done++;
	if (!st && tried && (win < 0 || dpi_best_better(&esc, &win_sc))) {
		wpl = c->scratch;
		wfrom = "exhaustive";
		win_sc = esc;
		win_polished = false;
	}
	if (sk != sfull)
		dp_sim_free(sk);
	dp_machine_free(&mk);
	if (st || !wpl)
		return st;
	dpi_best_score sc = win_sc;
	if (kk != c->m->k) { /* priced on the whole machine */
		dp_sim_result r;
		memset(&r, 0, sizeof r);
		dp_sim_opts so = {.contention = c->o->contention};
		st = dp_sim_run(sfull, wpl, &so, &r, c->err);
		sc = dpi_best_score_of(&r);
		dp_sim_result_free(&r);
		if (st)
			return st;
	}
	if (!c->have_best || dpi_best_better(&sc, &c->best_sc)) {
		c->have_best = true;
		c->best_sc = sc;
		memcpy(c->best_pl, wpl, (size_t)g->nops * sizeof *c->best_pl);
		snprintf(c->origin.best_of, sizeof c->origin.best_of, "%s",
			 wfrom);
		c->origin.devices = kk;
		c->origin.polished = win_polished;
		offer(c, c->best_pl, &sc, wfrom, kk, win_polished);
	}
	return DP_OK;
}

dp_status dpi_best_place(const dp_graph *g, const dp_machine *m,
			 const dp_algo_opts *o, const dp_progress *p, bool share,
			 int32_t *placement, dp_err *err)
{
	dp_algo_opts def;
	best_ctx c;
	memset(&c, 0, sizeof c);
	c.g = g;
	c.m = m;
	c.o = dpi_algo_opts_or_default(o, &def);
	c.p = p;
	c.err = err;
	c.t0 = now_s();
	size_t n;
	const dp_algo *const *all = dp_algo_compared(&n);
	const size_t nown = sizeof best_own / sizeof *best_own;
	for (size_t i = 0; i < n && c.ncands < BEST_MAX_CANDS - nown; i++)
		if (all[i]->run && all[i] != &dpi_algo_best &&
		    all[i] != &dpi_algo_msr_dp)
			c.cands[c.ncands++] = all[i];
	bool few = (double)g->nops * m->k <= BEST_FEW_WORK;
	for (size_t i = 0; !few && i < nown; i++)
		c.cands[c.ncands++] = &best_own[i];
	int kmin = m->k;
	if (few) {
		kmin = 1;
		for (uint32_t u = 0; u < g->nops; u++)
			if (g->ops[u].pin + 1 > kmin)
				kmin = g->ops[u].pin + 1;
	}
	/* the candidates and the exhaustive search, for each device count */
	c.total = (uint32_t)((size_t)(m->k - kmin + 1) * (c.ncands + 1));
	size_t bytes = (size_t)(g->nops ? g->nops : 1) * sizeof(int32_t);
	dp_status st = DP_OK;
	c.scratch = malloc(bytes);
	c.best_pl = malloc(bytes);
	for (int i = 0; i < BEST_TOP; i++)
		c.top[i].pl = malloc(bytes);
	bool ok = c.scratch && c.best_pl;
	for (int i = 0; i < BEST_TOP; i++)
		ok = ok && c.top[i].pl;
	for (int i = 0; share && i < DPI_SHARED_KINDS; i++)
		ok = ok && (c.shared.pl[i] = malloc(bytes));
	dp_sim *sfull = ok ? dp_sim_new(g, m, err) : NULL;
	if (!ok)
		st = dp_err_set(err, DP_ENOMEM, NULL, 0, 0,
				"out of memory in best");
	else if (!sfull)
		st = err->code;
	for (int kk = m->k; !st && kk >= kmin; kk--)
		st = run_devices(&c, kk, sfull);
	if (!st && !c.have_best)
		st = dp_err_set(
			err, DP_EINPUT, NULL, 0, 0,
			"best: no placement algorithm gave a placement");
	if (!st) {
		memcpy(placement, c.best_pl,
		       (size_t)g->nops * sizeof *placement);
		c.origin.has_origin = true;
		if (c.o->origin)
			*c.o->origin = c.origin;
		dp_progress_report(p, "best", 1.0);
	}
	dp_sim_free(sfull);
	free(c.scratch);
	free(c.best_pl);
	for (int i = 0; i < BEST_TOP; i++)
		free(c.top[i].pl);
	for (int i = 0; i < DPI_SHARED_KINDS; i++)
		free(c.shared.pl[i]);
	return st;
}

static dp_status best_place(const dp_graph *g, const dp_machine *m,
			    const dp_algo_opts *o, const dp_progress *p,
			    int32_t *placement, dp_err *err)
{
	return dpi_best_place(g, m, o, p, true, placement, err);
}

const dp_algo dpi_algo_best = {
	.name = "best",
	.summary = "runs every placement algorithm, polishes the best 3 on "
		   "the simulator, keeps the fastest (also on fewer devices)",
	.source = "ours: a portfolio with a shared local search",
	.run = best_place,
	/* in "every algorithm", last: dp_plan_run_all() reuses the rows
	 * before it (best_all.c), so it reruns only the winning strategy
	 * besides its own placement search */
	.on_request = false,
};

/* best_all.c - best of everything: what dp_plan_run() does with `best`.
 * best's placement search (algo_best.c) is one candidate; every strategy
 * of the registry (dp, zero, pipelines, pase, tofu, megatron, ...) is the
 * others. Each is run and simulated on the same machine, and the fastest
 * plan that fits is kept (none fits: the least over its caps). The fast
 * strategies run first, then the placement search, then the slow ones, so
 * that an anytime caller (the explorer) sees a good plan early: every plan
 * that beats those before it is passed to dp_algo_opts.interim (a
 * placement) or .interim_strategy (a strategy) as it comes.
 */
#include "internal/best_all.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dnnpart/strategy.h"
#include "internal/clock.h"

/* The order strategies run in: the cheap closed forms first (they give
 * the explorer its first plan), the searches last. */
static const char *const fast_first[] = {"dp",	      "zero",	  "megatron",
					 "gpipe",     "1f1b",	  "best",
					 "pipedream", "hybrid",	  "tofu",
					 "pase"};

int64_t dpi_plan_over(const dp_plan *q)
{
	int w = dp_plan_worst_device(q);
	return w < 0 ? 0
		     : q->sim.dev[w].peak_bytes - q->sim.dev[w].cap_bytes;
}

/* Whether a plan of (makespan ms, overflow over) beats the one kept. */
typedef struct kept {
	bool any;
	double makespan;
	int64_t over;
} kept;

static bool beats(const kept *k, double ms, int64_t over)
{
	if (!k->any)
		return true;
	if ((over == 0) != (k->over == 0))
		return over == 0;
	if (over != k->over && over > 0)
		return over < k->over;
	return ms < k->makespan;
}

typedef struct all_ctx {
	const dp_graph *g;
	const dp_machine *m;
	const dp_algo_opts *o; /* the caller's: its interim hooks */
	kept k;		       /* the best so far, interims included */
} all_ctx;

/* best's placement search found a better placement of its own: pass it on
 * when it also beats every plan passed before. */
static void placement_found(void *ud, const int32_t *pl,
			    const dp_algo_origin *from)
{
	all_ctx *c = ud;
	dp_plan q;
	dp_err err;
	if (dp_plan_evaluate(c->g, c->m, pl, c->o->contention, &q, &err))
		return;
	double ms = q.sim.makespan;
	int64_t over = dpi_plan_over(&q);
	dp_plan_free(&q);
	if (!beats(&c->k, ms, over))
		return;
	c->k = (kept){true, ms, over};
	c->o->interim(c->o->interim_ud, pl, from);
}

/* Runs candidate a into q (placement search alone for best). */
static dp_status run_one(const all_ctx *c, const dp_algo *a,
			 const dp_progress *p, dp_plan *q, dp_err *err)
{
	dp_algo_opts mine = *c->o;
	mine.placements_only = true;
	mine.interim = c->o->interim ? placement_found : NULL;
	mine.interim_ud = (void *)c;
	mine.interim_strategy = NULL;
	return dp_plan_run(c->g, c->m, a, &mine, p, q, err);
}

/* Past this many devices best of everything leaves tofu out unless
 * --algos names it: its search there takes a minute and more (2,000 ops,
 * K = 1024, caps: 76 s of CPU), while compare and --algo tofu still run
 * it. */
#define BEST_ALL_TOFU_MAX_K 64

/* The candidates in the order they run: o->candidates in fast_first's
 * order, or every strategy of "every algorithm" and best (tofu only up to
 * BEST_ALL_TOFU_MAX_K devices). */
static size_t order(const dp_algo_opts *o, const dp_algo *best, int k,
		    const dp_algo **out, size_t cap)
{
	size_t n = 0, nc;
	const dp_algo *const *every = dp_algo_compared(&nc);
	for (size_t i = 0; i < sizeof fast_first / sizeof fast_first[0]; i++) {
		const dp_algo *a = dp_algo_find(fast_first[i]);
		bool in = false;
		if (o->candidates) {
			for (size_t j = 0; j < o->ncandidates; j++)
				in |= o->candidates[j] == a;
		} else {
			in = a == best;
			for (size_t j = 0; j < nc && !in; j++)
				in = every[j] == a && a->strategize;
			if (in && k > BEST_ALL_TOFU_MAX_K &&
			    !strcmp(a->name, "tofu"))
				in = false;
		}
		if (a && in && n < cap)
			out[n++] = a;
	}
	/* named candidates outside that order (placement algorithms) last */
	for (size_t j = 0; o->candidates && j < o->ncandidates && n < cap; j++) {
		bool seen = false;
		for (size_t i = 0; i < n; i++)
			seen |= out[i] == o->candidates[j];
		if (!seen)
			out[n++] = o->candidates[j];
	}
	return n;
}

dp_status dpi_best_all(const dp_graph *g, const dp_machine *m,
		       const dp_algo *best, const dp_algo_opts *o,
		       const dp_progress *p, dp_plan *plan, dp_err *err)
{
	const dp_algo *cand[64];
	size_t n = order(o, best, m->k, cand, 64);
	all_ctx c = {g, m, o, {false, 0, 0}};
	dp_plan keep;
	memset(&keep, 0, sizeof keep);
	bool have = false;
	uint32_t ran = 0, runs = 0;
	dp_status st = DP_OK;
	dp_err first; /* the first failure, for when nothing ran */
	dp_err_clear(&first);
	double t0 = dpi_now_s();
	for (size_t i = 0; i < n && st != DP_ECANCELED; i++) {
		dp_plan q;
		dp_err e;
		dp_err_clear(&e);
		dp_status s = run_one(&c, cand[i], p, &q, &e);
		if (s == DP_ECANCELED || s == DP_ENOMEM) {
			*err = e;
			st = s;
			break;
		}
		if (s) {
			if (!first.msg[0])
				first = e;
			continue; /* its conditions fail here: skipped */
		}
		ran++;
		runs += q.origin.has_origin ? q.origin.ran : 1;
		double ms = q.sim.makespan;
		int64_t over = dpi_plan_over(&q);
		kept was = {have, keep.sim.makespan, dpi_plan_over(&keep)};
		/* a tie goes to a plain placement: the simpler plan */
		bool tie = have && over == was.over &&
			   ms <= was.makespan * (1 + 1e-9) &&
			   ms >= was.makespan * (1 - 1e-9);
		bool better = beats(&was, ms, over) && !(tie && !q.strat);
		better |= tie && !q.strat && keep.strat;
		if (!better) {
			dp_plan_free(&q);
			continue;
		}
		if (!q.origin.has_origin) {
			q.origin.has_origin = true;
			snprintf(q.origin.best_of, sizeof q.origin.best_of,
				 "%s", cand[i]->name);
			q.origin.devices = m->k;
		}
		if (have)
			dp_plan_free(&keep);
		keep = q;
		have = true;
		/* the explorer shows it at once when it beats what it showed */
		if (q.strat && o->interim_strategy && beats(&c.k, ms, over)) {
			c.k = (kept){true, ms, over};
			o->interim_strategy(o->interim_ud, q.strat, &q.origin);
		} else if (beats(&c.k, ms, over)) {
			c.k = (kept){true, ms, over};
		}
	}
	if (st || !have) {
		if (have)
			dp_plan_free(&keep);
		if (!st && err)
			*err = first;
		return st ? st : first.msg[0] ? DP_EINPUT : DP_EINTERNAL;
	}
	snprintf(keep.algo, sizeof keep.algo, "%s", best->name);
	keep.origin.ran = runs;
	keep.plan_ms = 1e3 * (dpi_now_s() - t0);
	(void)ran;
	*plan = keep;
	return DP_OK;
}

size_t dpi_best_reuse(const dp_algo *best, const dpi_ran *ran, size_t nran,
		      const dp_algo **out, size_t cap)
{
	dp_algo_opts every;
	dp_algo_opts_default(&every);
	const dp_algo *all[64];
	size_t nall = order(&every, best, 0, all, 64), n = 0;
	kept k = {false, 0, 0};
	const dp_algo *winner = NULL;
	for (size_t i = 0; i < nran; i++)
		if (ran[i].ok && ran[i].algo->strategize &&
		    beats(&k, ran[i].makespan, ran[i].over)) {
			k = (kept){true, ran[i].makespan, ran[i].over};
			winner = ran[i].algo;
		}
	for (size_t i = 0; i < nall && n < cap; i++) {
		bool done = false;
		for (size_t j = 0; j < nran; j++)
			done |= ran[j].algo == all[i];
		if (all[i] == best || all[i] == winner || !done)
			out[n++] = all[i];
	}
	return n;
}

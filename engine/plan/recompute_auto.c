/* recompute_auto.c - `--recompute auto` (recompute.h; docs/memory.md):
 * the covering knapsack over layers by dynamic programming, and the loop
 * that runs the plan until the choice fits.
 *
 * The DP: f[j] = the least cost of a subset whose saves reach j units
 * (j capped at the need N), over the layers one at a time, from j = N
 * down (each layer once): f[j] = min(f[j], f[max(0, j - w_i)] + c_i). The
 * table of takes, n x (N + 1) bytes, gives the subset back.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dnnpart/plan.h"
#include "dnnpart/recompute.h"
#include "internal/nomem.h"

bool dp_recompute_choose(uint32_t n, const int64_t *save, const double *cost,
			 const bool *eligible, int64_t need, uint8_t *pick,
			 double *total, bool *nomem)
{
	*nomem = false;
	memset(pick, 0, n);
	if (total)
		*total = 0;
	if (need <= 0)
		return true;
	int64_t unit = (need + DP_RC_DP_UNITS - 1) / DP_RC_DP_UNITS;
	if (unit < 1)
		unit = 1;
	size_t N = (size_t)((need + unit - 1) / unit);
	double *f = malloc((N + 1) * sizeof *f);
	uint8_t *take = calloc((size_t)n * (N + 1) + 1, 1);
	bool ok = false;
	if (!f || !take) {
		*nomem = true;
		goto out;
	}
	f[0] = 0;
	for (size_t j = 1; j <= N; j++)
		f[j] = INFINITY;
	for (uint32_t i = 0; i < n; i++) {
		if (eligible && !eligible[i])
			continue;
		size_t w = (size_t)(save[i] > 0 ? save[i] / unit : 0);
		for (size_t j = N + 1; j-- > 0;) {
			double c = f[j > w ? j - w : 0] + cost[i];
			if (c < f[j]) {
				f[j] = c;
				take[(size_t)i * (N + 1) + j] = 1;
			}
		}
	}
	ok = isfinite(f[N]);
	int64_t all = 0;
	for (uint32_t i = 0; i < n; i++)
		all += !eligible || eligible[i] ? save[i] : 0;
	if (ok) {
		size_t j = N;
		for (uint32_t i = n; i-- > 0;) {
			if (!take[(size_t)i * (N + 1) + j])
				continue;
			pick[i] = 1;
			size_t w = (size_t)(save[i] > 0 ? save[i] / unit : 0);
			j = j > w ? j - w : 0;
		}
	} else {
		/* the units round the saves down: all of them may still reach
		 * need in bytes */
		for (uint32_t i = 0; i < n; i++)
			pick[i] = !eligible || eligible[i];
		ok = all >= need;
	}
	for (uint32_t i = 0; total && i < n; i++)
		*total += pick[i] ? cost[i] : 0;
out:
	free(f);
	free(take);
	return ok;
}

/* Σ over the devices of what the plan holds above each cap. */
static int64_t over_caps(const dp_plan *pl)
{
	int64_t over = 0;
	for (int d = 0; d < pl->sim.k; d++) {
		const dp_device_stats *s = &pl->sim.dev[d];
		if (s->cap_bytes != DP_CAP_UNLIMITED &&
		    s->peak_bytes > s->cap_bytes)
			over += s->peak_bytes - s->cap_bytes;
	}
	return over;
}

/* Applies lv with pick to g and plans it: *t the graph, *over its excess,
 * *fits. */
static dp_status try_pick(const dp_graph *g, dp_levers *lv, uint32_t n,
			  const uint8_t *pick, const dp_machine *m,
			  const dp_algo *algo, const dp_algo_opts *ao,
			  const dp_progress *p, dp_graph **t, int64_t *over,
			  bool *fits, dp_err *err)
{
	memset(lv->rc_sel, 0, sizeof lv->rc_sel);
	for (uint32_t i = 0; i < n; i++)
		if (pick[i])
			dp_levers_rc_set(lv, i);
	lv->rc_chosen = true;
	*t = NULL;
	dp_status st = dp_levers_apply(g, lv, t, err);
	dp_plan pl;
	memset(&pl, 0, sizeof pl);
	if (!st)
		st = dp_plan_run(*t, m, algo, ao, p, &pl, err);
	if (!st) {
		*over = over_caps(&pl);
		*fits = pl.feasible;
		dp_plan_free(&pl);
	} else {
		dp_graph_free(*t);
		*t = NULL;
	}
	return st;
}

/* The loop of dp_recompute_auto over L (n layers). */
static dp_status auto_loop(const dp_graph *g, dp_levers *lv,
			   const dp_lv_layer *L, uint32_t n,
			   const dp_machine *m, const dp_algo *algo,
			   const dp_algo_opts *ao, const dp_progress *p,
			   dp_graph **out, dp_rc_auto *rep, dp_err *err)
{
	int64_t *save = malloc((size_t)n * sizeof *save);
	double *cost = malloc((size_t)n * sizeof *cost);
	bool *elig = malloc((size_t)n * sizeof *elig);
	uint8_t *pick = calloc(n, 1);
	dp_status st = DP_OK;
	if (!save || !cost || !elig || !pick)
		st = dpi_nomem(err, "--recompute auto");
	for (uint32_t i = 0; !st && i < n; i++) {
		save[i] = L[i].save_bytes;
		cost[i] = L[i].cost_us;
		elig[i] = L[i].eligible;
		rep->neligible += elig[i];
		rep->full_us += elig[i] ? cost[i] : 0;
	}
	int64_t over = 0, need = 0;
	bool fits = false, all = false;
	dp_graph *t = NULL;
	if (!st)
		st = try_pick(g, lv, n, pick, m, algo, ao, p, &t, &over, &fits,
			      err);
	rep->rounds = 1;
	/* each round adds what the plan is still over its caps to the need;
	 * with every eligible layer picked there is nothing more to add */
	while (!st && !fits && !all) {
		/* what is over, and a quarter more after four rounds, so that
		 * the rounds stay few */
		int64_t inc = over > 0 ? over : 1;
		if (rep->rounds >= 4 && inc < need / 4)
			inc = need / 4;
		need += inc;
		bool nomem = false;
		all = !dp_recompute_choose(n, save, cost, elig, need, pick,
					   NULL, &nomem);
		if (nomem) {
			st = dpi_nomem(err, "--recompute auto");
			break;
		}
		dp_graph_free(t);
		st = try_pick(g, lv, n, pick, m, algo, ao, p, &t, &over, &fits,
			      err);
		rep->rounds++;
	}
	rep->need_bytes = need;
	rep->fits = fits;
	for (uint32_t i = 0; i < n; i++)
		if (pick[i]) {
			rep->nchosen++;
			rep->added_us += cost[i];
		}
	if (!st)
		*out = t;
	free(save);
	free(cost);
	free(elig);
	free(pick);
	return st;
}

dp_status dp_recompute_auto(const dp_graph *g, const dp_levers *lv,
			    const dp_machine *m, const dp_algo *algo,
			    const dp_algo_opts *ao, const dp_progress *p,
			    dp_levers *chosen, dp_graph **out, dp_rc_auto *rep,
			    dp_err *err)
{
	memset(rep, 0, sizeof *rep);
	*out = NULL;
	dp_lv_layer *L = NULL;
	uint32_t n = 0;
	dp_status st = dp_levers_layers(g, lv, &L, &n, err);
	if (st)
		return st;
	dp_levers c = *lv;
	c.recompute = DP_RECOMP_AUTO;
	rep->nlayers = n;
	st = auto_loop(g, &c, L, n, m, algo, ao, p, out, rep, err);
	free(L);
	if (!st)
		*chosen = c;
	return st;
}

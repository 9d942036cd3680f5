/* bench_recompute.c - `--recompute auto` against its yardsticks
 * (docs/benchmarks.md, "Recompute auto"; docs/memory.md).
 *
 *   build/bench/bench_recompute [--md] [GRAPH BATCH K] ...
 *
 * For each graph (default: GPT-2 small at batch 8 on one device, GPT-2 XL
 * at batch 8 on 4), in bf16, planned by `single` (one device) or pardnn:
 * the peak without recomputation P0 and with full recomputation P1, then
 * for caps from P1 to P0 in six steps (on one device; on more, 8 to 24
 * GiB, as a plan without caps piles ops where it likes), `--recompute
 * auto`'s choice: the
 * layers it re-runs, their time (the DP's answer), the rounds of plans
 * it ran, whether the plan fits and its step; beside it the exact answer
 * of the same covering problem (CBC, recompute.h) at the same need, and
 * Chen et al. (2016)'s sqrt(n) rule, which re-runs every layer once (one
 * extra forward, whatever the cap) to keep sqrt(n) checkpoints. A
 * standalone tool (make bench builds it).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dnnpart/levers.h"
#include "dnnpart/load.h"
#include "dnnpart/plan.h"
#include "dnnpart/recompute.h"

static int fail(const char *what, const dp_err *err)
{
	char msg[1200];
	fprintf(stderr, "bench_recompute: %s: %s\n", what,
		dp_err_format(err, msg, sizeof msg));
	return 1;
}

typedef struct run {
	int64_t peak; /* the largest device's */
	double step_us;
	bool fits;
} run;

static dp_status plan_once(const dp_graph *g, const dp_levers *lv,
			   const dp_machine *m, const dp_algo *a, run *r,
			   dp_err *err)
{
	dp_graph *t = NULL;
	dp_plan pl;
	memset(&pl, 0, sizeof pl);
	dp_status st = dp_levers_apply(g, lv, &t, err);
	if (!st)
		st = dp_plan_run(t, m, a, NULL, NULL, &pl, err);
	if (!st) {
		r->peak = 0;
		for (int d = 0; d < pl.sim.k; d++)
			if (pl.sim.dev[d].peak_bytes > r->peak)
				r->peak = pl.sim.dev[d].peak_bytes;
		r->step_us = pl.sim.makespan;
		r->fits = pl.feasible;
		dp_plan_free(&pl);
	}
	dp_graph_free(t);
	return st;
}

#define GIB (1024.0 * 1024.0 * 1024.0)

/* The exact answer at need (ms), "-" when none. */
static void exact_cell(const dp_lv_layer *L, uint32_t n, int64_t need,
		       char *buf, size_t size)
{
	int64_t *save = malloc(n * sizeof *save);
	double *cost = malloc(n * sizeof *cost);
	bool *elig = malloc(n * sizeof *elig);
	uint8_t *pick = malloc(n);
	snprintf(buf, size, "-");
	if (save && cost && elig && pick) {
		for (uint32_t i = 0; i < n; i++) {
			save[i] = L[i].save_bytes;
			cost[i] = L[i].cost_us;
			elig[i] = L[i].eligible;
		}
		double tot = 0;
		bool opt = false;
		dp_err err;
		if (!dp_recompute_exact(n, save, cost, elig, need, 60, pick,
					&tot, &opt, &err))
			snprintf(buf, size, "%.1f%s", tot / 1e3,
				 opt ? "" : " (not proven)");
	}
	free(save);
	free(cost);
	free(elig);
	free(pick);
}

static int bench(const char *path, long batch, int k, bool md)
{
	dp_err err;
	dp_graph *g0 = NULL, *g = NULL;
	if (dp_graph_load(path, DP_FMT_AUTO, &g0, &err))
		return fail(path, &err);
	if (dp_graph_with_batch(g0, batch, &g, &err)) {
		dp_graph_free(g0);
		return fail(path, &err);
	}
	dp_graph_free(g0);
	dp_machine m;
	if (dp_machine_init(&m, k, &err))
		return fail("machine", &err);
	const dp_algo *a = dp_algo_find(k == 1 ? "single" : "pardnn");
	dp_levers none = {.precision = DP_PREC_BF16}, full = none;
	full.recompute = DP_RECOMP_FULL;
	run r0, r1;
	dp_lv_layer *L = NULL;
	uint32_t n = 0;
	if (plan_once(g, &none, &m, a, &r0, &err) ||
	    plan_once(g, &full, &m, a, &r1, &err) ||
	    dp_levers_layers(g, &none, &L, &n, &err))
		return fail(path, &err);
	uint32_t ne = 0;
	for (uint32_t i = 0; i < n; i++)
		ne += L[i].eligible;
	printf("%s%s batch %ld, K = %d (%s), bf16: %u layers, %u re-runnable; "
	       "no recomputation %.2f GiB %.1f ms, full %.2f GiB %.1f ms\n",
	       md ? "\n" : "", g->name, batch, k, a->name, n, ne,
	       (double)r0.peak / GIB, r0.step_us / 1e3,
	       (double)r1.peak / GIB, r1.step_us / 1e3);
	if (md)
		printf("\n| cap | layers re-run | added (DP) | exact (CBC) "
		       "| sqrt(n) rule | rounds | fits | step | x none |\n"
		       "|---:|---:|---:|---:|---:|---:|---|---:|---:|\n");
	/* one device: from full's peak to none's; more: caps in GiB (a plan
	 * without a cap puts everything where it likes) */
	static const int gib[] = {8, 10, 12, 14, 16, 20, 24};
	for (int s = 0; s <= 6; s++) {
		int64_t cap = k == 1 ? r1.peak + (r0.peak - r1.peak) * s / 6
				     : (int64_t)gib[s] << 30;
		for (int d = 0; d < k; d++)
			m.cap[d] = cap;
		dp_levers got;
		dp_graph *t = NULL;
		dp_rc_auto rep;
		if (dp_recompute_auto(g, &none, &m, a, NULL, NULL, &got, &t,
				      &rep, &err))
			return fail(path, &err);
		dp_graph_free(t);
		run ra;
		if (plan_once(g, &got, &m, a, &ra, &err))
			return fail(path, &err);
		char ex[64];
		exact_cell(L, n, rep.need_bytes, ex, sizeof ex);
		printf(md ? "| %.2f GiB | %u of %u | %.1f ms | %s ms | %.1f ms "
			    "| %d | %s | %.1f ms | %.2f |\n"
			  : "cap %.2f GiB: %u of %u layers, +%.1f ms (exact "
			    "%s ms, sqrt(n) %.1f ms), %d rounds, fits %s, "
			    "step %.1f ms = %.2f x none\n",
		       (double)cap / GIB, rep.nchosen, ne, rep.added_us / 1e3,
		       ex, rep.full_us / 1e3, rep.rounds,
		       ra.fits ? "yes" : "NO", ra.step_us / 1e3,
		       ra.step_us / r0.step_us);
	}
	free(L);
	dp_machine_free(&m);
	dp_graph_free(g);
	return 0;
}

int main(int argc, char **argv)
{
	bool md = argc > 1 && !strcmp(argv[1], "--md");
	int i = md ? 2 : 1;
	if (i >= argc) {
		int rc = bench("sample_graphs/gpt2-small.json", 8, 1, md);
		return rc ? rc : bench("sample_graphs/gpt2-xl.json", 8, 4, md);
	}
	for (; i + 2 < argc; i += 3) {
		int rc = bench(argv[i], atol(argv[i + 1]), atoi(argv[i + 2]),
			       md);
		if (rc)
			return rc;
	}
	return 0;
}

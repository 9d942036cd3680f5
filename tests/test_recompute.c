/* test_recompute.c - `--recompute auto` (recompute.h, docs/memory.md): the
 * DP against brute force over every subset of layers, on random covering
 * problems and on the layers of a small transformer graph; CBC's exact
 * answer against the DP; the layers' bytes and times checked by hand on
 * levers_tiny; auto on a real plan; the refusals and the names. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dnnpart/levers.h"
#include "dnnpart/load.h"
#include "dnnpart/plan.h"
#include "dnnpart/recompute.h"
#include "lib/testlib.h"

/* The least cost of a subset of the eligible items whose saves reach need,
 * by trying all 2^n (INFINITY: none does). */
static double brute(uint32_t n, const int64_t *save, const double *cost,
		    const bool *elig, int64_t need)
{
	double best = INFINITY;
	for (uint32_t m = 0; m < (1u << n); m++) {
		int64_t s = 0;
		double c = 0;
		bool ok = true;
		for (uint32_t i = 0; i < n; i++)
			if (m >> i & 1) {
				ok = ok && (!elig || elig[i]);
				s += save[i];
				c += cost[i];
			}
		if (ok && s >= need && c < best)
			best = c;
	}
	return best;
}

/* Checks the DP's pick on one problem against brute force: equal cost
 * when exact (need within DP_RC_DP_UNITS units of one byte), and always a
 * subset that reaches need. */
static void check_dp(uint32_t n, const int64_t *save, const double *cost,
		     const bool *elig, int64_t need, bool exact)
{
	uint8_t pick[32];
	double total = -1;
	bool nomem;
	bool ok = dp_recompute_choose(n, save, cost, elig, need, pick, &total,
				      &nomem);
	double want = brute(n, save, cost, elig, need);
	CHECK(!nomem);
	CHECK_INT(ok, isfinite(want));
	int64_t s = 0;
	double c = 0;
	for (uint32_t i = 0; i < n; i++)
		if (pick[i]) {
			CHECK(!elig || elig[i]);
			s += save[i];
			c += cost[i];
		}
	CHECK_NEAR(c, total, 1e-9);
	if (!ok)
		return;
	CHECK(s >= need);
	if (exact)
		CHECK_NEAR(total, want, 1e-9);
	else
		CHECK(total >= want - 1e-9);
}

static uint64_t rng = 88172645463325252ull;
static uint32_t next(uint32_t mod)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)(rng % mod);
}

static void test_dp_brute_force_random(void)
{
	int64_t save[12];
	double cost[12];
	bool elig[12];
	for (int t = 0; t < 400; t++) {
		uint32_t n = 1 + next(12);
		int64_t sum = 0;
		for (uint32_t i = 0; i < n; i++) {
			save[i] = next(500);
			cost[i] = 1 + next(1000) / 7.0;
			elig[i] = next(5) != 0;
			sum += save[i];
		}
		int64_t need = sum ? next((uint32_t)sum + 50) : 10;
		check_dp(n, save, cost, t % 2 ? elig : NULL, need, true);
	}
	/* large needs: the DP works in units, its pick still reaches need */
	for (int t = 0; t < 100; t++) {
		uint32_t n = 1 + next(12);
		int64_t sum = 0;
		for (uint32_t i = 0; i < n; i++) {
			save[i] = (int64_t)next(1u << 30) * 8 + next(1000);
			cost[i] = 1 + next(1000);
			sum += save[i];
		}
		check_dp(n, save, cost, NULL, sum / 2 + 1, false);
	}
	/* need 0 picks nothing */
	uint8_t pick[2] = {9, 9};
	bool nomem;
	CHECK(dp_recompute_choose(2, save, cost, NULL, 0, pick, NULL, &nomem));
	CHECK(!pick[0] && !pick[1]);
}

/* The layers of the graph at path under lv (*g the graph, *n layers);
 * NULL after a failure is recorded (then *g is NULL too). */
static dp_lv_layer *layers_of(const char *path, const dp_levers *lv,
			      dp_graph **g, uint32_t *n)
{
	dp_lv_layer *L = NULL;
	dp_err err;
	*g = test_load_ok(path);
	if (*g && dp_levers_layers(*g, lv, &L, n, &err)) {
		FAIL_ERR("dp_levers_layers", &err);
		dp_graph_free(*g);
		*g = NULL;
	}
	return L;
}

/* levers_tiny: L1 (a: MatMul 400 B 80 µs, s: Softmax 400 B 10 µs), L2
 * (q, e, v: the head, feeding the loss). a is read by s only, s also by
 * L2's backward (v_g, q_g): re-running L1 frees nothing. In bf16, s keeps
 * 4 bytes (Softmax stays fp32) and a takes 80 / r. */
static void test_layers_by_hand(void)
{
	dp_graph *g;
	uint32_t n = 0;
	dp_levers lv = {.precision = DP_PREC_BF16, .gemm_ratio = 8};
	dp_lv_layer *L = layers_of("tests/data/levers_tiny.json", &lv, &g, &n);
	REQUIRE(L);
	CHECK_INT(n, 2);
	CHECK_STR(L[0].name, "L1");
	CHECK(L[0].eligible && !L[1].eligible);
	CHECK_NEAR(L[0].cost_us, 80 / 8.0 + 10, 1e-9);
	CHECK_INT(L[0].save_bytes, 0);
	/* L2: q 1600 B (read by e_g), e 1600 B (by v_g), v 400 B (by the
	 * loss only): 2 x 1600 x 1/2 in bf16 */
	CHECK_INT(L[1].save_bytes, 1600);
	CHECK_NEAR(L[1].cost_us, 40 / 8.0 + 20 / 2.0 + 40 / 8.0, 1e-9);
	free(L);
	dp_graph_free(g);
}

/* The layers of gpt2_tiny (a 2-block GPT): the DP equals brute force on
 * the real profile for needs from 0 to past their total, and CBC's exact
 * answer costs the same. */
static void test_dp_brute_force_graph(void)
{
	dp_graph *g;
	uint32_t n = 0;
	dp_err err;
	dp_levers lv = {.precision = DP_PREC_BF16};
	dp_lv_layer *L = layers_of("tests/data/gpt2_tiny.json", &lv, &g, &n);
	REQUIRE(L);
	REQUIRE(n >= 4 && n <= 16);
	int64_t save[16], total = 0;
	double cost[16];
	bool elig[16];
	uint32_t ne = 0;
	for (uint32_t i = 0; i < n; i++) {
		save[i] = L[i].save_bytes;
		cost[i] = L[i].cost_us;
		elig[i] = L[i].eligible;
		ne += elig[i];
		total += elig[i] ? save[i] : 0;
	}
	CHECK(ne >= 3 && total > 0);
	for (int s = 0; s <= 21; s++) {
		int64_t need = total * s / 20;
		/* exact in bytes when the need is small enough; else reaching
		 * need at no less than the optimum */
		check_dp(n, save, cost, elig, need, need <= DP_RC_DP_UNITS);
		if (need > total)
			continue;
		uint8_t pick[16], dpick[16];
		double c = 0, d = 0;
		bool opt = false, nomem;
		dp_status st = dp_recompute_exact(n, save, cost, elig, need, 20,
						  pick, &c, &opt, &err);
		REQUIRE(st == DP_OK);
		CHECK(opt);
		CHECK_NEAR(c, brute(n, save, cost, elig, need), 1e-6);
		dp_recompute_choose(n, save, cost, elig, need, dpick, &d,
				    &nomem);
		CHECK(d >= c - 1e-6);
	}
	free(L);
	dp_graph_free(g);
}

/* gpt2_tiny's peak on one device with lv, planned by `single`. */
static dp_status plan_peak(const dp_graph *g, const dp_levers *lv,
			   const dp_machine *m, int64_t *peak, double *span,
			   bool *fits)
{
	dp_graph *t = NULL;
	dp_err err;
	dp_plan pl;
	memset(&pl, 0, sizeof pl);
	dp_status st = dp_levers_apply(g, lv, &t, &err);
	if (!st)
		st = dp_plan_run(t, m, dp_algo_find("single"), NULL, NULL, &pl,
				 &err);
	if (!st) {
		*peak = pl.sim.dev[0].peak_bytes;
		*span = pl.sim.makespan;
		*fits = pl.feasible;
		dp_plan_free(&pl);
	}
	dp_graph_free(t);
	return st;
}

/* auto on a cap between full recomputation's peak and none's: the plan
 * fits, re-runs fewer layers than full for less time, and no subset of
 * layers that fits (brute force over all of them, each simulated) costs
 * less than the DP's first answer by more than what the estimate misses. */
static void test_auto_fits(void)
{
	dp_levers none = {.precision = DP_PREC_BF16}, full = none;
	full.recompute = DP_RECOMP_FULL;
	dp_machine m;
	dp_err err;
	REQUIRE(dp_machine_init(&m, 1, &err) == DP_OK);
	dp_graph *g = test_load_ok("tests/data/gpt2_tiny.json");
	REQUIRE(g);
	int64_t p0 = 0, p1 = 0;
	double s0 = 0, s1 = 0;
	bool f;
	REQUIRE(plan_peak(g, &none, &m, &p0, &s0, &f) == DP_OK);
	REQUIRE(plan_peak(g, &full, &m, &p1, &s1, &f) == DP_OK);
	REQUIRE(p1 < p0);
	m.cap[0] = (p0 + p1) / 2;
	dp_levers got;
	dp_graph *t = NULL;
	dp_rc_auto rep;
	REQUIRE(dp_recompute_auto(g, &none, &m, dp_algo_find("single"), NULL,
				  NULL, &got, &t, &rep, &err) == DP_OK);
	CHECK(rep.fits);
	CHECK(got.recompute == DP_RECOMP_AUTO && got.rc_chosen);
	CHECK(rep.nchosen > 0 && rep.nchosen < rep.neligible);
	CHECK(rep.added_us < rep.full_us);
	int64_t pa = 0;
	double sa = 0;
	REQUIRE(plan_peak(g, &got, &m, &pa, &sa, &f) == DP_OK);
	CHECK(f && pa <= m.cap[0]);
	CHECK(sa < s1);
	/* brute force: every subset of the eligible layers, simulated */
	dp_lv_layer *L = NULL;
	uint32_t n = 0;
	REQUIRE(dp_levers_layers(g, &none, &L, &n, &err) == DP_OK);
	double best = INFINITY;
	for (uint32_t s = 0; s < (1u << n); s++) {
		dp_levers lv = none;
		lv.recompute = DP_RECOMP_AUTO;
		lv.rc_chosen = true;
		double c = 0;
		bool ok = true;
		for (uint32_t i = 0; i < n; i++)
			if (s >> i & 1) {
				ok = ok && L[i].eligible;
				dp_levers_rc_set(&lv, i);
				c += L[i].cost_us;
			}
		int64_t pk;
		double sp;
		if (ok && c < best &&
		    plan_peak(g, &lv, &m, &pk, &sp, &f) == DP_OK && f)
			best = c;
	}
	CHECK(isfinite(best) && rep.added_us >= best - 1e-9);
	printf("# gpt2_tiny auto: %u of %u layers, +%.1f us; best fitting "
	       "subset +%.1f us; full +%.1f us\n",
	       rep.nchosen, rep.neligible, rep.added_us, best, rep.full_us);
	/* no cap: nothing re-run */
	m.cap[0] = DP_CAP_UNLIMITED;
	dp_graph_free(t);
	REQUIRE(dp_recompute_auto(g, &none, &m, dp_algo_find("single"), NULL,
				  NULL, &got, &t, &rep, &err) == DP_OK);
	CHECK(rep.fits && rep.nchosen == 0 && rep.rounds == 1);
	char buf[64];
	CHECK_STR(dp_levers_set_name(&got, buf, sizeof buf), "bf16+auto:-");
	/* a cap nothing meets: every eligible layer, not fitting */
	m.cap[0] = p1 / 2;
	dp_graph_free(t);
	REQUIRE(dp_recompute_auto(g, &none, &m, dp_algo_find("single"), NULL,
				  NULL, &got, &t, &rep, &err) == DP_OK);
	CHECK(!rep.fits && rep.nchosen == rep.neligible);
	CHECK_NEAR(rep.added_us, rep.full_us, 1e-9);
	dp_graph_free(t);
	free(L);
	dp_machine_free(&m);
	dp_graph_free(g);
}

static void test_refusals_and_names(void)
{
	dp_graph *g = dp_graph_new("plain");
	REQUIRE(g);
	test_add_op(g, "a", 1, 4, NULL);
	dp_err err;
	REQUIRE(dp_graph_finalize(g, &err) == DP_OK);
	dp_lv_layer *L = NULL;
	uint32_t n = 0;
	dp_levers lv = {.recompute = DP_RECOMP_AUTO};
	CHECK_INPUT_MSG(dp_levers_layers(g, &lv, &L, &n, &err), &err,
			"--recompute auto: graph 'plain' has no forward ops "
			"with `layer` labels (docs/memory.md)");
	dp_graph *t = NULL;
	CHECK_INPUT_MSG(dp_levers_apply(g, &lv, &t, &err), &err,
			"--recompute auto: graph 'plain' has no forward ops "
			"with `layer` labels (docs/memory.md)");
	dp_graph_free(g);
	/* auto's layers as files record them and --recompute takes them */
	char buf[128];
	memset(&lv, 0, sizeof lv);
	CHECK_INT(dp_levers_parse_recompute("auto:0-3.7.9-10", &lv, &err),
		  DP_OK);
	CHECK(lv.recompute == DP_RECOMP_AUTO && lv.rc_chosen);
	CHECK(dp_levers_rc_has(&lv, 3) && !dp_levers_rc_has(&lv, 4) &&
	      dp_levers_rc_has(&lv, 10) && !dp_levers_rc_has(&lv, 11));
	lv.precision = DP_PREC_BF16;
	CHECK_STR(dp_levers_set_name(&lv, buf, sizeof buf),
		  "bf16+auto:0-3.7.9-10");
	/* lever sets with auto, read and written back */
	const char *sets[] = {"bf16+auto:0-3.7.9-10", "auto+attention",
			      "fp16+auto:-"};
	for (size_t i = 0; i < sizeof sets / sizeof *sets; i++) {
		CHECK_INT(dp_levers_parse_set(sets[i], &lv, &err), DP_OK);
		CHECK(lv.recompute == DP_RECOMP_AUTO);
		CHECK_INT(lv.rc_chosen, i != 1);
		CHECK_STR(dp_levers_set_name(&lv, buf, sizeof buf), sets[i]);
	}
	const char *bad[] = {"auto:", "auto:3-1", "auto:1,2", "auto:1.",
			     "auto:x", "auto:1024"};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
		CHECK_INT(dp_levers_parse_recompute(bad[i], &lv, &err),
			  DP_EINPUT);
	CHECK_CONTAINS(err.msg, "unknown recomputation 'auto:1024': expected "
				"none, selective, full, auto or auto:LAYERS");
}

TEST_MAIN(TEST(test_dp_brute_force_random), TEST(test_layers_by_hand),
	  TEST(test_dp_brute_force_graph), TEST(test_auto_fits),
	  TEST(test_refusals_and_names))

/* test_fit.c - the search for what fits (dp_fit_run): the answer is a
 * feasible plan when rerun, one device less (or the largest cap probed
 * below it) is not, the probes say what was tried, cancel and bad input. */
#include <stdlib.h>
#include <string.h>

#include "dnnpart/fit.h"
#include "dnnpart/plan.h"
#include "lib/fixtures.h"
#include "lib/testlib.h"

#define MIB ((int64_t)1 << 20)

static void machine(dp_machine *m, int k, int64_t cap)
{
	REQUIRE(dp_machine_init(m, k, NULL) == DP_OK);
	for (int d = 0; d < k; d++)
		m->cap[d] = cap;
}

/* Reruns algo on g with k devices of caps: whether the plan is feasible. */
static bool fits(const dp_graph *g, const char *algo, int k,
		 const int64_t *caps)
{
	dp_machine m;
	machine(&m, k, 0);
	memcpy(m.cap, caps, (size_t)k * sizeof *caps);
	dp_plan plan;
	if (dp_plan_run(g, &m, dp_algo_find(algo), NULL, NULL, &plan, NULL)) {
		CHECK(!"the rerun failed");
		dp_machine_free(&m);
		return false;
	}
	bool ok = plan.feasible;
	dp_plan_free(&plan);
	dp_machine_free(&m);
	return ok;
}

/* Runs the search fo with algo on g and k devices of cap each; false,
 * recorded as a failure, when dp_fit_run does not return DP_OK. The caller
 * frees r. */
static bool run_fit(const dp_graph *g, int k, int64_t cap, const char *algo,
		    dp_fit_opts fo, dp_fit_result *r)
{
	dp_machine m;
	machine(&m, k, cap);
	dp_status st =
		dp_fit_run(g, &m, dp_algo_find(algo), NULL, &fo, NULL, r, NULL);
	dp_machine_free(&m);
	if (st != DP_OK)
		test_fail(__FILE__, __LINE__, "%s: dp_fit_run returned %d",
			  algo, (int)st);
	return st == DP_OK;
}

static void test_fit_min_cap_is_the_largest_op(void)
{
	dp_graph *g = test_blocks(3);
	CHECK_INT(dp_fit_min_cap(g), 11 * MIB);
	dp_graph_free(g);
}

/* 12 blocks under 25 MiB caps: two per device, so K = 6; every algorithm
 * that respects the caps finds it, and the search says what it tried. */
static void test_fit_k_smallest_feasible_and_one_less_is_not(void)
{
	dp_graph *g = test_blocks(12);
	const char *algos[] = {"pardnn", "mtopo", "metf", "heft"};
	for (size_t a = 0; a < sizeof algos / sizeof algos[0]; a++) {
		dp_fit_result r;
		REQUIRE(run_fit(g, 1, 25 * MIB, algos[a],
				(dp_fit_opts){.kind = DP_FIT_K, .max_k = 16},
				&r));
		CHECK(r.found);
		CHECK(r.k >= 6);
		/* the answer reruns feasible; K - 1 was probed, infeasible */
		CHECK(fits(g, algos[a], r.k, r.caps));
		bool below = false;
		for (size_t i = 0; i < r.nprobes; i++) {
			if (r.probes[i].k < r.k)
				CHECK(!r.probes[i].feasible);
			if (r.probes[i].k == r.k - 1)
				below = true;
			CHECK_INT(r.probes[i].cap, 25 * MIB);
		}
		CHECK(below);
		/* doubling then the K between: 1, 2, 4, 8, then 5, 6 */
		if (!strcmp(algos[a], "mtopo")) {
			CHECK_INT(r.k, 6);
			CHECK_INT(r.nprobes, 6);
			CHECK_INT(r.probes[3].k, 8);
			CHECK_INT(r.probes[4].k, 5);
		}
		dp_fit_result_free(&r);
	}
	dp_graph_free(g);
}

/* A cap below one op: no K fits; every doubling up to max_k is tried. */
static void test_fit_k_none_fits(void)
{
	dp_graph *g = test_blocks(4);
	dp_fit_result r;
	REQUIRE(run_fit(g, 1, 5 * MIB, "mtopo",
			(dp_fit_opts){.kind = DP_FIT_K, .max_k = 12}, &r));
	CHECK(!r.found);
	CHECK(r.caps == NULL);
	CHECK_INT(r.nprobes, 5); /* 1 2 4 8 12 */
	CHECK_INT(r.probes[4].k, 12);
	dp_fit_result_free(&r);
	dp_graph_free(g);
}

/* The uniform cap for K = 3 of 12 blocks: 4 per device need 41 MiB (40
 * of params and the output of the op that runs). */
static void test_fit_cap_uniform(void)
{
	dp_graph *g = test_blocks(12);
	const char *algos[] = {"pardnn", "mtopo", "metf"};
	for (size_t a = 0; a < sizeof algos / sizeof algos[0]; a++) {
		dp_fit_result r;
		REQUIRE(run_fit(g, 3, DP_CAP_UNLIMITED, algos[a],
				(dp_fit_opts){.kind = DP_FIT_CAP}, &r));
		REQUIRE(r.found);
		CHECK_INT(r.lower, 11 * MIB);
		CHECK(r.caps[0] >= 41 * MIB);
		for (int d = 1; d < r.k; d++)
			CHECK_INT(r.caps[d], r.caps[0]);
		CHECK(fits(g, algos[a], r.k, r.caps));
		/* the largest infeasible probe is within one step below */
		int64_t bad = r.lower - 1;
		for (size_t i = 0; i < r.nprobes; i++)
			if (!r.probes[i].feasible && r.probes[i].cap > bad &&
			    r.probes[i].cap < r.caps[0])
				bad = r.probes[i].cap;
		CHECK(r.caps[0] - bad <= r.resolution);
		CHECK(r.resolution >= MIB);
		dp_fit_result_free(&r);
	}
	dp_graph_free(g);
}

/* One device's cap with the others fixed: devices 0 and 1 hold 2 blocks
 * (25 MiB), so device 2 must take the other 2 of 6. */
static void test_fit_device_cap(void)
{
	dp_graph *g = test_blocks(6);
	dp_fit_result r;
	REQUIRE(run_fit(g, 3, 25 * MIB, "mtopo",
			(dp_fit_opts){.kind = DP_FIT_DEVICE_CAP, .device = 2},
			&r));
	REQUIRE(r.found);
	CHECK_INT(r.device, 2);
	CHECK_INT(r.caps[0], 25 * MIB);
	CHECK_INT(r.caps[1], 25 * MIB);
	CHECK(r.caps[2] >= 21 * MIB);
	CHECK(fits(g, "mtopo", 3, r.caps));
	int64_t less[3] = {r.caps[0], r.caps[1], r.caps[2] - r.resolution};
	if (less[2] >= r.lower)
		CHECK(!fits(g, "mtopo", 3, less));
	dp_fit_result_free(&r);
	dp_graph_free(g);
}

static void test_fit_rejects_bad_settings(void)
{
	dp_graph *g = test_blocks(2);
	dp_machine m;
	machine(&m, 2, DP_CAP_UNLIMITED);
	dp_fit_result r;
	dp_err err;
	dp_fit_opts fo = {.kind = DP_FIT_DEVICE_CAP, .device = 2};
	CHECK_INT(
		dp_fit_run(g, &m, dp_algo_default(), NULL, &fo, NULL, &r, &err),
		DP_EINPUT);
	CHECK_CONTAINS(err.msg, "device 2");
	fo = (dp_fit_opts){.kind = DP_FIT_K, .max_k = DP_MAX_DEVICES + 1};
	CHECK_INT(
		dp_fit_run(g, &m, dp_algo_default(), NULL, &fo, NULL, &r, &err),
		DP_EINPUT);
	dp_machine_free(&m);
	dp_graph_free(g);
}

/* A pin to device 3 makes K = 4 the first K tried. */
static void test_fit_k_starts_above_pins(void)
{
	dp_graph *g = dp_graph_new("pinned");
	REQUIRE(g != NULL);
	uint32_t u = test_add_op(g, "a", 1, MIB, NULL);
	test_add_op(g, "b", 1, MIB, NULL);
	g->ops[u].pin = 3;
	REQUIRE(dp_graph_finalize(g, NULL) == DP_OK);
	dp_machine m;
	machine(&m, 1, DP_CAP_UNLIMITED);
	dp_fit_opts fo = {.kind = DP_FIT_K};
	dp_fit_result r;
	REQUIRE(dp_fit_run(g, &m, dp_algo_default(), NULL, &fo, NULL, &r,
			   NULL) == DP_OK);
	CHECK(r.found);
	CHECK_INT(r.k, 4);
	CHECK_INT(r.nprobes, 1);
	dp_fit_result_free(&r);
	dp_machine_free(&m);
	dp_graph_free(g);
}

/* megatron --tp 2 runs only on even K: every probe is one (the first K=2,
 * not K=1, which it would refuse); an algorithm that ignores --tp keeps
 * every K; a --tp with no multiple up to max_k is bad input. */
static void test_fit_k_probes_only_multiples_of_tp(void)
{
	dp_graph *g = test_blocks(6);
	dp_machine m;
	machine(&m, 1, 25 * MIB);
	dp_algo_opts ao;
	dp_algo_opts_default(&ao);
	ao.tp = 2;
	dp_fit_opts fo = {.kind = DP_FIT_K, .max_k = 16};
	dp_fit_result r;
	const char *algos[] = {"megatron", "mtopo"};
	for (int a = 0; a < 2; a++) {
		REQUIRE(dp_fit_run(g, &m, dp_algo_find(algos[a]), &ao, &fo,
				   NULL, &r, NULL) == DP_OK);
		CHECK_INT(r.k_step, a ? 1 : 2);
		CHECK_INT(r.probes[0].k, a ? 1 : 2);
		for (size_t i = 0; i < r.nprobes; i++)
			CHECK_INT(r.probes[i].k % r.k_step, 0);
		dp_fit_result_free(&r);
	}
	ao.tp = 4;
	fo.max_k = 3;
	dp_err err;
	CHECK_INT(dp_fit_run(g, &m, dp_algo_find("megatron"), &ao, &fo, NULL,
			     &r, &err),
		  DP_EINPUT);
	CHECK_CONTAINS(err.msg, "tensor-parallel size of 4");
	dp_machine_free(&m);
	dp_graph_free(g);
}

static int progress_calls;
static void on_progress(void *ud, const char *phase, double f)
{
	(void)ud;
	(void)f;
	CHECK(!strncmp(phase, "fit", 3));
	progress_calls++;
}

static void test_fit_progress_and_cancel(void)
{
	dp_graph *g = test_blocks(8);
	dp_machine m;
	machine(&m, 1, 25 * MIB);
	atomic_int cancel = 0;
	dp_progress p = {on_progress, NULL, &cancel};
	dp_fit_opts fo = {.kind = DP_FIT_K};
	dp_fit_result r;
	progress_calls = 0;
	REQUIRE(dp_fit_run(g, &m, dp_algo_default(), NULL, &fo, &p, &r, NULL) ==
		DP_OK);
	CHECK(progress_calls >= (int)r.nprobes);
	dp_fit_result_free(&r);
	atomic_store(&cancel, 1);
	dp_err err;
	memset(&r, 0, sizeof r);
	CHECK_INT(dp_fit_run(g, &m, dp_algo_default(), NULL, &fo, &p, &r, &err),
		  DP_ECANCELED);
	CHECK(r.probes == NULL);
	dp_machine_free(&m);
	dp_graph_free(g);
}

TEST_MAIN(TEST(test_fit_min_cap_is_the_largest_op),
	  TEST(test_fit_k_smallest_feasible_and_one_less_is_not),
	  TEST(test_fit_k_none_fits), TEST(test_fit_cap_uniform),
	  TEST(test_fit_device_cap), TEST(test_fit_rejects_bad_settings),
	  TEST(test_fit_k_starts_above_pins),
	  TEST(test_fit_k_probes_only_multiples_of_tp),
	  TEST(test_fit_progress_and_cancel))

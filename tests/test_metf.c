/* test_metf.c - Baechi's m-ETF: earliest start first, memory eligibility
 * under the simulator's liveness rules, least overflow when nothing fits,
 * pins, colocation, determinism, cancel. */
#include <stdlib.h>
#include <string.h>

#include "dnnpart/algo.h"
#include "dnnpart/graph.h"
#include "dnnpart/machine.h"
#include "dnnpart/plan.h"
#include "lib/fixtures.h"
#include "lib/testlib.h"

static uint32_t op(dp_graph *g, const char *name, double t, int64_t out,
		   int64_t param)
{
	uint32_t id = UINT32_MAX;
	dp_graph_add_op(g, name, &id, NULL);
	g->ops[id].time_us = t;
	g->ops[id].output_bytes = out;
	g->ops[id].param_bytes = param;
	return id;
}

static bool run_plan(const dp_graph *g, const dp_machine *m, dp_plan *p)
{
	memset(p, 0, sizeof *p);
	dp_err err;
	if (dp_plan_run(g, m, dp_algo_find("metf"), NULL, NULL, p, &err) !=
	    DP_OK) {
		FAIL_ERR("metf", &err);
		return false;
	}
	return true;
}

/* Finalizes g, makes m (k devices with caps, NULL: unlimited) and plans g
 * on it with m-ETF into p; false (recorded) when any step fails. */
static bool plan_on(dp_graph *g, int k, const char *caps, dp_machine *m,
		    dp_plan *p)
{
	if (dp_graph_finalize(g, NULL) != DP_OK) {
		test_fail(__FILE__, __LINE__, "the graph does not finalize");
		return false;
	}
	return test_machine_make(m, k, caps, NULL) && run_plan(g, m, p);
}

/* Two independent ops start at 0 on two devices; a chain stays on one
 * device, because moving its second op costs a transfer. */
static void test_metf_spreads_independent_ops_keeps_chains(void)
{
	dp_graph *g = dp_graph_new("t");
	uint32_t a = op(g, "a", 100, 1 << 20, 0);
	uint32_t b = op(g, "b", 100, 1 << 20, 0);
	dp_machine m;
	dp_plan p;
	REQUIRE(plan_on(g, 2, NULL, &m, &p));
	CHECK(p.placement[a] != p.placement[b]);
	CHECK_NEAR(p.sim.makespan, 100, 1e-9);
	dp_plan_free(&p);
	dp_graph_free(g);

	g = dp_graph_new("chain");
	uint32_t c = op(g, "c", 100, 1 << 20, 0);
	uint32_t d = op(g, "d", 100, 1 << 20, 0);
	dp_graph_add_edge(g, c, d, -1, false, NULL);
	REQUIRE(dp_graph_finalize(g, NULL) == DP_OK);
	REQUIRE(run_plan(g, &m, &p));
	CHECK_INT(p.placement[c], p.placement[d]);
	CHECK_NEAR(p.sim.makespan, 200, 1e-9);
	dp_plan_free(&p);
	dp_graph_free(g);
	dp_machine_free(&m);
}

/* With a third ready op, ETF starts it where it can start first: after c
 * on the same device, its consumer d is ready at 100 locally but only at
 * 133 elsewhere (25 us + 1 MiB at 130 GB/s); b takes device 0 at 100 (ties
 * go to the smaller topological index) and d the other device at 133. */
static void test_metf_takes_earliest_start_pair(void)
{
	dp_graph *g = dp_graph_new("etf");
	uint32_t a = op(g, "a", 100, 1 << 20, 0);
	uint32_t b = op(g, "b", 100, 1 << 20, 0);
	uint32_t c = op(g, "c", 100, 1 << 20, 0);
	uint32_t d = op(g, "d", 100, 1 << 20, 0);
	dp_graph_add_edge(g, c, d, -1, false, NULL);
	dp_machine m;
	dp_plan p;
	REQUIRE(plan_on(g, 2, NULL, &m, &p));
	CHECK_INT(p.placement[c], 0); /* highest rank first, device 0 */
	CHECK_INT(p.placement[a], 1);
	CHECK_INT(p.placement[b], 0);
	CHECK_INT(p.placement[d], 1);
	CHECK_NEAR(p.sim.makespan, 200 + 25 + 1048576 / 130000.0, 1e-6);
	test_free(g, &m, &p);
}

/* Params of both ops do not fit one device: the second goes to the slow
 * device although it would finish earlier on the fast one. */
static void test_metf_memory_makes_device_ineligible(void)
{
	dp_graph *g = dp_graph_new("mem");
	uint32_t a = op(g, "a", 10, 0, 600);
	uint32_t b = op(g, "b", 10, 0, 600);
	dp_graph_add_edge(g, a, b, 0, true, NULL);
	REQUIRE(dp_graph_finalize(g, NULL) == DP_OK);
	dp_machine m;
	REQUIRE(test_machine_make(&m, 2, NULL, "1,0.1"));
	dp_plan p;
	REQUIRE(dp_machine_set_caps(&m, "inf", NULL) == DP_OK);
	REQUIRE(run_plan(g, &m, &p));
	CHECK_INT(p.placement[a], 0);
	CHECK_INT(p.placement[b], 0);
	dp_plan_free(&p);
	REQUIRE(dp_machine_set_caps(&m, "1000B", NULL) == DP_OK);
	REQUIRE(run_plan(g, &m, &p));
	CHECK_INT(p.placement[a], 0);
	CHECK_INT(p.placement[b], 1);
	CHECK(p.feasible);
	test_free(g, &m, &p);
}

/* A chain whose outputs are big: each output dies when its consumer ends,
 * so one device holds two at a time and the chain fits on one device; m-ETF
 * must see that (liveness) instead of summing all outputs. */
static void test_metf_counts_liveness_not_sums(void)
{
	dp_graph *g = test_chain("chain", 10, 10, 1000);
	dp_machine m;
	dp_plan p;
	REQUIRE(plan_on(g, 2, "2000B", &m, &p));
	CHECK(p.feasible);
	for (uint32_t v = 1; v < g->nops; v++)
		CHECK_INT(p.placement[v], p.placement[0]);
	CHECK_INT(p.sim.dev[p.placement[0]].peak_bytes, 2000);
	test_free(g, &m, &p);
}

/* Nothing fits anywhere: the op goes where it overflows least, and the
 * plan says infeasible with the numbers. */
static void test_metf_overflows_least_when_nothing_fits(void)
{
	dp_graph *g = dp_graph_new("big");
	uint32_t a = op(g, "a", 10, 0, 2000);
	dp_machine m;
	dp_plan p;
	REQUIRE(plan_on(g, 3, "1000B,1500B,500B", &m, &p));
	CHECK_INT(p.placement[a], 1);
	CHECK(!p.feasible);
	CHECK_INT(dp_plan_worst_device(&p), 1);
	CHECK_INT(p.sim.dev[1].peak_bytes, 2000);
	test_free(g, &m, &p);
}

/* An op waits for memory to be released instead of overflowing: b's temp
 * (900) never fits device 1 (cap 500) and fits device 0 only once a's
 * output (800) is released after a2. Overflowing at once would pick device
 * 1 (400 over instead of 700); waiting puts it on device 0, feasibly. */
static void test_metf_waits_for_release(void)
{
	dp_graph *g = dp_graph_new("wait");
	uint32_t a = op(g, "a", 10, 800, 0);
	uint32_t a2 = op(g, "a2", 10, 0, 0);
	uint32_t b = op(g, "b", 10, 0, 0);
	g->ops[b].temp_bytes = 900;
	dp_graph_add_edge(g, a, a2, -1, false, NULL);
	g->ops[a].pin = 0;
	g->ops[a2].pin = 0;
	dp_machine m;
	dp_plan p;
	REQUIRE(plan_on(g, 2, "1000B,500B", &m, &p));
	CHECK_INT(p.placement[b], 0);
	CHECK(p.feasible);
	CHECK_INT(p.sim.dev[0].peak_bytes, 900);
	test_free(g, &m, &p);
}

static void test_metf_pins_groups_determinism_cancel(void)
{
	dp_graph *g = dp_graph_new("pg");
	for (int i = 0; i < 60; i++) {
		uint32_t id =
			test_add_opf(g, 5 + (i * 7) % 13, 1000 + i, "o%d", i);
		if (i >= 3)
			dp_graph_add_edge(g, (uint32_t)(i * 5 % i), id, -1,
					  false, NULL);
	}
	g->ops[10].pin = 2;
	g->ops[20].pin = 1;
	TEST_GROUP(g, "g", 5, 40, 59);
	TEST_GROUP(g, "h", 21, 33);
	g->ops[33].pin = 0;
	REQUIRE(dp_graph_finalize(g, NULL) == DP_OK);
	dp_machine m;
	REQUIRE(test_machine_make(&m, 3, NULL, NULL));
	dp_plan p, q;
	REQUIRE(run_plan(g, &m, &p));
	CHECK_INT(p.placement[10], 2);
	CHECK_INT(p.placement[20], 1);
	CHECK_INT(p.placement[5], p.placement[40]);
	CHECK_INT(p.placement[5], p.placement[59]);
	CHECK_INT(p.placement[21], 0);
	CHECK_INT(p.placement[33], 0);
	REQUIRE(run_plan(g, &m, &q));
	CHECK(memcmp(p.placement, q.placement, g->nops * sizeof *p.placement) ==
	      0);
	dp_plan_free(&p);
	dp_plan_free(&q);

	atomic_int cancel = 1;
	dp_progress pr = {NULL, NULL, &cancel};
	int32_t pl[60];
	dp_algo_opts o;
	dp_algo_opts_default(&o);
	dp_err err;
	CHECK_INT(dp_algo_place(dp_algo_find("metf"), g, &m, &o, &pr, pl, &err),
		  DP_ECANCELED);
	test_free(g, &m, NULL);
}

/* Progress goes from 0 to 1 for the metf phase. */
static double last_fraction;
static int reports;
static void on_progress(void *ud, const char *phase, double f)
{
	(void)ud;
	if (strcmp(phase, "metf") == 0) {
		last_fraction = f;
		reports++;
	}
}

static void test_metf_reports_progress(void)
{
	dp_graph *g = dp_graph_new("p");
	op(g, "x", 1, 0, 0);
	REQUIRE(dp_graph_finalize(g, NULL) == DP_OK);
	dp_machine m;
	REQUIRE(test_machine_make(&m, 2, NULL, NULL));
	dp_progress pr = {on_progress, NULL, NULL};
	int32_t pl[1];
	dp_algo_opts o;
	dp_algo_opts_default(&o);
	reports = 0;
	CHECK_INT(dp_algo_place(dp_algo_find("metf"), g, &m, &o, &pr, pl, NULL),
		  DP_OK);
	CHECK(reports >= 2);
	CHECK_NEAR(last_fraction, 1.0, 0);
	test_free(g, &m, NULL);
}

TEST_MAIN(TEST(test_metf_spreads_independent_ops_keeps_chains),
	  TEST(test_metf_takes_earliest_start_pair),
	  TEST(test_metf_memory_makes_device_ineligible),
	  TEST(test_metf_counts_liveness_not_sums),
	  TEST(test_metf_overflows_least_when_nothing_fits),
	  TEST(test_metf_waits_for_release),
	  TEST(test_metf_pins_groups_determinism_cancel),
	  TEST(test_metf_reports_progress))

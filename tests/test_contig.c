/* test_contig.c - contiguous stages: exact splits of chains by time, by
 * speed and under caps, overflow spread when caps cannot be met, groups and
 * pins counted in their stage, contiguity, determinism, cancel. */
#include <stdlib.h>
#include <string.h>

#include "dnnpart/algo.h"
#include "dnnpart/graph.h"
#include "dnnpart/machine.h"
#include "dnnpart/plan.h"
#include "lib/fixtures.h"
#include "lib/testlib.h"

/* op0 -> op1 -> ... with the given times and params, unfinalized. */
static dp_graph *chain(int n, const double *t, const int64_t *param)
{
	dp_graph *g = test_chain("chain", n, 1, 0);
	for (int i = 0; i < n; i++) {
		g->ops[i].time_us = t ? t[i] : 1;
		g->ops[i].param_bytes = param ? param[i] : 0;
	}
	return g;
}

/* Six ops of the given times with params of 100 bytes each, finalized
 * (NULL when that fails). */
static dp_graph *chain6_params(const double *t)
{
	const int64_t par[6] = {100, 100, 100, 100, 100, 100};
	dp_graph *g = chain(6, t, par);
	if (dp_graph_finalize(g, NULL) != DP_OK) {
		dp_graph_free(g);
		return NULL;
	}
	return g;
}

static dp_status run(const dp_graph *g, const dp_machine *m, int32_t *pl,
		     const dp_progress *p)
{
	return dp_algo_place(dp_algo_find("contig"), g, m, NULL, p, pl, NULL);
}

/* Places chain g (finalized here) on k devices of the given speeds (NULL:
 * all 1), checks the stages against want and frees g. */
static void check_stages(dp_graph *g, int k, const char *speeds,
			 const int32_t *want)
{
	dp_machine m;
	int32_t pl[8];
	if (dp_graph_finalize(g, NULL) != DP_OK || g->nops > 8 ||
	    !test_machine_make(&m, k, NULL, speeds)) {
		test_fail(__FILE__, __LINE__, "cannot set the chain up");
		dp_graph_free(g);
		return;
	}
	if (run(g, &m, pl, NULL) != DP_OK)
		test_fail(__FILE__, __LINE__, "contig failed");
	else
		CHECK_PLACEMENT(pl, want, (int)g->nops);
	test_free(g, &m, NULL);
}

static void test_contig_equal_chain_splits_evenly(void)
{
	dp_graph *g = chain(8, NULL, NULL);
	check_stages(g, 4, NULL, (const int32_t[]){0, 0, 1, 1, 2, 2, 3, 3});
}

/* Device 1 is three times faster: max(a / 1, (8 - a) / 3) is least at
 * a = 2. */
static void test_contig_follows_speeds(void)
{
	dp_graph *g = chain(8, NULL, NULL);
	check_stages(g, 2, "1,3", (const int32_t[]){0, 0, 1, 1, 1, 1, 1, 1});
}

/* By time alone the largest stage is 10 at best, and the greedy fill
 * gives [10] [1 1 1 1 1] [] (the last device idle); but five params of 100
 * do not fit a cap of 250: the split becomes [10 1] [1 1] [1 1] (largest
 * stage 11), and the simulator agrees that it fits. */
static void test_contig_respects_caps(void)
{
	dp_graph *g = chain6_params((const double[]){10, 1, 1, 1, 1, 1});
	REQUIRE(g);
	dp_machine m;
	REQUIRE(test_machine_make(&m, 3, NULL, NULL));
	int32_t pl[6];
	REQUIRE(run(g, &m, pl, NULL) == DP_OK);
	CHECK_PLACEMENT(pl, (const int32_t[]){0, 1, 1, 1, 1, 1}, 6);
	REQUIRE(dp_machine_set_caps(&m, "250B", NULL) == DP_OK);
	REQUIRE(run(g, &m, pl, NULL) == DP_OK);
	CHECK_PLACEMENT(pl, (const int32_t[]){0, 0, 1, 1, 2, 2}, 6);
	dp_plan p;
	memset(&p, 0, sizeof p);
	REQUIRE(dp_plan_evaluate(g, &m, pl, DP_CONT_PORT, &p, NULL) == DP_OK);
	CHECK(p.feasible);
	test_free(g, &m, &p);
}

/* Six params of 100 on two devices of 200: no split fits; the caps are
 * scaled by the least factor that allows one (1.5), so each device holds
 * three ops and overflows by the same amount. The plan says infeasible. */
static void test_contig_spreads_overflow(void)
{
	dp_graph *g = chain6_params((const double[]){1, 1, 1, 1, 1, 50});
	REQUIRE(g);
	dp_machine m;
	REQUIRE(test_machine_make(&m, 2, "200B", NULL));
	dp_plan p;
	memset(&p, 0, sizeof p);
	REQUIRE(dp_plan_run(g, &m, dp_algo_find("contig"), NULL, NULL, &p,
			    NULL) == DP_OK);
	CHECK_PLACEMENT(p.placement, (const int32_t[]){0, 0, 0, 1, 1, 1}, 6);
	CHECK(!p.feasible);
	CHECK_INT(p.sim.dev[0].peak_bytes, 300);
	CHECK_INT(p.sim.dev[1].peak_bytes, 300);
	test_free(g, &m, &p);
}

/* A group {op0, op7} goes with op0 and its time counts there: with 8 unit
 * ops on 2 devices, stage 0 takes op0..op2 plus op7 (4), stage 1 op3..op6.
 * A pinned op counts on its device from the start. */
static void test_contig_groups_and_pins_count_in_their_stage(void)
{
	dp_graph *g = chain(8, NULL, NULL);
	TEST_GROUP(g, "g", 0, 7);
	check_stages(g, 2, NULL, (const int32_t[]){0, 0, 0, 1, 1, 1, 1, 0});

	/* op1 pinned to device 1: device 1 starts with 1 unit, so stage 0
	 * takes op0, op2, op3, op4 (4) and stage 1 op5..op7 + op1 (4) */
	g = chain(8, NULL, NULL);
	g->ops[1].pin = 1;
	check_stages(g, 2, NULL, (const int32_t[]){0, 1, 0, 0, 0, 1, 1, 1});
}

/* On a branching DAG without groups or pins the devices never go back
 * along the order; the run is deterministic and can be canceled. */
static void test_contig_stages_are_contiguous(void)
{
	dp_graph *g = dp_graph_new("dag");
	for (uint32_t i = 0; i < 300; i++) {
		uint32_t id = test_add_opf(g, 1 + (i * 31) % 17,
					   1000 + (i * 7919) % 5000, "o%u", i);
		g->ops[id].temp_bytes = (i % 7) * 300;
		if (i > 2) {
			dp_graph_add_edge(g, i - 1 - (i * 13) % 3, id, -1,
					  false, NULL);
			dp_graph_add_edge(g, (i * 17) % i, id, -1, false, NULL);
		}
	}
	REQUIRE(dp_graph_finalize(g, NULL) == DP_OK);
	dp_machine m;
	REQUIRE(test_machine_make(&m, 5, "60KiB", NULL));
	int32_t pl[300], pl2[300];
	REQUIRE(run(g, &m, pl, NULL) == DP_OK);
	for (uint32_t i = 1; i < 300; i++)
		CHECK(pl[g->topo[i]] >= pl[g->topo[i - 1]]);
	CHECK_INT(pl[g->topo[299]], 4); /* all five devices used */
	REQUIRE(run(g, &m, pl2, NULL) == DP_OK);
	CHECK(memcmp(pl, pl2, sizeof pl) == 0);
	atomic_int cancel = 1;
	dp_progress p = {NULL, NULL, &cancel};
	CHECK_INT(run(g, &m, pl, &p), DP_ECANCELED);
	test_free(g, &m, NULL);
}

TEST_MAIN(TEST(test_contig_equal_chain_splits_evenly),
	  TEST(test_contig_follows_speeds), TEST(test_contig_respects_caps),
	  TEST(test_contig_spreads_overflow),
	  TEST(test_contig_groups_and_pins_count_in_their_stage),
	  TEST(test_contig_stages_are_contiguous))

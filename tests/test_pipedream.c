/* test_pipedream.c - the PipeDream planner: its dynamic program against a
 * hand computation and brute force, caps, and the `pipedream` strategy
 * (internal/pipedream.h, engine/algo/algo_pipedream.c). */
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dnnpart/algo.h"
#include "dnnpart/graph.h"
#include "dnnpart/machine.h"
#include "dnnpart/sim.h"
#include "dnnpart/strategy.h"
#include "internal/pipedream.h"
#include "internal/pipeline.h"
#include "lib/fixtures.h"
#include "lib/testlib.h"

/* Four layers, per micro-batch: c = 8, 2, 2, 8 µs; weights 0, 40, 40, 0
 * bytes; 1 byte of activation per cut; link 1 byte/µs, latency 0; K = 5.
 * By hand: a stage holding layer 0 (or 3) takes 8/r, and with a layer of
 * weights in it and r > 1 the all-reduce takes 2 (r-1)/r x >= 40 >= 40; so
 * layers 0 and 3 are stages of their own on 2 replicas (4 µs each), which
 * leaves one device for layers 1..2 (4 µs); cuts cost 2 x 1 = 2. The
 * optimum is 4 µs: stages {0} x2, {1,2} x1, {3} x2, and no other plan
 * reaches it. */
static const dpi_pipedream_layer hand[4] = {
	{8, 1, 0, 0, 10, 0},
	{2, 1, 40, 0, 0, 0},
	{2, 1, 40, 0, 0, 0},
	{8, 1, 0, 0, 0, 0}};

/* The hand chain on 5 devices at 1 byte/µs and no latency, capped at cap. */
static dpi_pipedream_problem hand_problem(int64_t cap)
{
	return (dpi_pipedream_problem){
		.layers = hand, .n = 4, .k = 5, .bw = 1, .cap = cap};
}

static void test_hand_chain_split_and_replication(void)
{
	dpi_pipedream_problem pb = hand_problem(DP_CAP_UNLIMITED);
	int S = 0, rep[8];
	uint32_t cut[9];
	double cost = 0;
	dp_err err;
	REQUIRE(dpi_pipedream_solve(&pb, &S, cut, rep, &cost, &err) == DP_OK);
	CHECK_NEAR(cost, 4.0, 1e-12);
	REQUIRE(S == 3);
	CHECK_INT(cut[0], 0);
	CHECK_INT(cut[1], 1);
	CHECK_INT(cut[2], 3);
	CHECK_INT(cut[3], 4);
	CHECK_INT(rep[0], 2);
	CHECK_INT(rep[1], 1);
	CHECK_INT(rep[2], 2);
	/* one device fewer: no stage of layer 0 or 3 below 8 µs fits with
	 * the middle, so 8 */
	pb.k = 4;
	REQUIRE(dpi_pipedream_solve(&pb, &S, cut, rep, &cost, &err) == DP_OK);
	CHECK_NEAR(cost, 8.0, 1e-12);
}

/* Layer 0 stashes 10 bytes per in-flight micro-batch. In the hand optimum
 * its stage is first of 3 (3 in flight) on 2 replicas: ceil(3/2) = 2
 * micro-batches, 20 bytes. A cap of 19 rules that plan out, and what the
 * planner returns then fits. */
static void test_caps_are_honoured(void)
{
	dpi_pipedream_problem pb = hand_problem(19);
	uint32_t best_cut[4] = {0, 1, 3, 4};
	int best_rep[3] = {2, 1, 2};
	CHECK(isinf(dpi_pipedream_cost(&pb, 3, best_cut, best_rep)));
	int S = 0, rep[8];
	uint32_t cut[9];
	double cost = 0;
	dp_err err;
	REQUIRE(dpi_pipedream_solve(&pb, &S, cut, rep, &cost, &err) == DP_OK);
	CHECK(cost > 4.0);
	CHECK_NEAR(dpi_pipedream_cost(&pb, S, cut, rep), cost, 1e-12);
	for (int s = 0; s < S; s++)
		if (cut[s] == 0) {
			int q = S - s, r = rep[s];
			CHECK((int64_t)((q + r - 1) / r) * 10 <= 19);
		}
	/* nothing fits: a clear error */
	pb.cap = 5;
	CHECK_INT(dpi_pipedream_solve(&pb, &S, cut, rep, &cost, &err), DP_EINPUT);
	CHECK_CONTAINS(err.msg, "fits 5 bytes");
}

/* The weight versions of an asynchronous schedule count in the program's
 * memory. Four equal layers of 1 µs, 10 bytes of weights (all of their
 * static memory) and 1 byte of activation, K = 2 stages of one device,
 * M = 2, cap 34. Under 1F1B a stage of L layers first of 2 holds 10 L +
 * 2 L, last 10 L + L: the cut 2 | 2 (24 and 22 bytes) fits, cost 2.
 * stash: stage 0 of 2 holds 2 versions, 10 L more: 2 | 2 needs 44, so
 * the program cuts 1 | 3 (10 + 2 + 10 = 22 and 30 + 3 = 33), cost 3.
 * 2bw: 2 versions on both, 1 | 3 needs 63 on stage 1 and 2 | 2 44 on
 * stage 0, one stage 40 + 4 + 40: nothing fits. */
static void test_async_versions_in_memory(void)
{
	dpi_pipedream_layer l[4];
	for (int i = 0; i < 4; i++)
		l[i] = (dpi_pipedream_layer){.time_us = 1, .act = 0,
					     .weights = 0, .stat = 10,
					     .stash = 1, .wts = 10};
	dpi_pipedream_problem pb = {.layers = l, .n = 4, .k = 2, .rep = 1,
				    .bw = 1, .cap = 34, .m = 2,
				    .sch = DP_SCHED_1F1B};
	int S = 0, rep[4];
	uint32_t cut[5];
	double cost = 0;
	dp_err err;
	REQUIRE(dpi_pipedream_solve(&pb, &S, cut, rep, &cost, &err) == DP_OK);
	CHECK_INT(S, 2);
	CHECK_INT(cut[1], 2);
	CHECK_NEAR(cost, 2.0, 1e-12);
	pb.sch = DP_SCHED_STASH;
	uint32_t even[3] = {0, 2, 4};
	int one[2] = {1, 1};
	CHECK(isinf(dpi_pipedream_cost(&pb, 2, even, one)));
	REQUIRE(dpi_pipedream_solve(&pb, &S, cut, rep, &cost, &err) == DP_OK);
	CHECK_INT(S, 2);
	CHECK_INT(cut[1], 1);
	CHECK_NEAR(cost, 3.0, 1e-12);
	pb.sch = DP_SCHED_2BW;
	CHECK_INT(dpi_pipedream_solve(&pb, &S, cut, rep, &cost, &err),
		  DP_EINPUT);
}

/* Brute force: every contiguous split and every replication vector with
 * at most K devices (every stage r = fixed when fixed > 0). */
static double brute(const dpi_pipedream_problem *pb)
{
	double best = INFINITY;
	uint32_t n = pb->n;
	for (uint32_t mask = 0; mask < (1u << (n - 1)); mask++) {
		uint32_t cut[16];
		int S = 0;
		cut[S++] = 0;
		for (uint32_t i = 1; i < n; i++)
			if (mask & (1u << (i - 1)))
				cut[S++] = i;
		cut[S] = n;
		if (S > pb->k)
			continue;
		int rep[16];
		for (int s = 0; s < S; s++)
			rep[s] = pb->rep > 0 ? pb->rep : 1;
		for (;;) {
			double c = dpi_pipedream_cost(pb, S, cut, rep);
			best = c < best ? c : best;
			if (pb->rep > 0)
				break;
			int s = 0;
			while (s < S && rep[s] == pb->k - S + 1) {
				rep[s] = 1;
				s++;
			}
			if (s == S)
				break;
			rep[s]++;
		}
	}
	return best;
}

static void test_equals_brute_force_on_small_chains(void)
{
	uint64_t rs = 14;
	int cases = 0, capped = 0;
	for (int it = 0; it < 300; it++) {
		dpi_pipedream_layer l[7];
		uint32_t n = 1 + test_randn(&rs, 7);
		for (uint32_t i = 0; i < n; i++) {
			l[i].time_us = (double)(1 + test_randn(&rs, 20));
			l[i].act = test_randn(&rs, 10);
			l[i].weights = test_randn(&rs, 30);
			l[i].stat = test_randn(&rs, 20);
			l[i].stash = test_randn(&rs, 10);
		}
		dpi_pipedream_problem pb = {
			.layers = l,
			.n = n,
			.k = 1 + (int)test_randn(&rs, 5),
			.rep = it % 3 == 0 ? 1 + it % 2 : 0,
			.bw = 1 + test_randn(&rs, 4),
			.lat = (double)test_randn(&rs, 3),
			.cap = it % 2 ? 40 + test_randn(&rs, 80)
				      : DP_CAP_UNLIMITED,
			.m = it % 4 == 1 ? 1 + (int)test_randn(&rs, 3) : 0};
		if (pb.rep > pb.k)
			pb.rep = 1;
		double want = brute(&pb);
		int S = 0, rep[8];
		uint32_t cut[9];
		double cost = 0;
		dp_err err;
		dp_status st = dpi_pipedream_solve(&pb, &S, cut, rep, &cost, &err);
		if (isinf(want)) {
			CHECK_INT(st, DP_EINPUT);
			capped++;
			continue;
		}
		REQUIRE(st == DP_OK);
		CHECK_NEAR(cost, want, 1e-9 * (1 + want));
		CHECK_NEAR(dpi_pipedream_cost(&pb, S, cut, rep), cost, 1e-12);
		cases++;
	}
	CHECK(cases > 100);
	CHECK(capped > 0);
}

/* Forward ops f0..f3 of 1, 3, 1, 1 µs with mirrored backward ops of the
 * same times, each reading a param w<i> of wbytes. On 2 devices with
 * weights of 100 bytes on a link of 1 byte/µs, data parallelism costs
 * 400 µs of all-reduce, so: {f0,f1} {f2,f3} (8 against 4) is the best
 * split; by hand the others are 2 | 10 and 10 | 2. With weightless params
 * one stage on both devices (12 / 2 = 6 < 8) wins. */
static dp_graph *chain4(int64_t wbytes)
{
	static const double t[4] = {1, 3, 1, 1};
	dp_graph *g = dp_graph_new("chain4");
	uint32_t f[4], b[4];
	char name[32];
	for (int i = 0; i < 4; i++) {
		snprintf(name, sizeof name, "f%d", i);
		f[i] = test_add_role_op(g, name, t[i], 0, DP_ROLE_FORWARD);
		snprintf(name, sizeof name, "w%d", i);
		test_add_edge(
			g, test_add_role_op(g, name, 0, wbytes, DP_ROLE_PARAM),
			f[i]);
		if (i)
			test_add_edge(g, f[i - 1], f[i]);
	}
	uint32_t loss = test_add_role_op(g, "loss", 0, 0, DP_ROLE_LOSS);
	test_add_edge(g, f[3], loss);
	for (int i = 3; i >= 0; i--) {
		b[i] = test_add_grad(g, f[i], i == 3 ? loss : b[i + 1], t[i],
				     0);
	}
	return test_finalized(g);
}

/* The pipedream algorithm's plan of g on m with M micro-batches. */
static dp_status pipedream_plan(const dp_graph *g, const dp_machine *m, int M,
				const dp_progress *p, dp_strategy *s,
				dp_err *err)
{
	const dp_algo *a = dp_algo_find("pipedream");
	dp_algo_opts o;
	dp_algo_opts_default(&o);
	o.microbatches = M;
	dp_strategy_init(s);
	return a && a->strategize ? a->strategize(g, m, &o, p, s, err)
				  : DP_EINTERNAL;
}

static void test_planner_cuts_the_hand_chain(void)
{
	dp_graph *g = chain4(100);
	REQUIRE(g);
	dp_machine m;
	REQUIRE(dp_machine_init(&m, 2, NULL) == DP_OK);
	m.lat = 0;
	m.bw = 1;
	dp_strategy s;
	dp_err err;
	REQUIRE(pipedream_plan(g, &m, 2, NULL, &s, &err) == DP_OK);
	CHECK_INT(s.kind, DP_STRAT_PIPELINE);
	CHECK_INT(s.pipe.nstages, 2);
	CHECK_INT(s.pipe.schedule, DP_SCHED_1F1B);
	const char *want[] = {"f0", "f1", "f2", "f3", "f1/grad", "f2/grad"};
	const int stage[] = {0, 0, 1, 1, 0, 1};
	for (int i = 0; i < 6; i++) {
		uint32_t u = dp_graph_find(g, want[i]);
		REQUIRE(u != UINT32_MAX);
		CHECK_INT(s.pipe.stage[u], stage[i]);
	}
	dp_strategy_free(&s);

	/* a raised cancel flag: DP_ECANCELED and nothing made */
	atomic_int flag = 1;
	dp_progress p = {NULL, NULL, &flag};
	dp_strategy_init(&s);
	CHECK_INT(pipedream_plan(g, &m, 2, &p, &s, &err), DP_ECANCELED);
	CHECK_CONTAINS(err.msg, "canceled");
	CHECK(s.pipe.stage == NULL && s.placement == NULL);
	dp_graph_free(g);

	/* weightless: one stage, data parallel over both devices */
	g = chain4(0);
	REQUIRE(g);
	REQUIRE(pipedream_plan(g, &m, 2, NULL, &s, &err) == DP_OK);
	CHECK_INT(s.pipe.nstages, 1);
	CHECK_INT(s.pipe.group_off[1], 2);
	CHECK_INT(s.k, 2);
	dp_strategy_free(&s);
	dp_machine_free(&m);
	dp_graph_free(g);
}

/* One layer, its weight gradient all-reduced between 2 replicas: w (W
 * bytes) -> f (8 µs) -> loss -> f/grad (8) -> f/grad_w (4, W) ->
 * w/update. With M = 4 on a link of 1000 bytes/µs and no latency, the
 * planner's stage time per micro-batch is C / r + 2 (r-1)/r x W / bw / M =
 * 20/4/2 + 1.2/4 = 2.8 µs, and the simulator's step is M x that: each
 * replica computes 20/2 = 10 µs, then the ring all-reduce moves W/2 each
 * way twice, 1.2 µs, once per step after the flush. */
static void test_sync_model_matches_the_simulator(void)
{
	enum { W = 1200 };
	dp_graph *g = dp_graph_new("one");
	uint32_t w = test_add_role_op(g, "w", 0, W, DP_ROLE_PARAM);
	uint32_t f = test_add_role_op(g, "f", 8, 800, DP_ROLE_FORWARD);
	uint32_t loss = test_add_role_op(g, "loss", 0, 0, DP_ROLE_LOSS);
	uint32_t b = test_add_role_op(g, "f/grad", 8, 800, DP_ROLE_BACKWARD);
	uint32_t gw = test_add_role_op(g, "f/grad_w", 4, W, DP_ROLE_GRAD);
	uint32_t up = test_add_role_op(g, "w/update", 0, W, DP_ROLE_UPDATE);
	const uint32_t e[][2] = {{w, f},  {f, loss}, {loss, b}, {f, b},
				 {b, gw}, {gw, up},  {w, up}};
	for (size_t i = 0; i < sizeof e / sizeof e[0]; i++)
		test_add_edge(g, e[i][0], e[i][1]);
	REQUIRE(dp_graph_finalize(g, NULL) == DP_OK);
	test_machine tm;
	test_machine_init(&tm, 2, 1000, 0);
	dp_machine *m = &tm.m;
	int S = 0;
	int32_t *fs = NULL;
	double cost = 0;
	dp_err err;
	REQUIRE(dpi_pipedream_cut(g, m, 4, 2, DP_SCHED_1F1B, &S, &fs, &cost,
				  &err) == DP_OK);
	free(fs);
	CHECK_INT(S, 1);
	CHECK_NEAR(cost, 20.0 / 4 / 2 + 2.0 * 1 / 2 * W / 1000 / 4, 1e-9);
	dp_strategy s;
	REQUIRE(pipedream_plan(g, m, 4, NULL, &s, &err) == DP_OK);
	CHECK_INT(s.k, 2);
	bool fits = false;
	CHECK_NEAR(test_simulate_strategy(g, m, &s, DP_CONT_PORT, &fits),
		   4 * cost, 1e-9);
	CHECK(fits);
	dp_strategy_free(&s);
	dp_graph_free(g);
}

TEST_MAIN(TEST(test_hand_chain_split_and_replication),
	  TEST(test_caps_are_honoured),
	  TEST(test_async_versions_in_memory),
	  TEST(test_equals_brute_force_on_small_chains),
	  TEST(test_planner_cuts_the_hand_chain),
	  TEST(test_sync_model_matches_the_simulator))

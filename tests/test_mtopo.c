/* test_mtopo.c - Baechi's m-TOPO placer: exact placements on small graphs,
 * pins, colocation, the last device overflowing, determinism, cancel. */
#include <stdlib.h>
#include <string.h>

#include "dnnpart/algo.h"
#include "lib/fixtures.h"
#include "lib/testlib.h"

/* A machine built by hand (130 bytes/us, 25 us) with every cap at cap, so
 * that these tests need only the algorithm. */
static void tm_init(test_machine *t, int k, int64_t cap)
{
	test_machine_init(t, k, 130000, 25);
	for (int d = 0; d < k; d++)
		t->cap[d] = cap;
}

/* op0 -> op1 -> ... -> op(n-1), each with output_bytes 100 (op memory 100),
 * returned unfinalized so tests can add pins and groups. */
static dp_graph *chain(int n)
{
	return test_chain("chain", n, 10, 100);
}

static const dp_algo *mtopo(void)
{
	return dp_algo_find("mtopo");
}

static dp_status run(const dp_graph *g, const dp_machine *m, int32_t *pl,
		     const dp_progress *p, dp_err *err)
{
	return dp_algo_place(mtopo(), g, m, NULL, p, pl, err);
}

static void test_mtopo_is_registered_after_single(void)
{
	REQUIRE(mtopo() != NULL);
	size_t single = dp_algo_count(), mt = dp_algo_count();
	for (size_t i = 0; i < dp_algo_count(); i++) {
		if (dp_algo_at(i) == dp_algo_find("single"))
			single = i;
		if (dp_algo_at(i) == mtopo())
			mt = i;
	}
	CHECK(single < dp_algo_count());
	CHECK_INT(mt, single + 1);
	CHECK_CONTAINS(dp_algo_names(), "mtopo");
}

/* Places chain g (finalized here) with m-TOPO on k devices of caps cap
 * (device 0's cap0 when that is > 0), checks the placement against want and
 * frees g. */
static void check_chain(dp_graph *g, int k, int64_t cap, int64_t cap0,
			const int32_t *want)
{
	test_machine t;
	tm_init(&t, k, cap);
	if (cap0 > 0)
		t.cap[0] = cap0;
	int32_t pl[8];
	if (dp_graph_finalize(g, NULL) != DP_OK || g->nops > 8 ||
	    run(g, &t.m, pl, NULL, NULL) != DP_OK)
		test_fail(__FILE__, __LINE__, "the chain could not be placed");
	else
		CHECK_PLACEMENT(pl, want, (int)g->nops);
	dp_graph_free(g);
}

/* Six ops of 100 B on 2 unlimited devices: budget = 600/2 + 100 = 400, so
 * device 0 takes op0..op3 (400 B) and op4 would make 500. */
static void test_mtopo_fills_up_to_share_plus_largest(void)
{
	dp_graph *g = chain(6);
	check_chain(g, 2, DP_CAP_UNLIMITED, 0,
		    (const int32_t[]){0, 0, 0, 0, 1, 1});
}

/* A cap below the share is the budget: device 0 (cap 250) takes 2 ops,
 * device 1 (budget 400) the other 4. */
static void test_mtopo_budget_is_capped_by_device_memory(void)
{
	dp_graph *g = chain(6);
	check_chain(g, 2, DP_CAP_UNLIMITED, 250,
		    (const int32_t[]){0, 0, 1, 1, 1, 1});
}

/* Caps of 100 B: device 0 is full after op0; the last device keeps taking
 * everything that is left (the plan reports it over its cap). */
static void test_mtopo_last_device_keeps_filling(void)
{
	dp_graph *g = chain(6);
	check_chain(g, 2, 100, 0, (const int32_t[]){0, 1, 1, 1, 1, 1});
}

/* An op larger than the budget still goes to an empty device rather than
 * skipping it. Ops: 100, 1000, 100, 100 on 3 devices with caps 500:
 * budget = min(500, 1300/3 + 1000) = 500; op0 on 0, op1 (1000) does not fit
 * on 0 (holds 100) -> device 1, which is empty, so it stays there; op2 does
 * not fit on 1 -> device 2, op3 too. */
static void test_mtopo_oversized_op_takes_an_empty_device(void)
{
	dp_graph *g = chain(4);
	g->ops[1].output_bytes = 1000;
	check_chain(g, 3, 500, 0, (const int32_t[]){0, 1, 2, 2});
}

/* op1 pinned to device 1 counts there first (100 B); the fill puts op0, op2,
 * op3, op4 on device 0 (400 B) and op5 on device 1. */
static void test_mtopo_honours_pins(void)
{
	dp_graph *g = chain(6);
	g->ops[1].pin = 1;
	check_chain(g, 2, DP_CAP_UNLIMITED, 0,
		    (const int32_t[]){0, 1, 0, 0, 0, 1});
}

/* op1 and op4 form a group of 200 B, placed with op1: device 0 then holds
 * op0, op1, op4 (300 B) and op2 (400 B); op3 and op5 go to device 1. */
static void test_mtopo_places_colocation_group_as_a_unit(void)
{
	dp_graph *g = chain(6);
	TEST_GROUP(g, "grp", 1, 4);
	check_chain(g, 2, DP_CAP_UNLIMITED, 0,
		    (const int32_t[]){0, 0, 0, 1, 0, 1});
}

/* A group with one pinned member goes whole to that pin. */
static void test_mtopo_group_follows_a_pinned_member(void)
{
	dp_graph *g = chain(6);
	TEST_GROUP(g, "grp", 0, 5);
	g->ops[5].pin = 2;
	/* op0 and op5 on the pin; budget 600/3 + 100 = 300: op1..op3 on
	 * device 0, op4 on device 1 */
	check_chain(g, 3, DP_CAP_UNLIMITED, 0,
		    (const int32_t[]){2, 0, 0, 0, 1, 2});
}

static void test_mtopo_rejects_pin_beyond_k(void)
{
	dp_graph *g = chain(3);
	g->ops[2].pin = 5;
	REQUIRE(dp_graph_finalize(g, NULL) == DP_OK);
	test_machine t;
	tm_init(&t, 2, DP_CAP_UNLIMITED);
	int32_t pl[3];
	dp_err err;
	CHECK_INT(run(g, &t.m, pl, NULL, &err), DP_EINPUT);
	CHECK_CONTAINS(err.msg, "op2");
	CHECK_CONTAINS(err.msg, "device 5");
	dp_graph_free(g);
}

/* A random DAG with groups and a pin on device 3 (tests/lib's one
 * generator): each op takes one or two inputs from any earlier op. */
static dp_graph *random_dag(uint32_t n, uint64_t seed)
{
	test_dag_opts d =
		test_dag_spec(n, "inputs=2 time=0..99 out=0..4999 "
				 "params=4:3000 control=7 groups=11 pins=40:4");
	return test_random_dag_with(seed, &d, "rand");
}

static void test_mtopo_random_dags_are_complete_and_deterministic(void)
{
	for (uint64_t seed = 1; seed <= 20; seed++) {
		dp_graph *g = random_dag(300, seed * 7919);
		REQUIRE(g);
		test_machine t;
		tm_init(&t, 4, 200000);
		int32_t *a = malloc(g->nops * sizeof *a);
		int32_t *b = malloc(g->nops * sizeof *b);
		REQUIRE(a && b);
		REQUIRE(run(g, &t.m, a, NULL, NULL) == DP_OK);
		REQUIRE(run(g, &t.m, b, NULL, NULL) == DP_OK);
		CHECK(memcmp(a, b, g->nops * sizeof *a) == 0);
		for (uint32_t u = 0; u < g->nops; u++) {
			CHECK(a[u] >= 0 && a[u] < 4);
			if (g->ops[u].pin >= 0)
				CHECK_INT(a[u], g->ops[u].pin);
		}
		for (uint32_t c = 0; c < g->ngroups; c++)
			for (uint32_t i = g->group_off[c];
			     i < g->group_off[c + 1]; i++)
				CHECK_INT(a[g->group_ops[i]],
					  a[g->group_ops[g->group_off[c]]]);
		/* devices are filled in order: an unpinned, ungrouped op
		 * never sits on a lower device than an earlier one */
		int32_t last = 0;
		for (uint32_t i = 0; i < g->nops; i++) {
			uint32_t u = g->topo[i];
			if (g->ops[u].pin >= 0 || g->ops[u].colocate >= 0)
				continue;
			CHECK(a[u] >= last);
			last = a[u];
		}
		free(a);
		free(b);
		dp_graph_free(g);
	}
}

static int progress_calls;
static double progress_last;
static void on_progress(void *ud, const char *phase, double fraction)
{
	(void)ud;
	(void)phase;
	progress_calls++;
	progress_last = fraction;
}

static void test_mtopo_reports_progress_and_can_be_canceled(void)
{
	dp_graph *g = chain(10);
	REQUIRE(dp_graph_finalize(g, NULL) == DP_OK);
	test_machine t;
	tm_init(&t, 2, DP_CAP_UNLIMITED);
	int32_t pl[10];
	atomic_int cancel = 0;
	dp_progress p = {on_progress, NULL, &cancel};
	progress_calls = 0;
	REQUIRE(run(g, &t.m, pl, &p, NULL) == DP_OK);
	CHECK(progress_calls >= 2);
	CHECK_NEAR(progress_last, 1.0, 0);
	atomic_store(&cancel, 1);
	dp_err err;
	CHECK_INT(run(g, &t.m, pl, &p, &err), DP_ECANCELED);
	dp_graph_free(g);
}

TEST_MAIN(TEST(test_mtopo_is_registered_after_single),
	  TEST(test_mtopo_fills_up_to_share_plus_largest),
	  TEST(test_mtopo_budget_is_capped_by_device_memory),
	  TEST(test_mtopo_last_device_keeps_filling),
	  TEST(test_mtopo_oversized_op_takes_an_empty_device),
	  TEST(test_mtopo_honours_pins),
	  TEST(test_mtopo_places_colocation_group_as_a_unit),
	  TEST(test_mtopo_group_follows_a_pinned_member),
	  TEST(test_mtopo_rejects_pin_beyond_k),
	  TEST(test_mtopo_random_dags_are_complete_and_deterministic),
	  TEST(test_mtopo_reports_progress_and_can_be_canceled))

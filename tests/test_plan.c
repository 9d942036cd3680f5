/* test_plan.c - the plan layer: bounds, xLB, speedup, feasibility, the
 * one-device reference, the worst device, and dp_plan_run's checks of what an
 * algorithm returns. */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dnnpart/algo.h"
#include "dnnpart/graph.h"
#include "dnnpart/machine.h"
#include "dnnpart/plan.h"
#include "lib/fixtures.h"
#include "lib/testlib.h"

/* The chain of docs/simulator.md: a(10us, out 1000, param 100) -> b(20us,
 * out 500) -> c(5us, param 50). On [0, 0, 1] with 100 B/us and 2 us it ends
 * at 42 with peaks 1600 (device 0) and 550 (device 1).
 * Bounds: graph critical path 35, work 35 / 2 = 17.5, LB 35; xLB 42/35;
 * one device: 35 us, speedup 35/42. (test_abc_chain)
 * All on device 0: a [0,10), b [10,30), c [30,35); params 150, a's output
 * [0,30), b's [10,35): peak 150 + 1500 = 1650 at 10. */
static void test_plan_evaluate_metrics(void)
{
	test_machine tm;
	dp_graph *g = test_abc_chain(&tm);
	tm.cap[0] = 1600;
	int32_t pl[] = {0, 0, 1};
	dp_plan plan;
	dp_err err;
	REQUIRE(dp_plan_evaluate(g, &tm.m, pl, DP_CONT_PORT, &plan, &err) ==
		DP_OK);
	CHECK_STR(plan.algo, "eval");
	CHECK_INT(plan.nops, 3);
	CHECK_INT(plan.k, 2);
	CHECK_INT(plan.placement[2], 1);
	CHECK_NEAR(plan.plan_ms, 0, 0);
	CHECK_NEAR(plan.sim.makespan, 42, 0);
	CHECK_NEAR(plan.bounds.graph_cp_us, 35, 0);
	CHECK_NEAR(plan.bounds.work_bound_us, 17.5, 0);
	CHECK_NEAR(plan.bounds.lb_us, 35, 0);
	CHECK_NEAR(plan.bounds.one_device_us, 35, 0);
	CHECK_NEAR(plan.xlb, 42.0 / 35.0, 1e-15);
	CHECK_NEAR(plan.speedup, 35.0 / 42.0, 1e-15);
	/* device 0 peaks at exactly its cap: still feasible */
	CHECK(plan.feasible);
	CHECK_INT(dp_plan_worst_device(&plan), -1);
	/* but the whole graph on device 0 would not fit */
	CHECK_INT(plan.one_device_peak, 1650);
	CHECK(!plan.one_device_fits);
	/* detail is on: the critical path is there */
	CHECK_INT(plan.sim.cp_len, 3);
	dp_plan_free(&plan);
	CHECK(plan.placement == NULL);
	tm.cap[0] = 1650;
	REQUIRE(dp_plan_evaluate(g, &tm.m, pl, DP_CONT_NONE, &plan, &err) ==
		DP_OK);
	CHECK(plan.one_device_fits);
	CHECK_INT(plan.contention, DP_CONT_NONE);
	dp_plan_free(&plan);
	dp_graph_free(g);
}

static void test_plan_worst_device_is_largest_overflow(void)
{
	/* the caps of devices 0 and 1 (peaks 1600 and 550), the worst one */
	static const struct {
		int64_t cap0, cap1;
		int worst;
	} cases[] = {
		{1000, 100, 0}, /* over by 600 and by 450 */
		{1500, 100, 1}, /* over by 100 and by 450 */
	};
	test_machine tm;
	dp_graph *g = test_abc_chain(&tm);
	int32_t pl[] = {0, 0, 1};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		dp_plan plan;
		tm.cap[0] = cases[i].cap0;
		tm.cap[1] = cases[i].cap1;
		REQUIRE(dp_plan_evaluate(g, &tm.m, pl, DP_CONT_PORT, &plan,
					 NULL) == DP_OK);
		CHECK(!plan.feasible);
		CHECK_INT(dp_plan_worst_device(&plan), cases[i].worst);
		dp_plan_free(&plan);
	}
	dp_graph_free(g);
}

static void test_plan_evaluate_rejects_bad_device(void)
{
	test_machine tm;
	dp_graph *g = test_abc_chain(&tm);
	int32_t pl[] = {0, 3, 1};
	dp_plan plan;
	memset(&plan, 0, sizeof plan);
	dp_err err;
	CHECK_INT(dp_plan_evaluate(g, &tm.m, pl, DP_CONT_PORT, &plan, &err),
		  DP_EINPUT);
	CHECK_CONTAINS(err.msg, "'b'");
	CHECK(plan.placement == NULL);
	dp_graph_free(g);
}

/* Test algorithms: a fixed split, one that ignores pins and colocation,
 * one that leaves an op out, one that is canceled. TEST_ALGO(id, summary)
 * { body } defines algo_id, named id, whose run is body (g, m, o, p, pl
 * and err in scope). */
#define TEST_ALGO_RUN(id)                                                      \
	static dp_status algo_##id##_run(                                      \
		const dp_graph *g, const dp_machine *m, const dp_algo_opts *o, \
		const dp_progress *p, int32_t *pl, dp_err *err)
#define TEST_ALGO(id, sum)                                                     \
	TEST_ALGO_RUN(id);                                                     \
	static const dp_algo algo_##id = {.name = #id,                         \
					  .summary = sum,                      \
					  .source = "test",                    \
					  .run = algo_##id##_run};             \
	TEST_ALGO_RUN(id)

TEST_ALGO(split, "last op on device 1")
{
	(void)m, (void)o, (void)p, (void)err;
	for (uint32_t u = 0; u < g->nops; u++)
		pl[u] = u + 1 == g->nops ? 1 : 0;
	return DP_OK;
}

TEST_ALGO(all0, "ignores constraints")
{
	(void)m, (void)o, (void)p, (void)err;
	memset(pl, 0, g->nops * sizeof *pl);
	return DP_OK;
}

TEST_ALGO(forgets, "leaves the last op out")
{
	(void)m, (void)o, (void)p, (void)err;
	for (uint32_t u = 0; u + 1 < g->nops; u++)
		pl[u] = 0;
	return DP_OK;
}

static int canceled_calls;
TEST_ALGO(canceled, "always canceled")
{
	(void)g, (void)m, (void)o, (void)p, (void)pl;
	canceled_calls++;
	return dp_err_set(err, DP_ECANCELED, NULL, 0, 0, "canceled");
}

static void test_plan_run_simulates_the_algorithm(void)
{
	test_machine tm;
	dp_graph *g = test_abc_chain(&tm);
	dp_algo_opts o;
	dp_algo_opts_default(&o);
	o.contention = DP_CONT_NONE;
	dp_plan plan;
	dp_err err;
	REQUIRE(dp_plan_run(g, &tm.m, &algo_split, &o, NULL, &plan, &err) ==
		DP_OK);
	CHECK_STR(plan.algo, "split");
	CHECK_INT(plan.contention, DP_CONT_NONE);
	CHECK(plan.plan_ms >= 0);
	CHECK_NEAR(plan.sim.makespan, 42, 0);
	CHECK_INT(plan.sim.dev[0].peak_bytes, 1600);
	dp_plan_free(&plan);
	/* the registry's single: all on device 0, speedup 1 */
	const dp_algo *single = dp_algo_find("single");
	REQUIRE(single);
	REQUIRE(dp_plan_run(g, &tm.m, single, NULL, NULL, &plan, &err) ==
		DP_OK);
	CHECK_NEAR(plan.sim.makespan, 35, 0);
	CHECK_NEAR(plan.speedup, 1, 0);
	CHECK_NEAR(plan.xlb, 1, 0);
	CHECK_INT(plan.one_device_peak, 1650);
	CHECK_INT(plan.sim.dev[0].peak_bytes, 1650);
	dp_plan_free(&plan);
	dp_graph_free(g);
}

static void test_plan_run_rejects_pin_violation(void)
{
	dp_graph *g = dp_graph_new("pins");
	test_add_op(g, "a", 0, 0, NULL);
	uint32_t b = test_add_op(g, "b", 0, 0, NULL);
	g->ops[b].pin = 1;
	REQUIRE(dp_graph_finalize(g, NULL) == DP_OK);
	test_machine tm;
	test_machine_init(&tm, 2, 100, 2);
	dp_plan plan;
	memset(&plan, 0, sizeof plan);
	plan.xlb = 7; /* untouched on error */
	dp_err err;
	CHECK_INT(dp_plan_run(g, &tm.m, &algo_all0, NULL, NULL, &plan, &err),
		  DP_EINTERNAL);
	CHECK_CONTAINS(err.msg, "algorithm 'all0'");
	CHECK_CONTAINS(err.msg, "op 'b'");
	CHECK_CONTAINS(err.msg, "pinned to device 1");
	CHECK_NEAR(plan.xlb, 7, 0);
	CHECK(plan.placement == NULL);
	/* a pin beyond the machine is bad input, found before the run */
	test_machine_init(&tm, 1, 100, 2);
	canceled_calls = 0;
	CHECK_INT(
		dp_plan_run(g, &tm.m, &algo_canceled, NULL, NULL, &plan, &err),
		DP_EINPUT);
	CHECK_CONTAINS(err.msg, "pinned to device 1");
	CHECK_INT(canceled_calls, 0);
	dp_graph_free(g);
}

static void test_plan_run_rejects_split_group_and_unplaced_op(void)
{
	dp_graph *g = dp_graph_new("groups");
	uint32_t a = test_add_op(g, "a", 0, 0, NULL);
	uint32_t b = test_add_op(g, "b", 0, 0, NULL);
	dp_graph_set_colocate(g, a, "var", NULL);
	dp_graph_set_colocate(g, b, "var", NULL);
	REQUIRE(dp_graph_finalize(g, NULL) == DP_OK);
	test_machine tm;
	test_machine_init(&tm, 2, 100, 2);
	dp_plan plan;
	memset(&plan, 0, sizeof plan);
	dp_err err;
	CHECK_INT(dp_plan_run(g, &tm.m, &algo_split, NULL, NULL, &plan, &err),
		  DP_EINTERNAL);
	CHECK_CONTAINS(err.msg, "algorithm 'split' split colocation group "
				"'var'");
	CHECK_INT(dp_plan_run(g, &tm.m, &algo_forgets, NULL, NULL, &plan, &err),
		  DP_EINTERNAL);
	CHECK_CONTAINS(err.msg, "placed op 'b' on device -1");
	CHECK(plan.placement == NULL);
	dp_graph_free(g);
}

static void test_plan_run_passes_algorithm_errors_through(void)
{
	test_machine tm;
	dp_graph *g = test_abc_chain(&tm);
	dp_plan plan;
	memset(&plan, 0, sizeof plan);
	dp_err err;
	CHECK_INT(
		dp_plan_run(g, &tm.m, &algo_canceled, NULL, NULL, &plan, &err),
		DP_ECANCELED);
	CHECK_STR(err.msg, "canceled");
	CHECK(plan.placement == NULL);
	dp_graph_free(g);
}

/* dp_plan_run_all: what it records for each algorithm (up to 8), with a
 * copy of each placement; a hook can raise the cancel flag as algorithm
 * cancel_at starts. */
typedef struct run_log {
	int before, after;
	size_t order[8];
	dp_status status[8];
	double makespan[8];
	int32_t *placement[8];
	char msg[8][64];
	int cancel_at;
	atomic_int *flag;
} run_log;

static void log_before(void *ud, size_t i, const dp_algo *a)
{
	run_log *l = ud;
	(void)a;
	l->order[l->before++] = i;
	if (l->flag && (int)i == l->cancel_at)
		atomic_store(l->flag, 1);
}

static void log_after(void *ud, size_t i, dp_run_result *r)
{
	run_log *l = ud;
	l->after++;
	l->status[i] = r->status;
	snprintf(l->msg[i], sizeof l->msg[i], "%.63s", r->msg);
	if (r->status == DP_OK) {
		l->makespan[i] = r->plan.sim.makespan;
		/* the hook may keep the plan's arrays: take the placement */
		l->placement[i] = r->plan.placement;
		r->plan.placement = NULL;
	}
	dp_plan_free(&r->plan);
}

static void run_log_reset(run_log *l)
{
	for (int i = 0; i < 8; i++)
		free(l->placement[i]);
	memset(l, 0, sizeof *l);
	l->cancel_at = -1;
}

static void test_plan_run_all_is_each_algorithm_alone(void)
{
	/* 60 ops where the algorithms disagree, on three devices with a cap */
	dp_graph *g = test_algo_graph(60, 7, "run_all");
	REQUIRE(g);
	test_machine tm;
	test_machine_init(&tm, 3, 100, 2);
	for (int d = 0; d < 3; d++)
		tm.cap[d] = 2000000;
	dp_algo_opts o;
	dp_algo_opts_default(&o);
	o.contention = DP_CONT_NONE;
	const dp_algo *three[3] = {dp_algo_find("heft"), dp_algo_find("mtopo"),
				   dp_algo_find("pardnn")};
	REQUIRE(three[0] && three[1] && three[2]);
	run_log l;
	memset(&l, 0, sizeof l);
	run_log_reset(&l);
	dp_run_hooks h = {log_before, log_after, &l};
	CHECK_INT(dp_plan_run_all(g, &tm.m, three, 3, &o, NULL, &h), DP_OK);
	CHECK_INT(l.before, 3);
	CHECK_INT(l.after, 3);
	/* each result is what dp_plan_run gives alone, op for op: the run
	 * shares nothing between algorithms, and passes the options on */
	int differ = 0;
	for (size_t i = 0; i < 3; i++) {
		CHECK_INT(l.order[i], i);
		CHECK_INT(l.status[i], DP_OK);
		dp_plan alone;
		dp_err err;
		REQUIRE(dp_plan_run(g, &tm.m, three[i], &o, NULL, &alone,
				    &err) == DP_OK);
		REQUIRE(l.placement[i]);
		CHECK(memcmp(l.placement[i], alone.placement,
			     g->nops * sizeof *alone.placement) == 0);
		CHECK_NEAR(l.makespan[i], alone.sim.makespan, 0);
		CHECK_INT(alone.contention, DP_CONT_NONE);
		if (i && memcmp(l.placement[i], l.placement[0],
				g->nops * sizeof *alone.placement))
			differ++;
		dp_plan_free(&alone);
	}
	CHECK(differ > 0); /* else the comparison above proves little */
	run_log_reset(&l);
	dp_graph_free(g);
}

static void test_plan_run_all_goes_on_after_a_failure(void)
{
	test_machine tm;
	dp_graph *g = test_abc_chain(&tm);
	const dp_algo *algos[3] = {&algo_split, &algo_forgets,
				   dp_algo_find("single")};
	REQUIRE(algos[2]);
	run_log l;
	memset(&l, 0, sizeof l);
	run_log_reset(&l);
	dp_run_hooks h = {log_before, log_after, &l};
	CHECK_INT(dp_plan_run_all(g, &tm.m, algos, 3, NULL, NULL, &h), DP_OK);
	CHECK_INT(l.after, 3);
	CHECK_INT(l.status[0], DP_OK);
	CHECK_INT(l.status[1], DP_EINTERNAL);
	CHECK_CONTAINS(l.msg[1], "algorithm 'forgets' placed op 'c'");
	CHECK(l.placement[1] == NULL);
	CHECK_INT(l.status[2], DP_OK);
	CHECK_NEAR(l.makespan[2], 35, 0);
	run_log_reset(&l);
	dp_graph_free(g);
}

static void test_plan_run_all_stops_when_canceled(void)
{
	test_machine tm;
	dp_graph *g = test_abc_chain(&tm);
	const dp_algo *algos[4] = {dp_algo_find("mtopo"), &algo_split,
				   &algo_canceled, dp_algo_find("heft")};
	REQUIRE(algos[0] && algos[3]);
	run_log l;
	memset(&l, 0, sizeof l);
	run_log_reset(&l);
	dp_run_hooks h = {log_before, log_after, &l};
	/* an algorithm that is canceled stops the run there: its result is
	 * handed over with the message, the next one never starts */
	canceled_calls = 0;
	CHECK_INT(dp_plan_run_all(g, &tm.m, algos, 4, NULL, NULL, &h),
		  DP_ECANCELED);
	CHECK_INT(l.before, 3);
	CHECK_INT(l.after, 3);
	CHECK_INT(l.status[2], DP_ECANCELED);
	CHECK_STR(l.msg[2], "canceled");
	CHECK_INT(canceled_calls, 1);
	/* a flag raised while algorithm 1 runs: nothing after it starts */
	atomic_int flag = 0;
	dp_progress p = {NULL, NULL, &flag};
	const dp_algo *three[3] = {algos[0], algos[1], algos[3]};
	run_log_reset(&l);
	l.flag = &flag;
	l.cancel_at = 1;
	CHECK_INT(dp_plan_run_all(g, &tm.m, three, 3, NULL, &p, &h),
		  DP_ECANCELED);
	CHECK_INT(l.before, 2);
	CHECK_INT(l.after, 2);
	CHECK_INT(l.status[0], DP_OK);
	/* a raised flag stops it before the first algorithm */
	run_log_reset(&l);
	CHECK_INT(dp_plan_run_all(g, &tm.m, three, 3, NULL, &p, &h),
		  DP_ECANCELED);
	CHECK_INT(l.before, 0);
	CHECK_INT(l.after, 0);
	/* without hooks the plans are freed (LeakSanitizer checks) */
	CHECK_INT(dp_plan_run_all(g, &tm.m, three, 3, NULL, NULL, NULL), DP_OK);
	run_log_reset(&l);
	dp_graph_free(g);
}

/* Memory by role on the chain on [0, 0, 1] (docs/simulator.md): device 0
 * peaks at t=10 with a's param 100, a's output 1000 and b's output 500;
 * device 1 at t=30 with c's param 50 and the copy of b's output, 500. */
static void test_plan_peak_by_role(void)
{
	test_machine tm;
	dp_graph *g = test_abc_chain(&tm);
	int32_t pl[] = {0, 0, 1};
	dp_plan p;
	dp_err err;
	REQUIRE(dp_plan_evaluate(g, &tm.m, pl, DP_CONT_PORT, &p, &err) ==
		DP_OK);
	int64_t by[DP_MEMR_COUNT];
	/* without roles: params and activations (and the copy) */
	dp_plan_peak_by_role(g, &p, 0, by);
	CHECK_INT(by[DP_MEMR_PARAMS], 100);
	CHECK_INT(by[DP_MEMR_ACTIVATIONS], 1500);
	CHECK_INT(by[DP_MEMR_GRADIENTS] + by[DP_MEMR_OPTIMIZER] +
			  by[DP_MEMR_COPIES] + by[DP_MEMR_TEMP],
		  0);
	dp_plan_peak_by_role(g, &p, 1, by);
	CHECK_INT(by[DP_MEMR_PARAMS], 50);
	CHECK_INT(by[DP_MEMR_COPIES], 500);
	/* with roles: a forward, b a weight gradient, c the update */
	REQUIRE(dp_graph_set_role(g, 0, DP_ROLE_FORWARD, NULL) == DP_OK);
	REQUIRE(dp_graph_set_role(g, 1, DP_ROLE_GRAD, NULL) == DP_OK);
	REQUIRE(dp_graph_set_role(g, 2, DP_ROLE_UPDATE, NULL) == DP_OK);
	dp_plan_peak_by_role(g, &p, 0, by);
	CHECK_INT(by[DP_MEMR_PARAMS], 100);
	CHECK_INT(by[DP_MEMR_ACTIVATIONS], 1000);
	CHECK_INT(by[DP_MEMR_GRADIENTS], 500);
	int64_t sum = 0;
	for (int i = 0; i < DP_MEMR_COUNT; i++)
		sum += by[i];
	CHECK_INT(sum, p.sim.dev[0].peak_bytes);
	dp_plan_peak_by_role(g, &p, 1, by);
	CHECK_INT(by[DP_MEMR_OPTIMIZER], 50);
	CHECK_INT(by[DP_MEMR_COPIES], 500);
	CHECK_INT(by[DP_MEMR_PARAMS], 0);
	/* out of range: nothing */
	dp_plan_peak_by_role(g, &p, 2, by);
	CHECK_INT(by[DP_MEMR_COPIES], 0);
	CHECK_STR(dp_mem_role_name(DP_MEMR_OPTIMIZER), "optimizer");
	dp_plan_free(&p);
	dp_graph_free(g);
}

TEST_MAIN(TEST(test_plan_evaluate_metrics), TEST(test_plan_peak_by_role),
	  TEST(test_plan_run_all_is_each_algorithm_alone),
	  TEST(test_plan_run_all_goes_on_after_a_failure),
	  TEST(test_plan_run_all_stops_when_canceled),
	  TEST(test_plan_worst_device_is_largest_overflow),
	  TEST(test_plan_evaluate_rejects_bad_device),
	  TEST(test_plan_run_simulates_the_algorithm),
	  TEST(test_plan_run_rejects_pin_violation),
	  TEST(test_plan_run_rejects_split_group_and_unplaced_op),
	  TEST(test_plan_run_passes_algorithm_errors_through))

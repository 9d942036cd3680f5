/* test_strategy.c - the strategy data model, its common checks, the
 * placement kind's lowering, the plan layer's strategy path and the
 * detection of strategy files (strategy.h, plan.h). The spmd and pipeline
 * lowerings have their own tests (test_spmd.c, test_pipeline.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dnnpart/plan.h"
#include "dnnpart/strategy.h"
#include "lib/testlib.h"

static dp_graph *random_graph(uint64_t seed, uint32_t n)
{
	uint64_t st = seed;
	return test_random_dag(&st, n, "strat");
}

static void test_kind_and_schedule_names(void)
{
	CHECK_STR(dp_strategy_kind_name(DP_STRAT_PLACEMENT), "placement");
	CHECK_STR(dp_strategy_kind_name(DP_STRAT_SPMD), "spmd");
	CHECK_STR(dp_strategy_kind_name(DP_STRAT_PIPELINE), "pipeline");
	CHECK_STR(dp_schedule_name(DP_SCHED_GPIPE), "gpipe");
	CHECK_STR(dp_schedule_name(DP_SCHED_1F1B), "1f1b");
}

static void test_alloc_copy_free(void)
{
	dp_graph *g = random_graph(7, 40);
	REQUIRE(g);
	dp_err err;
	dp_strategy s, c;
	REQUIRE(dp_strategy_alloc(&s, DP_STRAT_PIPELINE, g, 3, &err) == DP_OK);
	CHECK_INT(s.nops, g->nops);
	CHECK_INT(s.pipe.nstages, 3);
	CHECK_INT(s.k, 3);
	/* groups of one device each, stage s on device s */
	for (int i = 0; i < 3; i++) {
		CHECK_INT(s.pipe.group_off[i], i);
		CHECK_INT(s.pipe.group[i], i);
	}
	CHECK_INT(s.pipe.group_off[3], 3);
	for (uint32_t u = 0; u < g->nops; u++) {
		CHECK_INT(s.spmd.device[u], -1);
		CHECK_INT(s.pipe.stage[u], 0);
	}
	s.pipe.stage[5] = 2;
	s.spmd.axes[5 * DP_MAX_OP_DIMS + 1] = 1;
	REQUIRE(dp_strategy_copy(&c, &s, &err) == DP_OK);
	/* a deep copy: changing the original leaves the copy */
	s.pipe.stage[5] = 1;
	CHECK_INT(c.pipe.stage[5], 2);
	CHECK_INT(c.spmd.axes[5 * DP_MAX_OP_DIMS + 1], 1);
	CHECK(c.pipe.group != s.pipe.group);
	CHECK_INT(c.pipe.group_off[3], 3);
	dp_strategy_free(&c);
	dp_strategy_free(&s);
	CHECK(s.pipe.stage == NULL);
	CHECK(dp_strategy_alloc(&s, DP_STRAT_PIPELINE, g, 0, &err) ==
	      DP_EINPUT);
	dp_graph_free(g);
}

static void test_mesh_parts(void)
{
	dp_graph *g = random_graph(3, 5);
	REQUIRE(g);
	dp_err err;
	dp_strategy s;
	REQUIRE(dp_strategy_alloc(&s, DP_STRAT_SPMD, g, 0, &err) == DP_OK);
	s.spmd.naxes = 2;
	s.spmd.mesh[0] = 2;
	s.spmd.mesh[1] = 4;
	CHECK_INT(dp_spmd_size(&s.spmd), 8);
	s.spmd.axes[2 * DP_MAX_OP_DIMS + 0] = 1; /* axis 0 */
	s.spmd.axes[2 * DP_MAX_OP_DIMS + 1] = 2; /* axis 1 */
	s.spmd.axes[3 * DP_MAX_OP_DIMS + 0] = 3; /* both */
	CHECK_INT(dp_spmd_parts(&s.spmd, 2, 0), 2);
	CHECK_INT(dp_spmd_parts(&s.spmd, 2, 1), 4);
	CHECK_INT(dp_spmd_parts(&s.spmd, 3, 0), 8);
	CHECK_INT(dp_spmd_parts(&s.spmd, 4, 0), 1);
	CHECK_INT(dp_spmd_parts(&s.spmd, 2, DP_MAX_OP_DIMS), 1);
	dp_strategy_free(&s);
	dp_graph_free(g);
}

static void test_placement_checks(void)
{
	dp_graph *g = random_graph(11, 30);
	REQUIRE(g);
	dp_machine m;
	dp_err err;
	REQUIRE(dp_machine_init(&m, 3, &err) == DP_OK);
	dp_strategy s;
	REQUIRE(dp_strategy_alloc(&s, DP_STRAT_PLACEMENT, g, 0, &err) == DP_OK);
	s.k = 3;
	CHECK(dp_strategy_check(g, &m, &s, &err) == DP_OK);
	s.placement[4] = 3;
	CHECK(dp_strategy_check(g, &m, &s, &err) == DP_EINPUT);
	CHECK_CONTAINS(err.msg, "expected a device in 0..2");
	s.placement[4] = 1;
	s.k = 4;
	CHECK(dp_strategy_check(g, &m, &s, &err) == DP_EINPUT);
	CHECK_CONTAINS(err.msg, "set -k 4");
	s.k = 3;
	s.nops = g->nops - 1;
	CHECK(dp_strategy_check(g, &m, &s, &err) == DP_EINPUT);
	CHECK_CONTAINS(err.msg, "ops");
	dp_strategy_free(&s);
	dp_machine_free(&m);
	dp_graph_free(g);
}

/* A placement lowers to a copy of its graph: same ops, names, edges, the
 * same placement, and the same simulated step. */
static void test_placement_lowering_is_the_graph(void)
{
	dp_graph *g = random_graph(5, 120);
	REQUIRE(g);
	dp_machine m;
	dp_err err;
	REQUIRE(dp_machine_init(&m, 4, &err) == DP_OK);
	dp_strategy s;
	REQUIRE(dp_strategy_alloc(&s, DP_STRAT_PLACEMENT, g, 0, &err) == DP_OK);
	s.k = 4;
	for (uint32_t u = 0; u < g->nops; u++)
		s.placement[u] = (int32_t)((u * 7) % 4);
	dp_lowered low;
	REQUIRE(dp_strategy_lower(g, &m, &s, NULL, &low, &err) == DP_OK);
	CHECK_INT(low.g->nops, g->nops);
	CHECK_INT(low.g->nedges, g->nedges);
	for (uint32_t u = 0; u < g->nops; u++) {
		CHECK_STR(dp_graph_op_name(low.g, u), dp_graph_op_name(g, u));
		CHECK_INT(low.source[u], u);
		CHECK_INT(low.micro[u], -1);
		CHECK_INT(low.placement[u], s.placement[u]);
		CHECK_NEAR(low.g->ops[u].time_us, g->ops[u].time_us, 0);
	}
	dp_plan a, b;
	REQUIRE(dp_plan_evaluate(g, &m, s.placement, DP_CONT_PORT, &a, &err) ==
		DP_OK);
	REQUIRE(dp_plan_evaluate(low.g, &m, low.placement, DP_CONT_PORT, &b,
				 &err) == DP_OK);
	CHECK_NEAR(a.sim.makespan, b.sim.makespan, 0);
	for (int d = 0; d < 4; d++)
		CHECK_INT(a.sim.dev[d].peak_bytes, b.sim.dev[d].peak_bytes);
	double makespan = b.sim.makespan;
	dp_plan_free(&a);
	dp_plan_free(&b);
	/* through the plan layer: a placement strategy is a plain plan */
	REQUIRE(dp_plan_evaluate_strategy(g, &m, &s, DP_CONT_PORT, NULL, &a,
					  &err) == DP_OK);
	CHECK(a.lowered == NULL);
	CHECK(a.strat == NULL);
	CHECK(dp_plan_graph(&a, g) == g);
	CHECK_INT(dp_plan_source(&a, 17), 17);
	CHECK_NEAR(a.sim.makespan, makespan, 0);
	dp_plan_free(&a);
	dp_lowered_free(&low);
	dp_strategy_free(&s);
	dp_machine_free(&m);
	dp_graph_free(g);
}

/* An algorithm that makes a strategy: dp_plan_run prices it, and asking
 * it for a placement is an error that says why. */
static dp_status round_robin(const dp_graph *g, const dp_machine *m,
			     const dp_algo_opts *o, const dp_progress *p,
			     struct dp_strategy *out, dp_err *err)
{
	(void)o;
	(void)p;
	dp_status st = dp_strategy_alloc(out, DP_STRAT_PLACEMENT, g, 0, err);
	if (st)
		return st;
	out->k = m->k;
	for (uint32_t u = 0; u < g->nops; u++)
		out->placement[u] = (int32_t)(u % (uint32_t)m->k);
	snprintf(out->label, sizeof out->label, "round robin %d", m->k);
	return DP_OK;
}

static void test_registry_strategy_algorithm(void)
{
	dp_graph *g = random_graph(9, 60);
	REQUIRE(g);
	dp_machine m;
	dp_err err;
	REQUIRE(dp_machine_init(&m, 2, &err) == DP_OK);
	const dp_algo rr = {.name = "rr",
			    .summary = "round robin",
			    .source = "test",
			    .strategize = round_robin};
	dp_plan p;
	REQUIRE(dp_plan_run(g, &m, &rr, NULL, NULL, &p, &err) == DP_OK);
	CHECK_STR(p.algo, "rr");
	for (uint32_t u = 0; u < g->nops; u++)
		CHECK_INT(p.placement[u], (int32_t)(u % 2));
	dp_plan_free(&p);
	int32_t *pl = calloc(g->nops, sizeof *pl);
	REQUIRE(pl);
	CHECK(dp_algo_place(&rr, g, &m, NULL, NULL, pl, &err) == DP_EINPUT);
	CHECK_CONTAINS(err.msg, "makes a strategy");
	free(pl);
	dp_machine_free(&m);
	dp_graph_free(g);
}

static void test_file_detection(void)
{
	const char *a = test_tmp_path("a.json");
	REQUIRE(a);
	CHECK(test_write_file(
		a,
		"{\n  \"format\" :\n \"dnnpart-strategy\", \"version\": 1}"));
	CHECK(dp_strategy_is_file(a));
	const char *b = test_tmp_path("b.json");
	CHECK(test_write_file(
		b, "{\"format\":\"dnnpart-placement\",\"version\":1}"));
	CHECK(!dp_strategy_is_file(b));
	/* the word elsewhere is not the format */
	const char *c = test_tmp_path("c.place");
	CHECK(test_write_file(c, "dnnpart-strategy 0\nformat 1\n"));
	CHECK(!dp_strategy_is_file(c));
	/* "format" as a value or a nested key is not the format */
	const char *d = test_tmp_path("d.json");
	CHECK(test_write_file(
		d,
		"{\"graph\": \"format\", \"x\": {\"format\": "
		"\"dnnpart-strategy\"}, \"format\": \"dnnpart-placement\"}"));
	CHECK(!dp_strategy_is_file(d));
	CHECK(!dp_strategy_is_file(test_tmp_path("missing.json")));
	CHECK(test_tmp_cleanup());
}

TEST_MAIN(TEST(test_kind_and_schedule_names), TEST(test_alloc_copy_free),
	  TEST(test_mesh_parts), TEST(test_placement_checks),
	  TEST(test_placement_lowering_is_the_graph),
	  TEST(test_registry_strategy_algorithm), TEST(test_file_detection))

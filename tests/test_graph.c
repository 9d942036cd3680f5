/* test_graph.c - graph model: storage, validation, topological order. */
#include <math.h>
#include <string.h>

#include "dnnpart/graph.h"
#include "lib/fixtures.h"
#include "lib/testlib.h"

static dp_graph *chain(int n)
{
	dp_graph *g = test_chain("chain", n, 10, 0);
	for (int i = 0; i < n; i++)
		g->ops[i].output_bytes = 100 * (i + 1);
	return g;
}

static void test_graph_finalize_builds_csr_and_topo(void)
{
	dp_graph *g = chain(4);
	dp_err err;
	REQUIRE(dp_graph_finalize(g, &err) == DP_OK);
	CHECK_INT(g->nops, 4);
	CHECK_INT(g->nedges, 3);
	CHECK_INT(g->succ_off[1] - g->succ_off[0], 1);
	CHECK_INT(g->pred_off[1] - g->pred_off[0], 0);
	for (uint32_t i = 0; i < 4; i++)
		CHECK_INT(g->topo[i], i);
	/* an edge without bytes takes the producer's output_bytes */
	CHECK_INT(g->edges[0].bytes, 100);
	CHECK_INT(g->edges[2].bytes, 300);
	CHECK_NEAR(g->total_time_us, 40, 0);
	dp_graph_free(g);
}

static void test_graph_topo_takes_smallest_ready_op(void)
{
	dp_graph *g =
		test_graph_text("t", "a b c d; d>a c>b", -1); /* d before a */
	const uint32_t a = 0, b = 1, c = 2, d = 3;
	REQUIRE(dp_graph_finalize(g, NULL) == DP_OK);
	/* ready at first: c, d -> c; then b (smallest ready), d, a */
	CHECK_INT(g->topo[0], c);
	CHECK_INT(g->topo[1], b);
	CHECK_INT(g->topo[2], d);
	CHECK_INT(g->topo[3], a);
	CHECK_INT(g->topo_pos[a], 3);
	dp_graph_free(g);
}

static void test_graph_cycle_names_its_ops(void)
{
	dp_graph *g =
		test_graph_text("cyc", "start x y z; start>x x>y y>z z>x", -1);
	dp_err err;
	CHECK_INT(dp_graph_finalize(g, &err), DP_EINPUT);
	CHECK_CONTAINS(err.msg, "cycle of 3 ops");
	CHECK_CONTAINS(err.msg, "'x'");
	CHECK_CONTAINS(err.msg, "'y'");
	CHECK_CONTAINS(err.msg, "'z'");
	CHECK(strstr(err.msg, "'start'") == NULL);
	/* the cycle is printed in edge direction and closed */
	CHECK(strstr(err.msg, "'x' -> 'y' -> 'z' -> 'x'") ||
	      strstr(err.msg, "'y' -> 'z' -> 'x' -> 'y'") ||
	      strstr(err.msg, "'z' -> 'x' -> 'y' -> 'z'"));
	dp_graph_free(g);
}

static void test_graph_rejects_duplicates_and_self_loops(void)
{
	dp_graph *g = dp_graph_new("d");
	uint32_t a, b;
	dp_err err;
	CHECK_INT(dp_graph_add_op(g, "a", &a, &err), DP_OK);
	CHECK_INT(dp_graph_add_op(g, "a", &b, &err), DP_EINPUT);
	CHECK_CONTAINS(err.msg, "duplicate op name 'a'");
	CHECK_INT(dp_graph_add_op(g, "", &b, &err), DP_EINPUT);
	CHECK_INT(dp_graph_add_edge(g, a, a, -1, false, &err), DP_EINPUT);
	CHECK_CONTAINS(err.msg, "self-loop on op 'a'");
	CHECK_INT(dp_graph_find(g, "a"), a);
	CHECK_INT(dp_graph_find(g, "nope"), UINT32_MAX);
	dp_graph_free(g);
}

static void test_graph_rejects_bad_numbers(void)
{
	dp_graph *g = chain(2);
	g->ops[1].time_us = NAN;
	dp_err err;
	CHECK_INT(dp_graph_finalize(g, &err), DP_EINPUT);
	CHECK_CONTAINS(err.msg, "time_us of op 'op1'");
	dp_graph_free(g);
	g = chain(2);
	g->ops[0].param_bytes = -5;
	CHECK_INT(dp_graph_finalize(g, &err), DP_EINPUT);
	CHECK_CONTAINS(err.msg, "param_bytes of op 'op0'");
	dp_graph_free(g);
	CHECK_INT(dp_graph_check_number("x", "y", INFINITY, &err), DP_EINPUT);
	CHECK_INT(dp_graph_check_number("x", "y", 0, &err), DP_OK);
}

static void test_graph_colocation_groups(void)
{
	dp_graph *g = chain(4);
	dp_graph_set_colocate(g, 0, "w", NULL);
	dp_graph_set_colocate(g, 3, "w", NULL);
	dp_graph_set_colocate(g, 2, "v", NULL);
	REQUIRE(dp_graph_finalize(g, NULL) == DP_OK);
	CHECK_INT(g->ngroups, 2);
	CHECK_INT(g->group_off[1] - g->group_off[0], 2);
	CHECK_INT(g->group_ops[g->group_off[0]], 0);
	CHECK_INT(g->group_ops[g->group_off[0] + 1], 3);
	CHECK_STR(dp_graph_str(g, g->group_label[1]), "v");
	dp_graph_free(g);

	g = chain(3);
	dp_graph_set_colocate(g, 0, "w", NULL);
	dp_graph_set_colocate(g, 1, "w", NULL);
	g->ops[0].pin = 0;
	g->ops[1].pin = 1;
	dp_err err;
	CHECK_INT(dp_graph_finalize(g, &err), DP_EINPUT);
	CHECK_CONTAINS(err.msg, "colocation group 'w'");
	dp_graph_free(g);
}

static void test_graph_strings_are_interned(void)
{
	dp_graph *g = chain(3);
	dp_graph_set_type(g, 0, "MatMul", NULL);
	dp_graph_set_type(g, 2, "MatMul", NULL);
	dp_graph_set_layer(g, 1, "enc/0", NULL);
	CHECK_INT(g->ops[0].type, g->ops[2].type);
	CHECK_STR(dp_graph_str(g, g->ops[2].type), "MatMul");
	CHECK_STR(dp_graph_str(g, g->ops[1].layer), "enc/0");
	CHECK_STR(dp_graph_str(g, g->ops[0].layer), "");
	dp_graph_free(g);
}

static void test_graph_critical_path(void)
{
	/* a(5) -> b(1) -> d(1); a -> c(7) -> d: CP a c d = 13 */
	dp_graph *g =
		test_graph_text("cp", "a:5 b:1 c:7 d:1; a>b a>c b>d c>d", -1);
	const uint32_t a = 0, c = 2, d = 3;
	uint32_t path[4], len;
	REQUIRE(dp_graph_finalize(g, NULL) == DP_OK);
	CHECK_NEAR(dp_graph_critical_path(g, 1.0, path, &len), 13, 1e-12);
	REQUIRE(len == 3);
	CHECK_INT(path[0], a);
	CHECK_INT(path[1], c);
	CHECK_INT(path[2], d);
	CHECK_NEAR(dp_graph_critical_path(g, 2.0, NULL, &len), 6.5, 1e-12);
	dp_graph_free(g);
}

static void test_graph_many_ops_hash_index(void)
{
	dp_graph *g = chain(20000);
	char nm[32];
	int bad = 0;
	for (int i = 0; i < 20000; i += 7) {
		snprintf(nm, sizeof nm, "op%d", i);
		if (dp_graph_find(g, nm) != (uint32_t)i)
			bad++;
	}
	CHECK_INT(bad, 0);
	/* after many rehashes (values and their hashes move together), a
	 * name is still found once: a duplicate is refused, others are not
	 * found */
	uint32_t id = 0;
	dp_err err;
	CHECK(dp_graph_add_op(g, "op19999", &id, &err) == DP_EINPUT);
	CHECK_INT(dp_graph_find(g, "op20000"), UINT32_MAX);
	CHECK_INT(dp_graph_find(g, "op1999"), 1999);
	CHECK(dp_graph_finalize(g, NULL) == DP_OK);
	dp_graph_free(g);
}

TEST_MAIN(TEST(test_graph_finalize_builds_csr_and_topo),
	  TEST(test_graph_topo_takes_smallest_ready_op),
	  TEST(test_graph_cycle_names_its_ops),
	  TEST(test_graph_rejects_duplicates_and_self_loops),
	  TEST(test_graph_rejects_bad_numbers),
	  TEST(test_graph_colocation_groups),
	  TEST(test_graph_strings_are_interned), TEST(test_graph_critical_path),
	  TEST(test_graph_many_ops_hash_index))

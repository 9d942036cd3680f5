/* test_spmd_mesh.c - the spmd lowering of the Megatron-style MLP of
 * test_spmd.c beyond one even split: parts that do not divide a dim, and a
 * two-axis mesh (data x tensor parallel). */
#include "dnnpart/strategy.h"
#include "lib/fixtures.h"
#include "lib/testlib.h"

/* x -> mm1 {b,k,n} -> mm2 {b,n,o} -> y (sizes b 8, k 16, n 32, o 16). */
#define MLP "tests/data/spmd_mlp.json"

/* The same split in 3 parts, which do not divide n = 32: blocks [0,10),
 * [10,21), [21,32) (floor(q x 32 / 3)), each instance with its block's
 * share of the time and bytes; the all-reduce moves what it moves for
 * equal blocks, 2(3-1)/3 x 512 per device (chunks of 170, 171, 171). */
static void test_uneven_blocks_share_time_and_bytes(void)
{
	dp_strategy s;
	dp_graph *g = test_spmd_load(MLP, 3, &s);
	REQUIRE(g);
	test_spmd_split(g, &s, "mm1", "n", 1);
	test_spmd_split(g, &s, "mm2", "n", 1);
	dp_lowered l = {0};
	if (test_lower(g, &s, 3, &l)) {
		static const struct {
			const char *op;
			double time;
			int64_t out, temp;
		} want[] = {
			{"mm1#d0", 40.0 * 10 / 32, 320, 31},
			{"mm1#d1", 40.0 * 11 / 32, 352, 34},
			{"mm1#d2", 40.0 * 11 / 32, 352, 35},
			{"mm2#d0", 40.0 * 10 / 32, 512, 0},
			{"mm2#d2", 40.0 * 11 / 32, 512, 0},
			{"mm2/rs#d0", 0, 170, 0},
			{"mm2/rs#d1", 0, 171, 0},
		};
		for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
			uint32_t u = dp_graph_find(l.g, want[i].op);
			REQUIRE(u != UINT32_MAX);
			CHECK_NEAR(l.g->ops[u].time_us, want[i].time, 1e-12);
			CHECK_INT(l.g->ops[u].output_bytes, want[i].out);
			CHECK_INT(l.g->ops[u].temp_bytes, want[i].temp);
		}
		CHECK_INT(test_cross_bytes(&l), 2 * 2 * 512);
		dp_sim_result r;
		if (test_simulate_lowered(&l, 3, &r)) {
			/* x, mm1, mm2 and y: the 10-wide part is idle longest */
			CHECK_NEAR(r.dev[0].busy_us, 1 + 25 + 2, 1e-9);
			CHECK_NEAR(r.dev[1].busy_us, 1 + 27.5 + 2, 1e-9);
			dp_sim_result_free(&r);
		}
		dp_lowered_free(&l);
	}
	dp_strategy_free(&s);
	dp_graph_free(g);
}

/* Data x tensor parallel on a mesh [2,2]: the batch on axis 0, the MLP's
 * n on axis 1. mm2's partial sums are all-reduced inside each tensor
 * parallel pair only, over its half of the batch: 2(2-1)/2 x 512/2 bytes
 * per device, and no byte crosses between the pairs. */
static void test_megatron_inside_data_parallel_pairs(void)
{
	dp_strategy s;
	dp_graph *g = test_spmd_load(MLP, 4, &s);
	REQUIRE(g);
	s.spmd.naxes = 2;
	s.spmd.mesh[0] = 2;
	s.spmd.mesh[1] = 2;
	for (uint32_t u = 0; u < g->nops; u++)
		test_spmd_split(g, &s, dp_graph_op_name(g, u), "b", 1);
	test_spmd_split(g, &s, "mm1", "n", 2);
	test_spmd_split(g, &s, "mm2", "n", 2);
	dp_lowered l = {0};
	if (test_lower(g, &s, 4, &l)) {
		CHECK_INT(test_cross_bytes(&l), 4 * 256);
		for (uint32_t e = 0; e < l.g->nedges; e++) {
			const dp_edge *ed = &l.g->edges[e];
			/* devices 0, 1 hold the first half of the batch */
			CHECK(l.placement[ed->from] / 2 ==
			      l.placement[ed->to] / 2);
		}
		CHECK_COMM_EACH(&l, 4, 256);
		/* y replicated on axis 1: each keeps 1/2 of the work */
		uint32_t y = dp_graph_find(l.g, "y#d3");
		CHECK_NEAR(l.g->ops[y].time_us, 1.0, 1e-12);
		dp_lowered_free(&l);
	}
	dp_strategy_free(&s);
	dp_graph_free(g);
}

TEST_MAIN(TEST(test_uneven_blocks_share_time_and_bytes),
	  TEST(test_megatron_inside_data_parallel_pairs))

/* test_pardnn_sims.c - pardnn simulates only what it reads.
 *
 * Refinement and polish judge candidates on a simulation without the
 * memory pass, and run it only for a candidate whose makespan is lower when
 * some device has a cap; without caps there is no memory pass at all. None
 * of that may change a decision: caps that can never bind must give the
 * very placement that no caps give. The memory phase weighs only the
 * largest holders per device (a selection, not a sort): the placements it
 * makes must stay within the caps and be the same from run to run.
 */
#include "lib/fixtures.h"
#include "lib/pardnn_fixtures.h"

/* A cap no device can reach: every byte the graph could ever hold at
 * once, twice over. */
static int64_t cap_never_reached(const dp_graph *g)
{
	int64_t total = 0;
	for (uint32_t u = 0; u < g->nops; u++)
		total += g->ops[u].param_bytes + g->ops[u].output_bytes +
			 g->ops[u].temp_bytes;
	for (uint32_t e = 0; e < g->nedges; e++)
		total += g->edges[e].bytes;
	return 2 * total + 1;
}

static bool same_placement_with_and_without_caps(const dp_graph *g, int k,
						 dp_contention cont)
{
	dp_machine free_m, capped_m;
	machine_with(&free_m, k, DP_CAP_UNLIMITED);
	machine_with(&capped_m, k, cap_never_reached(g));
	dp_algo_opts o;
	dp_algo_opts_default(&o);
	o.contention = cont;
	int32_t *a = malloc(g->nops * sizeof *a);
	int32_t *b = malloc(g->nops * sizeof *b);
	dp_err err = {0};
	bool same = a && b &&
		    run_algo("pardnn", g, &free_m, &o, a, &err) == 0 &&
		    run_algo("pardnn", g, &capped_m, &o, b, &err) == 0 &&
		    memcmp(a, b, g->nops * sizeof *a) == 0;
	if (!same)
		test_fail(__FILE__, __LINE__,
			  "K=%d %s: pardnn placed %u ops differently with caps "
			  "that never bind (%s)",
			  k, dp_sim_contention_name(cont), g->nops, err.msg);
	free(a);
	free(b);
	dp_machine_free(&free_m);
	dp_machine_free(&capped_m);
	return same;
}

static void test_pardnn_caps_that_never_bind_change_nothing(void)
{
	int cases = 0;
	for (uint64_t seed = 1; seed <= 6; seed++) {
		rand_opts ro = {.n = 300 + 150 * (uint32_t)seed,
				.seed = seed,
				.k = 2,
				.groups = seed % 2 == 0,
				.pins = seed % 3 == 0};
		dp_graph *g = random_dag(&ro);
		REQUIRE(g);
		for (int k = 2; k <= 8; k *= 2)
			cases += same_placement_with_and_without_caps(
				g, k, seed % 2 ? DP_CONT_PORT : DP_CONT_NONE);
		dp_graph_free(g);
	}
	dp_graph *t = training_graph(3000, 5);
	REQUIRE(t);
	cases += same_placement_with_and_without_caps(t, 4, DP_CONT_PORT);
	cases += same_placement_with_and_without_caps(t, 3, DP_CONT_NONE);
	dp_graph_free(t);
	/* big enough that the simulation budget runs out: a simulation
	 * counted in one run and not in the other would show */
	t = training_graph(40000, 5);
	REQUIRE(t);
	cases += same_placement_with_and_without_caps(t, 4, DP_CONT_PORT);
	dp_graph_free(t);
	CHECK_INT(cases, 21);
}

/* A training graph big enough that a device holds more than 4096 tensors
 * at its peak under tight caps, so the memory phase selects the largest
 * holders instead of weighing them all. */
static void test_pardnn_memory_phase_with_many_holders(void)
{
	dp_graph *g = training_graph(20000, 1);
	REQUIRE(g);
	int64_t peak1 = one_device_peak(g);
	REQUIRE(peak1 > 0);
	dp_machine m;
	machine_with(&m, 2, (int64_t)(1.1 * (double)peak1 / 2));
	int32_t *a = malloc(g->nops * sizeof *a);
	int32_t *b = malloc(g->nops * sizeof *b);
	REQUIRE(a && b);
	dp_err err = {0};
	CHECK_INT(run_algo("pardnn", g, &m, NULL, a, &err), DP_OK);
	CHECK_INT(run_algo("pardnn", g, &m, NULL, b, &err), DP_OK);
	CHECK(placement_valid(g, &m, a));
	CHECK(memcmp(a, b, g->nops * sizeof *a) == 0);
	sim_out so = {0};
	CHECK_INT(simulate(g, &m, a, DP_CONT_PORT, &so), DP_OK);
	/* one device would need 1.8 times the cap: only moves fit it */
	CHECK(so.feasible);
	CHECK_INT(so.over, 0);
	free(a);
	free(b);
	test_free(g, &m, NULL);
}

TEST_MAIN(TEST(test_pardnn_caps_that_never_bind_change_nothing),
	  TEST(test_pardnn_memory_phase_with_many_holders))

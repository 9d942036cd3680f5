/* test_reserve.c - the machine's memory reserve (framework memory counted
 * against each cap): parsing, what a plan may use, the simulator's
 * feasibility and the algorithms planning for cap - reserve. */
#include <stdlib.h>
#include <string.h>

#include "dnnpart/plan.h"
#include "lib/fixtures.h"
#include "lib/testlib.h"

#define MIB ((int64_t)1 << 20)

static void test_reserve_parses_sizes_and_percents(void)
{
	dp_machine m;
	REQUIRE(dp_machine_init(&m, 2, NULL) == DP_OK);
	m.cap[0] = 100 * MIB;
	m.cap[1] = DP_CAP_UNLIMITED;
	CHECK(!dp_machine_has_reserve(&m));
	CHECK_INT(dp_machine_usable_cap(&m, 0), 100 * MIB);

	REQUIRE(dp_machine_set_reserve(&m, "10MiB", NULL) == DP_OK);
	CHECK_INT(m.reserve_bytes, 10 * MIB);
	CHECK_INT(dp_machine_reserve(&m, 0), 10 * MIB);
	CHECK_INT(dp_machine_usable_cap(&m, 0), 90 * MIB);
	/* no cap: nothing to reserve from */
	CHECK_INT(dp_machine_reserve(&m, 1), 0);
	CHECK_INT(dp_machine_usable_cap(&m, 1), DP_CAP_UNLIMITED);
	char b[32];
	CHECK_STR(dp_machine_reserve_text(&m, b, sizeof b), "10.0 MiB");

	REQUIRE(dp_machine_set_reserve(&m, "5%", NULL) == DP_OK);
	CHECK_INT(m.reserve_bytes, 0);
	CHECK_INT(dp_machine_reserve(&m, 0), 5 * MIB);
	CHECK_INT(dp_machine_usable_cap(&m, 0), 95 * MIB);
	CHECK_STR(dp_machine_reserve_text(&m, b, sizeof b), "5%");

	/* a reserve larger than the cap leaves nothing, never less */
	REQUIRE(dp_machine_set_reserve(&m, "1GiB", NULL) == DP_OK);
	CHECK_INT(dp_machine_usable_cap(&m, 0), 0);

	REQUIRE(dp_machine_set_reserve(&m, "none", NULL) == DP_OK);
	CHECK(!dp_machine_has_reserve(&m));

	dp_err err;
	CHECK_INT(dp_machine_set_reserve(&m, "5", &err), DP_EINPUT);
	CHECK_CONTAINS(err.msg, "5GiB");
	CHECK_INT(dp_machine_set_reserve(&m, "100%", &err), DP_EINPUT);
	CHECK_INT(dp_machine_set_reserve(&m, "-1%", &err), DP_EINPUT);
	CHECK_INT(dp_machine_set_reserve(&m, "2 parsecs", &err), DP_EINPUT);
	CHECK_CONTAINS(err.msg, "2 parsecs");
	CHECK_INT(dp_machine_set_reserve(&m, "", &err), DP_EINPUT);

	/* a copy keeps it */
	REQUIRE(dp_machine_set_reserve(&m, "3MiB", NULL) == DP_OK);
	dp_machine c;
	REQUIRE(dp_machine_copy(&c, &m, NULL) == DP_OK);
	CHECK_INT(c.reserve_bytes, 3 * MIB);
	dp_machine_free(&c);
	dp_machine_free(&m);
}

/* One op holding 10 MiB: feasible under 10 MiB, not once 1 MiB of it is
 * reserved; the result records the usable cap and the reserve. */
static void test_reserve_counts_against_the_cap_in_the_simulator(void)
{
	dp_graph *g = dp_graph_new("one");
	REQUIRE(g != NULL);
	uint32_t u = test_add_op(g, "a", 1, 0, NULL);
	g->ops[u].param_bytes = 10 * MIB;
	REQUIRE(dp_graph_finalize(g, NULL) == DP_OK);
	dp_machine m;
	REQUIRE(dp_machine_init(&m, 1, NULL) == DP_OK);
	m.cap[0] = 10 * MIB;
	int32_t pl[1] = {0};
	dp_plan p;
	REQUIRE(dp_plan_evaluate(g, &m, pl, DP_CONT_PORT, &p, NULL) == DP_OK);
	CHECK(p.feasible);
	CHECK_INT(p.sim.dev[0].reserve_bytes, 0);
	dp_plan_free(&p);
	REQUIRE(dp_machine_set_reserve(&m, "1MiB", NULL) == DP_OK);
	REQUIRE(dp_plan_evaluate(g, &m, pl, DP_CONT_PORT, &p, NULL) == DP_OK);
	CHECK(!p.feasible);
	CHECK_INT(p.sim.dev[0].cap_bytes, 9 * MIB);
	CHECK_INT(p.sim.dev[0].reserve_bytes, MIB);
	CHECK(!p.one_device_fits);
	dp_plan_free(&p);
	dp_machine_free(&m);
	dp_graph_free(g);
}

/* Six 10 MiB blocks on 3 devices of 25 MiB: two each fit (21 MiB with the
 * running op's output); with 5 MiB reserved (20 MiB usable) they do not,
 * and the algorithms, which see the usable caps, say so rather than make a
 * plan the simulator would call feasible only by forgetting the reserve. */
static void test_reserve_algorithms_plan_for_the_usable_cap(void)
{
	dp_graph *g = dp_graph_new("blocks");
	REQUIRE(g != NULL);
	for (int i = 0; i < 6; i++) {
		char name[16];
		snprintf(name, sizeof name, "b%d", i);
		uint32_t u = test_add_op(g, name, 1, MIB, NULL);
		g->ops[u].param_bytes = 10 * MIB;
	}
	REQUIRE(dp_graph_finalize(g, NULL) == DP_OK);
	const char *algos[] = {"pardnn", "mtopo", "metf", "heft"};
	for (size_t a = 0; a < sizeof algos / sizeof algos[0]; a++) {
		dp_machine m;
		REQUIRE(dp_machine_init(&m, 3, NULL) == DP_OK);
		for (int d = 0; d < 3; d++)
			m.cap[d] = 25 * MIB;
		dp_plan p;
		REQUIRE(dp_plan_run(g, &m, dp_algo_find(algos[a]), NULL, NULL,
				    &p, NULL) == DP_OK);
		CHECK(p.feasible);
		dp_plan_free(&p);
		REQUIRE(dp_machine_set_reserve(&m, "5MiB", NULL) == DP_OK);
		REQUIRE(dp_plan_run(g, &m, dp_algo_find(algos[a]), NULL, NULL,
				    &p, NULL) == DP_OK);
		CHECK(!p.feasible);
		for (int d = 0; d < 3; d++) {
			CHECK_INT(p.sim.dev[d].cap_bytes, 20 * MIB);
			CHECK_INT(p.sim.dev[d].reserve_bytes, 5 * MIB);
		}
		dp_plan_free(&p);
		/* with 3 MiB reserved, 22 MiB usable: two each fit again
		 * (m-TOPO counts 11 MiB per block: 22 MiB) */
		REQUIRE(dp_machine_set_reserve(&m, "3MiB", NULL) == DP_OK);
		REQUIRE(dp_plan_run(g, &m, dp_algo_find(algos[a]), NULL, NULL,
				    &p, NULL) == DP_OK);
		CHECK(p.feasible);
		for (int d = 0; d < 3; d++)
			CHECK(p.sim.dev[d].peak_bytes <= 22 * MIB);
		dp_plan_free(&p);
		dp_machine_free(&m);
	}
	dp_graph_free(g);
}

TEST_MAIN(TEST(test_reserve_parses_sizes_and_percents),
	  TEST(test_reserve_counts_against_the_cap_in_the_simulator),
	  TEST(test_reserve_algorithms_plan_for_the_usable_cap))

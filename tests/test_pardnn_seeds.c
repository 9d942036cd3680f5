/* test_pardnn_seeds.c - pardnn's list-scheduling seeds (docs/algorithms.md,
 * "Other seeds"; issue 15): with them pardnn is never worse than without
 * them, nor than the m-ETF and HEFT plans they start from (memory overflow
 * first, then makespan), pins and groups stay honoured, and on graphs where
 * the pardnn of before lost to m-ETF by more than 5 % it now matches it. */
#include <stdlib.h>
#include <string.h>

#include "internal/pardnn.h"
#include "lib/fixtures.h"
#include "lib/pardnn_fixtures.h"
#include "lib/testlib.h"

/* a is no worse than b: less overflow, or as much and a makespan not
 * longer (to rounding). */
static bool no_worse(const sim_out *a, const sim_out *b)
{
	if (a->over != b->over)
		return a->over < b->over;
	return a->makespan <= b->makespan * (1 + 1e-9);
}

/* pardnn with the seeds in which, simulated. */
static bool pardnn_with(const dp_graph *g, const dp_machine *m, unsigned which,
			int32_t *pl, sim_out *out)
{
	dp_algo_opts o;
	dp_algo_opts_default(&o);
	dp_err err;
	return dpi_pardnn_place(g, m, &o, NULL, which, pl, &err) == DP_OK &&
	       test_placement_valid(g, m, pl) &&
	       simulate(g, m, pl, DP_CONT_PORT, out) == DP_OK;
}

static bool algo_with(const char *name, const dp_graph *g, const dp_machine *m,
		      int32_t *pl, sim_out *out)
{
	return run_algo(name, g, m, NULL, pl, NULL) == DP_OK &&
	       simulate(g, m, pl, DP_CONT_PORT, out) == DP_OK;
}

static void check_never_worse(const dp_graph *g, int k, int64_t cap)
{
	dp_machine m;
	machine_with(&m, k, cap);
	int32_t *pl = malloc(g->nops * sizeof *pl);
	REQUIRE(pl != NULL);
	static const char *const peers[] = {"metf", "heft"};
	sim_out all = {0}, before = {0}, peer = {0};
	REQUIRE(pardnn_with(g, &m, PD_SEED_ALL, pl, &all));
	REQUIRE(pardnn_with(g, &m, PD_SEED_BRANCHES, pl, &before));
	if (!no_worse(&all, &before))
		test_fail(__FILE__, __LINE__,
			  "%s K=%d cap %lld: with the list seeds %.1f us "
			  "(over %lld), without %.1f us (over %lld)",
			  g->name, k, (long long)cap, all.makespan,
			  (long long)all.over, before.makespan,
			  (long long)before.over);
	for (size_t i = 0; i < sizeof peers / sizeof peers[0]; i++) {
		REQUIRE(algo_with(peers[i], g, &m, pl, &peer));
		if (!no_worse(&all, &peer))
			test_fail(__FILE__, __LINE__,
				  "%s K=%d cap %lld: pardnn %.1f us (over "
				  "%lld), %s %.1f us (over %lld)",
				  g->name, k, (long long)cap, all.makespan,
				  (long long)all.over, peers[i], peer.makespan,
				  (long long)peer.over);
	}
	free(pl);
	dp_machine_free(&m);
}

/* Random graphs with and without groups and pins, K = 2 to 8, without
 * caps and with caps of 1.5 and 0.6 x the one-device peak / K. */
static void test_pardnn_list_seeds_never_worse(void)
{
	for (uint64_t seed = 1; seed <= 4; seed++) {
		int k = 2 << (seed % 3); /* 4, 8, 2, 4 */
		rand_opts ro = {120 + 60 * (uint32_t)seed, seed, k,
				seed % 2 == 0, seed >= 3};
		dp_graph *g = random_dag(&ro);
		REQUIRE(g != NULL);
		int64_t peak = one_device_peak(g);
		check_never_worse(g, k, DP_CAP_UNLIMITED);
		check_never_worse(g, k, peak * 3 / (2 * k));
		check_never_worse(g, k, peak * 3 / (5 * k));
		dp_graph_free(g);
	}
}

/* Few ops of 0.01-5 ms with outputs of 1-64 MiB (as in the msr-fiddle layer
 * graphs, where m-ETF beat pardnn by up to 30 %): generated graphs on which
 * the pardnn of before (mapped and METIS seeds) was more than 5 % slower
 * than m-ETF. With the list seeds it is as fast as m-ETF or faster. */
static void test_pardnn_matches_metf_where_it_lost(void)
{
	static const struct {
		const char *spec;
		uint32_t n;
		uint64_t seed;
		int k;
	} cases[] = {
		{"window=4 inputs=3 time=1..2000 out=1K..256M", 40, 10, 4},
		{"window=16 inputs=2 time=10..3000 out=1M..16M", 30, 17, 8},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		test_dag_opts d = test_dag_spec(cases[i].n, cases[i].spec);
		dp_graph *g = test_random_dag_with(cases[i].seed, &d, "few");
		REQUIRE(g != NULL);
		dp_machine m;
		machine_with(&m, cases[i].k, DP_CAP_UNLIMITED);
		int32_t *pl = malloc(g->nops * sizeof *pl);
		REQUIRE(pl != NULL);
		sim_out now = {0}, before = {0}, metf = {0};
		REQUIRE(pardnn_with(g, &m, PD_SEED_ALL, pl, &now));
		REQUIRE(pardnn_with(g, &m, PD_SEED_BRANCHES, pl, &before));
		REQUIRE(algo_with("metf", g, &m, pl, &metf));
		/* the case still shows the gap (else pick another seed) */
		if (!(before.makespan > 1.05 * metf.makespan))
			test_fail(
				__FILE__, __LINE__,
				"case %zu: pardnn without list seeds %.1f us, "
				"m-ETF %.1f us: no longer a 5 %% gap",
				i, before.makespan, metf.makespan);
		if (!(now.makespan <= metf.makespan * (1 + 1e-9)))
			test_fail(__FILE__, __LINE__,
				  "case %zu: pardnn %.1f us, m-ETF %.1f us", i,
				  now.makespan, metf.makespan);
		free(pl);
		test_free(g, &m, NULL);
	}
}

/* On a graph too large for them (ops x K above the bound) the list seeds
 * are not made: pardnn is exactly the pardnn without them. */
static void test_pardnn_list_seeds_bounded(void)
{
	dp_graph *g = training_graph(20000, 1);
	REQUIRE(g != NULL);
	dp_machine m;
	machine_with(&m, 16, DP_CAP_UNLIMITED);
	int32_t *a = malloc(g->nops * sizeof *a),
		*b = malloc(g->nops * sizeof *b);
	REQUIRE(a && b);
	sim_out sa, sb;
	REQUIRE(pardnn_with(g, &m, PD_SEED_ALL, a, &sa));
	REQUIRE(pardnn_with(g, &m, PD_SEED_BRANCHES, b, &sb));
	CHECK(memcmp(a, b, g->nops * sizeof *a) == 0);
	free(a);
	free(b);
	test_free(g, &m, NULL);
}

TEST_MAIN(TEST(test_pardnn_list_seeds_never_worse),
	  TEST(test_pardnn_matches_metf_where_it_lost),
	  TEST(test_pardnn_list_seeds_bounded))

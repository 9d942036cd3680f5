/* test_pardnn_seeds.c - pardnn's other seeds (docs/algorithms.md, "Other
 * seeds"; issue 15): with them pardnn is never worse than without them, nor
 * than the m-ETF, HEFT and msr-dp plans they start from (memory overflow
 * first, then makespan), pins and groups stay honoured, on graphs where the
 * pardnn of before lost to m-ETF by more than 5 % it now matches it,
 * independent copies of a network stay whole, and where ops x K is above
 * DPI_LANES_MIN_WORK pardnn is no worse than best's lanes plan (the lanes
 * seed; forced at any size by PD_SEED_LANES_ANY it is never worse than
 * without it, deterministic, and keeps pins and groups). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal/best.h"
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
	/* msr-dp's stages are a seed from 4,096 ops on */
	static const char *const peers[] = {"metf", "heft", "msr-dp"};
	size_t npeers = g->nops >= 4096 ? 3 : 2;
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
	for (size_t i = 0; i < npeers; i++) {
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
 * caps and with caps of 1.5 and 0.6 x the one-device peak / K; and a
 * 4,500-op training graph (where msr-dp's stages are a seed too). */
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
	/* a training graph large enough for the stages seed */
	dp_graph *g = training_graph(4500, 3);
	REQUIRE(g != NULL);
	check_never_worse(g, 8, DP_CAP_UNLIMITED);
	check_never_worse(g, 4, one_device_peak(g) * 3 / (2 * 4));
	dp_graph_free(g);
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

/* Whether pardnn with the seeds in x and in y places g on k devices
 * without caps alike. */
static bool same_plan(const dp_graph *g, int k, unsigned x, unsigned y)
{
	dp_machine m;
	machine_with(&m, k, DP_CAP_UNLIMITED);
	size_t bytes = g->nops * sizeof(int32_t);
	int32_t *a = malloc(bytes), *b = malloc(bytes);
	sim_out sa, sb;
	bool same = a && b && pardnn_with(g, &m, x, a, &sa) &&
		    pardnn_with(g, &m, y, b, &sb) && !memcmp(a, b, bytes);
	free(a);
	free(b);
	dp_machine_free(&m);
	return same;
}

/* On a graph too large for them (ops x K above the bound) the list seeds
 * are not made, nor the stages seed: pardnn is exactly the pardnn without
 * them (and the graph is one part, so the parts seed is not made either). */
static void test_pardnn_list_seeds_bounded(void)
{
	dp_graph *g = training_graph(20000, 1);
	REQUIRE(g != NULL);
	CHECK(same_plan(g, 16, PD_SEED_ALL, PD_SEED_BRANCHES));
	dp_graph_free(g);
}

/* n copies of g, one after the other (ops "cI/NAME"), in one graph. */
static dp_graph *copies_of(const dp_graph *g, int n)
{
	dp_graph *c = dp_graph_new("copies");
	char name[300];
	uint32_t id;
	for (int i = 0; c && i < n; i++) {
		uint32_t base = c->nops;
		for (uint32_t u = 0; u < g->nops; u++) {
			snprintf(name, sizeof name, "c%d/%s", i,
				 dp_graph_op_name(g, u));
			if (dp_graph_add_op(c, name, &id, NULL))
				abort();
			c->ops[id].time_us = g->ops[u].time_us;
			c->ops[id].output_bytes = g->ops[u].output_bytes;
			c->ops[id].param_bytes = g->ops[u].param_bytes;
			c->ops[id].temp_bytes = g->ops[u].temp_bytes;
		}
		for (const dp_edge *e = g->edges; e < g->edges + g->nedges; e++)
			dp_graph_add_edge(c, base + e->from, base + e->to,
					  e->bytes, e->control, NULL);
	}
	if (!c || dp_graph_finalize(c, NULL))
		abort();
	return c;
}

/* The makespan of pardnn's plan of g on k devices without caps. */
static double pardnn_makespan(const dp_graph *g, int k)
{
	dp_machine m;
	machine_with(&m, k, DP_CAP_UNLIMITED);
	int32_t *pl = malloc(g->nops * sizeof *pl);
	sim_out so = {0};
	if (!pl || !pardnn_with(g, &m, PD_SEED_ALL, pl, &so))
		so.makespan = -1;
	free(pl);
	dp_machine_free(&m);
	return so.makespan;
}

/* N independent copies of a network on 2N devices: each copy gets two
 * devices of its own (the parts seed), so the plan is as fast as pardnn's
 * plan of one copy on two devices; 4 copies on 2 devices: two whole copies
 * per device at the most. */
static void test_pardnn_copies_keep_whole(void)
{
	rand_opts ro = {150, 7, 2, false, false};
	dp_graph *one = random_dag(&ro);
	REQUIRE(one != NULL);
	double t2 = pardnn_makespan(one, 2), t1 = pardnn_makespan(one, 1);
	REQUIRE(t2 > 0 && t1 > 0);
	for (int n = 2; n <= 4; n += 2) {
		dp_graph *c = copies_of(one, n);
		double t = pardnn_makespan(c, 2 * n);
		if (!(t > 0 && t <= t2 * (1 + 1e-9)))
			test_fail(__FILE__, __LINE__,
				  "%d copies on %d devices: %.1f us, one copy "
				  "on 2: %.1f us",
				  n, 2 * n, t, t2);
		dp_graph_free(c);
	}
	dp_graph *c = copies_of(one, 4);
	double t = pardnn_makespan(c, 2);
	if (!(t > 0 && t <= 2 * t1 * (1 + 1e-9)))
		test_fail(__FILE__, __LINE__,
			  "4 copies on 2 devices: %.1f us, one copy on one "
			  "device %.1f us",
			  t, t1);
	dp_graph_free(c);
	dp_graph_free(one);
}

static bool lanes_plan(const dp_graph *g, const dp_machine *m, int32_t *pl,
		       sim_out *out)
{
	dp_err err;
	return dpi_lanes(g, m, pl, &err) == DP_OK &&
	       test_placement_valid(g, m, pl) &&
	       simulate(g, m, pl, DP_CONT_PORT, out) == DP_OK;
}

static dp_graph *gen_towers(uint32_t ops)
{
	dp_gen_opts o;
	dp_gen_opts_default(&o);
	o.ops = ops;
	o.towers = 4;
	dp_graph *g = NULL;
	if (dp_gen_graph(&o, &g, NULL) != DP_OK)
		abort();
	return g;
}

/* pardnn with which against which without the lanes seed and against the
 * lanes plan: no worse than either; the same plan twice. */
static void check_lanes(const dp_graph *g, int k, int64_t cap, unsigned which)
{
	dp_machine m;
	machine_with(&m, k, cap);
	int32_t *pl = malloc(g->nops * sizeof *pl);
	int32_t *again = malloc(g->nops * sizeof *again);
	REQUIRE(pl && again);
	sim_out with = {0}, without = {0}, lanes = {0}, twice = {0};
	REQUIRE(lanes_plan(g, &m, pl, &lanes));
	REQUIRE(pardnn_with(g, &m, which & ~(PD_SEED_LANES | PD_SEED_LANES_ANY),
			    pl, &without));
	REQUIRE(pardnn_with(g, &m, which, again, &twice));
	REQUIRE(pardnn_with(g, &m, which, pl, &with));
	if (!no_worse(&with, &without) || !no_worse(&with, &lanes))
		test_fail(__FILE__, __LINE__,
			  "%s K=%d cap %lld: with lanes %.1f us (over %lld), "
			  "without %.1f us (over %lld), lanes plan %.1f us "
			  "(over %lld)",
			  g->name, k, (long long)cap, with.makespan,
			  (long long)with.over, without.makespan,
			  (long long)without.over, lanes.makespan,
			  (long long)lanes.over);
	CHECK(memcmp(pl, again, g->nops * sizeof *pl) == 0);
	free(pl);
	free(again);
	dp_machine_free(&m);
}

/* The seed forced on small graphs: generated towers (where lanes keeps one
 * tower per device) and random graphs with pins and groups, with and
 * without caps. */
static void test_pardnn_lanes_seed_small(void)
{
	dp_graph *g = gen_towers(3000);
	check_lanes(g, 4, DP_CAP_UNLIMITED, PD_SEED_ALL | PD_SEED_LANES_ANY);
	check_lanes(g, 8, DP_CAP_UNLIMITED, PD_SEED_ALL | PD_SEED_LANES_ANY);
	dp_graph_free(g);
	for (uint64_t seed = 1; seed <= 3; seed++) {
		rand_opts ro = {400, seed, 4, true, true};
		g = random_dag(&ro);
		int64_t peak = one_device_peak(g);
		check_lanes(g, 4, DP_CAP_UNLIMITED,
			    PD_SEED_ALL | PD_SEED_LANES_ANY);
		check_lanes(g, 4, peak / 4 + peak / 8,
			    PD_SEED_ALL | PD_SEED_LANES_ANY);
		dp_graph_free(g);
	}
}

/* Above the threshold the seed is made without being forced: 30,000 ops of
 * towers on 4 devices (ops x K = 120,000), where the lanes plan is far
 * better than pardnn's other seeds. */
static void test_pardnn_lanes_seed_large(void)
{
	dp_graph *g = gen_towers(30000);
	REQUIRE((double)g->nops * 4 > DPI_LANES_MIN_WORK);
	check_lanes(g, 4, DP_CAP_UNLIMITED, PD_SEED_ALL);
	dp_graph_free(g);
}

/* METIS's own plan as a seed where lanes applies: on the bench's generated
 * 100k-op graph at K=16 it is the fastest plan (168.0 ms against 194.0 ms
 * from pardnn's other seeds), and pardnn is no worse than it. */
static void test_pardnn_metis_seed_large(void)
{
	dp_graph *g = training_graph(100000, 1);
	REQUIRE(g);
	dp_machine m;
	machine_with(&m, 16, DP_CAP_UNLIMITED);
	int32_t *pl = malloc(g->nops * sizeof *pl);
	REQUIRE(pl);
	sim_out metis = {0}, pd = {0};
	REQUIRE(algo_with("metis", g, &m, pl, &metis));
	REQUIRE(pardnn_with(g, &m, PD_SEED_ALL, pl, &pd));
	if (!no_worse(&pd, &metis))
		test_fail(__FILE__, __LINE__, "pardnn %.1f us, metis %.1f us",
			  pd.makespan, metis.makespan);
	free(pl);
	dp_machine_free(&m);
	dp_graph_free(g);
}

TEST_MAIN(TEST(test_pardnn_list_seeds_never_worse),
	  TEST(test_pardnn_matches_metf_where_it_lost),
	  TEST(test_pardnn_list_seeds_bounded),
	  TEST(test_pardnn_copies_keep_whole),
	  TEST(test_pardnn_lanes_seed_small),
	  TEST(test_pardnn_lanes_seed_large),
	  TEST(test_pardnn_metis_seed_large))

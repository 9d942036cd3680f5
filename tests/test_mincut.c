/* test_mincut.c - the multilevel acyclic min-cut: parts acyclic between
 * each other, time within the stated balance (1.03 x each device's share),
 * every op placed, pins and groups honoured, byte budgets under caps where
 * they fit and the simulator's memory check where they do not, independent
 * towers on their own devices, determinism, cancel, and its cut against
 * brute force on tiny graphs. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dnnpart/algo.h"
#include "dnnpart/graph.h"
#include "dnnpart/machine.h"
#include "dnnpart/plan.h"
#include "lib/fixtures.h"
#include "lib/testlib.h"

#define TOL 1.03 /* docs/algorithms.md, mincut */

static dp_status run(const dp_graph *g, const dp_machine *m, int32_t *pl,
		     const dp_progress *p, dp_err *err)
{
	return dp_algo_place(dp_algo_find("mincut"), g, m, NULL, p, pl, err);
}

static dp_graph *random_dag(uint64_t seed, uint32_t n, bool constraints)
{
	test_dag_opts d = test_dag_mixed(n, constraints);
	d.window = 30;
	d.time_min = 1;
	d.time_max = 100;
	d.zero_time_every = 10;
	d.pin_every = constraints ? 40 : 0;
	return test_random_dag_with(seed, &d, "random");
}

/* A random DAG (random_dag), a machine of k devices and a buffer for a
 * placement; false when one cannot be made (then nothing is left). */
static bool setup(uint64_t seed, uint32_t n, bool constraints, int k,
		  dp_graph **g, dp_machine *m, int32_t **pl)
{
	*g = random_dag(seed, n, constraints);
	*pl = *g ? malloc((*g)->nops * sizeof **pl) : NULL;
	if (*pl && dp_machine_init(m, k, NULL) == DP_OK)
		return true;
	free(*pl);
	dp_graph_free(*g);
	return false;
}

/* Whether the graph of devices (an edge a -> b when some op edge goes from
 * device a to device b) has a cycle. */
static bool quotient_cyclic(const dp_graph *g, const int32_t *pl, int k)
{
	bool *adj = calloc((size_t)k * k, sizeof *adj);
	int *indeg = calloc((size_t)k, sizeof *indeg);
	int *stack = malloc((size_t)k * sizeof *stack);
	bool cyclic = true;
	if (!adj || !indeg || !stack)
		goto out;
	for (uint32_t e = 0; e < g->nedges; e++) {
		int a = pl[g->edges[e].from], b = pl[g->edges[e].to];
		if (a != b && !adj[a * k + b]) {
			adj[a * k + b] = true;
			indeg[b]++;
		}
	}
	int sp = 0, seen = 0;
	for (int d = 0; d < k; d++)
		if (!indeg[d])
			stack[sp++] = d;
	while (sp) {
		int a = stack[--sp];
		seen++;
		for (int b = 0; b < k; b++)
			if (adj[a * k + b] && --indeg[b] == 0)
				stack[sp++] = b;
	}
	cyclic = seen < k;
out:
	free(adj);
	free(indeg);
	free(stack);
	return cyclic;
}

/* Largest ratio of a device's time to its share (speed / sum) of the
 * total. */
static double worst_balance(const dp_graph *g, const dp_machine *m,
			    const int32_t *pl)
{
	double *t = calloc((size_t)m->k, sizeof *t), worst = 0;
	if (!t)
		return INFINITY;
	for (uint32_t u = 0; u < g->nops; u++)
		t[pl[u]] += g->ops[u].time_us;
	double S = dp_machine_sum_speed(m);
	for (int d = 0; d < m->k; d++) {
		double share = g->total_time_us * m->speed[d] / S;
		double r = share > 0 ? t[d] / share : 0;
		if (r > worst)
			worst = r;
	}
	free(t);
	return worst;
}

/* Communication of the cut edges the way mincut prices it. */
static double cut_cost(const dp_graph *g, const dp_machine *m,
		       const int32_t *pl)
{
	double cut = 0;
	for (uint32_t e = 0; e < g->nedges; e++) {
		const dp_edge *ed = &g->edges[e];
		if (pl[ed->from] != pl[ed->to])
			cut += m->lat +
			       (ed->control ? 0 : (double)ed->bytes / m->bw);
	}
	return cut;
}

/* Random DAGs without pins or groups, K = 2..8: acyclic parts, balance
 * within 1.03 x share, and a second run gives the same placement. */
static void test_mincut_acyclic_and_balanced(void)
{
	static const int ks[] = {2, 3, 4, 8};
	for (uint64_t seed = 1; seed <= 12; seed++) {
		dp_graph *g =
			random_dag(seed, 200 + 150 * (uint32_t)seed, false);
		REQUIRE(g);
		int32_t *pl = malloc(g->nops * sizeof *pl);
		int32_t *again = malloc(g->nops * sizeof *again);
		REQUIRE(pl && again);
		for (size_t i = 0; i < sizeof ks / sizeof ks[0]; i++) {
			dp_machine m;
			REQUIRE(dp_machine_init(&m, ks[i], NULL) == DP_OK);
			REQUIRE(run(g, &m, pl, NULL, NULL) == DP_OK);
			if (!test_placement_valid(g, &m, pl))
				break;
			if (quotient_cyclic(g, pl, m.k))
				test_fail(__FILE__, __LINE__,
					  "seed %llu k %d: parts cyclic",
					  (unsigned long long)seed, m.k);
			double b = worst_balance(g, &m, pl);
			if (b > TOL + 1e-9)
				test_fail(__FILE__, __LINE__,
					  "seed %llu k %d: a device has %.4f "
					  "x its share",
					  (unsigned long long)seed, m.k, b);
			REQUIRE(run(g, &m, again, NULL, NULL) == DP_OK);
			CHECK(memcmp(pl, again, g->nops * sizeof *pl) == 0);
			dp_machine_free(&m);
		}
		free(pl);
		free(again);
		dp_graph_free(g);
	}
}

/* Devices of different speeds: each device's time follows its share. */
static void test_mincut_balance_follows_speeds(void)
{
	dp_graph *g;
	dp_machine m;
	int32_t *pl;
	REQUIRE(setup(42, 1500, false, 3, &g, &m, &pl));
	REQUIRE(dp_machine_set_speeds(&m, "1,2,1", NULL) == DP_OK);
	REQUIRE(run(g, &m, pl, NULL, NULL) == DP_OK);
	CHECK(test_placement_valid(g, &m, pl));
	CHECK(!quotient_cyclic(g, pl, m.k));
	CHECK(worst_balance(g, &m, pl) <= TOL + 1e-9);
	free(pl);
	dp_machine_free(&m);
	dp_graph_free(g);
}

/* Pins and colocation groups are honoured; a second run is the same. */
static void test_mincut_honours_pins_and_groups(void)
{
	for (uint64_t seed = 1; seed <= 8; seed++) {
		dp_graph *g;
		dp_machine m;
		int32_t *pl;
		REQUIRE(setup(seed, 600, true, 4, &g, &m, &pl));
		int32_t *again = malloc(g->nops * sizeof *again);
		REQUIRE(again);
		REQUIRE(run(g, &m, pl, NULL, NULL) == DP_OK);
		CHECK(test_placement_valid(g, &m, pl));
		REQUIRE(run(g, &m, again, NULL, NULL) == DP_OK);
		CHECK(memcmp(pl, again, g->nops * sizeof *pl) == 0);
		free(pl);
		free(again);
		dp_machine_free(&m);
		dp_graph_free(g);
	}
}

/* Four independent chains of 12 ops on 4 devices: one chain per device,
 * nothing cut. */
static void test_mincut_towers_apart(void)
{
	dp_graph *g = dp_graph_new("towers");
	char nm[32];
	for (int t = 0; t < 4; t++)
		for (int i = 0; i < 12; i++) {
			snprintf(nm, sizeof nm, "t%d_%d", t, i);
			uint32_t id = test_add_op(g, nm, 10, 1 << 20, NULL);
			if (i)
				dp_graph_add_edge(g, id - 1, id, -1, false,
						  NULL);
		}
	REQUIRE(dp_graph_finalize(g, NULL) == DP_OK);
	dp_machine m;
	REQUIRE(dp_machine_init(&m, 4, NULL) == DP_OK);
	int32_t pl[48];
	REQUIRE(run(g, &m, pl, NULL, NULL) == DP_OK);
	CHECK_NEAR(cut_cost(g, &m, pl), 0, 1e-12);
	CHECK_NEAR(worst_balance(g, &m, pl), 1.0, 1e-12);
	dp_machine_free(&m);
	dp_graph_free(g);
}

/* op0 -> ... -> op11, each with 100 MiB of params and out output bytes,
 * op0 taking 50 us and the others 1; finalized, NULL when it cannot be. */
static dp_graph *params_chain(int64_t out)
{
	dp_graph *g = test_chain("params", 12, 1, out);
	g->ops[0].time_us = 50;
	for (uint32_t u = 0; u < 12; u++)
		g->ops[u].param_bytes = 100 << 20;
	if (dp_graph_finalize(g, NULL) != DP_OK) {
		dp_graph_free(g);
		return NULL;
	}
	return g;
}

/* A plan of g by mincut on m with caps (a --mem spec): feasible, and the
 * devices' graph has no cycle. */
static void check_plan_fits(const dp_graph *g, dp_machine *m, const char *caps)
{
	dp_plan p;
	memset(&p, 0, sizeof p);
	REQUIRE(dp_machine_set_caps(m, caps, NULL) == DP_OK);
	REQUIRE(dp_plan_run(g, m, dp_algo_find("mincut"), NULL, NULL, &p,
			    NULL) == DP_OK);
	CHECK(p.feasible);
	CHECK(!quotient_cyclic(g, p.placement, m->k));
	dp_plan_free(&p);
}

/* A chain with params: 12 ops of 100 MiB params on 4 devices of 350 MiB.
 * One device cannot hold it, the budgets of 3 ops per device can; the
 * plan is feasible in the simulator. */
static void test_mincut_fits_caps(void)
{
	dp_graph *g = params_chain(1024);
	REQUIRE(g);
	dp_machine m;
	REQUIRE(dp_machine_init(&m, 4, NULL) == DP_OK);
	check_plan_fits(g, &m, "350MiB");
	dp_machine_free(&m);
	dp_graph_free(g);
}

/* The same chain with outputs of 50 MiB on 4 devices of 455 MiB: every
 * op's params and output together (1.8 GiB) are more than the caps, so
 * there is no byte budget at first; balancing time puts 4 ops on some
 * device (over its cap in the simulator), and the memory check moves ops
 * until every device fits. */
static void test_mincut_memory_check_meets_caps(void)
{
	dp_graph *g = params_chain(50 << 20);
	REQUIRE(g);
	dp_machine m;
	REQUIRE(dp_machine_init(&m, 4, NULL) == DP_OK);
	dp_plan p;
	memset(&p, 0, sizeof p);
	REQUIRE(dp_plan_run(g, &m, dp_algo_find("mincut"), NULL, NULL, &p,
			    NULL) == DP_OK);
	int most = 0, on[4] = {0, 0, 0, 0};
	for (int i = 0; i < 12; i++)
		if (++on[p.placement[i]] > most)
			most = on[p.placement[i]];
	CHECK(most >= 4); /* without caps: time first */
	dp_plan_free(&p);
	check_plan_fits(g, &m, "455MiB");
	dp_machine_free(&m);
	dp_graph_free(g);
}

static void test_mincut_cancel(void)
{
	dp_graph *g;
	dp_machine m;
	int32_t *pl;
	REQUIRE(setup(3, 2000, true, 4, &g, &m, &pl));
	atomic_int flag = 1;
	dp_progress p = {NULL, NULL, &flag};
	dp_err err;
	dp_err_clear(&err);
	CHECK_INT(run(g, &m, pl, &p, &err), DP_ECANCELED);
	CHECK_STR(err.msg, "mincut: canceled");
	free(pl);
	dp_machine_free(&m);
	dp_graph_free(g);
}

/* ---- brute force on tiny graphs ---- */

/* The least cut of an acyclic bipartition (no edges both ways) whose sides
 * each hold at most lim x half the time; -1 when there is none. */
static double brute_min_cut(const dp_graph *g, const dp_machine *m, double lim)
{
	uint32_t n = g->nops;
	double best = -1, most = lim * g->total_time_us / 2 * (1 + 1e-12);
	int32_t pl[16];
	for (uint32_t mask = 0; mask < (1u << n); mask++) {
		double t1 = 0;
		for (uint32_t u = 0; u < n; u++) {
			pl[u] = (int32_t)((mask >> u) & 1);
			t1 += pl[u] ? g->ops[u].time_us : 0;
		}
		if (t1 > most || g->total_time_us - t1 > most)
			continue;
		bool fwd = false, back = false;
		for (uint32_t e = 0; e < g->nedges; e++) {
			int a = pl[g->edges[e].from], b = pl[g->edges[e].to];
			fwd |= a < b;
			back |= a > b;
		}
		if (fwd && back)
			continue;
		double c = cut_cost(g, m, pl);
		if (best < 0 || c < best)
			best = c;
	}
	return best;
}

/* 200 random graphs of 6 to 10 ops with times of 1 to 20 µs, K = 2
 * (baechi link, so that latency and bytes both count). Balance: on graphs
 * where some acyclic bipartition is within 1.03 x half the time, how often
 * mincut finds one (ops of up to a third of a share leave few ways to
 * balance, and its orders and greedy growing can miss them). Cut: against
 * the least cut of the acyclic bipartitions at least as balanced as
 * mincut's (never below it, and how often equal). */
static void test_mincut_brute_force_tiny(void)
{
	int cases = 0, exact = 0, balanced = 0, can_balance = 0;
	double worst = 1;
	dp_machine m;
	REQUIRE(dp_machine_init(&m, 2, NULL) == DP_OK);
	REQUIRE(dp_machine_set_link(&m, "baechi", NULL) == DP_OK);
	for (uint64_t seed = 1; seed <= 200; seed++) {
		test_dag_opts d =
			test_dag_spec(6 + (uint32_t)(seed % 5),
				      "window=4 inputs=2 time=1..20 out=1..4M "
				      "control=8 bytes=4:4M");
		dp_graph *g = test_random_dag_with(seed, &d, "tiny");
		REQUIRE(g);
		int32_t pl[16];
		REQUIRE(run(g, &m, pl, NULL, NULL) == DP_OK);
		CHECK(!quotient_cyclic(g, pl, 2));
		double bal = worst_balance(g, &m, pl);
		if (brute_min_cut(g, &m, TOL) >= 0) {
			can_balance++;
			balanced += bal <= TOL + 1e-9;
		}
		double opt = brute_min_cut(g, &m, bal > TOL ? bal : TOL);
		double got = cut_cost(g, &m, pl);
		cases++;
		CHECK(opt >= 0 && got >= opt - 1e-9 * (opt + 1));
		if (got <= opt + 1e-9 * (opt + 1))
			exact++;
		else if (got / opt > worst)
			worst = got / opt;
		dp_graph_free(g);
	}
	dp_machine_free(&m);
	printf("# mincut vs brute force: balanced in %d of %d graphs that can "
	       "be; least cut in %d of %d, worst %.3f x the least\n",
	       balanced, can_balance, exact, cases, worst);
	CHECK(can_balance >= 50);
	CHECK(balanced * 10 >= can_balance * 9);
	CHECK(exact * 10 >= cases * 8);
}

TEST_MAIN(TEST(test_mincut_acyclic_and_balanced),
	  TEST(test_mincut_balance_follows_speeds),
	  TEST(test_mincut_honours_pins_and_groups),
	  TEST(test_mincut_towers_apart), TEST(test_mincut_fits_caps),
	  TEST(test_mincut_memory_check_meets_caps), TEST(test_mincut_cancel),
	  TEST(test_mincut_brute_force_tiny))

/* test_pase.c - the `pase` strategy algorithm (engine/algo/algo_pase.c,
 * pase_model.c): its dynamic programming equals a brute-force search over
 * every combination of configurations in its own cost model; the strategy
 * it returns checks and lowers; memory caps prune configurations (a cap
 * below the replica forces a split; nothing fits: an honest infeasible
 * label); cancel; determinism; the table bound. */
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dnnpart/load.h"
#include "dnnpart/plan.h"
#include "dnnpart/strategy.h"
#include "internal/pase.h"
#include "lib/pase_case.h"
#include "lib/testlib.h"

extern const dp_algo dpi_algo_pase;

/* A diamond with a residual: a -> b, a -> c, b -> d, c -> d, a -> d; c
 * has no dims (a forward op split only along the batch). */
static const char *const diamond =
	"{\"name\":\"diamond\",\"batch_dim\":\"b\",\"ops\":[\n"
	"{\"name\":\"a\",\"role\":\"forward\",\"time_us\":30,\"dims\":{\"b\":4,"
	"\"h\":64},\"out\":[\"b\",\"h\"],\"output_bytes\":1024},\n"
	"{\"name\":\"b\",\"role\":\"forward\",\"time_us\":200,\"dims\":{"
	"\"b\":4,\"h\":64,\"f\":256},\"out\":[\"b\",\"f\"],\"output_bytes\":"
	"4096,\"param_bytes\":65536,\"param\":[\"h\",\"f\"]},\n"
	"{\"name\":\"c\",\"role\":\"forward\",\"time_us\":20,"
	"\"output_bytes\":1024},\n"
	"{\"name\":\"d\",\"role\":\"forward\",\"time_us\":200,\"dims\":{"
	"\"b\":4,\"f\":256,\"h\":64},\"out\":[\"b\",\"h\"],\"output_bytes\":"
	"1024,\"param_bytes\":65536,\"param\":[\"f\",\"h\"]}\n"
	"],\"edges\":[\n"
	"{\"from\":\"a\",\"to\":\"b\",\"dims\":[\"b\",\"h\"]},\n"
	"{\"from\":\"a\",\"to\":\"c\"},\n"
	"{\"from\":\"b\",\"to\":\"d\",\"dims\":[\"b\",\"f\"]},\n"
	"{\"from\":\"c\",\"to\":\"d\"},\n"
	"{\"from\":\"a\",\"to\":\"d\",\"dims\":[\"b\",\"h\"]}\n"
	"]}\n";

/* The least total over every combination of configs, of every op or of
 * the coarsened graph's groups (pase_coarsen.c: members follow their
 * leader), by enumeration. */
static double brute_over(const dpi_pase_model *pm, uint32_t *ch, bool coarse)
{
	uint32_t n = pm->g->nops;
	uint32_t *lead = malloc((n + 1u) * sizeof *lead);
	uint8_t *map = malloc((size_t)(n + 1u) * DPI_PASE_MAX_CFGS);
	if (!lead || !map) {
		free(lead);
		free(map);
		return -1;
	}
	for (uint32_t u = 0; u < n; u++) {
		lead[u] = u;
		for (uint32_t c = 0; c < DPI_PASE_MAX_CFGS; c++)
			map[(size_t)u * DPI_PASE_MAX_CFGS + c] = (uint8_t)c;
	}
	if (coarse)
		dpi_pase_coarsen(pm, lead, map);
	uint32_t loc[64] = {0};
	double best = INFINITY;
	for (;;) {
		for (uint32_t u = 0; u < n; u++)
			ch[u] = pm->off[u] + map[(size_t)u * DPI_PASE_MAX_CFGS +
						 loc[lead[u]]];
		double c = dpi_pase_total(pm, ch);
		if (c < best)
			best = c;
		uint32_t u = 0;
		while (u < n && (lead[u] != u ||
				 ++loc[u] == pm->off[u + 1] - pm->off[u])) {
			loc[u] = 0;
			u++;
		}
		if (u == n)
			break;
	}
	free(lead);
	free(map);
	return best;
}

static double brute(const dpi_pase_model *pm, uint32_t *ch)
{
	return brute_over(pm, ch, false);
}

static void dp_equals_brute_force(const char *text, int k)
{
	dp_graph *g = test_json_text(text);
	REQUIRE(g);
	dp_machine m;
	REQUIRE(test_pase_machine(&m, k, NULL));
	dp_err err;
	dpi_pase_model pm;
	REQUIRE(dpi_pase_model_build(&pm, g, &m, NULL, &err) == DP_OK);
	uint32_t *ch = malloc(g->nops * sizeof *ch);
	uint32_t *bf = malloc(g->nops * sizeof *bf);
	double cost = -1;
	uint32_t fixed = 99;
	CHECK(dpi_pase_solve(&pm, NULL, 0, ch, &cost, &fixed, &err) == DP_OK);
	CHECK_INT(fixed, 0);
	double want = brute(&pm, bf);
	CHECK_NEAR(cost, want, 1e-9 * (1 + want));
	CHECK_NEAR(dpi_pase_total(&pm, ch), cost, 1e-9 * (1 + want));
	/* more than one config somewhere, so the search has a choice */
	CHECK(pm.off[g->nops] > g->nops);
	free(ch);
	free(bf);
	dpi_pase_model_free(&pm);
	dp_machine_free(&m);
	dp_graph_free(g);
}

static void test_dp_equals_brute_force_mlp_k2_k4(void)
{
	dp_equals_brute_force(test_pase_mlp, 2);
	dp_equals_brute_force(test_pase_mlp, 4);
}

static void test_dp_equals_brute_force_diamond_k2_k4(void)
{
	dp_equals_brute_force(diamond, 2);
	dp_equals_brute_force(diamond, 4);
}

/* Random layouts of a few ops: the DP's table may need several vertices
 * in the dependent set (edges that skip ahead). */
static void test_dp_equals_brute_force_random_graphs(void)
{
	uint64_t seed = 7;
	for (int round = 0; round < 12; round++) {
		int n = 3 + (int)test_randn(&seed, 4);
		char text[8192];
		size_t pos = 0;
		pos += (size_t)snprintf(text + pos, sizeof text - pos,
					"{\"name\":\"r\",\"batch_dim\":\"b\","
					"\"ops\":[\n");
		for (int i = 0; i < n; i++) {
			int h = 8 << test_randn(&seed, 3);
			pos += (size_t)snprintf(
				text + pos, sizeof text - pos,
				"%s{\"name\":\"o%d\",\"role\":\"forward\","
				"\"time_us\":%u,\"dims\":{\"b\":4,\"h\":%d},"
				"\"out\":[\"b\",\"h\"],\"output_bytes\":%d,"
				"\"param_bytes\":%u}\n",
				i ? "," : "", i, 10 + test_randn(&seed, 300), h,
				16 * h, 64 * test_randn(&seed, 2000));
		}
		pos += (size_t)snprintf(text + pos, sizeof text - pos,
					"],\"edges\":[\n");
		bool first = true;
		for (int v = 1; v < n; v++)
			for (int u = 0; u < v; u++)
				if (u == v - 1 || test_randn(&seed, 3) == 0) {
					pos += (size_t)snprintf(
						text + pos, sizeof text - pos,
						"%s{\"from\":\"o%d\",\"to\":"
						"\"o%d\"}\n",
						first ? "" : ",", u, v);
					first = false;
				}
		snprintf(text + pos, sizeof text - pos, "]}\n");
		dp_equals_brute_force(text, round % 2 ? 4 : 2);
		if (test_failed())
			return;
	}
}

/* The strategy of graph text on k devices under caps (NULL none). */
static dp_status run(const dp_graph *g, int k, const char *caps,
		     const dp_progress *p, dp_strategy *s, dp_err *err)
{
	dp_machine m;
	if (!test_pase_machine(&m, k, caps))
		return DP_EINPUT;
	dp_strategy_init(s);
	dp_status st = dpi_algo_pase.strategize(g, &m, NULL, p, s, err);
	if (!st)
		st = dp_strategy_check(g, &m, s, err);
	if (!st) {
		dp_lowered l;
		st = dp_strategy_lower(g, &m, s, NULL, &l, err);
		if (!st)
			dp_lowered_free(&l);
	}
	dp_machine_free(&m);
	return st;
}

static void test_strategy_checks_and_lowers(void)
{
	const char *texts[] = {test_pase_mlp, diamond};
	for (int t = 0; t < 2; t++)
		for (int k = 1; k <= 8; k *= 2) {
			dp_graph *g = test_json_text(texts[t]);
			REQUIRE(g);
			dp_strategy s;
			dp_err err;
			dp_err_clear(&err);
			dp_status st = run(g, k, NULL, NULL, &s, &err);
			if (st)
				test_fail(__FILE__, __LINE__, "k=%d: %s", k,
					  err.msg);
			CHECK_STR(s.algo, "pase");
			CHECK(strncmp(s.label, "pase ", 5) == 0);
			CHECK_INT(s.k, k);
			dp_strategy_free(&s);
			dp_graph_free(g);
		}
}

/* mm1's shard: no params; the diamond's b holds 64 KiB of params, 4 KiB
 * of output: replicated 68 KiB. A 40 KiB cap excludes the replica. */
static void test_cap_below_the_replica_forces_a_split(void)
{
	dp_graph *g;
	dp_machine m;
	dpi_pase_model pm;
	dp_err err;
	REQUIRE(test_pase_model_of(diamond, 4, "40KiB", &g, &m, &pm));
	CHECK(pm.npruned > 0);
	CHECK_INT(pm.nover, 0);
	uint32_t ch[8];
	double cost;
	uint32_t fixed;
	REQUIRE(dpi_pase_solve(&pm, NULL, 0, ch, &cost, &fixed, &err) == DP_OK);
	uint32_t b = dp_graph_find(g, "b"), d = dp_graph_find(g, "d");
	for (uint32_t u = 0; u < g->nops; u++)
		CHECK(pm.mem[ch[u]] <= 40 * 1024);
	bool split_b = false, split_d = false;
	for (int i = 0; i < DP_MAX_OP_DIMS; i++) {
		split_b = split_b || pm.cfg[ch[b]].mask[i];
		split_d = split_d || pm.cfg[ch[d]].mask[i];
	}
	CHECK(split_b && split_d);
	dpi_pase_model_free(&pm);
	/* the whole algorithm: the plan fits */
	dp_strategy s;
	CHECK(run(g, 4, "40KiB", NULL, &s, &err) == DP_OK);
	CHECK(!strstr(s.label, "over cap"));
	dp_strategy_free(&s);
	dp_machine_free(&m);
	dp_graph_free(g);
}

static void test_nothing_fits_is_reported(void)
{
	dp_graph *g = test_json_text(diamond);
	REQUIRE(g);
	dp_strategy s;
	dp_err err;
	CHECK(run(g, 2, "1KiB", NULL, &s, &err) == DP_OK);
	CHECK_CONTAINS(s.label, "ops over cap");
	dp_strategy_free(&s);
	dp_graph_free(g);
}

static void test_cancel_returns_canceled_and_nothing(void)
{
	dp_graph *g = test_json_text(test_pase_mlp);
	REQUIRE(g);
	atomic_int flag = 1;
	dp_progress p = {.fn = NULL, .ud = NULL, .cancel = &flag};
	dp_machine m;
	REQUIRE(test_pase_machine(&m, 4, NULL));
	dp_strategy s;
	dp_strategy_init(&s);
	dp_err err;
	dp_err_clear(&err);
	CHECK(dpi_algo_pase.strategize(g, &m, NULL, &p, &s, &err) ==
	      DP_ECANCELED);
	CHECK_STR(err.msg, "pase: canceled");
	CHECK(s.spmd.axes == NULL && s.placement == NULL);
	dp_machine_free(&m);
	dp_graph_free(g);
}

static void test_deterministic(void)
{
	dp_graph *g = test_json_text(diamond);
	REQUIRE(g);
	dp_strategy a, b;
	dp_err err;
	REQUIRE(run(g, 4, NULL, NULL, &a, &err) == DP_OK);
	REQUIRE(run(g, 4, NULL, NULL, &b, &err) == DP_OK);
	CHECK_STR(a.label, b.label);
	CHECK(memcmp(a.spmd.axes, b.spmd.axes,
		     (size_t)g->nops * DP_MAX_OP_DIMS) == 0);
	dp_strategy_free(&a);
	dp_strategy_free(&b);
	dp_graph_free(g);
}

/* A table bound of 8 entries fixes vertices early: the answer costs what
 * the search says and no less than the exact one. */
static void test_bound_fixes_vertices_and_stays_consistent(void)
{
	dp_graph *g = test_json_text(diamond);
	REQUIRE(g);
	dp_machine m;
	REQUIRE(test_pase_machine(&m, 4, NULL));
	dp_err err;
	dpi_pase_model pm;
	REQUIRE(dpi_pase_model_build(&pm, g, &m, NULL, &err) == DP_OK);
	uint32_t ch[8], ex[8];
	double cost, exact;
	uint32_t fixed, fixed0;
	REQUIRE(dpi_pase_solve(&pm, NULL, 0, ex, &exact, &fixed0, &err) ==
		DP_OK);
	REQUIRE(dpi_pase_solve(&pm, NULL, 8, ch, &cost, &fixed, &err) == DP_OK);
	CHECK_INT(fixed0, 0);
	CHECK(fixed > 0);
	CHECK_NEAR(dpi_pase_total(&pm, ch), cost, 1e-9 * (1 + cost));
	CHECK(cost >= exact - 1e-9 * (1 + exact));
	dpi_pase_model_free(&pm);
	dp_machine_free(&m);
	dp_graph_free(g);
}

/* Per-device memory: on the diamond at K=4, a cap at 60 % of what all
 * replicas peak at, above every op's own replica (so no config is
 * pruned): the per-op rule alone would keep the replicas; the plan pase
 * returns fits in the simulator. */
static void test_sum_over_ops_fits_the_cap(void)
{
	dp_graph *g;
	dp_machine m;
	dpi_pase_model pm;
	dp_err err;
	REQUIRE(test_pase_model_of(diamond, 4, "1TiB", &g, &m, &pm));
	uint32_t rep[8];
	int64_t big = 0;
	for (uint32_t u = 0; u < g->nops; u++) {
		rep[u] = pm.off[u];
		if (pm.mem[rep[u]] > big)
			big = pm.mem[rep[u]];
	}
	double ms = 0, over = 0;
	bool fits = false;
	REQUIRE(dpi_pase_simulate(&pm, rep, DP_CONT_PORT, &ms, &fits, &over,
				  &err) == DP_OK);
	int64_t cap = (int64_t)(over * 0.6 * 1099511627776.0);
	dpi_pase_model_free(&pm);
	dp_machine_free(&m);
	REQUIRE(cap > big);
	char caps[32];
	snprintf(caps, sizeof caps, "%lldB", (long long)cap);
	REQUIRE(test_pase_machine(&m, 4, caps));
	dp_strategy s;
	REQUIRE(run(g, 4, caps, NULL, &s, &err) == DP_OK);
	dp_plan plan;
	REQUIRE(dp_plan_evaluate_strategy(g, &m, &s, DP_CONT_PORT, NULL, &plan,
					  &err) == DP_OK);
	CHECK(plan.sim.feasible);
	CHECK(!strstr(s.label, "over cap"));
	dp_plan_free(&plan);
	dp_strategy_free(&s);
	dp_machine_free(&m);
	dp_graph_free(g);
}

/* A training-like ladder of n forward ops f_i and their backward ops
 * g_i: f_i -> f_i+1, f_i -> g_i (the activation the backward pass reads)
 * and g_i+1 -> g_i. Written into buf. */
static const char *ladder(char *buf, size_t cap, int n)
{
	size_t at = (size_t)snprintf(buf, cap,
				     "{\"name\":\"ladder\",\"batch_dim\":"
				     "\"b\",\"ops\":[\n");
	for (int i = 0; i < 2 * n; i++)
		at += (size_t)snprintf(
			buf + at, cap - at,
			"%s{\"name\":\"%c%d\",\"role\":\"%s\",\"time_us\":"
			"%d,\"dims\":{\"b\":4,\"h\":64},\"out\":[\"b\",\"h\"],"
			"\"output_bytes\":1024}\n",
			i ? "," : "", i < n ? 'f' : 'g', i % n,
			i < n ? "forward" : "backward", 10 + 7 * (i % 5));
	at += (size_t)snprintf(buf + at, cap - at, "],\"edges\":[\n");
	for (int i = 0; i < n; i++)
		at += (size_t)snprintf(
			buf + at, cap - at,
			"%s{\"from\":\"f%d\",\"to\":\"g%d\",\"dims\":[\"b\","
			"\"h\"]}\n",
			i ? "," : "", i, i);
	for (int i = 0; i + 1 < n; i++)
		at += (size_t)snprintf(
			buf + at, cap - at,
			",{\"from\":\"f%d\",\"to\":\"f%d\",\"dims\":[\"b\","
			"\"h\"]}\n,{\"from\":\"g%d\",\"to\":\"g%d\",\"dims\""
			":[\"b\",\"h\"]}\n",
			i, i + 1, i + 1, i);
	snprintf(buf + at, cap - at, "]}\n");
	return buf;
}

/* The paper's order on a ladder: elimination keeps every table within
 * a bound of 64 entries and stays exact (fixed 0, equal to brute force
 * on a small one), where the breadth-first order, whose dependent set
 * holds every forward op until its backward op, must fix vertices; its
 * cost is never below the exact one. */
static void test_elimination_solves_a_ladder_exactly(void)
{
	char buf[8192];
	dp_graph *g;
	dp_machine m;
	dpi_pase_model pm;
	dp_err err;
	REQUIRE(test_pase_model_of(ladder(buf, sizeof buf, 3), 4, NULL, &g, &m,
				   &pm));
	uint32_t ch[64], bf[64], fixed = 99;
	double cost = -1;
	REQUIRE(dpi_pase_solve(&pm, NULL, 0, ch, &cost, &fixed, &err) == DP_OK);
	CHECK_INT(fixed, 0);
	double want = brute(&pm, bf);
	CHECK_NEAR(cost, want, 1e-9 * (1 + want));
	dpi_pase_model_free(&pm);
	dp_machine_free(&m);
	dp_graph_free(g);
	REQUIRE(test_pase_model_of(ladder(buf, sizeof buf, 24), 4, NULL, &g, &m,
				   &pm));
	bool solved = false;
	REQUIRE(dpi_pase_solve_elim(&pm, NULL, 64, false, ch, &cost, &fixed,
				    &solved, &err) == DP_OK);
	CHECK(solved);
	CHECK_INT(fixed, 0);
	CHECK_NEAR(dpi_pase_total(&pm, ch), cost, 1e-9 * (1 + cost));
	double wcost = -1;
	uint32_t wfixed = 0;
	REQUIRE(dpi_pase_solve_window(&pm, NULL, 64, bf, &wcost, &wfixed,
				      &err) == DP_OK);
	CHECK(wfixed > 0);
	CHECK(wcost >= cost - 1e-9 * (1 + cost));
	dpi_pase_model_free(&pm);
	dp_machine_free(&m);
	dp_graph_free(g);
}

/* Coarsening: the test_pase_mlp with an activation between its MatMuls (act has
 * mm1's output dims, one to one): act joins mm1's group, nothing else
 * merges, and the search equals brute force over the coarsened graph,
 * never below brute force over every op (the groups restrict it). */
static void test_coarsening_merges_an_elementwise_op(void)
{
	char text[4096];
	const char *at = strstr(test_pase_mlp, "{\"name\":\"mm2\"");
	REQUIRE(at);
	snprintf(text, sizeof text,
		 "%.*s{\"name\":\"act\",\"role\":\"forward\",\"time_us\":"
		 "9,\"dims\":{\"b\":8,\"n\":32},\"out\":[\"b\",\"n\"],"
		 "\"output_bytes\":1024},\n%s",
		 (int)(at - test_pase_mlp), test_pase_mlp, at);
	char *e = strstr(text, "{\"from\":\"mm1\",\"to\":\"mm2\"");
	REQUIRE(e);
	memcpy(e + 20, "act", 3); /* mm1 -> mm2 becomes mm1 -> act */
	size_t len = strlen(text);
	snprintf(text + len - 3, sizeof text - (len - 3),
		 ",\n{\"from\":\"act\",\"to\":\"mm2\",\"dims\":[\"b\",\"n\"]}"
		 "\n]}\n");
	for (int k = 2; k <= 4; k += 2) {
		dp_graph *g;
		dp_machine m;
		dpi_pase_model pm;
		dp_err err;
		REQUIRE(test_pase_model_of(text, k, NULL, &g, &m, &pm));
		uint32_t lead[8], ch[8], bf[8], fixed = 99;
		uint8_t map[8 * DPI_PASE_MAX_CFGS];
		CHECK_INT(dpi_pase_coarsen(&pm, lead, map), 1);
		uint32_t act = dp_graph_find(g, "act");
		CHECK_INT(lead[act], dp_graph_find(g, "mm1"));
		double cost = -1;
		bool solved = false;
		REQUIRE(dpi_pase_solve_elim(&pm, NULL, 0, true, ch, &cost,
					    &fixed, &solved, &err) == DP_OK);
		CHECK(solved);
		CHECK_INT(fixed, 0);
		double want = brute_over(&pm, bf, true);
		CHECK_NEAR(cost, want, 1e-9 * (1 + want));
		/* every op free */
		double all = brute(&pm, bf);
		CHECK(cost >= all - 1e-9 * (1 + all));
		dpi_pase_model_free(&pm);
		dp_machine_free(&m);
		dp_graph_free(g);
	}
}

/* One ladder search of each kind (elimination, over the coarsened graph,
 * breadth-first under a bound of 64, elimination with memory priced) into
 * ch[kind] and cost[kind]. */
static void searches(dpi_pase_model *pm, uint32_t ch[4][64], double cost[4])
{
	dp_err err;
	uint32_t fixed;
	bool solved;
	for (int kind = 0; kind < 4; kind++) {
		pm->lambda = kind == 3 ? 1e-3 : 0;
		if (kind == 2)
			REQUIRE(dpi_pase_solve_window(pm, NULL, 64, ch[kind],
						      &cost[kind], &fixed,
						      &err) == DP_OK);
		else
			REQUIRE(dpi_pase_solve_elim(pm, NULL, 0, kind == 1,
						    ch[kind], &cost[kind],
						    &fixed, &solved,
						    &err) == DP_OK);
	}
	pm->lambda = 0;
}

/* The run's shortcuts change no result: the edge table (pase_etab.c)
 * holds what dpi_pase_edge_cost prices, every search returns the same
 * choices and the same cost with it as without it, and a simulation the
 * memo remembers (dpi_pase_sims) returns a fresh simulation's numbers,
 * also after other choices were simulated. */
static void test_edge_table_and_memo_change_nothing(void)
{
	char buf[8192];
	for (int k = 4; k <= 8; k *= 2) {
		dp_graph *g;
		dp_machine m;
		dpi_pase_model pm;
		dp_err err;
		REQUIRE(test_pase_model_of(ladder(buf, sizeof buf, 24), k,
					   k == 4 ? "40KiB" : NULL, &g, &m,
					   &pm));
		uint32_t a[4][64], b[4][64];
		double ca[4], cb[4];
		searches(&pm, a, ca);
		REQUIRE(dpi_pase_etab_build(&pm, NULL, &err) == DP_OK);
		searches(&pm, b, cb);
		uint32_t n = g->nops, differ = 0;
		for (int kind = 0; kind < 4; kind++) {
			differ += memcmp(a[kind], b[kind], n * sizeof **a) != 0;
			differ += ca[kind] != cb[kind];
		}
		CHECK_INT(differ, 0);
		for (uint32_t e = 0; e < g->nedges; e++) {
			const dp_edge *ed = &g->edges[e];
			for (uint32_t x = pm.off[ed->from];
			     x < pm.off[ed->from + 1]; x++)
				for (uint32_t y = pm.off[ed->to];
				     y < pm.off[ed->to + 1]; y++)
					differ +=
						dpi_pase_ecost(&pm, e, x, y) !=
						dpi_pase_edge_cost(&pm, e, x,
								   y);
		}
		CHECK_INT(differ, 0);
		/* the memo: a fresh simulation, then remembered ones */
		double ms[3], over[3];
		bool fits[3];
		REQUIRE(dpi_pase_simulate(&pm, a[0], DP_CONT_PORT, &ms[0],
					  &fits[0], &over[0], &err) == DP_OK);
		REQUIRE(dpi_pase_sims_new(&pm, &err) == DP_OK);
		for (int i = 1; i < 3; i++) {
			REQUIRE(dpi_pase_simulate(&pm, a[0], DP_CONT_PORT,
						  &ms[i], &fits[i], &over[i],
						  &err) == DP_OK);
			for (int kind = 1; kind < 4; kind++) /* others */
				REQUIRE(dpi_pase_simulate(&pm, a[kind],
							  DP_CONT_NONE, &ms[i],
							  &fits[i], &over[i],
							  &err) == DP_OK);
			REQUIRE(dpi_pase_simulate(&pm, a[0], DP_CONT_PORT,
						  &ms[i], &fits[i], &over[i],
						  &err) == DP_OK);
			CHECK(ms[i] == ms[0] && fits[i] == fits[0] &&
			      over[i] == over[0]);
		}
		CHECK(ms[0] > 0);
		CHECK(k != 4 || over[0] > 0); /* capped: a peak over the cap */
		dpi_pase_sims_free(&pm);
		dpi_pase_etab_free(&pm);
		dpi_pase_model_free(&pm);
		dp_machine_free(&m);
		dp_graph_free(g);
	}
}

TEST_MAIN(TEST(test_dp_equals_brute_force_mlp_k2_k4),
	  TEST(test_dp_equals_brute_force_diamond_k2_k4),
	  TEST(test_dp_equals_brute_force_random_graphs),
	  TEST(test_strategy_checks_and_lowers),
	  TEST(test_cap_below_the_replica_forces_a_split),
	  TEST(test_nothing_fits_is_reported),
	  TEST(test_cancel_returns_canceled_and_nothing),
	  TEST(test_deterministic),
	  TEST(test_bound_fixes_vertices_and_stays_consistent),
	  TEST(test_sum_over_ops_fits_the_cap),
	  TEST(test_elimination_solves_a_ladder_exactly),
	  TEST(test_coarsening_merges_an_elementwise_op),
	  TEST(test_edge_table_and_memo_change_nothing))

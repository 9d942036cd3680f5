/* test_msr_dp.c - msr-dp (the max-load DP over ideals of Tarnawski et al.)
 * and the throughput objective: the max load of hand-made chains, msr-dp
 * against an exhaustive search over every contiguous placement on small
 * random DAGs and training graphs (caps and pins included), the link
 * "file", cancellation that leaves nothing half-made, determinism. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dnnpart/algo.h"
#include "dnnpart/graph.h"
#include "dnnpart/machine.h"
#include "dnnpart/plan.h"
#include "dnnpart/throughput.h"
#include "internal/msrdp.h"
#include "lib/fixtures.h"
#include "lib/testlib.h"

static dp_status run(const dp_graph *g, const dp_machine *m, int32_t *pl,
		     const dp_progress *p)
{
	return dp_algo_place(dp_algo_find("msr-dp"), g, m, NULL, p, pl, NULL);
}

static double max_load(const dp_graph *g, const dp_machine *m,
		       const int32_t *pl)
{
	double v = -1;
	CHECK(dp_max_load(g, m, pl, NULL, &v, NULL) == DP_OK);
	return v;
}

/* a -> b -> c -> d taking 10, 20, 30, 40 µs; every transfer costs the
 * latency, 5 µs (no bytes). */
static dp_graph *four_layers(void)
{
	dp_graph *g = test_chain("four", 4, 0, 0);
	double t[4] = {10, 20, 30, 40};
	for (int i = 0; i < 4; i++)
		g->ops[i].time_us = t[i];
	return g;
}

static void four_machine(dp_machine *m, int k)
{
	REQUIRE(dp_machine_init(m, k, NULL) == DP_OK);
	m->lat = 5;
	m->bw = 1;
}

/* A random DAG of n ops shaped by spec (test_dag_spec) and seed, and in *m
 * four_machine of 4 devices; NULL (a recorded failure) when it cannot be
 * built. */
static dp_graph *random_on_four(uint32_t n, const char *spec, uint64_t seed,
				const char *name, dp_machine *m)
{
	test_dag_opts o = test_dag_spec(n, spec);
	dp_graph *g = test_random_dag_with(seed, &o, name);
	if (!g) {
		test_fail(__FILE__, __LINE__, "no random graph '%s'", name);
		return NULL;
	}
	four_machine(m, 4);
	return g;
}

/* The load of a piece is its time, plus 5 for each output it sends and 5
 * for each it receives. K = 2: [a][bcd] 15/95, [ab][cd] 35/75, [abc][d]
 * 65/45: the best is 65. K = 3: [ab][c][d] gives 35, 30+10, 40+5 = 45,
 * against 60 for [a][bc][d] and 75 for [a][b][cd]. */
static void test_msr_dp_four_layer_chain_by_hand(void)
{
	dp_graph *g = four_layers();
	REQUIRE(dp_graph_finalize(g, NULL) == DP_OK);
	dp_machine m;
	four_machine(&m, 2);
	int32_t pl[4];
	REQUIRE(run(g, &m, pl, NULL) == DP_OK);
	CHECK_PLACEMENT(pl, (const int32_t[]){0, 0, 0, 1}, 4);
	CHECK_NEAR(max_load(g, &m, pl), 65.0, 1e-9);
	double load[2];
	double ml;
	REQUIRE(dp_max_load(g, &m, pl, load, &ml, NULL) == DP_OK);
	CHECK_NEAR(load[0], 65.0, 1e-9);
	CHECK_NEAR(load[1], 45.0, 1e-9);
	dp_machine_free(&m);
	four_machine(&m, 3);
	REQUIRE(run(g, &m, pl, NULL) == DP_OK);
	CHECK_PLACEMENT(pl, (const int32_t[]){0, 0, 1, 2}, 4);
	CHECK_NEAR(max_load(g, &m, pl), 45.0, 1e-9);
	dp_plan p;
	memset(&p, 0, sizeof p);
	REQUIRE(dp_plan_run(g, &m, dp_algo_find("msr-dp"), NULL, NULL, &p,
			    NULL) == DP_OK);
	CHECK_NEAR(p.max_load, 45.0, 1e-9); /* every plan carries it */
	dp_plan_free(&p);
	dp_machine_free(&m);
	dp_graph_free(g);
}

/* An output sent to two devices is sent once and received once by each
 * (the paper's model): a -> b, a -> c on three devices. */
static void test_max_load_sends_once_receives_per_device(void)
{
	dp_graph *g = test_graph_text("fan", "a:1 b:2 c:3; a>b a>c", 0);
	REQUIRE(dp_graph_finalize(g, NULL) == DP_OK);
	dp_machine m;
	four_machine(&m, 3);
	double load[3], ml;
	REQUIRE(dp_max_load(g, &m, (const int32_t[]){0, 1, 2}, load, &ml,
			    NULL) == DP_OK);
	CHECK_NEAR(load[0], 1 + 5, 1e-12);
	CHECK_NEAR(load[1], 2 + 5, 1e-12);
	CHECK_NEAR(load[2], 3 + 5, 1e-12);
	CHECK_NEAR(ml, 8, 1e-12);
	/* a device out of range is an error naming the op */
	dp_err err;
	CHECK(dp_max_load(g, &m, (const int32_t[]){0, 3, 0}, NULL, &ml, &err) ==
	      DP_EINPUT);
	CHECK_CONTAINS(err.msg, "'b'");
	dp_machine_free(&m);
	dp_graph_free(g);
}

/* With the link "file" an edge's own transfer time replaces lat + bytes /
 * bw: the cut after c now costs 100, so K = 2 splits after b instead. */
static void test_msr_dp_link_file_prices_edges(void)
{
	dp_graph *g = four_layers();
	REQUIRE(dp_graph_finalize(g, NULL) == DP_OK);
	REQUIRE(dp_graph_set_edge_xfer(g, 2, 100, NULL) == DP_OK);
	CHECK(isnan(dp_edge_xfer_us(g, 0)));
	CHECK_NEAR(dp_edge_xfer_us(g, 2), 100, 0);
	dp_machine m;
	four_machine(&m, 2);
	int32_t pl[4];
	REQUIRE(run(g, &m, pl, NULL) == DP_OK);
	CHECK_PLACEMENT(pl, (const int32_t[]){0, 0, 0, 1}, 4); /* not file */
	dp_machine_set_link_file(&m);
	CHECK_STR(m.link_name, "file");
	REQUIRE(run(g, &m, pl, NULL) == DP_OK);
	CHECK_PLACEMENT(pl, (const int32_t[]){0, 0, 1, 1}, 4);
	CHECK_NEAR(max_load(g, &m, pl), 75.0, 1e-9);
	/* the simulator prices the transfer c -> d with it too */
	dp_plan p;
	memset(&p, 0, sizeof p);
	REQUIRE(dp_plan_evaluate(g, &m, (const int32_t[]){0, 0, 0, 1},
				 DP_CONT_PORT, &p, NULL) == DP_OK);
	CHECK_NEAR(p.sim.makespan, 60 + 100 + 40, 1e-9);
	CHECK_NEAR(p.max_load, 160, 1e-9);
	dp_plan_free(&p);
	dp_machine_free(&m);
	dp_graph_free(g);
}

/* ---- exhaustive search ---- */

/* Whether pl is a placement msr-dp may return: every edge goes to the same
 * or a later device (so the ops on devices 0..d form an ideal for every
 * d), only forward-side edges counted in a training graph; groups on one
 * device; pins kept; each device's bytes under its cap. */
static bool allowed(const dp_graph *g, const dp_machine *m, const int32_t *pl,
		    bool training)
{
	for (uint32_t e = 0; e < g->nedges; e++) {
		uint32_t u = g->edges[e].from, v = g->edges[e].to;
		if (training && (dp_op_role(g, u) == DP_ROLE_BACKWARD ||
				 dp_op_role(g, v) == DP_ROLE_BACKWARD))
			continue;
		if (pl[u] > pl[v])
			return false;
	}
	double mem[8] = {0};
	for (uint32_t v = 0; v < g->nops; v++) {
		const dp_op *op = &g->ops[v];
		if (op->pin >= 0 && pl[v] != op->pin)
			return false;
		for (uint32_t w = 0; w < v; w++)
			if (op->colocate >= 0 &&
			    g->ops[w].colocate == op->colocate &&
			    pl[w] != pl[v])
				return false;
		mem[pl[v]] += (double)(op->param_bytes + op->output_bytes +
				       op->temp_bytes);
	}
	for (int d = 0; d < m->k; d++)
		if (m->cap[d] != DP_CAP_UNLIMITED && mem[d] > (double)m->cap[d])
			return false;
	return true;
}

/* The smallest max load over every allowed placement (INFINITY: none). */
static double brute_force(const dp_graph *g, const dp_machine *m, bool training)
{
	uint32_t n = g->nops;
	int32_t pl[16] = {0};
	double best = INFINITY;
	for (;;) {
		if (allowed(g, m, pl, training)) {
			double v = max_load(g, m, pl);
			if (v < best)
				best = v;
		}
		uint32_t i = 0;
		while (i < n && ++pl[i] == m->k)
			pl[i++] = 0;
		if (i == n)
			return best;
	}
}

static void random_machine(dp_machine *m, uint64_t *rs, int k,
			   const dp_graph *g, bool caps)
{
	REQUIRE(dp_machine_init(m, k, NULL) == DP_OK);
	m->lat = (double)test_randn(rs, 6);
	m->bw = 50 + (double)test_randn(rs, 200);
	if (test_randn(rs, 3) == 0) {
		char sp[32];
		snprintf(sp, sizeof sp, "%s", k == 2 ? "1,2" : "2,1,1.5");
		REQUIRE(dp_machine_set_speeds(m, sp, NULL) == DP_OK);
	}
	if (caps) {
		double total = 0;
		for (uint32_t v = 0; v < g->nops; v++)
			total += (double)(g->ops[v].param_bytes +
					  g->ops[v].output_bytes);
		for (int d = 0; d < k; d++)
			m->cap[d] = (int64_t)(total / k * 1.4) + 1;
	}
}

/* Checks msr-dp's placement: allowed when any placement is, and as good as
 * the best of them. */
static void check_against_brute(const dp_graph *g, const dp_machine *m,
				bool training, uint64_t seed)
{
	int32_t pl[16];
	REQUIRE(run(g, m, pl, NULL) == DP_OK);
	double want = brute_force(g, m, training);
	for (uint32_t v = 0; v < g->nops; v++)
		if (g->ops[v].pin >= 0)
			CHECK_INT(pl[v], g->ops[v].pin);
	if (isinf(want))
		return; /* nothing allowed: msr-dp relaxes caps or pins */
	if (!allowed(g, m, pl, training))
		test_fail(__FILE__, __LINE__,
			  "seed %llu: msr-dp's placement breaks the rules",
			  (unsigned long long)seed);
	double got = max_load(g, m, pl);
	if (fabs(got - want) > 1e-9 * (1 + want))
		test_fail(__FILE__, __LINE__,
			  "seed %llu, K=%d: msr-dp %.12g, exhaustive %.12g",
			  (unsigned long long)seed, m->k, got, want);
}

/* check_against_brute on g (freed after; NULL is a recorded failure) and
 * a random_machine of k devices drawn from *rs. */
static void brute_case(dp_graph *g, uint64_t *rs, int k, bool caps,
		       bool training, uint64_t seed)
{
	if (!g) {
		test_fail(__FILE__, __LINE__, "seed %llu: no graph",
			  (unsigned long long)seed);
		return;
	}
	dp_machine m;
	random_machine(&m, rs, k, g, caps);
	check_against_brute(g, &m, training, seed);
	dp_machine_free(&m);
	dp_graph_free(g);
}

static void test_msr_dp_equals_exhaustive_on_random_dags(void)
{
	for (uint64_t seed = 1; seed <= 60; seed++) {
		uint64_t rs = seed * 7919;
		test_dag_opts o = test_dag_spec(
			3 + test_randn(&rs, 7),
			"inputs=2 time=1..30 zero_time=7 out=0..2000 "
			"params=2:5000 control=9 bytes=4:3000");
		o.window = seed % 3 == 0 ? 1 : 0;
		int k = 2 + (int)(seed % 2);
		if (k == 3 && o.n > 8)
			o.n = 8;
		brute_case(test_random_dag_with(seed, &o, "rand"), &rs, k,
			   seed % 4 == 1, false, seed);
	}
}

/* Groups and pins: a group is one unit, a pinned op stays on its device. */
static void test_msr_dp_equals_exhaustive_with_groups_and_pins(void)
{
	for (uint64_t seed = 100; seed < 130; seed++) {
		uint64_t rs = seed * 104729;
		test_dag_opts o = test_dag_spec(
			4 + test_randn(&rs, 5),
			"inputs=2 time=1..20 out=10..900 groups=3");
		o.pin_every = seed % 2 ? 6 : 0;
		o.pin_k = 2;
		brute_case(test_random_dag_with(seed, &o, "grp"), &rs,
			   2 + (int)(seed % 2), false, false, seed);
	}
}

/* A training graph as msr-fiddle's: forward layers f0.. with a backward
 * op each, colocated (the paper's color classes), backward edges mirroring
 * the forward ones and saved activations f -> b. Contiguity holds on the
 * forward side; the backward ops follow their forward op. */
static dp_graph *training_graph(uint64_t seed, uint32_t n)
{
	uint64_t rs = seed;
	dp_graph *g = dp_graph_new("train");
	char name[16];
	for (uint32_t i = 0; i < n; i++) {
		snprintf(name, sizeof name, "f%u", i);
		test_add_op(g, name, 1 + (double)test_randn(&rs, 20), 0, NULL);
		snprintf(name, sizeof name, "c%u", i);
		dp_graph_set_colocate(g, 2 * i, name, NULL);
		dp_graph_set_role(g, 2 * i, DP_ROLE_FORWARD, NULL);
		g->ops[2 * i].param_bytes = (int64_t)test_randn(&rs, 1000);
		snprintf(name, sizeof name, "b%u", i);
		test_add_op(g, name, 1 + (double)test_randn(&rs, 40), 0, NULL);
		snprintf(name, sizeof name, "c%u", i);
		dp_graph_set_colocate(g, 2 * i + 1, name, NULL);
		dp_graph_set_role(g, 2 * i + 1, DP_ROLE_BACKWARD, NULL);
	}
	for (uint32_t i = 1; i < n; i++) {
		uint32_t p = test_randn(&rs, i); /* an earlier layer */
		int64_t by = 1 + (int64_t)test_randn(&rs, 500);
		dp_graph_add_edge(g, 2 * p, 2 * i, by, false, NULL);
		dp_graph_add_edge(g, 2 * i + 1, 2 * p + 1, by, false, NULL);
		dp_graph_add_edge(g, 2 * p, 2 * i + 1, by, false, NULL);
		if (i + 1 == n || test_randn(&rs, 3) == 0)
			dp_graph_add_edge(g, 2 * i, 2 * i + 1, by, false, NULL);
	}
	if (dp_graph_finalize(g, NULL) != DP_OK) {
		dp_graph_free(g);
		return NULL;
	}
	return g;
}

static void test_msr_dp_equals_exhaustive_on_training_graphs(void)
{
	for (uint64_t seed = 1; seed <= 30; seed++) {
		uint32_t n = 3 + (uint32_t)(seed % 4); /* 6..12 ops */
		int k = 2 + (int)(seed % 2);
		if (k == 3 && n > 5)
			n = 5;
		uint64_t rs = seed * 31;
		brute_case(training_graph(seed, n), &rs, k, seed % 3 == 0, true,
			   seed);
	}
}

/* A cap that the time-best split breaks: [10 1 1 1 1] would be best by
 * time, but five params of 100 do not fit 250. msr-dp keeps every device's
 * bytes under the cap, and when no split fits at all it still returns one
 * (the plan says infeasible). */
static void test_msr_dp_honours_caps(void)
{
	dp_graph *g = test_chain("caps", 6, 1, 0);
	double t[6] = {10, 1, 1, 1, 1, 1};
	for (int i = 0; i < 6; i++) {
		g->ops[i].time_us = t[i];
		g->ops[i].param_bytes = 100;
	}
	REQUIRE(dp_graph_finalize(g, NULL) == DP_OK);
	dp_machine m;
	four_machine(&m, 3);
	REQUIRE(dp_machine_set_caps(&m, "250B", NULL) == DP_OK);
	int32_t pl[6];
	REQUIRE(run(g, &m, pl, NULL) == DP_OK);
	int64_t mem[3] = {0};
	for (int i = 0; i < 6; i++)
		mem[pl[i]] += 100;
	for (int d = 0; d < 3; d++)
		CHECK(mem[d] <= 250);
	REQUIRE(dp_machine_set_caps(&m, "150B", NULL) == DP_OK);
	REQUIRE(run(g, &m, pl, NULL) == DP_OK);
	for (int i = 0; i < 6; i++)
		CHECK(pl[i] >= 0 && pl[i] < 3);
	dp_machine_free(&m);
	dp_graph_free(g);
}

/* A raised cancel flag: DP_ECANCELED, "msr-dp: canceled", and the
 * placement and the plan untouched. */
static void test_msr_dp_cancel_leaves_nothing(void)
{
	dp_machine m;
	dp_graph *g = random_on_four(40, "inputs=3 time=1..9", 5, "cancel", &m);
	REQUIRE(g);
	int32_t pl[40];
	for (int i = 0; i < 40; i++)
		pl[i] = -7;
	atomic_int cancel = 1;
	dp_progress p = {NULL, NULL, &cancel};
	dp_err err;
	CHECK(dp_algo_place(dp_algo_find("msr-dp"), g, &m, NULL, &p, pl,
			    &err) == DP_ECANCELED);
	CHECK_STR(err.msg, "msr-dp: canceled");
	for (int i = 0; i < 40; i++)
		CHECK_INT(pl[i], -7);
	dp_plan plan;
	memset(&plan, 0x5a, sizeof plan);
	CHECK(dp_plan_run(g, &m, dp_algo_find("msr-dp"), NULL, &p, &plan,
			  NULL) == DP_ECANCELED);
	unsigned char *b = (unsigned char *)&plan;
	bool same = true;
	for (size_t i = 0; i < sizeof plan; i++)
		same = same && b[i] == 0x5a;
	CHECK(same);
	dp_machine_free(&m);
	dp_graph_free(g);
}

/* Same input, same placement; and on a wide graph (more ideals than the
 * DP takes) it still returns a contiguous placement from its chain. */
static void test_msr_dp_deterministic_and_wide(void)
{
	dp_machine m;
	dp_graph *g = random_on_four(300, "inputs=2 time=1..50 out=1..100", 11,
				     "wide", &m);
	REQUIRE(g);
	int32_t *a = malloc(300 * sizeof *a), *b = malloc(300 * sizeof *b);
	REQUIRE(a && b);
	REQUIRE(run(g, &m, a, NULL) == DP_OK);
	REQUIRE(run(g, &m, b, NULL) == DP_OK);
	CHECK(memcmp(a, b, 300 * sizeof *a) == 0);
	CHECK(allowed(g, &m, a, false));
	/* no worse than putting everything on one device */
	double one = 0;
	for (uint32_t v = 0; v < g->nops; v++)
		one += g->ops[v].time_us;
	CHECK(max_load(g, &m, a) <= one);
	free(a);
	free(b);
	dp_machine_free(&m);
	dp_graph_free(g);
}

/* The chain's communication table (2-D prefix sums of rectangles per op)
 * against the pieces' communication summed op by op, on random DAGs with
 * groups and on training graphs, blocks of several units. */
static void check_chain_table(const dp_graph *g, const dp_machine *m,
			      uint32_t nb)
{
	msr_units u;
	msr_ideals id;
	REQUIRE(dpi_msr_units_build(g, m, &u, NULL) == DP_OK);
	REQUIRE(dpi_msr_ideals_chain(g, &u, nb, &id, NULL) == DP_OK);
	for (uint32_t j = 0; j < id.ni; j++)
		for (uint32_t i = j + 1; i < id.ni; i++) {
			double want = 0;
			for (uint32_t x = 0; x < g->nops; x++) {
				bool in = u.unit[x] >= id.pos[j] &&
					  u.unit[x] < id.pos[i];
				bool cut = false;
				for (uint32_t s = g->succ_off[x];
				     s < g->succ_off[x + 1]; s++) {
					const dp_edge *e =
						&g->edges[g->succ_edge[s]];
					uint32_t b = u.unit[e->to];
					if (!e->control &&
					    (b >= id.pos[j] && b < id.pos[i]) !=
						    in)
						cut = true;
				}
				if (cut)
					want += u.xfer[x];
			}
			double got = id.comm[(size_t)j * id.ni + i];
			if (fabs(got - want) > 1e-9 * (1 + want))
				test_fail(
					__FILE__, __LINE__,
					"piece %u..%u: table %.12g, sum %.12g",
					j, i, got, want);
		}
	dpi_msr_ideals_free(&id);
	dpi_msr_units_free(&u);
}

static void test_msr_dp_chain_table_matches_sums(void)
{
	for (uint64_t seed = 1; seed <= 20; seed++) {
		test_dag_opts o =
			test_dag_spec(10 + (uint32_t)seed * 3,
				      "inputs=3 time=0..9 out=1..900 control=6 "
				      "bytes=3:2000 groups=4");
		dp_graph *g = test_random_dag_with(seed, &o, "tab");
		REQUIRE(g);
		dp_machine m;
		four_machine(&m, 2);
		m.bw = 10;
		check_chain_table(g, &m, 1 + (uint32_t)(seed % 7));
		check_chain_table(g, &m, 1024);
		dp_machine_free(&m);
		dp_graph_free(g);
		g = training_graph(seed, 4 + (uint32_t)(seed % 5));
		REQUIRE(g);
		four_machine(&m, 2);
		check_chain_table(g, &m, 1 + (uint32_t)(seed % 4));
		dp_machine_free(&m);
		dp_graph_free(g);
	}
}

TEST_MAIN(TEST(test_msr_dp_four_layer_chain_by_hand),
	  TEST(test_max_load_sends_once_receives_per_device),
	  TEST(test_msr_dp_link_file_prices_edges),
	  TEST(test_msr_dp_equals_exhaustive_on_random_dags),
	  TEST(test_msr_dp_equals_exhaustive_with_groups_and_pins),
	  TEST(test_msr_dp_equals_exhaustive_on_training_graphs),
	  TEST(test_msr_dp_honours_caps),
	  TEST(test_msr_dp_cancel_leaves_nothing),
	  TEST(test_msr_dp_deterministic_and_wide),
	  TEST(test_msr_dp_chain_table_matches_sums))

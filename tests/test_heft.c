/* test_heft.c - the HEFT core on the paper's example, and the heft
 * algorithm's memory check, pins and colocation. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dnnpart/algo.h"
#include "dnnpart/graph.h"
#include "dnnpart/machine.h"
#include "dnnpart/plan.h"
#include "internal/heft.h"
#include "internal/heft_slots.h"
#include "internal/listsched.h"
#include "lib/fixtures.h"
#include "lib/testlib.h"

/* Topcuoglu et al. 2002, Fig. 2: ten tasks, edge weights = communication
 * costs, and the computation cost table on processors P1..P3. */
static const int paper_edges[][3] = {
	{1, 2, 18}, {1, 3, 12}, {1, 4, 9},   {1, 5, 11},  {1, 6, 14},
	{2, 8, 19}, {2, 9, 16}, {3, 7, 23},  {4, 8, 27},  {4, 9, 23},
	{5, 9, 13}, {6, 8, 15}, {7, 10, 17}, {8, 10, 11}, {9, 10, 13},
};
static const double paper_w[10][3] = {
	{14, 16, 9}, {13, 19, 18}, {11, 13, 19}, {13, 8, 17},  {12, 13, 10},
	{13, 16, 9}, {7, 15, 11},  {5, 11, 14},	 {18, 12, 20}, {21, 7, 16},
};

/* The task graph of the paper's Figure 2 (ops n1..n10; the edges' costs
 * into comm), not finalized. */
static dp_graph *paper_ops(double *comm)
{
	dp_graph *g = dp_graph_new("heft-fig2");
	char nm[16];
	for (int i = 1; i <= 10; i++) {
		uint32_t id;
		snprintf(nm, sizeof nm, "n%d", i);
		dp_graph_add_op(g, nm, &id, NULL);
	}
	for (size_t e = 0; e < sizeof paper_edges / sizeof paper_edges[0];
	     e++) {
		dp_graph_add_edge(g, (uint32_t)paper_edges[e][0] - 1,
				  (uint32_t)paper_edges[e][1] - 1, 0, false,
				  NULL);
		comm[e] = paper_edges[e][2];
	}
	return g;
}

static dp_graph *paper_graph(double *comm)
{
	return test_finalized(paper_ops(comm));
}

/* The arrays of a HEFT schedule of up to 10 ops, and the schedule. */
typedef struct sched {
	int32_t proc[10];
	double start[10], finish[10], rank[10];
	heft_schedule s;
} sched;

/* Runs HEFT's core on g (at most 10 ops) with k processors, costs w (op by
 * processor) and comm (per edge; the ranks use them too), with the ports
 * model when ports; false, recorded as a failure, when it fails. */
static bool run(const dp_graph *g, int k, const double *w, const double *comm,
		bool ports, sched *r)
{
	r->s = (heft_schedule){r->proc, r->start, r->finish, r->rank, 0, false};
	heft_problem pb = {.g = g, .k = k, .w = w, .ports = ports};
	pb.comm = pb.rank_comm = comm;
	dp_err err;
	dp_status st = dpi_heft_run(&pb, &r->s, &err);
	if (st != DP_OK)
		FAIL_ERR("dpi_heft_run", &err);
	return st == DP_OK;
}

static void test_heft_paper_example_makespan_80(void)
{
	double comm[15];
	dp_graph *g = paper_graph(comm);
	REQUIRE(g);
	sched r;
	REQUIRE(run(g, 3, &paper_w[0][0], comm, false, &r));
	CHECK_NEAR(r.s.makespan, 80, 1e-9);
	CHECK(!r.s.overflowed);
	/* Table 2 of the paper: upward ranks */
	static const double want_rank[10] = {108.0,  77.0,   80.0,   80.0,
					     69.0,   63.333, 42.667, 35.667,
					     44.333, 14.667};
	for (int i = 0; i < 10; i++)
		CHECK_NEAR(r.rank[i], want_rank[i], 1e-3);
	/* Fig. 4(a): n1 on P3 [0, 9], n10 on P2 [73, 80], n4 on P2 [18, 26],
	 * n8 inserted on P1 [57, 62] */
	CHECK_INT(r.proc[0], 2);
	CHECK_NEAR(r.start[0], 0, 1e-9);
	CHECK_NEAR(r.finish[0], 9, 1e-9);
	CHECK_INT(r.proc[9], 1);
	CHECK_NEAR(r.start[9], 73, 1e-9);
	CHECK_INT(r.proc[3], 1);
	CHECK_NEAR(r.start[3], 18, 1e-9);
	CHECK_INT(r.proc[7], 0);
	CHECK_NEAR(r.start[7], 57, 1e-9);
	dp_graph_free(g);
}

static void test_heft_inserts_into_idle_gap(void)
{
	/* a -> b (long comm) and an independent short op c on one processor:
	 * with insertion, c fills the gap before b */
	dp_graph *g = test_graph_text("gap", "a b c d; a>b b>d", 0);
	const uint32_t c = 2;
	REQUIRE(dp_graph_finalize(g, NULL) == DP_OK);
	/* one processor: b waits for nothing but a, c is shorter and
	 * lower-ranked, so it goes after d unless it fits in a gap; make a gap
	 * by giving b a late ready time through a huge cost of a on p0 */
	double w[4] = {10, 10, 3, 10};
	double comm[2] = {0, 0};
	sched r;
	REQUIRE(run(g, 1, w, comm, false, &r));
	CHECK_NEAR(r.s.makespan, 33, 1e-9);
	CHECK_NEAR(r.start[c], 30, 1e-9); /* lowest rank, no gap: at the end */
	dp_graph_free(g);

	/* two processors, comm makes a gap on p1 that the short op fills */
	g = test_graph_text("gap2", "x y z; x>y", 0);
	const uint32_t y = 1, z = 2;
	REQUIRE(dp_graph_finalize(g, NULL) == DP_OK);
	/* x only cheap on p0, y only cheap on p1 (arrives at 10 + 5 = 15),
	 * z: rank lowest, cheap on p1, fits in [0, 15) there */
	double w2[6] = {10, 100, 100, 10, 50, 4};
	double comm2[1] = {5};
	REQUIRE(run(g, 2, w2, comm2, false, &r));
	CHECK_INT(r.proc[y], 1);
	CHECK_NEAR(r.start[y], 15, 1e-9);
	CHECK_INT(r.proc[z], 1);
	CHECK_NEAR(r.start[z], 0, 1e-9);
	CHECK_NEAR(r.s.makespan, 25, 1e-9);
	dp_graph_free(g);
}

/* The blocked gap index gives exactly the plain scan's answers: random
 * ready times and durations (some zero), 5000 insertions, checked against
 * a flat sorted array scanned from the first interval ending after ready. */
static void test_heft_slots_match_plain_scan(void)
{
	static double fs[5000], ff[5000];
	uint32_t n = 0;
	heft_slots hs = {0};
	uint64_t r = 12345;
	for (int it = 0; it < 5000; it++) {
		r = r * 6364136223846793005ull + 1442695040888963407ull;
		double ready = (double)((r >> 33) % 200000) / 8.0;
		double dur = (r >> 20) % 7 == 0 ? 0 : (double)((r >> 40) % 64);
		/* plain scan */
		uint32_t lo = 0;
		while (lo < n && ff[lo] <= ready)
			lo++;
		double t = ready;
		uint32_t at = n;
		for (uint32_t i = lo; i < n; i++) {
			if (t + dur <= fs[i]) {
				at = i;
				break;
			}
			if (ff[i] > t)
				t = ff[i];
		}
		hs_pos pos;
		double got = dpi_heft_slots_find(&hs, ready, dur, &pos);
		if (got != t) {
			test_fail(__FILE__, __LINE__,
				  "step %d: start %.9g, want %.9g", it, got, t);
			break;
		}
		REQUIRE(dpi_heft_slots_insert(&hs, pos, t, t + dur) == 0);
		memmove(fs + at + 1, fs + at, (n - at) * sizeof *fs);
		memmove(ff + at + 1, ff + at, (n - at) * sizeof *ff);
		fs[at] = t;
		ff[at] = t + dur;
		n++;
	}
	/* the blocks hold the same intervals in the same order */
	uint32_t k = 0;
	for (uint32_t b = 0; b < hs.nb; b++)
		for (uint32_t i = 0; i < hs.b[b]->len; i++, k++)
			if (k < n &&
			    (hs.b[b]->s[i] != fs[k] || hs.b[b]->f[i] != ff[k]))
				test_fail(__FILE__, __LINE__,
					  "interval %u differs", k);
	CHECK_INT(k, n);
	CHECK(hs.nb > 1);
	dpi_heft_slots_free(&hs);
}

/* Ports mode: a and b on P0 feed c and d on P1 (each edge costs 10). a's
 * transfer holds P0's send port and P1's receive port over [5, 15], so
 * b's, ready at 10, runs [15, 25]; e, a second consumer of a on P1, shares
 * a's transfer and fills the gap at 16. Without ports d starts at 20. */
static void test_heft_ports_mode_shares_and_serialises(void)
{
	dp_graph *g = test_graph_text("ports", "a b c d e; a>c b>d a>e", 0);
	const uint32_t a = 0, b = 1, c = 2, d = 3, e = 4;
	REQUIRE(dp_graph_finalize(g, NULL) == DP_OK);
	double w[10] = {5, 100, 5, 100, 100, 1, 100, 1, 100, 1};
	double comm[3] = {10, 10, 10};
	sched r;
	REQUIRE(run(g, 2, w, comm, false, &r));
	CHECK_NEAR(r.start[d], 20, 1e-9);
	REQUIRE(run(g, 2, w, comm, true, &r));
	CHECK_INT(r.proc[a], 0);
	CHECK_INT(r.proc[b], 0);
	CHECK_INT(r.proc[c], 1);
	CHECK_INT(r.proc[d], 1);
	CHECK_INT(r.proc[e], 1);
	CHECK_NEAR(r.start[c], 15, 1e-9);
	CHECK_NEAR(r.start[d], 25, 1e-9);
	CHECK_NEAR(r.start[e], 16, 1e-9);
	CHECK_NEAR(r.s.makespan, 26, 1e-9);
	dp_graph_free(g);
}

/* Two independent ops with big outputs: one device cannot hold both, so
 * the memory check sends the second elsewhere even though it would finish
 * earlier on device 0 in a pure-time view (device 1 is slower). */
static void test_heft_memory_check_moves_op(void)
{
	dp_graph *g = dp_graph_new("mem");
	uint32_t a = test_add_op(g, "a", 10, 0, NULL);
	uint32_t b = test_add_op(g, "b", 10, 0, NULL);
	g->ops[a].param_bytes = 600;
	g->ops[b].param_bytes = 600;
	REQUIRE(dp_graph_finalize(g, NULL) == DP_OK);
	dp_machine m;
	REQUIRE(test_machine_make(&m, 2, "1000B", NULL));
	REQUIRE(dp_machine_set_speeds(&m, "1,0.25", NULL) == DP_OK);
	const dp_algo *h = dp_algo_find("heft");
	REQUIRE(h);
	dp_algo_opts o;
	dp_algo_opts_default(&o);
	dp_plan plan;
	memset(&plan, 0, sizeof plan);
	REQUIRE(dp_plan_run(g, &m, h, &o, NULL, &plan, NULL) == DP_OK);
	CHECK(plan.placement[a] != plan.placement[b]);
	CHECK(plan.feasible);

	/* without caps, both go to the fast device */
	REQUIRE(dp_machine_set_caps(&m, "inf", NULL) == DP_OK);
	dp_plan_free(&plan);
	memset(&plan, 0, sizeof plan);
	REQUIRE(dp_plan_run(g, &m, h, &o, NULL, &plan, NULL) == DP_OK);
	CHECK_INT(plan.placement[a], 0);
	CHECK_INT(plan.placement[b], 0);
	test_free(g, &m, &plan);
}

static void test_heft_honours_pins_and_groups(void)
{
	double comm[15];
	dp_graph *g = paper_ops(comm);
	for (int i = 0; i < 10; i++)
		g->ops[i].time_us = paper_w[i][0];
	g->ops[9].pin = 2;
	TEST_GROUP(g, "grp", 1, 7);
	TEST_GROUP(g, "grp2", 4, 8);
	g->ops[8].pin = 1;
	REQUIRE(dp_graph_finalize(g, NULL) == DP_OK);
	sched r;
	REQUIRE(run(g, 3, &paper_w[0][0], comm, false, &r));
	CHECK_INT(r.proc[9], 2);
	CHECK_INT(r.proc[1], r.proc[7]);
	CHECK_INT(r.proc[4], 1);
	CHECK_INT(r.proc[8], 1);
	/* precedence holds in HEFT's own schedule */
	for (uint32_t e = 0; e < g->nedges; e++) {
		uint32_t u = g->edges[e].from, v = g->edges[e].to;
		double need =
			r.finish[u] + (r.proc[u] != r.proc[v] ? comm[e] : 0);
		CHECK(r.start[v] >= need - 1e-9);
	}
	dp_graph_free(g);
}

static void test_heft_cancel(void)
{
	dp_graph *g = test_chain("c", 3000, 1, 0);
	REQUIRE(dp_graph_finalize(g, NULL) == DP_OK);
	dp_machine m;
	REQUIRE(test_machine_make(&m, 2, NULL, NULL));
	atomic_int cancel = 1;
	dp_progress p = {NULL, NULL, &cancel};
	int32_t *pl = malloc(g->nops * sizeof *pl);
	dp_algo_opts o;
	dp_algo_opts_default(&o);
	dp_err err;
	CHECK_INT(dp_algo_place(dp_algo_find("heft"), g, &m, &o, &p, pl, &err),
		  DP_ECANCELED);
	free(pl);
	test_free(g, &m, NULL);
}

TEST_MAIN(TEST(test_heft_paper_example_makespan_80),
	  TEST(test_heft_inserts_into_idle_gap),
	  TEST(test_heft_slots_match_plain_scan),
	  TEST(test_heft_ports_mode_shares_and_serialises),
	  TEST(test_heft_memory_check_moves_op),
	  TEST(test_heft_honours_pins_and_groups), TEST(test_heft_cancel))

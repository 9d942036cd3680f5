/* test_pardnn.c - the pardnn algorithm: its phases, the hand-made graph,
 * options, progress and cancellation (invariants over many graphs and
 * termination: test_pardnn_invariants.c). */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "dnnpart/algo.h"
#include "dnnpart/gen.h"
#include "dnnpart/graph.h"
#include "dnnpart/machine.h"
#include "dnnpart/sim.h"
#include "internal/pardnn.h"
#include "lib/fixtures.h"
#include "lib/pardnn_fixtures.h"
#include "lib/testlib.h"

/* ---- registry ---- */

/* pardnn is first in the list (best, which runs it among the others, is
 * the default: test_best.c) */
static void test_pardnn_is_the_default_algorithm(void)
{
	const dp_algo *a = dp_algo_at(0);
	REQUIRE(a != NULL);
	CHECK_STR(a->name, "pardnn");
	CHECK(dp_algo_find("pardnn") == a);
	CHECK(strstr(dp_algo_names(), "pardnn") == dp_algo_names());
}

/* ---- slicing ---- */

static void test_pardnn_slicing_covers_every_op_with_chains(void)
{
	rand_opts ro = {400, 3, 4, false, true};
	dp_graph *g = random_dag(&ro);
	REQUIRE(g != NULL);
	dp_machine m;
	machine_with(&m, 4, DP_CAP_UNLIMITED);
	dp_algo_opts o;
	dp_algo_opts_default(&o);
	pd_ctx c;
	dp_err err;
	REQUIRE(dpi_pd_ctx_init(&c, g, &m, &o, NULL, &err) == DP_OK);
	REQUIRE(dpi_pd_slice(&c) == DP_OK);
	CHECK(c.npaths >= 4);
	uint32_t covered = 0;
	for (uint32_t p = 0; p < c.npaths; p++) {
		for (uint32_t i = c.path_off[p]; i < c.path_off[p + 1]; i++) {
			uint32_t u = c.path_ops[i];
			covered++;
			CHECK_INT(c.path_of[u], p);
			CHECK(c.fix[u] < 0);
			if (i == c.path_off[p])
				continue;
			/* consecutive ops of a path are joined by an edge */
			uint32_t prev = c.path_ops[i - 1];
			bool edge = false;
			for (uint32_t j = g->succ_off[prev];
			     j < g->succ_off[prev + 1]; j++)
				edge |= g->edges[g->succ_edge[j]].to == u;
			CHECK(edge);
		}
	}
	uint32_t fixed = 0;
	for (uint32_t u = 0; u < g->nops; u++)
		fixed += c.fix[u] >= 0;
	CHECK(fixed > 0);
	CHECK_INT(covered + fixed, g->nops);
	dpi_pd_ctx_free(&c);
	test_free(g, &m, NULL);
}

/* With a free link the first primary is the graph's critical path. */
static void test_pardnn_first_primary_is_the_critical_path(void)
{
	rand_opts ro = {300, 5, 2, false, false};
	dp_graph *g = random_dag(&ro);
	REQUIRE(g != NULL);
	dp_machine m;
	machine_with(&m, 2, DP_CAP_UNLIMITED);
	m.lat = 0;
	m.bw = 1e30;
	pd_ctx c;
	dp_algo_opts o;
	dp_algo_opts_default(&o);
	REQUIRE(dpi_pd_ctx_init(&c, g, &m, &o, NULL, NULL) == DP_OK);
	REQUIRE(dpi_pd_slice(&c) == DP_OK);
	uint32_t *cp = malloc(g->nops * sizeof *cp), len = 0;
	double cpl = dp_graph_critical_path(g, 1.0, cp, &len);
	double sum = 0;
	for (uint32_t i = c.path_off[0]; i < c.path_off[1]; i++)
		sum += g->ops[c.path_ops[i]].time_us;
	CHECK_NEAR(sum, cpl, 1e-6);
	/* and the second primary is no longer than the first */
	double sum2 = 0;
	for (uint32_t i = c.path_off[1]; i < c.path_off[2]; i++)
		sum2 += g->ops[c.path_ops[i]].time_us;
	CHECK(sum2 <= sum);
	CHECK(c.path_off[2] > c.path_off[1]);
	free(cp);
	dpi_pd_ctx_free(&c);
	test_free(g, &m, NULL);
}

/* ---- mapping ---- */

static void test_pardnn_mapping_places_every_op_and_keeps_groups(void)
{
	rand_opts ro = {500, 9, 3, true, true};
	dp_graph *g = random_dag(&ro);
	REQUIRE(g != NULL);
	dp_machine m;
	machine_with(&m, 3, DP_CAP_UNLIMITED);
	pd_ctx c;
	dp_algo_opts o;
	dp_algo_opts_default(&o);
	REQUIRE(dpi_pd_ctx_init(&c, g, &m, &o, NULL, NULL) == DP_OK);
	REQUIRE(dpi_pd_slice(&c) == DP_OK);
	REQUIRE(dpi_pd_map(&c) == DP_OK);
	CHECK(placement_valid(g, &m, c.place));
	/* every device got work: the primaries seed all three */
	int used[3] = {0, 0, 0};
	for (uint32_t u = 0; u < g->nops; u++)
		used[c.place[u]]++;
	CHECK(used[0] > 0 && used[1] > 0 && used[2] > 0);
	dpi_pd_ctx_free(&c);
	test_free(g, &m, NULL);
}

static void check_branches_moved(int k)
{
	dp_graph *g = chain_with_branches();
	REQUIRE(g != NULL);
	dp_machine m;
	machine_with(&m, k, DP_CAP_UNLIMITED);
	REQUIRE(dp_machine_set_link(&m, "pardnn", NULL) == DP_OK);
	int32_t pl[16];
	dp_err err;
	REQUIRE(run_algo("pardnn", g, &m, NULL, pl, &err) == DP_OK);
	REQUIRE(placement_valid(g, &m, pl));
	int32_t cd = pl[dp_graph_find(g, "c0")];
	char nm[32];
	for (int i = 1; i < 10; i++) {
		snprintf(nm, sizeof nm, "c%d", i);
		CHECK_INT(pl[dp_graph_find(g, nm)], cd);
	}
	for (int b = 0; b < 3; b++)
		for (int j = 0; j < 2; j++) {
			snprintf(nm, sizeof nm, "b%d_%d", b, j);
			CHECK(pl[dp_graph_find(g, nm)] != cd);
		}
	sim_out so = {0};
	REQUIRE(simulate(g, &m, pl, DP_CONT_PORT, &so) == DP_OK);
	/* the chain alone takes 1000 µs; one device would take 1600 µs */
	CHECK(so.makespan < 1100);
	test_free(g, &m, NULL);
}

static void test_pardnn_critical_path_stays_side_branches_move_k2(void)
{
	check_branches_moved(2);
}

static void test_pardnn_critical_path_stays_side_branches_move_k4(void)
{
	check_branches_moved(4);
}

/* The critical path goes to the fastest device. */
static void test_pardnn_critical_path_on_fastest_device(void)
{
	dp_graph *g = chain_with_branches();
	REQUIRE(g != NULL);
	dp_machine m;
	machine_with(&m, 4, DP_CAP_UNLIMITED);
	REQUIRE(dp_machine_set_link(&m, "pardnn", NULL) == DP_OK);
	REQUIRE(dp_machine_set_speeds(&m, "1,1,3,1", NULL) == DP_OK);
	int32_t pl[16];
	REQUIRE(run_algo("pardnn", g, &m, NULL, pl, NULL) == DP_OK);
	char nm[32];
	for (int i = 0; i < 10; i++) {
		snprintf(nm, sizeof nm, "c%d", i);
		CHECK_INT(pl[dp_graph_find(g, nm)], 2);
	}
	test_free(g, &m, NULL);
}

/* Every op pinned: nothing is free to move, pins are the placement. */
static void test_pardnn_every_op_pinned(void)
{
	rand_opts ro = {120, 6, 3, false, false};
	dp_graph *g = random_dag(&ro);
	REQUIRE(g != NULL);
	for (uint32_t u = 0; u < g->nops; u++)
		g->ops[u].pin = (int32_t)(u % 3);
	dp_machine m;
	machine_with(&m, 3, 1);
	int32_t *pl = malloc(g->nops * sizeof *pl);
	REQUIRE(run_algo("pardnn", g, &m, NULL, pl, NULL) == DP_OK);
	for (uint32_t u = 0; u < g->nops; u++)
		CHECK_INT(pl[u], (int32_t)(u % 3));
	free(pl);
	test_free(g, &m, NULL);
}

/* ---- options, progress, cancellation ---- */

static void test_pardnn_polish_never_hurts(void)
{
	dp_graph *g = training_graph(2000, 5);
	REQUIRE(g != NULL);
	int64_t peak = one_device_peak(g);
	for (int k = 2; k <= 4; k += 2) {
		dp_machine m;
		machine_with(&m, k, peak * 2 / 3);
		dp_algo_opts on, off;
		dp_algo_opts_default(&on);
		dp_algo_opts_default(&off);
		off.polish = false;
		int32_t *a = malloc(g->nops * sizeof *a);
		int32_t *b = malloc(g->nops * sizeof *b);
		REQUIRE(run_algo("pardnn", g, &m, &on, a, NULL) == DP_OK);
		REQUIRE(run_algo("pardnn", g, &m, &off, b, NULL) == DP_OK);
		sim_out sa = {0}, sb = {0};
		REQUIRE(simulate(g, &m, a, DP_CONT_PORT, &sa) == DP_OK);
		REQUIRE(simulate(g, &m, b, DP_CONT_PORT, &sb) == DP_OK);
		CHECK(sa.over <= sb.over);
		if (sa.over == sb.over)
			CHECK(sa.makespan <= sb.makespan);
		free(a);
		free(b);
		dp_machine_free(&m);
	}
	dp_graph_free(g);
}

typedef struct prog_log {
	int calls;
	double last;
	bool monotonic;
	char phases[8][16];
	int nphases;
	atomic_int *cancel_at_mapping;
} prog_log;

static void log_progress(void *ud, const char *phase, double f)
{
	prog_log *l = ud;
	l->calls++;
	if (f < l->last || f < 0 || f > 1)
		l->monotonic = false;
	l->last = f;
	if (l->nphases == 0 || strcmp(l->phases[l->nphases - 1], phase)) {
		if (l->nphases < 8)
			snprintf(l->phases[l->nphases++], 16, "%s", phase);
	}
	if (l->cancel_at_mapping && strcmp(phase, "mapping") == 0)
		atomic_store(l->cancel_at_mapping, 1);
}

static void test_pardnn_reports_phases_in_order(void)
{
	dp_graph *g = training_graph(1500, 3);
	REQUIRE(g != NULL);
	int64_t peak = one_device_peak(g);
	dp_machine m;
	machine_with(&m, 4, peak / 3);
	prog_log l = {0, 0, true, {{0}}, 0, NULL};
	dp_progress p = {log_progress, &l, NULL};
	dp_algo_opts o;
	dp_algo_opts_default(&o);
	int32_t *pl = malloc(g->nops * sizeof *pl);
	REQUIRE(dp_algo_place(dp_algo_find("pardnn"), g, &m, &o, &p, pl,
			      NULL) == DP_OK);
	CHECK(l.monotonic);
	CHECK_NEAR(l.last, 1.0, 1e-12);
	static const char *want[] = {"slicing", "mapping", "refinement",
				     "memory", "polish"};
	int w = 0;
	for (int i = 0; i < l.nphases && w < 5; i++)
		if (strcmp(l.phases[i], want[w]) == 0)
			w++;
	CHECK_INT(w, 5);
	CHECK_STR(l.phases[0], "slicing");
	free(pl);
	test_free(g, &m, NULL);
}

static void test_pardnn_cancel_returns_canceled(void)
{
	dp_graph *g = training_graph(3000, 4);
	REQUIRE(g != NULL);
	dp_machine m;
	machine_with(&m, 4, DP_CAP_UNLIMITED);
	atomic_int cancel = 0;
	prog_log l = {0, 0, true, {{0}}, 0, &cancel};
	dp_progress p = {log_progress, &l, &cancel};
	dp_algo_opts o;
	dp_algo_opts_default(&o);
	int32_t *pl = malloc(g->nops * sizeof *pl);
	dp_err err;
	dp_err_clear(&err);
	CHECK_INT(
		dp_algo_place(dp_algo_find("pardnn"), g, &m, &o, &p, pl, &err),
		DP_ECANCELED);
	CHECK_INT(err.code, DP_ECANCELED);
	/* it stopped in mapping, before the refinement phase */
	for (int i = 0; i < l.nphases; i++)
		CHECK(strcmp(l.phases[i], "refinement") != 0);
	/* a flag raised before the start stops it at once */
	REQUIRE(dp_algo_place(dp_algo_find("pardnn"), g, &m, &o, &p, pl,
			      &err) == DP_ECANCELED);
	free(pl);
	test_free(g, &m, NULL);
}

TEST_MAIN(TEST(test_pardnn_is_the_default_algorithm),
	  TEST(test_pardnn_slicing_covers_every_op_with_chains),
	  TEST(test_pardnn_first_primary_is_the_critical_path),
	  TEST(test_pardnn_mapping_places_every_op_and_keeps_groups),
	  TEST(test_pardnn_critical_path_stays_side_branches_move_k2),
	  TEST(test_pardnn_critical_path_stays_side_branches_move_k4),
	  TEST(test_pardnn_critical_path_on_fastest_device),
	  TEST(test_pardnn_every_op_pinned),
	  TEST(test_pardnn_polish_never_hurts),
	  TEST(test_pardnn_reports_phases_in_order),
	  TEST(test_pardnn_cancel_returns_canceled))

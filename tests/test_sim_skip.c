/* test_sim_skip.c - the simulator's skip options and dp_sim_finish().
 *
 * skip_memory must leave the schedule exactly as a full run makes it
 * (start, end, avail, transfers, makespan, statistics, critical path) on
 * many random graphs, machines and placements; dp_sim_finish() must then add
 * exactly what a full run computes (peaks, feasibility, live tensors,
 * curves); skip_live / skip_curves leave only their list out; a zeroed
 * dp_sim_opts is today's full run.
 */
#include <stdlib.h>
#include <string.h>

#include "dnnpart/graph.h"
#include "dnnpart/machine.h"
#include "dnnpart/sim.h"
#include "lib/fixtures.h"
#include "lib/testlib.h"

static uint64_t rng_state;

static uint32_t rndn(uint32_t n)
{
	return test_randn(&rng_state, n);
}

static bool lists_empty(const dp_sim_result *r, bool live, bool curves)
{
	for (int d = 0; d <= r->k; d++)
		if ((live && r->live_off[d] != 0) ||
		    (curves && r->curve_off[d] != 0))
			return false;
	return true;
}

/* Peaks of a run without memory: params at time 0; feasible only says
 * whether params alone fit. */
static bool skipped_peaks(const dp_sim_result *r, const dp_machine *m)
{
	bool fits = true;
	for (int d = 0; d < r->k; d++) {
		if (r->dev[d].peak_bytes != r->dev[d].param_bytes ||
		    r->dev[d].peak_time != 0)
			return false;
		if (r->dev[d].param_bytes > m->cap[d])
			fits = false;
	}
	return !r->has_memory && r->feasible == fits;
}

static void check_case(const dp_graph *g, const dp_machine *m,
		       const int32_t *pl, dp_contention c, int *checked)
{
	dp_err err = {0};
	dp_sim *s = dp_sim_new(g, m, &err);
	REQUIRE(s);
	dp_sim_result full = {0}, part = {0}, reused = {0};
	dp_sim_opts of = {.contention = c, .detail = true};
	dp_sim_opts os = {
		.contention = c, .detail = false, .skip_memory = true};
	dp_sim_opts op = {.contention = c, .detail = true, .skip_memory = true};
	REQUIRE(dp_sim_run(s, pl, &of, &full, &err) == DP_OK);
	CHECK(full.has_memory);

	/* no memory, no detail: same schedule, params as peaks */
	REQUIRE(dp_sim_run(s, pl, &os, &part, &err) == DP_OK);
	CHECK(test_sim_same_schedule(&full, &part));
	CHECK(skipped_peaks(&part, m));
	CHECK(lists_empty(&part, true, true));
	CHECK(part.cp_len == 0);
	/* dp_sim_finish adds the whole detail: exactly the full run */
	REQUIRE(dp_sim_finish(s, pl, &of, &part, &err) == DP_OK);
	CHECK(test_sim_same_schedule(&full, &part) &&
	      test_sim_same_peaks(&full, &part));
	CHECK(test_sim_same_path(&full, &part) &&
	      test_sim_same_live(&full, &part) &&
	      test_sim_same_curves(&full, &part));

	/* detail without memory: the critical path, nothing of memory */
	REQUIRE(dp_sim_run(s, pl, &op, &part, &err) == DP_OK);
	CHECK(test_sim_same_schedule(&full, &part) &&
	      test_sim_same_path(&full, &part));
	CHECK(skipped_peaks(&part, m) && lists_empty(&part, true, true));
	/* peaks only, then the lists one at a time */
	dp_sim_opts peaks = {.contention = c};
	REQUIRE(dp_sim_finish(s, pl, &peaks, &part, &err) == DP_OK);
	CHECK(test_sim_same_peaks(&full, &part) &&
	      lists_empty(&part, true, true));
	dp_sim_opts live = {
		.contention = c, .detail = true, .skip_curves = true};
	REQUIRE(dp_sim_finish(s, pl, &live, &part, &err) == DP_OK);
	CHECK(test_sim_same_live(&full, &part) &&
	      lists_empty(&part, false, true));
	REQUIRE(dp_sim_finish(s, pl, &of, &part, &err) == DP_OK);
	CHECK(test_sim_same_live(&full, &part) &&
	      test_sim_same_curves(&full, &part));
	CHECK(test_sim_same_peaks(&full, &part) &&
	      test_sim_same_path(&full, &part));

	/* skip_live, skip_curves in one run */
	dp_sim_opts nolive = {
		.contention = c, .detail = true, .skip_live = true};
	REQUIRE(dp_sim_run(s, pl, &nolive, &reused, &err) == DP_OK);
	CHECK(test_sim_same_peaks(&full, &reused) &&
	      test_sim_same_path(&full, &reused));
	CHECK(test_sim_same_curves(&full, &reused) &&
	      lists_empty(&reused, true, false));

	/* a result of an earlier run cannot be finished */
	CHECK(dp_sim_finish(s, pl, &of, &part, &err) == DP_EINTERNAL);
	CHECK(err.code == DP_EINTERNAL);
	err = (dp_err){0};
	(*checked)++;
	dp_sim_result_free(&full);
	dp_sim_result_free(&part);
	dp_sim_result_free(&reused);
	dp_sim_free(s);
}

static void test_sim_skip_memory_same_schedule_on_random_graphs(void)
{
	rng_state = 20261121;
	int checked = 0;
	for (int i = 0; i < 120 && !test_failed(); i++) {
		uint32_t n = 1 + rndn(i < 100 ? 60 : 600);
		dp_graph *g = test_random_dag(&rng_state, n, "skip");
		REQUIRE(g);
		test_machine tm;
		test_random_machine(&tm, 1 + (int)rndn(8), &rng_state);
		int32_t *pl = malloc(n * sizeof *pl);
		/* random, staged (runs of ops on one device) and all on one */
		int kind = i % 3;
		for (uint32_t u = 0; u < n; u++)
			pl[u] = kind == 0   ? (int32_t)rndn((uint32_t)tm.m.k)
				: kind == 1 ? (int32_t)((g->topo_pos[u] *
							 (uint32_t)tm.m.k) /
							n)
					    : 0;
		check_case(g, &tm.m, pl, i & 1 ? DP_CONT_NONE : DP_CONT_PORT,
			   &checked);
		free(pl);
		dp_graph_free(g);
	}
	CHECK_INT(checked, 120);
}

static void test_sim_zeroed_opts_compute_memory(void)
{
	rng_state = 7;
	dp_graph *g = test_random_dag(&rng_state, 40, "skip");
	REQUIRE(g);
	test_machine tm;
	test_random_machine(&tm, 3, &rng_state);
	int32_t pl[40];
	for (int u = 0; u < 40; u++)
		pl[u] = u % 3;
	dp_err err = {0};
	dp_sim *s = dp_sim_new(g, &tm.m, &err);
	REQUIRE(s);
	dp_sim_opts zero;
	memset(&zero, 0, sizeof zero);
	dp_sim_result a = {0}, b = {0};
	REQUIRE(dp_sim_run(s, pl, &zero, &a, &err) == DP_OK);
	REQUIRE(dp_sim_run(s, pl, NULL, &b, &err) == DP_OK);
	CHECK(a.has_memory && b.has_memory);
	CHECK(test_sim_same_schedule(&a, &b) && test_sim_same_peaks(&a, &b));
	int64_t most = 0;
	for (int d = 0; d < 3; d++)
		if (a.dev[d].peak_bytes - a.dev[d].param_bytes > most)
			most = a.dev[d].peak_bytes - a.dev[d].param_bytes;
	CHECK(most > 0); /* tensors counted, not only params */
	dp_sim_result_free(&a);
	dp_sim_result_free(&b);
	dp_sim_free(s);
	dp_graph_free(g);
}

TEST_MAIN(TEST(test_sim_skip_memory_same_schedule_on_random_graphs),
	  TEST(test_sim_zeroed_opts_compute_memory))

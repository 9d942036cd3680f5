/* test_best_all.c - best of everything (plan/best_all.c): dp_plan_run with
 * best keeps the fastest plan that fits among its placement search and
 * every strategy, each run here on its own to check it; --algos (the
 * candidates) restricts it; its row in a comparison, which reuses the rows
 * before it, is the same plan; the anytime hook sees strategies.
 */
#include <string.h>

#include "dnnpart/plan.h"
#include "dnnpart/strategy.h"
#include "lib/fixtures.h"
#include "lib/testlib.h"

/* pipe4 (roles, layers): a pipeline beats every placement at K=2 */
static dp_graph *pipe4(void)
{
	return test_load_ok("tests/cli/data/pipe4.json");
}

static void test_best_all_keeps_the_fastest_that_fits(void)
{
	dp_graph *g = pipe4();
	REQUIRE(g);
	dp_machine m;
	REQUIRE(test_machine_make(&m, 2, "60MiB", NULL));
	dp_plan b;
	dp_err err;
	REQUIRE(dp_plan_run(g, &m, dp_algo_find("best"), NULL, NULL, &b,
			    &err) == DP_OK);
	CHECK_STR(b.algo, "best");
	CHECK(b.origin.has_origin);
	/* no candidate it runs fits and is faster */
	size_t n;
	const dp_algo *const *all = dp_algo_compared(&n);
	bool winner_seen = false;
	for (size_t i = 0; i < n; i++) {
		dp_plan a;
		dp_status st =
			all[i] == dp_algo_find("best")
				? test_best_placements(g, &m, NULL, &a, &err)
				: all[i]->strategize
				? dp_plan_run(g, &m, all[i], NULL, NULL, &a, &err)
				: DP_EINPUT;
		if (st)
			continue;
		if (a.feasible && b.feasible)
			CHECK(b.sim.makespan <= a.sim.makespan);
		if (a.feasible)
			CHECK(b.feasible);
		winner_seen |= a.sim.makespan == b.sim.makespan &&
			       a.feasible == b.feasible;
		dp_plan_free(&a);
	}
	CHECK(winner_seen);
	dp_plan_free(&b);
	dp_machine_free(&m);
	dp_graph_free(g);
}

static void test_best_all_candidates_restrict_it(void)
{
	dp_graph *g = pipe4();
	REQUIRE(g);
	dp_machine m;
	REQUIRE(test_machine_make(&m, 2, NULL, NULL));
	const dp_algo *only[] = {dp_algo_find("metis")};
	dp_algo_opts o;
	dp_algo_opts_default(&o);
	o.candidates = only;
	o.ncandidates = 1;
	dp_plan b, a;
	dp_err err;
	REQUIRE(dp_plan_run(g, &m, dp_algo_find("best"), &o, NULL, &b, &err) ==
		DP_OK);
	REQUIRE(dp_plan_run(g, &m, only[0], NULL, NULL, &a, &err) == DP_OK);
	CHECK(b.sim.makespan == a.sim.makespan);
	CHECK_STR(b.origin.best_of, "metis");
	CHECK(!b.strat);
	dp_plan_free(&a);
	dp_plan_free(&b);
	dp_machine_free(&m);
	dp_graph_free(g);
}

static void keep_last(void *ud, size_t i, dp_run_result *r)
{
	dp_plan *last = ud;
	(void)i;
	CHECK_INT(r->status, DP_OK);
	dp_plan_free(last);
	*last = r->plan;
	memset(&r->plan, 0, sizeof r->plan);
}

/* Its row after others in a comparison reuses them: the same plan as a
 * run of its own. */
static void test_best_all_row_reuses_the_rows_before(void)
{
	dp_graph *g = pipe4();
	REQUIRE(g);
	dp_machine m;
	REQUIRE(test_machine_make(&m, 2, NULL, NULL));
	const dp_algo *list[] = {dp_algo_find("dp"), dp_algo_find("gpipe"),
				 dp_algo_find("best")};
	dp_plan last, alone;
	memset(&last, 0, sizeof last);
	dp_run_hooks h = {NULL, keep_last, &last};
	dp_err err;
	REQUIRE(dp_plan_run_all(g, &m, list, 3, NULL, NULL, &h) == DP_OK);
	REQUIRE(dp_plan_run(g, &m, list[2], NULL, NULL, &alone, &err) ==
		DP_OK);
	CHECK(last.sim.makespan == alone.sim.makespan);
	CHECK_STR(last.strategy, alone.strategy);
	dp_plan_free(&last);
	dp_plan_free(&alone);
	dp_machine_free(&m);
	dp_graph_free(g);
}

static void count_strategy(void *ud, const dp_strategy *s,
			   const dp_algo_origin *from)
{
	int *n = ud;
	CHECK(s->nops > 0);
	CHECK(from->has_origin);
	(*n)++;
}

/* The anytime hook sees the strategies that beat every plan before. */
static void test_best_all_passes_strategies_as_they_come(void)
{
	dp_graph *g = pipe4();
	REQUIRE(g);
	int n = 0;
	dp_algo_opts o;
	dp_algo_opts_default(&o);
	o.interim_strategy = count_strategy; /* placements: not counted */
	o.interim_ud = &n;
	dp_machine m;
	REQUIRE(test_machine_make(&m, 2, NULL, NULL));
	dp_plan b;
	dp_err err;
	REQUIRE(dp_plan_run(g, &m, dp_algo_find("best"), &o, NULL, &b, &err) ==
		DP_OK);
	CHECK(n >= 1); /* dp first, and the pipeline that wins */
	CHECK(b.strat != NULL);
	dp_plan_free(&b);
	dp_machine_free(&m);
	dp_graph_free(g);
}

TEST_MAIN(TEST(test_best_all_keeps_the_fastest_that_fits),
	  TEST(test_best_all_candidates_restrict_it),
	  TEST(test_best_all_row_reuses_the_rows_before),
	  TEST(test_best_all_passes_strategies_as_they_come))

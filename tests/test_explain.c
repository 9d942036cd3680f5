/* test_explain.c - why a plan takes what it takes (explain.h): the shares
 * of the critical path add up to the makespan, the tensors listed at a
 * device's peak are live there and add up to at most the peak (the roles
 * to exactly the peak), and every change is a real rerun whose numbers a
 * plan of its own reproduces.
 */
#include <math.h>
#include <string.h>

#include "dnnpart/explain.h"
#include "dnnpart/plan.h"
#include "lib/fixtures.h"
#include "lib/testlib.h"

/* pardnn on a 200-op graph over 3 devices whose caps are too small */
static void plan_tight(dp_graph **g, dp_machine *m, dp_plan *plan,
		       const char *caps)
{
	dp_err err;
	*g = test_algo_graph(200, 7, "explain");
	REQUIRE(*g);
	REQUIRE(test_machine_make(m, 3, caps, NULL));
	REQUIRE(dp_plan_run(*g, m, dp_algo_find("pardnn"), NULL, NULL, plan,
			    &err) == DP_OK);
}

static void test_explain_shares_add_up_to_the_makespan(void)
{
	dp_graph *g;
	dp_machine m;
	dp_plan plan;
	dp_err err;
	plan_tight(&g, &m, &plan, NULL);
	dp_explain x;
	REQUIRE(dp_explain_plan(g, &m, NULL, NULL, &plan, NULL, NULL, &x,
				&err) == DP_OK);
	double sum = x.share[DP_XB_COMPUTE].us + x.share[DP_XB_COMM].us +
		     x.share[DP_XB_DEVICE].us;
	CHECK(fabs(sum - plan.sim.makespan) <= 1e-6 * plan.sim.makespan);
	CHECK(x.share[DP_XB_BUBBLE].us < 0); /* no pipeline */
	CHECK(x.share[DP_XB_MEMORY].us < 0); /* no changes ran */
	/* the busiest device's work */
	double most = 0;
	for (int d = 0; d < plan.k; d++)
		most = plan.sim.dev[d].busy_us > most ? plan.sim.dev[d].busy_us
						      : most;
	CHECK(x.share[DP_XB_WORK].us == most);
	CHECK(x.nchanges == 0);
	dp_explain_free(&x);
	test_free(g, &m, &plan);
}

static void test_explain_peak_holders_are_live_and_within_the_peak(void)
{
	dp_graph *g;
	dp_machine m;
	dp_plan plan;
	dp_err err;
	plan_tight(&g, &m, &plan, "20000B");
	dp_explain_opts eo = {.top = 3};
	dp_explain x;
	REQUIRE(dp_explain_plan(g, &m, NULL, NULL, &plan, &eo, NULL, &x,
				&err) == DP_OK);
	CHECK_INT(x.k, 3);
	for (int d = 0; d < x.k; d++) {
		const dp_explain_device *e = &x.dev[d];
		CHECK(e->peak_bytes == plan.sim.dev[d].peak_bytes);
		int64_t roles = 0, top = 0;
		for (int r = 0; r < DP_MEMR_COUNT; r++)
			roles += e->by_role[r];
		CHECK(roles == e->peak_bytes);
		CHECK(e->ntop <= 3);
		for (int i = 0; i < e->ntop; i++) {
			top += e->top[i].bytes;
			if (i)
				CHECK(e->top[i].bytes <= e->top[i - 1].bytes);
			/* it is one of the device's live tensors */
			bool found = false;
			const dp_sim_result *r = &plan.sim;
			for (uint32_t j = r->live_off[d];
			     j < r->live_off[d + 1] && !found; j++)
				found = r->live[j].op == e->top[i].op &&
					r->live[j].bytes == e->top[i].bytes;
			CHECK(found);
		}
		CHECK(top == e->top_bytes);
		CHECK(e->top_bytes <= e->peak_bytes);
	}
	dp_explain_free(&x);
	test_free(g, &m, &plan);
}

/* Each change is a rerun: the same run made by hand gives its numbers. */
static void test_explain_changes_are_reruns(void)
{
	dp_graph *g;
	dp_machine m;
	dp_plan plan;
	dp_err err;
	plan_tight(&g, &m, &plan, "20000B");
	CHECK(!plan.feasible);
	static const char *const algos[] = {"dp", "metis"};
	dp_explain_opts eo = {.changes = true, .algos = algos, .nalgos = 2};
	dp_explain x;
	REQUIRE(dp_explain_plan(g, &m, NULL, NULL, &plan, &eo, NULL, &x,
				&err) == DP_OK);
	/* K+1, caps raised, caps lifted, dp, metis */
	CHECK_INT(x.nchanges, 5);
	bool seen_k = false, seen_lift = false;
	for (int i = 0; i < x.nchanges; i++) {
		const dp_explain_change *c = &x.changes[i];
		if (i && c->helps)
			CHECK(x.changes[i - 1].helps);
		if (c->status)
			continue;
		CHECK(c->helps == c->feasible); /* the plan does not fit */
		if (c->kind == DP_XC_DEVICE) {
			seen_k = true;
			dp_machine m4;
			dp_plan q;
			REQUIRE(dp_machine_copy(&m4, &m, &err) == DP_OK);
			REQUIRE(dp_machine_resize(&m4, 4, &err) == DP_OK);
			REQUIRE(dp_plan_run(g, &m4, dp_algo_find("pardnn"),
					    NULL, NULL, &q, &err) == DP_OK);
			CHECK(q.sim.makespan == c->makespan);
			CHECK(q.feasible == c->feasible);
			CHECK_STR(c->what, "K=4 (one more device)");
			dp_plan_free(&q);
			dp_machine_free(&m4);
		}
		if (c->kind == DP_XC_CAP && !strcmp(c->what, "no caps")) {
			seen_lift = true;
			CHECK(c->feasible);
			double cost = plan.sim.makespan - c->makespan;
			CHECK(x.share[DP_XB_MEMORY].us == (cost > 0 ? cost : 0));
		}
	}
	CHECK(seen_k);
	CHECK(seen_lift);
	dp_explain_free(&x);
	test_free(g, &m, &plan);
}

TEST_MAIN(TEST(test_explain_shares_add_up_to_the_makespan),
	  TEST(test_explain_peak_holders_are_live_and_within_the_peak),
	  TEST(test_explain_changes_are_reruns))

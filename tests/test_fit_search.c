/* test_fit_search.c - fit's lever search (dp_fit_search_run): the answer
 * is the fastest run that fits at its K and a rerun of it fits; every
 * estimate is no more than the run's makespan; what the bound left out
 * could not have been faster; "made fit by" rests on runs that did not fit;
 * --levers restricts the sets; a graph without levers stops at once. */
#include <string.h>

#include "dnnpart/fit.h"
#include "dnnpart/levers.h"
#include "dnnpart/plan.h"
#include "lib/fixtures.h"
#include "lib/testlib.h"

#define TINY "tests/data/levers_tiny.json"

static bool search(const dp_graph *g, int64_t cap, const char *levers,
		   dp_fit_search *s)
{
	dp_machine m;
	if (dp_machine_init(&m, 1, NULL)) {
		CHECK(!"dp_machine_init");
		return false;
	}
	m.cap[0] = cap;
	dp_fit_search_opts so = {.levers = levers,
				 .max_k = 4,
				 .stop_without_levers = true};
	dp_err err;
	dp_status st = dp_fit_search_run(g, &m, NULL, &so, NULL, s, &err);
	dp_machine_free(&m);
	if (st)
		FAIL_ERR("dp_fit_search_run", &err);
	return st == DP_OK;
}

/* Reruns candidate c on g: whether it fits under cap. */
static bool rerun_fits(const dp_graph *g, const dp_fit_cand *c, int64_t cap)
{
	dp_levers lv;
	dp_err err;
	dp_graph *t = NULL;
	dp_machine m;
	if (dp_levers_parse_set(c->levers, &lv, &err) ||
	    (dp_levers_active(&lv) && dp_levers_apply(g, &lv, &t, &err)) ||
	    dp_machine_init(&m, c->k, NULL)) {
		FAIL_ERR("the rerun's graph or machine", &err);
		dp_graph_free(t);
		return false;
	}
	for (int d = 0; d < c->k; d++)
		m.cap[d] = cap;
	dp_algo_opts ao;
	dp_algo_opts_default(&ao);
	ao.zero_stage = c->zero_stage;
	dp_plan plan;
	bool ok = false;
	if (!dp_plan_run(t ? t : g, &m, c->algo, &ao, NULL, &plan, &err)) {
		ok = plan.feasible;
		CHECK_NEAR(plan.sim.makespan, c->run.makespan, 1e-6);
		dp_plan_free(&plan);
	}
	dp_machine_free(&m);
	dp_graph_free(t);
	return ok;
}

static void test_search_answer_is_the_fastest_fit(void)
{
	dp_graph *g = test_load_ok(TINY);
	REQUIRE(g);
	dp_fit_search s;
	const int64_t cap = 5 * 1024;
	REQUIRE(search(g, cap, NULL, &s));
	CHECK_INT(s.nsets, 12);
	REQUIRE(s.best >= 0);
	const dp_fit_cand *b = &s.cands[s.best];
	CHECK(s.r.found);
	CHECK_INT(s.r.k, b->k);
	CHECK(b->run.feasible);
	CHECK(rerun_fits(g, b, cap));
	size_t run = 0, bounded = 0;
	for (size_t i = 0; i < s.ncands; i++) {
		const dp_fit_cand *c = &s.cands[i];
		if (c->skip == DP_FIT_RAN) {
			run++;
			/* the estimate is a lower bound of the step */
			CHECK(c->run.makespan >= c->bound * (1 - 1e-9));
			if (c->k == b->k && c->run.feasible)
				CHECK(c->run.makespan >= b->run.makespan);
		} else if (c->skip == DP_FIT_SKIP_BOUND && c->k == b->k) {
			bounded++;
			CHECK(c->bound >= b->run.makespan);
		}
	}
	CHECK_INT(run, s.runs);
	CHECK(bounded > 0);		/* the bound did prune */
	CHECK(run < s.ncands);		/* not every combination ran */
	/* made fit by: each lever named, taken out, gave a run that did not
	 * fit with the same strategy at that K */
	CHECK(b->made_fit[0]);
	char *save = NULL, buf[48];
	snprintf(buf, sizeof buf, "%s", b->made_fit);
	for (char *t = strtok_r(buf, "+", &save); t;
	     t = strtok_r(NULL, "+", &save)) {
		CHECK(strstr(b->levers, t) != NULL);
		bool seen = false;
		for (size_t i = 0; i < s.ncands; i++) {
			const dp_fit_cand *c = &s.cands[i];
			seen |= c->k == b->k && c->algo == b->algo &&
				c->zero_stage == b->zero_stage &&
				c->skip == DP_FIT_RAN && !c->run.feasible &&
				!strstr(c->levers, t);
		}
		CHECK(seen);
	}
	dp_fit_search_free(&s);
	dp_graph_free(g);
}

static void test_search_levers_restrict(void)
{
	dp_graph *g = test_load_ok(TINY);
	REQUIRE(g);
	dp_fit_search s;
	REQUIRE(search(g, 5 * 1024, "none,bf16", &s));
	CHECK_INT(s.nsets, 2);
	for (size_t i = 0; i < s.ncands; i++)
		CHECK(!strcmp(s.cands[i].levers, "none") ||
		      !strcmp(s.cands[i].levers, "bf16"));
	dp_fit_search_free(&s);
	/* two levers the graph takes: both searched, nothing refused */
	REQUIRE(search(g, 5 * 1024, "none,bf16+attention", &s));
	CHECK_INT(s.nsets, 2);
	CHECK_INT(s.nrefused, 0);
	dp_fit_search_free(&s);
	dp_graph_free(g);
}

static void test_search_without_levers_stops(void)
{
	dp_graph *g = test_blocks(3); /* no roles: no lever applies */
	REQUIRE(g);
	dp_fit_search s;
	REQUIRE(search(g, 64 << 20, NULL, &s));
	CHECK_INT(s.nsets, 1);
	CHECK_INT(s.r.nprobes, 0);
	CHECK(s.nrefused > 0);
	CHECK(s.refused[0]);
	dp_fit_search_free(&s);
	dp_graph_free(g);
}

static void test_search_rejects_bad_sets(void)
{
	dp_graph *g = test_load_ok(TINY);
	REQUIRE(g);
	dp_machine m;
	REQUIRE(dp_machine_init(&m, 1, NULL) == DP_OK);
	dp_fit_search_opts so = {.levers = "bf16+fp8"};
	dp_fit_search s;
	dp_err err;
	CHECK_INT(dp_fit_search_run(g, &m, NULL, &so, NULL, &s, &err),
		  DP_EINPUT);
	CHECK(strstr(err.msg, "fp8") != NULL);
	dp_machine_free(&m);
	dp_graph_free(g);
}

TEST_MAIN(TEST(test_search_answer_is_the_fastest_fit),
	  TEST(test_search_levers_restrict),
	  TEST(test_search_without_levers_stops),
	  TEST(test_search_rejects_bad_sets))

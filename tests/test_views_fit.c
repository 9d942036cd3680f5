/* test_views_fit.c - the Fit view (f on a graph that takes levers): the
 * lever search's table drawn as `dnnpart fit` lists it, Enter asks the
 * front end to adopt the row, and the state keeps the lever-free graph
 * next to the one it plans on (state_relever). */
#include <stdlib.h>
#include <string.h>

#include "actions.h"
#include "dnnpart/levers.h"
#include "keys.h"
#include "lib/fixtures.h"
#include "lib/testlib.h"
#include "screen.h"
#include "state.h"
#include "test_views_keys.h"
#include "view.h"

#define TINY "tests/data/levers_tiny.json"

/* The state on TINY with one device of 5 KiB and the search done. */
static bool fit_state(vstate *st)
{
	dp_graph *g = test_load_ok(TINY);
	dp_machine m;
	if (!g || dp_machine_init(&m, 1, NULL) != DP_OK) {
		dp_graph_free(g);
		return false;
	}
	m.cap[0] = 5 << 10;
	dp_status s = state_init(st, g, &m, dp_algo_find("pardnn"),
				 DP_CONT_PORT, NULL);
	dp_machine_free(&m);
	if (s != DP_OK) {
		dp_graph_free(g);
		return false;
	}
	dp_fit_search_opts so = {.stop_without_levers = true};
	dp_fit_search f;
	dp_err err;
	if (dp_fit_search_run(st->g, &st->m, NULL, &so, NULL, &f, &err)) {
		FAIL_ERR("dp_fit_search_run", &err);
		state_free(st);
		return false;
	}
	state_fit_search_done(st, st->gen, &f);
	CHECK(f.cands == NULL); /* taken over */
	return true;
}

static void test_the_table_is_fits_and_enter_adopts(void)
{
	vstate st;
	REQUIRE(fit_state(&st));
	CHECK_INT(st.view, VIEW_FIT);
	const dp_fit_search *f = &st.fit_search;
	REQUIRE(f->best >= 0);
	/* the answer is listed first, and every row run fits before any
	 * that is over */
	CHECK_INT((int)st.fit_rows[0], f->best);
	bool over = false;
	for (int i = 0; i < st.fit_nrows; i++) {
		const dp_fit_cand *c = &f->cands[st.fit_rows[i]];
		CHECK_INT(c->k, f->cands[f->best].k);
		if (c->skip == DP_FIT_RAN && !c->run.feasible)
			over = true;
		else if (c->skip == DP_FIT_RAN)
			CHECK(!over);
	}
	vgrid g;
	REQUIRE(grid_init(&g, 120, 40) == 0);
	REQUIRE(state_prepare(&st) == DP_OK);
	screen_draw(&st, &g);
	char *t = grid_to_text(&g, false);
	char want[96];
	snprintf(want, sizeof want, "candidates at K=%d",
		 f->cands[f->best].k);
	CHECK(t && strstr(t, want));
	snprintf(want, sizeof want, "* dp        %s", f->cands[f->best].levers);
	CHECK(t && strstr(t, want));
	CHECK(t && strstr(t, "made fit by"));
	CHECK(t && strstr(t, "over by"));
	free(t);
	/* Enter on the cursor's row: the front end adopts it */
	CHECK(press(&st, VK_ENTER) & AR_FIT_ADOPT);
	/* r searches again; Esc goes back to where it was opened */
	CHECK(press(&st, 'r') & AR_FIT);
	press(&st, VK_ESC);
	CHECK_INT(st.view, VIEW_DEVICES);
	grid_free(&g);
	state_free(&st);
}

static void test_relever_keeps_the_lever_free_graph(void)
{
	vstate st;
	REQUIRE(fit_state(&st));
	dp_graph *plain = st.g;
	uint32_t nops = plain->nops;
	dp_levers lv;
	dp_err err;
	REQUIRE(dp_levers_parse_set("bf16+full", &lv, &err) == DP_OK);
	dp_graph *lg = NULL;
	REQUIRE(dp_levers_apply(plain, &lv, &lg, &err) == DP_OK);
	REQUIRE(state_relever(&st, lg, &err) == DP_OK);
	CHECK(st.g == lg && st.plain == plain);
	CHECK(st.g->nops > nops); /* the re-run ops */
	CHECK(!strcmp(dp_graph_levers(st.g), "bf16+full"));
	CHECK(st.plan == NULL);
	/* the table stays (it was searched on the lever-free graph) */
	CHECK(st.fit_levers && st.fit_nrows > 0);
	/* other levers replace them, never on top */
	REQUIRE(dp_levers_parse_set("selective", &lv, &err) == DP_OK);
	REQUIRE(dp_levers_apply(st.plain, &lv, &lg, &err) == DP_OK);
	REQUIRE(state_relever(&st, lg, &err) == DP_OK);
	CHECK(!strcmp(dp_graph_levers(st.g), "selective"));
	CHECK(st.plain == plain);
	/* none: the lever-free graph again */
	REQUIRE(state_relever(&st, NULL, &err) == DP_OK);
	CHECK(st.g == plain && st.plain == NULL);
	CHECK_INT(st.g->nops, nops);
	state_free(&st);
}

TEST_MAIN(TEST(test_the_table_is_fits_and_enter_adopts),
	  TEST(test_relever_keeps_the_lever_free_graph))

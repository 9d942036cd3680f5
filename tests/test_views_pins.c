/* test_views_pins.c - pins (p, P, y, Y) and the Diff view (d): pinning an
 * op moves its colocation group and the replan honours it, a layer is
 * pinned and freed, and d shows what the last rerun changed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "actions.h"
#include "keys.h"
#include "lib/testlib.h"
#include "pins.h"
#include "screen.h"
#include "state.h"
#include "test_views_keys.h"
#include "view.h"

/* Eight ops in a chain, two per layer L0..L3; l1a and l3b share the
 * colocation group "g". */
static dp_graph *pin_graph(void)
{
	static const char *const names[8] = {"l0a", "l0b", "l1a", "l1b",
					     "l2a", "l2b", "l3a", "l3b"};
	dp_graph *g = dp_graph_new("pins");
	dp_err err;
	uint32_t id, prev = 0;
	for (int i = 0; i < 8 && g; i++) {
		char layer[16];
		snprintf(layer, sizeof layer, "L%d", i / 2);
		if (dp_graph_add_op(g, names[i], &id, &err) != DP_OK ||
		    dp_graph_set_layer(g, id, layer, &err) != DP_OK)
			return NULL;
		g->ops[id].time_us = 100 + 10 * i;
		g->ops[id].output_bytes = 1 << 20;
		if (i &&
		    dp_graph_add_edge(g, prev, id, -1, false, &err) != DP_OK)
			return NULL;
		prev = id;
	}
	if (dp_graph_set_colocate(g, 2, "g", &err) != DP_OK ||
	    dp_graph_set_colocate(g, 7, "g", &err) != DP_OK ||
	    dp_graph_finalize(g, &err) != DP_OK) {
		dp_graph_free(g);
		return NULL;
	}
	return g;
}

/* Runs the session's algorithm on its settings as the worker would, after
 * the front end's AR_REPIN (state_apply_pins), and installs the plan. */
static bool replan(vstate *st)
{
	state_apply_pins(st);
	dp_algo_opts o;
	state_algo_opts(st, &o);
	dp_plan p;
	dp_err err;
	if (dp_plan_run(st->g, &st->m, st->algo, &o, NULL, &p, &err) != DP_OK) {
		test_fail(__FILE__, __LINE__, "%s: %s", st->algo->name,
			  err.msg);
		return false;
	}
	state_set_plan(st, &p, st->gen);
	return state_prepare(st) == DP_OK;
}

static bool pin_state(vstate *st, const char *algo)
{
	dp_graph *g = pin_graph();
	dp_machine m;
	if (!g || dp_machine_init(&m, 3, NULL) != DP_OK) {
		dp_graph_free(g);
		return false;
	}
	dp_status s =
		state_init(st, g, &m, dp_algo_find(algo), DP_CONT_PORT, NULL);
	dp_machine_free(&m);
	if (s != DP_OK) {
		dp_graph_free(g);
		return false;
	}
	return replan(st);
}

/* Puts the Ops cursor on op name (sorted by name). */
static void ops_cursor_on(vstate *st, const char *name)
{
	st->view = VIEW_OPS;
	st->sort = SORT_NAME;
	st->sort_desc = false;
	st->filter[0] = '\0';
	st->ops_dirty = true;
	state_prepare(st);
	uint32_t u = dp_graph_find(st->g, name);
	for (uint32_t i = 0; i < st->ops_n; i++)
		if (st->ops_idx[i] == u)
			st->ops_cursor = i;
}

static void test_pin_an_op_moves_its_group_and_the_replan_honours_it(void)
{
	vstate st;
	REQUIRE(pin_state(&st, "pardnn"));
	uint32_t a = dp_graph_find(st.g, "l1a"), b = dp_graph_find(st.g, "l3b");
	CHECK_INT(st.npins, 0);
	CHECK(st.prev == NULL); /* one plan so far */
	ops_cursor_on(&st, "l1a");
	CHECK_INT(pins_selected_op(&st), a);
	/* a device other than the one it runs on */
	int d = (st.plan->placement[a] + 1) % 3;
	CHECK(!(press(&st, 'p') & AR_RERUN));
	CHECK_INT(st.prompt, PROMPT_PIN);
	char txt[16];
	snprintf(txt, sizeof txt, "%d", d);
	type(&st, txt);
	unsigned r = press(&st, VK_ENTER);
	CHECK(r & AR_REPIN);
	CHECK(r & AR_RERUN);
	CHECK_INT(st.pins[a], d);
	CHECK_INT(st.pins[b], d); /* its colocation group moves with it */
	CHECK_INT(st.npins, 2);
	CHECK(st.pins_dirty);
	CHECK_INT(st.g->ops[a].pin, -1); /* not before the front end's turn */
	REQUIRE(replan(&st));
	CHECK(!st.pins_dirty);
	CHECK_INT(st.g->ops[a].pin, d);
	CHECK_INT(st.plan->placement[a], d);
	CHECK_INT(st.plan->placement[b], d);
	/* the diff: a moved to d */
	REQUIRE(st.prev);
	CHECK(st.moved_n >= 1);
	bool seen = false;
	for (uint32_t i = 0; i < st.moved_n; i++)
		if (st.moved[i] == a) {
			seen = true;
			CHECK_INT(st.agg_dev[a], d);
			CHECK(st.prev_dev[a] != d);
		}
	CHECK(seen);
	/* the header and the Ops view say so */
	vgrid g;
	REQUIRE(grid_init(&g, 100, 30) == 0);
	screen_draw(&st, &g);
	char *t = grid_to_text(&g, false);
	CHECK(t && strstr(t, "2 pins"));
	CHECK(t && strstr(t, "2 pinned (@)"));
	free(t);
	grid_free(&g);
	/* a device beyond K: an error, nothing changes */
	press(&st, 'p');
	type(&st, "7");
	r = press(&st, VK_ENTER);
	CHECK(!(r & (AR_RERUN | AR_REPIN)));
	CHECK(st.status_error);
	CHECK(strstr(st.status, "no device of K=3") != NULL);
	CHECK_INT(st.pins[a], d);
	/* the same pin again: nothing to rerun */
	press(&st, 'p');
	type(&st, txt);
	CHECK(!(press(&st, VK_ENTER) & AR_RERUN));
	CHECK(strstr(st.status, "already pinned") != NULL);
	/* '-' frees the op and its group */
	press(&st, 'p');
	type(&st, "-");
	CHECK(press(&st, VK_ENTER) & AR_REPIN);
	CHECK_INT(st.pins[a], -1);
	CHECK_INT(st.pins[b], -1);
	CHECK_INT(st.npins, 0);
	state_free(&st);
}

static void test_pin_a_layer_free_one_and_all(void)
{
	vstate st;
	REQUIRE(pin_state(&st, "heft"));
	ops_cursor_on(&st, "l0b");
	st.dev = 1;
	press(&st, 'P');
	CHECK_INT(st.prompt, PROMPT_LAYER);
	CHECK(strstr(st.plabel, "L0 (2 ops)") != NULL);
	/* Enter alone: the selected device */
	CHECK(press(&st, VK_ENTER) & AR_REPIN);
	CHECK_INT(st.pins[dp_graph_find(st.g, "l0a")], 1);
	CHECK_INT(st.pins[dp_graph_find(st.g, "l0b")], 1);
	CHECK_INT(st.npins, 2);
	REQUIRE(replan(&st));
	CHECK_INT(st.plan->placement[dp_graph_find(st.g, "l0a")], 1);
	CHECK_INT(st.plan->placement[dp_graph_find(st.g, "l0b")], 1);
	/* the layer of a grouped op pins the group too: L1 and l3b */
	ops_cursor_on(&st, "l1b");
	press(&st, 'P');
	type(&st, "GPU2");
	CHECK(press(&st, VK_ENTER) & AR_REPIN);
	CHECK_INT(st.pins[dp_graph_find(st.g, "l3b")], 2);
	CHECK_INT(st.npins, 5);
	/* y frees the op under the cursor */
	ops_cursor_on(&st, "l0a");
	CHECK(press(&st, 'y') & AR_REPIN);
	CHECK_INT(st.pins[dp_graph_find(st.g, "l0a")], -1);
	CHECK_INT(st.npins, 4);
	CHECK(!(press(&st, 'y') & AR_RERUN)); /* not pinned any more */
	/* from Op detail: the op it shows */
	st.op = dp_graph_find(st.g, "l2a");
	view_show(&st, VIEW_OP);
	CHECK_INT(pins_selected_op(&st), dp_graph_find(st.g, "l2a"));
	st.dev = 0;
	press(&st, 'p');
	CHECK(press(&st, VK_ENTER) & AR_REPIN);
	CHECK_INT(st.pins[dp_graph_find(st.g, "l2a")], 0);
	/* Y frees every op */
	CHECK(press(&st, 'Y') & AR_REPIN);
	CHECK_INT(st.npins, 0);
	CHECK(!(press(&st, 'Y') & AR_RERUN));
	/* other views have no op under a cursor */
	st.view = VIEW_DEVICES;
	CHECK(!(press(&st, 'p') & AR_RERUN));
	CHECK_INT(st.prompt, PROMPT_NONE);
	CHECK(st.status_error);
	/* an export reads the pins: refused while it runs */
	ops_cursor_on(&st, "l0a");
	st.file_job = PROMPT_EXPORT;
	press(&st, 'p');
	CHECK_INT(st.prompt, PROMPT_NONE);
	CHECK(strstr(st.status, "export") != NULL);
	CHECK(!(press(&st, 'Y') & AR_RERUN));
	st.file_job = PROMPT_NONE;
	state_free(&st);
}

static void test_d_shows_the_diff_and_goes_back(void)
{
	vstate st;
	REQUIRE(pin_state(&st, "heft"));
	st.view = VIEW_TIMELINE;
	CHECK_INT(press(&st, 'd') & AR_RERUN, 0);
	CHECK_INT(st.view, VIEW_DIFF);
	vgrid g;
	REQUIRE(grid_init(&g, 80, 24) == 0);
	screen_draw(&st, &g);
	char *t = grid_to_text(&g, false);
	CHECK(t && strstr(t, "no plan before this one"));
	free(t);
	press(&st, 'd');
	CHECK_INT(st.view, VIEW_TIMELINE);
	/* two GPUs of three: everything on GPU2 moves */
	press(&st, 'd');
	REQUIRE(dp_machine_resize(&st.m, 2, NULL) == DP_OK);
	REQUIRE(replan(&st));
	screen_draw(&st, &g);
	t = grid_to_text(&g, false);
	CHECK(t && strstr(t, "Diff: before heft K=3"));
	CHECK(t && strstr(t, "after heft K=2"));
	char want[64];
	snprintf(want, sizeof want, "moved %u of 8 ops", st.moved_n);
	CHECK(t && strstr(t, want));
	free(t);
	for (uint32_t i = 0; i < st.moved_n; i++)
		CHECK(st.prev_dev[st.moved[i]] != st.agg_dev[st.moved[i]]);
	for (uint32_t u = 0; u < 8; u++)
		if (st.prev_dev[u] == 2)
			CHECK(st.agg_dev[u] != 2);
	/* Esc goes back; Tab from the diff goes on from the view under it */
	press(&st, VK_ESC);
	CHECK_INT(st.view, VIEW_TIMELINE);
	press(&st, 'd');
	press(&st, VK_TAB);
	CHECK_INT(st.view, VIEW_MEMORY);
	grid_free(&g);
	state_free(&st);
}

TEST_MAIN(TEST(test_pin_an_op_moves_its_group_and_the_replan_honours_it),
	  TEST(test_pin_a_layer_free_one_and_all),
	  TEST(test_d_shows_the_diff_and_goes_back))

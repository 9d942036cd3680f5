/* test_view_table.c - the table of view classes (views/view.h): every view
 * has a class with its own key, name, tab label and callbacks; --view NAME
 * finds every one of them; the help and the tabs list them all; paging,
 * scrolling and Home/End keep every view's cursor inside its list and on
 * screen, at every size, with and without a plan; a view draws only inside
 * its rectangle. */
#include <stdio.h>
#include <string.h>

#include "actions.h"
#include "keys.h"
#include "lib/screen_text.h"
#include "lib/testlib.h"
#include "screen.h"
#include "state.h"
#include "test_views_fixture.h"
#include "view.h"

static const struct {
	int w, h;
} sizes[] = {{80, 24}, {100, 30}, {131, 37}, {200, 60}, {60, 20}};
#define NSIZES ((int)(sizeof sizes / sizeof sizes[0]))

static void test_every_view_has_a_complete_class(void)
{
	for (int v = 0; v < VIEW_ALL; v++) {
		const view_class *c = view_table[v];
		REQUIRE(c);
		CHECK_INT(c->id, v);
		CHECK(c->key && c->key[0]);
		CHECK(c->name && c->name[0]);
		CHECK(c->tab && c->tab[0]);
		CHECK(c->draw && c->list && c->seek);
		/* a stacked view goes back to a view that is not one */
		if (c->stacked) {
			REQUIRE((unsigned)c->home < VIEW_ALL);
			CHECK(!view_table[c->home]->stacked);
		}
	}
	/* z in a view without a zoom shows one that has it */
	CHECK(view_table[VIEW_TIMELINE]->zoom);
	CHECK(view_table[VIEW_HELP]->stacked);
}

static void test_keys_names_and_tabs_are_unique(void)
{
	for (int a = 0; a < VIEW_ALL; a++)
		for (int b = a + 1; b < VIEW_ALL; b++) {
			const view_class *x = view_table[a], *y = view_table[b];
			if (!strcmp(x->key, y->key) ||
			    !strcmp(x->name, y->name) ||
			    !strcmp(x->tab, y->tab))
				test_fail(__FILE__, __LINE__,
					  "views %s and %s share a name",
					  x->key, y->key);
			/* no alias of one is a name of another */
			for (int i = 0; i < VIEW_ALIASES && x->aliases[i]; i++)
				CHECK(view_parse(x->aliases[i]) == a);
		}
}

static void test_view_names_parse_back(void)
{
	char all[400];
	view_keys_text(all, sizeof all);
	for (int v = 0; v < VIEW_ALL; v++) {
		const view_class *c = view_table[v];
		CHECK_INT(view_parse(c->key), v);
		for (int i = 0; i < VIEW_ALIASES && c->aliases[i]; i++)
			CHECK_INT(view_parse(c->aliases[i]), v);
		CHECK_CONTAINS(all, c->key);
	}
	CHECK_INT(view_parse("cp"), VIEW_CRITICAL);
	CHECK_INT(view_parse("detail"), VIEW_OP);
	CHECK_INT(view_parse("Devices"), -1);
	CHECK_INT(view_parse(""), -1);
	CHECK_INT(view_parse("nope"), -1);
}

/* The screen at w x h as text; the caller frees. */
static char *screen_text(vstate *st, int w, int h)
{
	state_prepare(st);
	return test_screen_text(st, w, h);
}

static void test_tabs_number_keys_and_help_come_from_the_table(void)
{
	vstate st;
	fx_state(&st, false);
	char *t = screen_text(&st, 200, 60);
	REQUIRE(t);
	for (int v = 0; v < VIEW_COUNT; v++) {
		char tab[64];
		snprintf(tab, sizeof tab, " %d %s", v + 1, view_table[v]->name);
		CHECK_CONTAINS(t, tab);
		/* the number key shows it */
		actions_key(&st, 200, 60, '1' + v);
		CHECK_INT(st.view, v);
	}
	free(t);
	/* the keys past the last tab do nothing */
	unsigned view = st.view;
	CHECK_INT(actions_key(&st, 200, 60, '1' + VIEW_COUNT), 0);
	CHECK_INT(st.view, view);
	/* the help's line for the number keys names every tab */
	actions_key(&st, 200, 60, '?');
	t = screen_text(&st, 200, 60);
	REQUIRE(t);
	char keys[16], line[256] = "views:";
	snprintf(keys, sizeof keys, "1-%d", VIEW_COUNT);
	for (int v = 0; v < VIEW_COUNT; v++) {
		strcat(line, " ");
		strcat(line, view_table[v]->tab);
	}
	CHECK_CONTAINS(t, keys);
	CHECK_CONTAINS(t, line);
	free(t);
	state_free(&st);
}

/* ---- paging ---- */

static int live_count(const vstate *st)
{
	const dp_plan *p = st->plan;
	if (!p || !p->sim.live_off || st->dev >= p->sim.k)
		return 0;
	return (int)(p->sim.live_off[st->dev + 1] - p->sim.live_off[st->dev]);
}

/* What a key does in the view on screen: moves its list, or runs one of
 * the class's hooks (which move other things: the time window, the live
 * tensors), or neither (Left and Right in a list). */
typedef enum key_effect { MOVES_LIST, RUNS_HOOK, OTHER } key_effect;

static key_effect effect(const view_class *c, int key)
{
	switch (key) {
	case VK_UP:
	case VK_DOWN:
	case 'j':
	case 'k':
		return MOVES_LIST;
	case VK_PGUP:
	case VK_PGDN:
	case ' ':
		return c->page ? RUNS_HOOK : MOVES_LIST;
	case VK_HOME:
	case VK_END:
	case 'g':
	case 'G':
		return c->ends ? RUNS_HOOK : MOVES_LIST;
	case 0: /* the wheel */
		return c->wheel ? RUNS_HOOK : MOVES_LIST;
	default:
		return OTHER;
	}
}

/* Every view's time window is inside the step. */
static bool time_windows_ok(const vstate *st)
{
	for (int v = 0; v < VIEW_ALL; v++)
		if (st->time[v].left < 0 || st->time[v].left > 1 ||
		    st->time[v].zoom < 1)
			return false;
	return true;
}

/* After a key at w x h: the view's list is consistent (the cursor as drawn
 * is on screen), a key that moved the list left its cursor on a row of it,
 * and a hook left what it moves in range. Positions the key did not touch
 * may be stale (from another size) and are drawn clamped. */
static bool list_ok(const vstate *st, int w, int h, key_effect e,
		    const char *what)
{
	const view_class *c = view_current(st);
	view_list l;
	c->list(st, screen_main(st, w, h), &l);
	int drawn = l.cursor < l.rows ? l.cursor : l.rows - 1;
	const char *bad = NULL;
	if (l.shown < 1 || l.rows < 0)
		bad = "a list of no rows shown";
	else if (l.rows > 0 &&
		 (l.top < 0 || l.top > drawn || drawn >= l.top + l.shown))
		bad = "the cursor is not on screen";
	else if (e == MOVES_LIST && l.rows > 0 &&
		 (l.cursor < 0 || l.cursor >= l.rows))
		bad = "the cursor moved off the list";
	else if (e == MOVES_LIST && l.rows == 0 && l.cursor != 0)
		bad = "a cursor in an empty list";
	else if (e == RUNS_HOOK &&
		 (st->mem_scroll < 0 ||
		  st->mem_scroll > (live_count(st) ? live_count(st) - 1 : 0)))
		bad = "the live tensors scrolled past their end";
	else if (st->dev < 0 || st->dev >= state_ndev(st))
		bad = "no device selected";
	else if (!time_windows_ok(st))
		bad = "a time window left the step";
	if (bad)
		test_fail(__FILE__, __LINE__,
			  "%s at %dx%d after %s: %s (rows %d, shown %d, "
			  "cursor %d, top %d)",
			  c->key, w, h, what, bad, l.rows, l.shown, l.cursor,
			  l.top);
	return !bad;
}

static const int nav_keys[] = {VK_UP,  VK_DOWN, VK_PGUP, VK_PGDN, VK_HOME,
			       VK_END, 'j',	'k',	 'g',	  'G',
			       ' ',    VK_LEFT, VK_RIGHT};
#define NNAV ((int)(sizeof nav_keys / sizeof nav_keys[0]))

/* Presses navigation keys (and turns the wheel) in every view at every
 * size, in a seeded random order, checking the list after each. The
 * sizes follow each other as a resized terminal would. */
static void walk_every_view(vstate *st, uint64_t seed)
{
	for (int v = 0; v < VIEW_ALL; v++)
		for (int s = 0; s < NSIZES; s++) {
			int w = sizes[s].w, h = sizes[s].h;
			st->view = (view_id)v;
			st->back = VIEW_DEVICES;
			for (int i = 0; i < 300; i++) {
				int r = (int)test_randn(&seed, NNAV + 2);
				int key = r < NNAV ? nav_keys[r] : 0;
				char what[32];
				if (key) {
					actions_key(st, w, h, key);
					keys_name(key, what, sizeof what);
				} else {
					actions_mouse(
						st, w, h, 1, h > 10 ? h - 4 : 0,
						r == NNAV ? MOUSE_WHEEL_UP
							  : MOUSE_WHEEL_DOWN);
					snprintf(what, sizeof what,
						 "the wheel");
				}
				state_prepare(st);
				CHECK_INT(st->view, v);
				if (!list_ok(st, w, h,
					     effect(view_table[v], key), what))
					return;
			}
		}
}

/* Home, End, Down at the end and PgDn do what they say in every view
 * whose class leaves them to the list. */
static void check_list_moves(vstate *st)
{
	for (int v = 0; v < VIEW_ALL; v++)
		for (int s = 0; s < NSIZES; s++) {
			int w = sizes[s].w, h = sizes[s].h;
			const view_class *c = view_table[v];
			st->view = (view_id)v;
			vrect r = screen_main(st, w, h);
			view_list l;
			if (!c->ends) {
				actions_key(st, w, h, VK_END);
				c->list(st, r, &l);
				CHECK_INT(l.cursor, l.rows ? l.rows - 1 : 0);
				actions_key(st, w, h, VK_DOWN);
				c->list(st, r, &l);
				CHECK_INT(l.cursor, l.rows ? l.rows - 1 : 0);
				actions_key(st, w, h, VK_HOME);
				c->list(st, r, &l);
				CHECK_INT(l.cursor, 0);
			}
			if (!c->page) {
				c->list(st, r, &l);
				int from = l.cursor;
				actions_key(st, w, h, VK_PGDN);
				c->list(st, r, &l);
				int want = from + l.shown;
				if (want > l.rows - 1)
					want = l.rows > 0 ? l.rows - 1 : 0;
				CHECK_INT(l.cursor, want);
			}
		}
}

/* A second plan on st, so that the Diff view has a list: two ops moved. */
static void with_prev(vstate *st)
{
	dp_machine m;
	dp_plan p;
	fx_moved_plan(&p, &m, true, 9, 0);
	state_set_plan(st, &p, st->gen);
	dp_machine_free(&m);
	state_prepare(st);
}

static void test_paging_stays_inside_every_view(void)
{
	vstate st;
	fx_state(&st, true);
	with_prev(&st);
	CHECK_INT(st.moved_n, 2);
	walk_every_view(&st, 17);
	check_list_moves(&st);
	state_free(&st);
}

static void test_paging_on_a_planned_random_graph(void)
{
	/* more ops and devices than a page holds */
	uint64_t seed = 5;
	dp_graph *g = test_random_dag(&seed, 400, "paging");
	REQUIRE(g);
	dp_machine m;
	dp_machine_init(&m, 12, NULL);
	vstate st;
	REQUIRE(state_init(&st, g, &m, dp_algo_find("heft"), DP_CONT_PORT,
			   NULL) == DP_OK);
	dp_algo_opts ao;
	dp_algo_opts_default(&ao);
	dp_plan p;
	memset(&p, 0, sizeof p);
	REQUIRE(dp_plan_run(st.g, &st.m, st.algo, &ao, NULL, &p, NULL) ==
		DP_OK);
	state_set_plan(&st, &p, st.gen);
	dp_machine_free(&m);
	state_prepare(&st);
	st.op = st.ops_idx[0];
	walk_every_view(&st, 99);
	check_list_moves(&st);
	state_free(&st);
}

static void test_paging_without_a_plan(void)
{
	/* keys arrive before the first plan: every list copes */
	vstate st;
	dp_machine m;
	fx_machine(&m, false);
	REQUIRE(state_init(&st, fx_graph(), &m, dp_algo_find("single"),
			   DP_CONT_PORT, NULL) == DP_OK);
	dp_machine_free(&m);
	state_prepare(&st);
	walk_every_view(&st, 3);
	state_free(&st);
}

/* ---- drawing ---- */

static void test_every_view_draws_inside_its_rectangle(void)
{
	vstate st;
	fx_state(&st, true);
	with_prev(&st);
	st.op = 4;
	st.cmp_valid = true;
	static const vrect rects[] = {{3, 2, 80, 8},
				      {5, 4, 100, 14},
				      {1, 1, 200, 40},
				      {7, 3, 120, 9},
				      {2, 2, 90, 4}};
	for (int v = 0; v < VIEW_ALL; v++)
		for (size_t i = 0; i < sizeof rects / sizeof rects[0]; i++) {
			vrect r = rects[i];
			vgrid g;
			REQUIRE(grid_init(&g, r.x + r.w + 9, r.y + r.h + 5) ==
				0);
			grid_fill(&g, (vrect){0, 0, g.w, g.h}, '#', ST_DIM);
			st.view = (view_id)v;
			view_table[v]->draw(&st, &g, r);
			for (int y = 0; y < g.h; y++)
				for (int x = 0; x < g.w; x++) {
					if (rect_contains(r, x, y))
						continue;
					const vcell *c =
						grid_cell_const(&g, x, y);
					if (c->ch != '#' ||
					    c->style != ST_DIM) {
						test_fail(__FILE__, __LINE__,
							  "%s drew at (%d,%d) "
							  "outside %dx%d+%d+%d",
							  view_table[v]->key, x,
							  y, r.w, r.h, r.x,
							  r.y);
						y = g.h;
						break;
					}
				}
			grid_free(&g);
		}
	state_free(&st);
}

/* ---- hooks ---- */

static void test_a_settings_change_reruns_what_the_view_shows(void)
{
	vstate st;
	fx_state(&st, false);
	for (int v = 0; v < VIEW_COUNT; v++) {
		st.view = (view_id)v;
		unsigned r = actions_key(&st, 100, 30, '+');
		CHECK(r & AR_RERUN);
		/* a view with a rerun hook (Compare) starts it too */
		CHECK(!!(r & AR_COMPARE) == !!view_table[v]->rerun);
		actions_key(&st, 100, 30, '-');
		/* r: the view's rerun instead of the plan's */
		r = actions_key(&st, 100, 30, 'r');
		CHECK(!!(r & AR_RERUN) == !view_table[v]->rerun);
	}
	state_free(&st);
}

TEST_MAIN(TEST(test_every_view_has_a_complete_class),
	  TEST(test_keys_names_and_tabs_are_unique),
	  TEST(test_view_names_parse_back),
	  TEST(test_tabs_number_keys_and_help_come_from_the_table),
	  TEST(test_paging_stays_inside_every_view),
	  TEST(test_paging_on_a_planned_random_graph),
	  TEST(test_paging_without_a_plan),
	  TEST(test_every_view_draws_inside_its_rectangle),
	  TEST(test_a_settings_change_reruns_what_the_view_shows))

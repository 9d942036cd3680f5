/* test_views_actions.c - what keys and clicks do to the explorer's state:
 * navigation never changes the plan, live controls change the settings
 * and ask for a rerun, prompts parse units and keep the last good state on
 * bad input, and the key table is consistent. */
#include <stdio.h>
#include <string.h>

#include "actions.h"
#include "dnnpart/units.h"
#include "keys.h"
#include "layout.h"
#include "lib/testlib.h"
#include "pins.h"
#include "screen.h"
#include "settings.h"
#include "state.h"
#include "test_views_fixture.h"
#include "test_views_keys.h"
#include "view.h"

static bool same_machine(const dp_machine *a, const dp_machine *b)
{
	if (a->k != b->k || a->bw != b->bw || a->lat != b->lat)
		return false;
	for (int d = 0; d < a->k; d++)
		if (a->cap[d] != b->cap[d] || a->speed[d] != b->speed[d])
			return false;
	return true;
}

static void test_navigation_never_changes_the_plan(void)
{
	vstate st;
	fx_state(&st, true);
	dp_machine before;
	dp_machine_copy(&before, &st.m, NULL);
	const dp_plan *plan = st.plan;
	unsigned gen = st.gen;
	const dp_algo *algo = st.algo;
	for (int v = 0; v <= VIEW_HELP; v++) {
		for (int i = 0; i < key_table_len; i++) {
			const key_binding *b = &key_table[i];
			if (!b->navigation || b->act == ACT_ESCAPE)
				continue;
			for (int j = 0; j < KEY_MAX_CODES && b->keys[j]; j++) {
				st.view = (view_id)v;
				st.prompt = PROMPT_NONE;
				unsigned r = press(&st, b->keys[j]);
				CHECK(!(r & (AR_RERUN | AR_CANCEL |
					     AR_CANCEL_PLAN)));
				/* leave prompts the keys open without typing */
				press(&st, VK_ESC);
			}
		}
	}
	CHECK(st.plan == plan);
	CHECK_INT(st.gen, gen);
	CHECK(st.algo == algo);
	CHECK(same_machine(&st.m, &before));
	dp_machine_free(&before);
	state_free(&st);
}

static void test_tab_reaches_every_view_and_wraps(void)
{
	vstate st;
	fx_state(&st, false);
	bool seen[VIEW_COUNT] = {false};
	for (int i = 0; i < VIEW_COUNT; i++) {
		seen[st.view] = true;
		press(&st, VK_TAB);
	}
	for (int v = 0; v < VIEW_COUNT; v++)
		CHECK(seen[v]);
	CHECK_INT(st.view, VIEW_DEVICES);
	press(&st, VK_BTAB);
	CHECK_INT(st.view, VIEW_WHY);
	press(&st, '3');
	CHECK_INT(st.view, VIEW_MEMORY);
	/* entering Compare for the first time asks for a comparison */
	vstate s2;
	fx_state(&s2, false);
	CHECK(press(&s2, '7') & AR_COMPARE);
	CHECK(s2.cmp_valid);
	state_free(&s2);
	state_free(&st);
}

static void test_help_opens_and_esc_returns(void)
{
	vstate st;
	fx_state(&st, false);
	press(&st, '2');
	press(&st, '?');
	CHECK_INT(st.view, VIEW_HELP);
	press(&st, VK_DOWN);
	CHECK_INT(st.help_scroll, 1);
	press(&st, VK_ESC);
	CHECK_INT(st.view, VIEW_TIMELINE);
	press(&st, VK_F1);
	CHECK_INT(st.view, VIEW_HELP);
	press(&st, VK_F1);
	CHECK_INT(st.view, VIEW_TIMELINE);
	state_free(&st);
}

static void test_plus_minus_change_device_count(void)
{
	vstate st;
	fx_state(&st, false);
	unsigned gen = st.gen;
	unsigned r = press(&st, '+');
	CHECK(r & AR_RERUN);
	CHECK_INT(st.m.k, 4);
	CHECK(st.gen != gen);
	CHECK(state_plan_stale(&st));
	CHECK_INT(state_ndev(&st), 4);
	/* the new device copies the last one's cap */
	CHECK_INT(st.m.cap[3], st.m.cap[2]);
	CHECK(press(&st, '-') & AR_RERUN);
	CHECK(press(&st, VK_F7) & AR_RERUN);
	CHECK(press(&st, '-') & AR_RERUN);
	CHECK_INT(st.m.k, 1);
	r = press(&st, '-');
	CHECK(!(r & AR_RERUN));
	CHECK_INT(st.m.k, 1);
	CHECK(st.status_error);
	CHECK_CONTAINS(st.status, "minimum");
	state_free(&st);
}

static void test_m_and_M_step_the_selected_cap(void)
{
	vstate st;
	fx_state(&st, false);
	st.dev = 0; /* 1 GiB */
	CHECK(press(&st, 'm') & AR_RERUN);
	CHECK_INT(st.m.cap[0], 896 * MiB);
	CHECK_CONTAINS(st.status, "GPU0 cap 896 MiB");
	press(&st, 'M');
	CHECK_INT(st.m.cap[0], 1024 * MiB);
	/* steps are exact inverses: m m M M and M M m m come back */
	press(&st, 'm');
	press(&st, 'm');
	CHECK_INT(st.m.cap[0], 768 * MiB);
	press(&st, 'M');
	press(&st, 'M');
	CHECK_INT(st.m.cap[0], 1024 * MiB);
	for (int i = 0; i < 7; i++)
		press(&st, 'm');
	for (int i = 0; i < 7; i++)
		press(&st, 'M');
	CHECK_INT(st.m.cap[0], 1024 * MiB);
	/* from a cap typed in, too (15 GiB is on no ladder) */
	st.m.cap[0] = 15 * 1024 * MiB;
	press(&st, 'm');
	press(&st, 'm');
	CHECK(st.m.cap[0] < 15 * 1024 * MiB);
	press(&st, 'M');
	press(&st, 'M');
	CHECK_INT(st.m.cap[0], 15 * 1024 * MiB);
	/* GPU2 has no cap: m starts under its peak (24 MiB) */
	st.dev = 2;
	CHECK(press(&st, 'm') & AR_RERUN);
	CHECK_INT(st.m.cap[2], dp_units_round_bytes(24.0 * MiB * 0.875));
	CHECK(st.m.cap[2] < 24 * MiB);
	/* M steps back to no cap, and m m M M from no cap comes back to it */
	CHECK(press(&st, 'M') & AR_RERUN);
	CHECK_INT(st.m.cap[2], DP_CAP_UNLIMITED);
	CHECK_CONTAINS(st.status, "GPU2 cap none");
	press(&st, 'm');
	press(&st, 'm');
	CHECK_INT(
		st.m.cap[2],
		settings_cap_at(dp_units_round_bytes(24.0 * MiB * 0.875), -1));
	press(&st, 'M');
	press(&st, 'M');
	CHECK_INT(st.m.cap[2], DP_CAP_UNLIMITED);
	/* nothing to raise on a device without a cap */
	CHECK(!(press(&st, 'M') & AR_RERUN));
	CHECK(st.status_error);
	CHECK_INT(st.m.cap[2], DP_CAP_UNLIMITED);
	/* 16 GiB: m m M M is 16 GiB to the byte, however often */
	st.m.cap[2] = 16 * 1024 * MiB;
	for (int round = 0; round < 5; round++) {
		press(&st, 'm');
		press(&st, 'm');
		press(&st, 'M');
		press(&st, 'M');
	}
	CHECK_INT(st.m.cap[2], 16 * 1024 * MiB);
	/* the ladder: four steps an octave, shown exactly */
	int64_t g16 = 16 * 1024 * MiB;
	CHECK_INT(settings_cap_at(g16, -1), 14 * 1024 * MiB);
	CHECK_INT(settings_cap_at(g16, -4), 8 * 1024 * MiB);
	CHECK_INT(settings_cap_at(g16, 1), 20 * 1024 * MiB);
	CHECK_INT(settings_cap_at(g16, 5), 40 * 1024 * MiB);
	CHECK_INT(settings_cap_at(g16, 0), g16);
	CHECK_INT(settings_cap_at(1, -3), 1);
	/* a 1-byte cap cannot go lower */
	st.dev = 1;
	st.m.cap[1] = 1;
	CHECK(!(press(&st, 'm') & AR_RERUN));
	CHECK_INT(st.m.cap[1], 1);
	state_free(&st);
}

static void test_cap_prompt_parses_units_and_keeps_state_on_error(void)
{
	vstate st;
	fx_state(&st, false);
	st.dev = 1;
	press(&st, 'c');
	CHECK_INT(st.prompt, PROMPT_CAP);
	CHECK_STR(st.pbuf, "256MiB");
	press(&st, VK_CTRL_U);
	type(&st, "8 parsecs");
	unsigned gen = st.gen;
	unsigned r = press(&st, VK_ENTER);
	CHECK(!(r & AR_RERUN));
	CHECK_INT(st.prompt, PROMPT_NONE);
	CHECK_INT(st.m.cap[1], 256 * MiB);
	CHECK_INT(st.gen, gen);
	CHECK(st.status_error);
	CHECK_CONTAINS(st.status, "cap not changed");
	press(&st, 'c');
	press(&st, VK_CTRL_U);
	type(&st, "1.5GiB");
	r = press(&st, '\n');
	CHECK(r & AR_RERUN);
	CHECK_INT(st.m.cap[1], 1536 * MiB);
	CHECK(!st.status_error);
	press(&st, 'c');
	press(&st, VK_CTRL_U);
	type(&st, "inf");
	press(&st, VK_ENTER);
	CHECK(st.m.cap[1] == DP_CAP_UNLIMITED);
	/* Esc abandons a prompt without a change */
	press(&st, 'c');
	type(&st, "1");
	press(&st, VK_ESC);
	CHECK(st.m.cap[1] == DP_CAP_UNLIMITED);
	CHECK_INT(st.prompt, PROMPT_NONE);
	state_free(&st);
}

static void test_cap_all_prompt(void)
{
	vstate st;
	fx_state(&st, false);
	press(&st, 'C');
	press(&st, VK_CTRL_U);
	type(&st, "4GiB,2GiB");
	CHECK(!(press(&st, VK_ENTER) & AR_RERUN)); /* 2 of 3 */
	CHECK(st.status_error);
	CHECK_INT(st.m.cap[0], 1024 * MiB);
	press(&st, 'C');
	press(&st, VK_CTRL_U);
	type(&st, "4GiB,2GiB,1GiB");
	CHECK(press(&st, VK_ENTER) & AR_RERUN);
	CHECK_INT(st.m.cap[0], 4096 * MiB);
	CHECK_INT(st.m.cap[2], 1024 * MiB);
	/* --mem's messages: "dnnpart plan: --mem 4GiB,2,1GiB: '2': ..." */
	press(&st, 'C');
	type(&st, "4GiB,2,1GiB");
	CHECK(!(press(&st, VK_ENTER) & AR_RERUN));
	CHECK_STR(st.status, "caps not changed: 4GiB,2,1GiB: '2': a size "
			     "needs a unit, e.g. 2GiB or 2GB (2B for bytes)");
	press(&st, 'C');
	type(&st, "8");
	CHECK(!(press(&st, VK_ENTER) & AR_RERUN));
	CHECK_STR(st.status, "caps not changed: 8: a size needs a unit, e.g. "
			     "8GiB or 8GB (8B for bytes)");
	CHECK_INT(st.m.cap[0], 4096 * MiB);
	state_free(&st);
}

static void test_bandwidth_and_algorithm_keys(void)
{
	vstate st;
	fx_state(&st, false);
	double bw = st.m.bw;
	CHECK(press(&st, 'b') & AR_RERUN);
	CHECK_NEAR(st.m.bw, bw / 2, 1e-9);
	CHECK_STR(st.m.link_name, "custom");
	press(&st, 'B');
	CHECK_NEAR(st.m.bw, bw, 1e-9);
	const dp_algo *a0 = st.algo;
	unsigned gen = st.gen;
	CHECK(press(&st, 'a') & AR_RERUN);
	CHECK(st.gen != gen);
	if (dp_algo_count() > 1)
		CHECK(st.algo != a0);
	for (size_t i = 1; i < dp_algo_count(); i++)
		press(&st, 'a');
	CHECK(st.algo == a0); /* wraps around the registry */
	press(&st, 'a');
	press(&st, 'A');
	CHECK(st.algo == a0);
	CHECK(press(&st, 't') & AR_RERUN);
	CHECK_INT(st.contention, DP_CONT_NONE);
	state_free(&st);
}

static void test_escape_cancels_a_running_job(void)
{
	vstate st;
	fx_state(&st, false);
	st.running = true;
	CHECK(press(&st, VK_ESC) & AR_CANCEL);
	st.running = false;
	CHECK(!(press(&st, VK_ESC) & AR_CANCEL));
	state_free(&st);
}

static void test_ops_search_filter_sort(void)
{
	vstate st;
	fx_state(&st, false);
	press(&st, '/');
	CHECK_INT(st.view, VIEW_OPS);
	CHECK_INT(st.prompt, PROMPT_SEARCH);
	type(&st, "attn");
	press(&st, VK_ENTER);
	state_prepare(&st);
	CHECK_STR(dp_graph_op_name(st.g, st.ops_idx[st.ops_cursor]), "attn0");
	CHECK_STR(st.status, "'attn': 1 of 3: attn0");
	press(&st, 'n');
	CHECK_STR(dp_graph_op_name(st.g, st.ops_idx[st.ops_cursor]), "attn1");
	CHECK_STR(st.status, "'attn': 2 of 3: attn1");
	press(&st, 'n');
	CHECK_STR(dp_graph_op_name(st.g, st.ops_idx[st.ops_cursor]),
		  "grad_attn");
	press(&st, 'n'); /* wraps */
	CHECK_STR(dp_graph_op_name(st.g, st.ops_idx[st.ops_cursor]), "attn0");
	press(&st, 'N');
	CHECK_STR(dp_graph_op_name(st.g, st.ops_idx[st.ops_cursor]),
		  "grad_attn");
	CHECK_STR(st.status, "'attn': 3 of 3: grad_attn");
	press(&st, '/');
	press(&st, VK_CTRL_U);
	type(&st, "nothing-like-this");
	press(&st, VK_ENTER);
	CHECK(st.status_error);
	CHECK_STR(st.status, "no match for 'nothing-like-this'");
	/* filter by layer text */
	press(&st, '\\');
	type(&st, "enc/1");
	press(&st, VK_ENTER);
	state_prepare(&st);
	CHECK_INT(st.ops_n, 3); /* attn1, mlp1, grad_attn */
	/* sort by name */
	press(&st, '\\');
	press(&st, VK_CTRL_U);
	press(&st, VK_ENTER);
	while (st.sort != SORT_NAME)
		press(&st, '>');
	state_prepare(&st);
	CHECK_INT(st.ops_n, 10);
	for (uint32_t i = 1; i < st.ops_n; i++)
		CHECK(strcmp(dp_graph_op_name(st.g, st.ops_idx[i - 1]),
			     dp_graph_op_name(st.g, st.ops_idx[i])) < 0);
	press(&st, 'I');
	state_prepare(&st);
	CHECK_STR(dp_graph_op_name(st.g, st.ops_idx[0]), "update");
	state_free(&st);
}

static void test_enter_opens_op_detail_and_esc_goes_back(void)
{
	vstate st;
	fx_state(&st, false);
	press(&st, '4'); /* critical path */
	press(&st, VK_DOWN);
	press(&st, VK_DOWN);
	press(&st, VK_ENTER);
	CHECK_INT(st.view, VIEW_OP);
	CHECK_STR(dp_graph_op_name(st.g, st.op), "attn0");
	press(&st, VK_ESC);
	CHECK_INT(st.view, VIEW_CRITICAL);
	press(&st, '5');
	press(&st, 'G');
	press(&st, VK_ENTER);
	CHECK_STR(dp_graph_op_name(st.g, st.op), "update");
	state_free(&st);
}

static void test_compare_enter_adopts_the_row(void)
{
	vstate st;
	fx_state(&st, false);
	press(&st, '7');
	REQUIRE(st.ncmp >= 1);
	dp_machine m;
	fx_machine(&m, true);
	dp_plan p;
	fx_plan(&p, &m);
	dp_machine_free(&m);
	int row = st.ncmp - 1;
	state_compare_done(&st, row, &p);
	st.cmp_cursor = row;
	const dp_plan *old = st.plan;
	unsigned r = press(&st, VK_ENTER);
	CHECK(r & AR_CANCEL_PLAN);
	CHECK(st.algo == st.cmp[row].algo);
	CHECK(st.plan != old);
	CHECK(!state_plan_stale(&st));
	CHECK(!st.plan->feasible);
	CHECK_CONTAINS(st.status, "adopted");
	/* a row with nothing to adopt says so */
	if (st.ncmp > 1) {
		st.cmp_cursor = 0;
		press(&st, VK_ENTER);
		CHECK(st.status_error);
	}
	state_free(&st);
}

static void test_mouse_selects_devices_tabs_and_keys(void)
{
	vstate st;
	fx_state(&st, false);
	vlayout l;
	layout_compute(100, 30, state_ndev(&st), &l);
	actions_mouse(&st, 100, 30, 10, l.panel.y + 2, MOUSE_CLICK);
	CHECK_INT(st.dev, 2);
	int x0, x1;
	REQUIRE(screen_tab_span(VIEW_MEMORY, 100, &x0, &x1));
	actions_mouse(&st, 100, 30, x0 + 1, l.tabs.y, MOUSE_CLICK);
	CHECK_INT(st.view, VIEW_MEMORY);
	REQUIRE(screen_fkey_span(10, 100, &x0, &x1));
	CHECK(actions_mouse(&st, 100, 30, x0, l.keys.y, MOUSE_CLICK) & AR_QUIT);
	press(&st, '5');
	actions_mouse(&st, 100, 30, 5, l.main.y + 3, MOUSE_WHEEL_DOWN);
	CHECK_INT(st.ops_cursor, 3);
	/* below the minimum size clicks do nothing */
	CHECK_INT(actions_mouse(&st, 60, 20, 1, 1, MOUSE_CLICK), 0);
	state_free(&st);
}

static void test_file_prompts_hand_over_to_the_front_end(void)
{
	vstate st;
	fx_state(&st, false);
	press(&st, 's');
	CHECK_INT(st.prompt, PROMPT_SAVE);
	CHECK_STR(st.pbuf, "toy-transformer.placement.json");
	unsigned r = press(&st, VK_ENTER);
	CHECK(r & AR_IO);
	CHECK_INT(st.io, PROMPT_SAVE);
	CHECK_STR(st.io_path, "toy-transformer.placement.json");
	press(&st, 'o');
	press(&st, VK_CTRL_U);
	CHECK(!(press(&st, VK_ENTER) & AR_IO)); /* empty name */
	CHECK(st.status_error);
	/* backspace removes whole UTF-8 characters */
	press(&st, 'e');
	press(&st, VK_CTRL_U);
	press(&st, 0xb5);
	press(&st, 'x');
	CHECK_STR(st.pbuf, "\xc2\xb5x");
	press(&st, VK_BACKSPACE);
	press(&st, VK_BACKSPACE);
	CHECK_STR(st.pbuf, "");
	press(&st, VK_ESC);
	state_free(&st);
}

/* The cap prompt opens with the cap selected: typing replaces it (never
 * "256MiB1GiB"), Backspace edits it; it reads caps with the parser of
 * --mem and shows its messages. */
static void test_cap_prompt_typing_replaces_and_reads_like_mem(void)
{
	vstate st;
	fx_state(&st, false);
	st.dev = 1;
	press(&st, 'c');
	CHECK_STR(st.pbuf, "256MiB");
	CHECK(st.pfresh);
	type(&st, "1GiB");
	CHECK_STR(st.pbuf, "1GiB");
	CHECK(!st.pfresh);
	press(&st, VK_ENTER);
	CHECK_INT(st.m.cap[1], 1024 * MiB);
	/* Backspace edits what was there */
	press(&st, 'c');
	press(&st, VK_BACKSPACE);
	CHECK_STR(st.pbuf, "1Gi");
	type(&st, "B");
	CHECK_STR(st.pbuf, "1GiB");
	press(&st, VK_ESC);
	/* a plain number: the --mem message, no change */
	press(&st, 'c');
	type(&st, "16");
	unsigned r = press(&st, VK_ENTER);
	CHECK(!(r & AR_RERUN));
	CHECK(st.status_error);
	CHECK_STR(st.status, "cap not changed: 16: a size needs a unit, e.g. "
			     "16GiB or 16GB (16B for bytes)");
	CHECK_INT(st.m.cap[1], 1024 * MiB);
	press(&st, 'c');
	type(&st, "16Gb");
	press(&st, VK_ENTER);
	CHECK_CONTAINS(st.status, "'Gb' is bits");
	/* what --mem takes, the prompt takes: 0B, INF, 17179869184B */
	press(&st, 'c');
	type(&st, "17179869184B");
	press(&st, VK_ENTER);
	CHECK_INT(st.m.cap[1], 16 * 1024 * MiB);
	press(&st, 'c');
	type(&st, "INF");
	press(&st, VK_ENTER);
	CHECK(st.m.cap[1] == DP_CAP_UNLIMITED);
	state_free(&st);
}

/* A save to a file that exists waits for y; anything else keeps it. */
static void test_overwrite_question_needs_y(void)
{
	vstate st;
	fx_state(&st, true);
	actions_confirm_overwrite(&st, PROMPT_SAVE, "/tmp/x.json");
	CHECK_INT(st.prompt, PROMPT_CONFIRM);
	CHECK_CONTAINS(st.plabel, "/tmp/x.json exists - overwrite? (y/N)");
	unsigned r = press(&st, 'n');
	CHECK(!(r & AR_IO));
	CHECK_INT(st.prompt, PROMPT_NONE);
	CHECK_CONTAINS(st.status, "not saved: /tmp/x.json kept as it was");
	actions_confirm_overwrite(&st, PROMPT_EXPORT, "/tmp/x.svg");
	r = press(&st, VK_ENTER); /* Enter is no: N is the default */
	CHECK(!(r & AR_IO));
	CHECK_CONTAINS(st.status, "not exported");
	actions_confirm_overwrite(&st, PROMPT_EXPORT, "/tmp/x.svg");
	r = press(&st, 'y');
	CHECK(r & AR_IO);
	CHECK_INT(st.io, PROMPT_EXPORT);
	CHECK(st.io_replace);
	CHECK_STR(st.io_path, "/tmp/x.svg");
	state_free(&st);
}

static void test_key_table_is_consistent(void)
{
	/* no key code has two bindings */
	for (int i = 0; i < key_table_len; i++)
		for (int j = 0; j < KEY_MAX_CODES && key_table[i].keys[j]; j++)
			CHECK(keys_find(key_table[i].keys[j]) == &key_table[i]);
	/* every F-key slot is taken once; every action has a key */
	for (int n = 1; n <= 10; n++) {
		int count = 0;
		for (int i = 0; i < key_table_len; i++)
			count += key_table[i].fkey == n;
		CHECK_INT(count, 1);
		const key_binding *b = keys_fkey(n);
		REQUIRE(b);
		CHECK(keys_find(VK_F1 + n - 1) == b);
	}
	for (int a = ACT_NONE + 1; a < ACT_COUNT; a++) {
		bool found = false;
		for (int i = 0; i < key_table_len; i++)
			found |= key_table[i].act == (key_action)a;
		if (!found)
			test_fail(__FILE__, __LINE__, "action %d has no key",
				  a);
	}
	/* the keys the issue names */
	static const struct {
		int key;
		key_action act;
	} named[] = {
		{'+', ACT_DEV_ADD},
		{'-', ACT_DEV_REMOVE},
		{'m', ACT_CAP_LOWER},
		{'M', ACT_CAP_RAISE},
		{'c', ACT_CAP_TYPE},
		{'C', ACT_CAP_TYPE_ALL},
		{'b', ACT_BW_LOWER},
		{'B', ACT_BW_RAISE},
		{'a', ACT_ALGO_NEXT},
		{'r', ACT_RERUN},
		{'s', ACT_SAVE},
		{'o', ACT_OPEN},
		{'e', ACT_EXPORT},
		{'?', ACT_HELP},
		{VK_F1, ACT_HELP},
		{'q', ACT_QUIT},
		{VK_F10, ACT_QUIT},
		{VK_CTRL_L, ACT_REDRAW},
		{'/', ACT_SEARCH},
		{'n', ACT_SEARCH_NEXT},
		{'N', ACT_SEARCH_PREV},
		{VK_TAB, ACT_NEXT_VIEW},
		{VK_BTAB, ACT_PREV_VIEW},
		{'j', ACT_DOWN},
		{'k', ACT_UP},
		{'g', ACT_TOP},
		{'G', ACT_BOTTOM},
		{VK_PGUP, ACT_PAGE_UP},
		{VK_PGDN, ACT_PAGE_DOWN},
		{VK_ESC, ACT_ESCAPE},
	};
	for (size_t i = 0; i < sizeof named / sizeof named[0]; i++) {
		const key_binding *b = keys_find(named[i].key);
		char nm[32];
		if (!b || b->act != named[i].act)
			test_fail(__FILE__, __LINE__, "key %s: wrong binding",
				  keys_name(named[i].key, nm, sizeof nm));
	}
	char nm[32];
	CHECK_STR(keys_name(VK_F5, nm, sizeof nm), "F5");
	CHECK_STR(keys_name(VK_CTRL_L, nm, sizeof nm), "Ctrl-L");
	CHECK_STR(keys_name(VK_PGDN, nm, sizeof nm), "PgDn");
}

TEST_MAIN(TEST(test_navigation_never_changes_the_plan),
	  TEST(test_tab_reaches_every_view_and_wraps),
	  TEST(test_help_opens_and_esc_returns),
	  TEST(test_plus_minus_change_device_count),
	  TEST(test_m_and_M_step_the_selected_cap),
	  TEST(test_cap_prompt_parses_units_and_keeps_state_on_error),
	  TEST(test_cap_all_prompt), TEST(test_bandwidth_and_algorithm_keys),
	  TEST(test_escape_cancels_a_running_job),
	  TEST(test_ops_search_filter_sort),
	  TEST(test_enter_opens_op_detail_and_esc_goes_back),
	  TEST(test_compare_enter_adopts_the_row),
	  TEST(test_mouse_selects_devices_tabs_and_keys),
	  TEST(test_file_prompts_hand_over_to_the_front_end),
	  TEST(test_cap_prompt_typing_replaces_and_reads_like_mem),
	  TEST(test_overwrite_question_needs_y),
	  TEST(test_key_table_is_consistent))

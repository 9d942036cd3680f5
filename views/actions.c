/* actions.c - key and mouse actions on the state (see actions.h). */
#include "actions.h"

#include <stdio.h>
#include <string.h>

#include "fmt.h"
#include "prompt.h"
#include "screen.h"
#include "settings.h"
#include "views.h"

#define ZOOM_MAX (1 << 20)

/* ---- helpers ---- */

static int clampi(int v, int lo, int hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

/* v + d clamped to [lo, hi], without overflow for any d (G moves by a huge
 * step). */
static int add_clamp(int v, int d, int lo, int hi)
{
	long long r = (long long)v + d;
	return r < lo ? lo : r > hi ? hi : (int)r;
}

static int page(const vstate *st)
{
	int p = st->main_rows - 3;
	return p < 1 ? 1 : p;
}

static void select_device(vstate *st, int d)
{
	st->dev = clampi(d, 0, state_ndev(st) - 1);
	st->mem_scroll = 0;
}

static void set_view(vstate *st, view_id v)
{
	if (v == st->view)
		return;
	if (v == VIEW_OP || v == VIEW_HELP)
		st->back = st->view == VIEW_HELP ? st->back : st->view;
	st->view = v;
	if (v == VIEW_HELP)
		st->help_scroll = 0;
}

static unsigned show_view(vstate *st, view_id v)
{
	set_view(st, v);
	if (v == VIEW_COMPARE && !st->cmp_valid && !st->comparing) {
		state_compare_reset(st);
		st->cmp_valid = true;
		return AR_REDRAW | AR_COMPARE;
	}
	return AR_REDRAW;
}

/* ---- movement ---- */

static int list_len(const vstate *st)
{
	switch (st->view) {
	case VIEW_CRITICAL:
		return st->plan ? (int)st->plan->sim.cp_len : 0;
	case VIEW_OPS:
		return (int)st->ops_n;
	case VIEW_COMPARE:
		return st->ncmp;
	default:
		return 0;
	}
}

/* Moves the selection of the current view by delta rows. */
static unsigned move(vstate *st, int delta)
{
	int n = list_len(st);
	switch (st->view) {
	case VIEW_DEVICES:
	case VIEW_TIMELINE:
	case VIEW_MEMORY:
		select_device(st, add_clamp(st->dev, delta, 0, DP_MAX_DEVICES));
		break;
	case VIEW_CRITICAL:
		st->cp_cursor = add_clamp(st->cp_cursor, delta, 0, n - 1);
		st->cp_scroll = view_scroll_for(st->cp_cursor, st->cp_scroll,
						page(st), n);
		break;
	case VIEW_OPS: {
		int c = add_clamp((int)st->ops_cursor, delta, 0, n - 1);
		st->ops_cursor = (uint32_t)(c < 0 ? 0 : c);
		st->ops_scroll = (uint32_t)view_scroll_for(
			(int)st->ops_cursor, (int)st->ops_scroll, page(st), n);
		break;
	}
	case VIEW_OP:
		st->op_scroll = add_clamp(st->op_scroll, delta, 0, 1 << 30);
		break;
	case VIEW_COMPARE:
		st->cmp_cursor = add_clamp(st->cmp_cursor, delta, 0, n - 1);
		break;
	case VIEW_HELP:
		st->help_scroll =
			add_clamp(st->help_scroll, delta, 0, view_help_lines());
		break;
	}
	return AR_REDRAW;
}

/* Scrolls the time window by a quarter of its width. */
static void scroll_time(vstate *st, int dir)
{
	double w = 1.0 / st->tl_zoom;
	double l = st->tl_left + dir * w / 4;
	if (l > 1 - w)
		l = 1 - w;
	st->tl_left = l < 0 ? 0 : l;
}

static void zoom(vstate *st, bool in)
{
	int z = st->tl_zoom;
	int nz = in ? (z < ZOOM_MAX ? z * 2 : z) : (z > 1 ? z / 2 : 1);
	double center = st->tl_left + 0.5 / z;
	double l = center - 0.5 / nz;
	if (l > 1 - 1.0 / nz)
		l = 1 - 1.0 / nz;
	st->tl_zoom = nz;
	st->tl_left = l < 0 ? 0 : l;
}

static unsigned sideways(vstate *st, int dir)
{
	if (st->view == VIEW_TIMELINE || st->view == VIEW_MEMORY)
		scroll_time(st, dir);
	else
		select_device(st, st->dev + dir);
	return AR_REDRAW;
}

static unsigned enter(vstate *st)
{
	switch (st->view) {
	case VIEW_OPS:
		if (st->ops_cursor < st->ops_n) {
			st->op = st->ops_idx[st->ops_cursor];
			st->op_scroll = 0;
			set_view(st, VIEW_OP);
		}
		break;
	case VIEW_CRITICAL:
		if (st->plan && st->cp_cursor < (int)st->plan->sim.cp_len) {
			st->op = st->plan->sim.cp_ops[st->cp_cursor];
			st->op_scroll = 0;
			set_view(st, VIEW_OP);
		}
		break;
	case VIEW_COMPARE: {
		const cmp_row *row = &st->cmp[st->cmp_cursor];
		if (row->status != CMP_DONE) {
			state_status(st, true, "%s has no result to adopt yet",
				     row->algo->name);
			return AR_REDRAW;
		}
		const char *name = row->algo->name;
		if (state_compare_adopt(st, st->cmp_cursor)) {
			state_status(st, false, "adopted %s", name);
			return AR_REDRAW | AR_CANCEL_PLAN;
		}
		state_status(st, false, "%s: rerunning on the current settings",
			     name);
		return AR_REDRAW | AR_RERUN;
	}
	default:
		break;
	}
	return AR_REDRAW;
}

static unsigned escape(vstate *st)
{
	if (st->view == VIEW_HELP) {
		st->view = st->back;
		return AR_REDRAW;
	}
	/* the file job first: it is what the user asked for last, and a
	 * second Esc still reaches the rerun */
	if (st->file_job != PROMPT_NONE && !st->file_cancelling)
		return AR_REDRAW | AR_CANCEL_FILE;
	if (st->running || st->comparing)
		return AR_REDRAW | AR_CANCEL;
	if (st->view == VIEW_OP) {
		st->view = st->back == VIEW_OP ? VIEW_OPS : st->back;
		return AR_REDRAW;
	}
	st->status[0] = '\0';
	return AR_REDRAW;
}

static unsigned sort_change(vstate *st, int dir)
{
	if (st->view != VIEW_OPS)
		set_view(st, VIEW_OPS);
	if (dir == 0)
		st->sort_desc = !st->sort_desc;
	else
		st->sort =
			(ops_sort)((st->sort + SORT_COUNT + dir) % SORT_COUNT);
	st->ops_dirty = true;
	state_status(st, false, "sorted by %s%s", ops_sort_name(st->sort),
		     st->sort_desc ? ", descending" : "");
	return AR_REDRAW;
}

static unsigned file_prompt(vstate *st, prompt_kind k)
{
	char def[512];
	const char *name = st->g->name && st->g->name[0] ? st->g->name : "plan";
	if (k != PROMPT_OPEN && !st->plan) {
		state_status(st, true, "no plan yet to %s",
			     k == PROMPT_SAVE ? "save" : "export");
		return AR_REDRAW;
	}
	/* one file job at a time (Graphviz is not thread-safe); saving is
	 * quick and runs at once */
	if (k != PROMPT_SAVE && st->file_job != PROMPT_NONE) {
		/* short: it shares the line with the job's progress */
		state_status(st, true, "busy %s: Esc cancels it first",
			     st->file_job == PROMPT_OPEN ? "opening"
							 : "exporting");
		return AR_REDRAW;
	}
	switch (k) {
	case PROMPT_SAVE:
		snprintf(def, sizeof def, "%s.placement.json", name);
		prompt_open(st, k, "Save placement to: ", def);
		break;
	case PROMPT_EXPORT:
		snprintf(def, sizeof def, "%s.dot", name);
		prompt_open(st, k,
			    "Export to (.dot .svg .json .place .csv): ", def);
		break;
	default:
		prompt_open(st, k,
			    "Open graph: ", st->g->source ? st->g->source : "");
		break;
	}
	return AR_REDRAW;
}

unsigned actions_run(vstate *st, key_action act, int key)
{
	char a[32];
	switch (act) {
	case ACT_NONE:
	case ACT_COUNT:
		return 0;
	case ACT_QUIT:
		return AR_QUIT;
	case ACT_HELP:
		if (st->view == VIEW_HELP)
			st->view = st->back;
		else
			set_view(st, VIEW_HELP);
		return AR_REDRAW;
	case ACT_REDRAW:
		return AR_REDRAW | AR_FULL_REDRAW;
	case ACT_NEXT_VIEW:
	case ACT_PREV_VIEW: {
		int v = st->view == VIEW_HELP ? (int)st->back : (int)st->view;
		v = (v + VIEW_COUNT + (act == ACT_NEXT_VIEW ? 1 : -1)) %
		    VIEW_COUNT;
		return show_view(st, (view_id)v);
	}
	case ACT_VIEW:
		if (key >= '1' && key < '1' + VIEW_COUNT)
			return show_view(st, (view_id)(key - '1'));
		return 0;
	case ACT_ENTER:
		return enter(st);
	case ACT_ESCAPE:
		return escape(st);
	case ACT_UP:
		return move(st, -1);
	case ACT_DOWN:
		return move(st, 1);
	case ACT_LEFT:
		return sideways(st, -1);
	case ACT_RIGHT:
		return sideways(st, 1);
	case ACT_PAGE_UP:
		if (st->view == VIEW_MEMORY) {
			st->mem_scroll = add_clamp(st->mem_scroll, -page(st), 0,
						   1 << 30);
			return AR_REDRAW;
		}
		return move(st, -page(st));
	case ACT_PAGE_DOWN:
		if (st->view == VIEW_MEMORY) {
			st->mem_scroll =
				add_clamp(st->mem_scroll, page(st), 0, 1 << 30);
			return AR_REDRAW;
		}
		return move(st, page(st));
	case ACT_TOP:
	case ACT_BOTTOM:
		if (st->view == VIEW_TIMELINE || st->view == VIEW_MEMORY) {
			st->tl_left = act == ACT_TOP ? 0 : 1.0;
			scroll_time(st, 0);
			return AR_REDRAW;
		}
		return move(st, act == ACT_TOP ? -(1 << 30) : (1 << 30));
	case ACT_ZOOM_IN:
	case ACT_ZOOM_OUT:
		zoom(st, act == ACT_ZOOM_IN);
		if (st->view != VIEW_TIMELINE && st->view != VIEW_MEMORY)
			set_view(st, VIEW_TIMELINE);
		return AR_REDRAW;
	case ACT_DEV_ADD:
		return settings_devices(st, 1);
	case ACT_DEV_REMOVE:
		return settings_devices(st, -1);
	case ACT_CAP_LOWER:
		return settings_cap_step(st, false);
	case ACT_CAP_RAISE:
		return settings_cap_step(st, true);
	case ACT_CAP_TYPE: {
		if (st->dev >= st->m.k)
			return AR_REDRAW;
		char label[96];
		snprintf(label, sizeof label,
			 "Cap for GPU%d (e.g. 16GiB, 800MB, inf): ", st->dev);
		prompt_open(st, PROMPT_CAP, label,
			    fmt_size_input(st->m.cap[st->dev], a, sizeof a));
		return AR_REDRAW;
	}
	case ACT_CAP_TYPE_ALL:
		prompt_open(st, PROMPT_CAP_ALL,
			    "Caps for all devices (16GiB, or 16GiB,8GiB,...): ",
			    fmt_size_input(st->m.cap[0], a, sizeof a));
		return AR_REDRAW;
	case ACT_BW_LOWER:
	case ACT_BW_RAISE:
		return settings_bandwidth(st, act == ACT_BW_RAISE);
	case ACT_ALGO_NEXT:
		return settings_algo(st, 1);
	case ACT_ALGO_PREV:
		return settings_algo(st, -1);
	case ACT_CONTENTION:
		return settings_contention(st);
	case ACT_RERUN:
		if (st->view == VIEW_COMPARE) {
			state_compare_reset(st);
			st->cmp_valid = true;
			return AR_REDRAW | AR_COMPARE;
		}
		st->status[0] = '\0';
		return AR_REDRAW | AR_RERUN;
	case ACT_SEARCH:
		set_view(st, VIEW_OPS);
		prompt_open(st, PROMPT_SEARCH, "Search: ", st->search);
		return AR_REDRAW;
	case ACT_SEARCH_NEXT:
	case ACT_SEARCH_PREV:
		set_view(st, VIEW_OPS);
		return prompt_search(st, act == ACT_SEARCH_NEXT ? 1 : -1,
				     false);
	case ACT_FILTER:
		set_view(st, VIEW_OPS);
		prompt_open(st, PROMPT_FILTER,
			    "Filter (name, type or layer): ", st->filter);
		return AR_REDRAW;
	case ACT_SORT_NEXT:
		return sort_change(st, 1);
	case ACT_SORT_PREV:
		return sort_change(st, -1);
	case ACT_SORT_INVERT:
		return sort_change(st, 0);
	case ACT_SAVE:
		return file_prompt(st, PROMPT_SAVE);
	case ACT_EXPORT:
		return file_prompt(st, PROMPT_EXPORT);
	case ACT_OPEN:
		return file_prompt(st, PROMPT_OPEN);
	}
	return 0;
}

unsigned actions_key(vstate *st, int key)
{
	if (key == VK_RESIZE)
		return AR_REDRAW;
	if (st->prompt != PROMPT_NONE)
		return prompt_key(st, key);
	const key_binding *b = keys_find(key);
	if (!b)
		return 0;
	return actions_run(st, b->act, key);
}

unsigned actions_mouse(vstate *st, int w, int h, int x, int y, mouse_kind kind)
{
	if (st->prompt != PROMPT_NONE)
		return 0;
	if (kind == MOUSE_WHEEL_UP || kind == MOUSE_WHEEL_DOWN) {
		int dir = kind == MOUSE_WHEEL_UP ? -1 : 1;
		if (st->view == VIEW_TIMELINE || st->view == VIEW_MEMORY) {
			scroll_time(st, dir);
			return AR_REDRAW;
		}
		return move(st, 3 * dir);
	}
	vhit hit = screen_hit(st, w, h, x, y);
	switch (hit.kind) {
	case HIT_DEVICE:
		select_device(st, hit.index);
		return AR_REDRAW;
	case HIT_TAB:
		return show_view(st, (view_id)hit.index);
	case HIT_FKEY: {
		const key_binding *b = keys_fkey(hit.index);
		return b ? actions_run(st, b->act, VK_F1 + hit.index - 1) : 0;
	}
	case HIT_MAIN:
	case HIT_NONE:
		break;
	}
	return 0;
}

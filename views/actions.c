/* actions.c - key and mouse actions on the state (see actions.h). What a
 * key does in a particular view comes from the view's class (view.h);
 * settings changes from settings.c; prompts from prompt.c. */
#include "actions.h"

#include <stdio.h>

#include "fmt.h"
#include "pins.h"
#include "prompt.h"
#include "screen.h"
#include "settings.h"
#include "view.h"

/* ---- movement, through the view's class ---- */

/* The view on screen and its list, as drawn on a w x h screen. */
typedef struct nav {
	const view_class *c;
	vrect r;
	view_list l;
} nav;

static nav nav_at(const vstate *st, int w, int h)
{
	nav n;
	n.c = view_current(st);
	n.r = screen_main(st, w, h);
	n.c->list(st, n.r, &n.l);
	return n;
}

/* Row v of a list whose last row is last. */
static int clamp_row(long long v, int last)
{
	return v < 0 ? 0 : v > last ? last : (int)v;
}

/* Moves the cursor by delta rows, within the list, from where it is drawn
 * (a resize or a new plan can leave the state's position past the end). */
static unsigned move(vstate *st, const nav *n, long long delta)
{
	if (n->l.rows < 1)
		return AR_REDRAW;
	int last = n->l.rows - 1;
	n->c->seek(st, clamp_row(clamp_row(n->l.cursor, last) + delta, last),
		   &n->l);
	return AR_REDRAW;
}

static unsigned page(vstate *st, const nav *n, int dir)
{
	if (n->c->page) {
		n->c->page(st, n->r, dir);
		return AR_REDRAW;
	}
	return move(st, n, (long long)dir * n->l.shown);
}

static unsigned ends(vstate *st, const nav *n, int dir)
{
	if (n->c->ends) {
		n->c->ends(st, dir);
		return AR_REDRAW;
	}
	return move(st, n, dir < 0 ? -(long long)n->l.rows : n->l.rows);
}

static unsigned sideways(vstate *st, int dir)
{
	const view_class *c = view_current(st);
	if (c->sideways)
		c->sideways(st, dir);
	else
		view_select_device(st, st->dev + dir);
	return AR_REDRAW;
}

static unsigned wheel(vstate *st, const nav *n, int dir)
{
	if (n->c->wheel) {
		n->c->wheel(st, dir);
		return AR_REDRAW;
	}
	return move(st, n, 3 * dir);
}

/* Up, Down, PgUp, PgDn, Home, End. */
static unsigned navigate(vstate *st, int w, int h, key_action act)
{
	nav n = nav_at(st, w, h);
	switch (act) {
	case ACT_UP:
		return move(st, &n, -1);
	case ACT_DOWN:
		return move(st, &n, 1);
	case ACT_PAGE_UP:
		return page(st, &n, -1);
	case ACT_PAGE_DOWN:
		return page(st, &n, 1);
	case ACT_TOP:
		return ends(st, &n, -1);
	default:
		return ends(st, &n, 1);
	}
}

static unsigned enter(vstate *st)
{
	const view_class *c = view_current(st);
	return AR_REDRAW | (c->enter ? c->enter(st) : 0);
}

static unsigned escape(vstate *st)
{
	/* help closes first: it is over everything, the jobs included */
	if (st->view == VIEW_HELP) {
		view_leave(st);
		return AR_REDRAW;
	}
	/* the file job first: it is what the user asked for last, and a
	 * second Esc still reaches the rerun */
	if (st->file_job != PROMPT_NONE && !st->file_cancelling)
		return AR_REDRAW | AR_CANCEL_FILE;
	if (st->running || st->comparing || st->fitting)
		return AR_REDRAW | AR_CANCEL;
	if (view_current(st)->stacked) {
		view_leave(st);
		return AR_REDRAW;
	}
	st->status[0] = '\0';
	return AR_REDRAW;
}

/* Tab and Shift-Tab: from help, from the view under it. */
static unsigned next_view(vstate *st, int dir)
{
	/* help and diff are not tabs: from the view under them */
	int v = st->view >= VIEW_COUNT ? (int)st->back : (int)st->view;
	return view_show(st, (view_id)((v + VIEW_COUNT + dir) % VIEW_COUNT));
}

/* ---- the Ops view's keys, from any view ---- */

static unsigned sort_change(vstate *st, int dir)
{
	view_show(st, VIEW_OPS);
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

/* ---- prompts ---- */

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
		prompt_open(st, k, "Save placement to (.json .place): ", def);
		break;
	case PROMPT_EXPORT:
		snprintf(def, sizeof def, "%s.dot", name);
		prompt_open(st, k, "", def);
		prompt_export_label(st);
		break;
	default:
		prompt_open(st, k,
			    "Open graph: ", st->g->source ? st->g->source : "");
		break;
	}
	return AR_REDRAW;
}

static unsigned cap_prompt(vstate *st, bool all)
{
	char a[32], label[96];
	if (all) {
		prompt_open(st, PROMPT_CAP_ALL,
			    "Caps for all devices (16GiB, or 16GiB,8GiB,...): ",
			    fmt_size_input(st->m.cap[0], a, sizeof a));
		return AR_REDRAW;
	}
	if (st->dev >= st->m.k)
		return AR_REDRAW;
	snprintf(label, sizeof label,
		 "Cap for GPU%d (e.g. 16GiB, 800MB, inf): ", st->dev);
	prompt_open(st, PROMPT_CAP, label,
		    fmt_size_input(st->m.cap[st->dev], a, sizeof a));
	return AR_REDRAW;
}

/* p and P: the device of the selected op or of its layer. */
static unsigned pin_prompt(vstate *st, bool layer)
{
	char label[96];
	uint32_t u = pins_prompt_label(st, layer, label, sizeof label);
	if (u == UINT32_MAX)
		return AR_REDRAW;
	st->pin_op = u;
	prompt_open(st, layer ? PROMPT_LAYER : PROMPT_PIN, label, "");
	return AR_REDRAW;
}

/* r: what the view reruns, or the plan. */
static unsigned rerun(vstate *st)
{
	const view_class *c = view_current(st);
	if (c->rerun)
		return AR_REDRAW | c->rerun(st);
	st->status[0] = '\0';
	return AR_REDRAW | AR_RERUN;
}

unsigned actions_run(vstate *st, int w, int h, key_action act, int key)
{
	switch (act) {
	case ACT_NONE:
	case ACT_COUNT:
		return 0;
	case ACT_QUIT:
		return AR_QUIT;
	case ACT_HELP:
		if (st->view == VIEW_HELP) {
			view_leave(st);
			return AR_REDRAW;
		}
		return view_show(st, VIEW_HELP);
	case ACT_REDRAW:
		return AR_REDRAW | AR_FULL_REDRAW;
	case ACT_NEXT_VIEW:
	case ACT_PREV_VIEW:
		return next_view(st, act == ACT_NEXT_VIEW ? 1 : -1);
	case ACT_VIEW:
		if (key >= '1' && key < '1' + VIEW_COUNT)
			return view_show(st, (view_id)(key - '1'));
		return 0;
	case ACT_ENTER:
		return enter(st);
	case ACT_ESCAPE:
		return escape(st);
	case ACT_UP:
	case ACT_DOWN:
	case ACT_PAGE_UP:
	case ACT_PAGE_DOWN:
	case ACT_TOP:
	case ACT_BOTTOM:
		return navigate(st, w, h, act);
	case ACT_LEFT:
	case ACT_RIGHT:
		return sideways(st, act == ACT_RIGHT ? 1 : -1);
	case ACT_ZOOM_IN:
	case ACT_ZOOM_OUT:
		if (!view_current(st)->zoom)
			view_show(st, VIEW_TIMELINE);
		view_current(st)->zoom(st, act == ACT_ZOOM_IN);
		return AR_REDRAW;
	case ACT_DEV_ADD:
	case ACT_DEV_REMOVE:
		return settings_devices(st, act == ACT_DEV_ADD ? 1 : -1);
	case ACT_CAP_LOWER:
	case ACT_CAP_RAISE:
		return settings_cap_step(st, act == ACT_CAP_RAISE);
	case ACT_CAP_TYPE:
	case ACT_CAP_TYPE_ALL:
		return cap_prompt(st, act == ACT_CAP_TYPE_ALL);
	case ACT_RESERVE: {
		char b[32];
		prompt_open(
			st, PROMPT_RESERVE,
			"Reserve per device for the framework (1GiB, 5%, "
			"none): ",
			st->m.reserve_frac > 0
				? dp_machine_reserve_text(&st->m, b, sizeof b)
			: st->m.reserve_bytes > 0
				? fmt_size_input(st->m.reserve_bytes, b,
						 sizeof b)
				: "");
		return AR_REDRAW;
	}
	case ACT_BW_LOWER:
	case ACT_BW_RAISE:
		return settings_bandwidth(st, act == ACT_BW_RAISE);
	case ACT_MB_LOWER:
	case ACT_MB_RAISE:
		return settings_microbatches(st, act == ACT_MB_RAISE);
	case ACT_SCHEDULE:
		return settings_schedule(st);
	case ACT_BATCH_LOWER:
	case ACT_BATCH_RAISE:
		return settings_batch(st, act == ACT_BATCH_RAISE);
	case ACT_PRECISION:
	case ACT_RECOMPUTE:
		return settings_lever(st, act == ACT_RECOMPUTE);
	case ACT_ALGO_NEXT:
	case ACT_ALGO_PREV:
		return settings_algo(st, act == ACT_ALGO_NEXT ? 1 : -1);
	case ACT_CONTENTION:
		return settings_contention(st);
	case ACT_RERUN:
		return rerun(st);
	case ACT_FIT:
		state_status(st, false, "searching what fits for GPU%d...",
			     st->dev);
		return AR_REDRAW | AR_FIT;
	case ACT_SEARCH:
		view_show(st, VIEW_OPS);
		prompt_open(st, PROMPT_SEARCH, "Search: ", st->search);
		return AR_REDRAW;
	case ACT_SEARCH_NEXT:
	case ACT_SEARCH_PREV:
		view_show(st, VIEW_OPS);
		return prompt_search(st, act == ACT_SEARCH_NEXT ? 1 : -1,
				     false);
	case ACT_FILTER:
		view_show(st, VIEW_OPS);
		prompt_open(st, PROMPT_FILTER,
			    "Filter (name, type or layer): ", st->filter);
		return AR_REDRAW;
	case ACT_SORT_NEXT:
	case ACT_SORT_PREV:
	case ACT_SORT_INVERT:
		return sort_change(st, act == ACT_SORT_NEXT   ? 1
				       : act == ACT_SORT_PREV ? -1
							      : 0);
	case ACT_SAVE:
		return file_prompt(st, PROMPT_SAVE);
	case ACT_EXPORT:
		return file_prompt(st, PROMPT_EXPORT);
	case ACT_OPEN:
		return file_prompt(st, PROMPT_OPEN);
	case ACT_PIN:
	case ACT_PIN_LAYER:
		return pin_prompt(st, act == ACT_PIN_LAYER);
	case ACT_UNPIN:
	case ACT_UNPIN_ALL:
		return pins_unpin(st, act == ACT_UNPIN_ALL);
	case ACT_DIFF:
		if (st->view == VIEW_DIFF) {
			view_leave(st);
			return AR_REDRAW;
		}
		return view_show(st, VIEW_DIFF);
	}
	return 0;
}

unsigned actions_key(vstate *st, int w, int h, int key)
{
	if (key == VK_RESIZE)
		return AR_REDRAW;
	if (st->prompt != PROMPT_NONE)
		return prompt_key(st, key);
	const key_binding *b = keys_find(key);
	if (!b)
		return 0;
	return actions_run(st, w, h, b->act, key);
}

void actions_confirm_overwrite(vstate *st, prompt_kind k, const char *path)
{
	prompt_confirm(st, k, path);
}

unsigned actions_mouse(vstate *st, int w, int h, int x, int y, mouse_kind kind)
{
	if (st->prompt != PROMPT_NONE)
		return 0;
	if (kind == MOUSE_WHEEL_UP || kind == MOUSE_WHEEL_DOWN) {
		nav n = nav_at(st, w, h);
		return wheel(st, &n, kind == MOUSE_WHEEL_UP ? -1 : 1);
	}
	vhit hit = screen_hit(st, w, h, x, y);
	switch (hit.kind) {
	case HIT_DEVICE:
		view_select_device(st, hit.index);
		return AR_REDRAW;
	case HIT_TAB:
		return view_show(st, (view_id)hit.index);
	case HIT_FKEY: {
		const key_binding *b = keys_fkey(hit.index);
		return b ? actions_run(st, w, h, b->act, VK_F1 + hit.index - 1)
			 : 0;
	}
	case HIT_MAIN:
	case HIT_NONE:
		break;
	}
	return 0;
}

/* view_diff.c - the plan on screen against the one before it (d): the
 * makespan, each device's peak and the ops that moved, by the user's ops
 * (a strategy's shards and micro-batches count as their op; an op spread
 * over several devices is "split"). The cache of moved ops is built by
 * state_prepare. Not a tab: d opens it over the view on screen and d or
 * Esc goes back. */
#include <stdio.h>

#include "dnnpart/units.h"
#include "view_common.h"

/* Rows above the moved-op list: title, makespan, the device table's
 * header and its rows, the list's header. */
static int diff_head_rows(const vstate *st)
{
	int k = st->plan ? st->plan->sim.k : 0;
	if (st->prev && st->prev->sim.k > k)
		k = st->prev->sim.k;
	return 4 + k;
}

static void diff_list(const vstate *st, vrect r, view_list *l)
{
	int rows = st->plan && st->prev ? (int)st->moved_n : 0;
	view_list_cursor(l, rows, r.h - diff_head_rows(st), st->diff_cursor,
			 st->diff_scroll);
}

static void diff_seek(vstate *st, int row, const view_list *l)
{
	st->diff_cursor = row;
	st->diff_scroll =
		view_scroll_for(row, st->diff_scroll, l->shown, l->rows);
}

static unsigned diff_enter(vstate *st)
{
	if (!st->plan || !st->prev || st->diff_cursor < 0 ||
	    (uint32_t)st->diff_cursor >= st->moved_n)
		return AR_REDRAW;
	return view_open_op(st, st->agg_first[st->moved[st->diff_cursor]]);
}

/* "GPU2", "split" (on several devices) or "-" (not on that plan). */
static const char *dev_name(int32_t d, char *buf, int size)
{
	if (d >= 0)
		snprintf(buf, (size_t)size, "GPU%d", d);
	else
		snprintf(buf, (size_t)size, "split");
	return buf;
}

/* What made the plan: its algorithm or strategy, K. */
static void plan_label(const dp_plan *p, char *buf, size_t size)
{
	snprintf(buf, size, "%.31s%s%.40s K=%d", p->algo,
		 p->strategy[0] ? " " : "", p->strategy, p->k);
}

/* "+1.20 GiB", "-300 MiB", "same". */
static void bytes_change(int64_t before, int64_t after, char *buf, int size)
{
	char a[32];
	if (before == after) {
		snprintf(buf, (size_t)size, "same");
		return;
	}
	int64_t d = after - before;
	snprintf(buf, (size_t)size, "%c%s", d > 0 ? '+' : '-',
		 dp_units_fmt_bytes(d > 0 ? d : -d, a, sizeof a));
}

static void devices_table(const vstate *st, vgrid *g, vrect r, int y)
{
	const dp_plan *p = st->plan, *q = st->prev;
	char a[32], b[32], c[32], in[16], out[16];
	const view_col head[] = {{"Dev", 7},	     {"peak before", 13},
				 {"peak after", 13}, {"change", 12},
				 {"ops in", 8},	     {"ops out", 8}};
	view_table_head(g, r, y, head, 6);
	int k = p->sim.k > q->sim.k ? p->sim.k : q->sim.k;
	/* ops that came to each device, and that left it: one pass */
	uint32_t nin[DP_MAX_DEVICES] = {0}, nout[DP_MAX_DEVICES] = {0};
	for (uint32_t i = 0; i < st->moved_n; i++) {
		uint32_t u = st->moved[i];
		if (st->agg_dev[u] >= 0 && st->agg_dev[u] < DP_MAX_DEVICES)
			nin[st->agg_dev[u]]++;
		if (st->prev_dev[u] >= 0 && st->prev_dev[u] < DP_MAX_DEVICES)
			nout[st->prev_dev[u]]++;
	}
	/* the rows that fit in r */
	for (int d = 0; d < k && d < DP_MAX_DEVICES && y + 1 + d < r.y + r.h;
	     d++) {
		int64_t pb = d < q->sim.k ? q->sim.dev[d].peak_bytes : 0;
		int64_t pa = d < p->sim.k ? p->sim.dev[d].peak_bytes : 0;
		int x = r.x, yy = y + 1 + d;
		snprintf(a, sizeof a, "GPU%d", d);
		view_cell(g, &x, yy, 7, d == st->dev ? ST_SELECTED : ST_NORMAL,
			  a);
		view_cell(g, &x, yy, 13, ST_NORMAL,
			  d < q->sim.k ? dp_units_fmt_bytes(pb, a, sizeof a)
				       : "-");
		view_cell(g, &x, yy, 13, ST_NORMAL,
			  d < p->sim.k ? dp_units_fmt_bytes(pa, b, sizeof b)
				       : "-");
		bytes_change(pb, pa, c, sizeof c);
		view_cell(g, &x, yy, 12,
			  pa > pb   ? ST_BAR_WARN
			  : pa < pb ? ST_OK
				    : ST_DIM,
			  c);
		snprintf(in, sizeof in, "%u", nin[d]);
		snprintf(out, sizeof out, "%u", nout[d]);
		view_cell(g, &x, yy, 8, nin[d] ? ST_NORMAL : ST_DIM, in);
		view_cell(g, &x, yy, 8, nout[d] ? ST_NORMAL : ST_DIM, out);
	}
}

static void diff_draw(const vstate *st, vgrid *g, vrect r)
{
	const dp_plan *p = st->plan, *q = st->prev;
	char buf[320], a[32], b[32], la[96], lb[96];
	if (!q) {
		view_message(g, r, ST_DIM,
			     "no plan before this one yet: change a setting "
			     "or pin an op (p), then d compares");
		return;
	}
	plan_label(q, lb, sizeof lb);
	plan_label(p, la, sizeof la);
	snprintf(buf, sizeof buf, "Diff: before %s  \xe2\x86\x92  after %s%s",
		 lb, la, state_plan_stale(st) ? "  (a rerun is pending)" : "");
	grid_puts(g, r.x, r.y, r.w, ST_HEADER, buf);
	if (r.h < 2)
		return;
	double mb = q->sim.makespan, ma = p->sim.makespan;
	char pct[48] = "";
	if (mb > 0)
		dp_units_fmt_c(pct, sizeof pct, " (%+.1f %%)",
			       100.0 * (ma - mb) / mb);
	snprintf(buf, sizeof buf,
		 "makespan %s \xe2\x86\x92 %s%s  %s \xe2\x86\x92 %s  moved %u "
		 "of %u ops",
		 dp_units_fmt_time(mb, a, sizeof a),
		 dp_units_fmt_time(ma, b, sizeof b), pct,
		 q->feasible ? "feasible" : "INFEASIBLE",
		 p->feasible ? "feasible" : "INFEASIBLE", st->moved_n,
		 st->g->nops);
	grid_puts(g, r.x, r.y + 1, r.w,
		  ma < mb   ? ST_OK
		  : ma > mb ? ST_BAR_WARN
			    : ST_NORMAL,
		  buf);
	if (r.h < 3)
		return;
	devices_table(st, g, r, r.y + 2);
	int y = r.y + diff_head_rows(st) - 1;
	if (y >= r.y + r.h)
		return;
	/* room at the right for the scroll note */
	const view_col head[] = {{"moved op", r.w - 60 > 12 ? r.w - 60 : 12},
				 {"type", 14},
				 {"from", 8},
				 {"to", 8},
				 {"start", 10}};
	view_table_head(g, r, y, head, 5);
	if (!st->moved_n) {
		if (y + 1 < r.y + r.h)
			view_message(g, (vrect){r.x, y + 1, r.w, 1}, ST_DIM,
				     "no op moved");
		return;
	}
	view_list l;
	diff_list(st, r, &l);
	int cur = st->diff_cursor < l.rows ? st->diff_cursor : l.rows - 1;
	for (int i = 0; i < l.shown && l.top + i < l.rows; i++) {
		uint32_t u = st->moved[l.top + i];
		int yy = y + 1 + i, x = r.x;
		bool sel = l.top + i == cur;
		vstyle s = sel ? ST_SELECTED : ST_NORMAL;
		if (sel)
			view_select_row(g, r, yy);
		view_cell(g, &x, yy, head[0].w, s, dp_graph_op_name(st->g, u));
		view_cell(g, &x, yy, 14, sel ? s : ST_DIM,
			  dp_graph_str(st->g, st->g->ops[u].type));
		view_cell(g, &x, yy, 8, s,
			  dev_name(st->prev_dev[u], a, sizeof a));
		view_cell(g, &x, yy, 8, s,
			  dev_name(st->agg_dev[u], b, sizeof b));
		view_cell(g, &x, yy, 10, s,
			  dp_units_fmt_time(st->agg_start[u], a, sizeof a));
	}
	view_scroll_note(g, r, y, l.top, l.shown, l.rows);
}

/* a class reads best with its hooks side by side */
/* clang-format off */
const view_class view_diff_class = {
	VIEW_CLASS(VIEW_DIFF, "diff", "Diff", "Diff",
		   diff_draw, diff_list, diff_seek),
	.needs_plan = true, .stacked = true, .home = VIEW_DEVICES,
	.enter = diff_enter,
};
/* clang-format on */

/* view_critical.c - the schedule's critical path: the ops that made the
 * step as long as it is, in order, with the device, start, duration, the
 * gap before each op and its cause (docs/simulator.md, "Critical paths":
 * data, transfer, or waiting for the device). */
#include <stdio.h>

#include "dnnpart/units.h"
#include "view_common.h"

static vstyle cause_style(dp_hop_cause c)
{
	switch (c) {
	case DP_HOP_TRANSFER:
		return ST_BAR_WARN;
	case DP_HOP_DEVICE:
		return ST_CRITICAL;
	default:
		return ST_DIM;
	}
}

/* Rows are runs of hops of one source op (state_prepare): one hop each
 * for a placement; a strategy's shards and micro-batches of one op in a
 * row are one row. */
static void critical_list(const vstate *st, vrect r, view_list *l)
{
	int n = st->plan ? (int)st->cpg_n : 0;
	view_list_cursor(l, n, r.h - 2, st->cp_cursor, st->cp_scroll);
}

static void critical_seek(vstate *st, int row, const view_list *l)
{
	st->cp_cursor = row;
	st->cp_scroll = view_scroll_for(row, st->cp_scroll, l->shown, l->rows);
}

static unsigned critical_enter(vstate *st)
{
	if (st->plan && st->cp_cursor < (int)st->cpg_n)
		return view_open_op(
			st, st->plan->sim.cp_ops[st->cpg_first[st->cp_cursor]]);
	return AR_REDRAW;
}

static void critical_draw(const vstate *st, vgrid *g, vrect r)
{
	const dp_plan *p = st->plan;
	const dp_sim_result *s = &p->sim;
	char buf[256], a[32], b[32];
	uint32_t n = s->cp_len;
	if (n == 0 || !s->cp_ops) {
		view_message(g, r, ST_DIM, "this plan has no critical path");
		return;
	}
	uint32_t nx = 0, nd = 0, moves = 0;
	for (uint32_t i = 0; i < n; i++) {
		nx += s->cp_cause[i] == DP_HOP_TRANSFER;
		nd += s->cp_cause[i] == DP_HOP_DEVICE;
		if (i && p->placement[s->cp_ops[i]] !=
				 p->placement[s->cp_ops[i - 1]])
			moves++;
	}
	snprintf(buf, sizeof buf,
		 "%u ops; waited %u\xc3\x97 for a transfer, %u\xc3\x97 for the "
		 "device; %u device changes; ends at %s (graph CP %s)",
		 n, nx, nd, moves, dp_units_fmt_time(s->makespan, b, sizeof b),
		 dp_units_fmt_time(p->bounds.graph_cp_us, a, sizeof a));
	grid_puts(g, r.x, r.y, r.w, ST_NORMAL, buf);
	if (r.h < 3)
		return;
	int wi = 6, wt = 10, wd = 7, wc = 9;
	const view_col head[] = {
		{"#", wi},
		{"start", wt},
		{"duration", wt},
		{"gap", wt},
		{"device", wd},
		{"cause", wc},
		{"op", r.w - wi - 3 * wt - wd - wc},
	};
	view_table_head(g, r, r.y + 1, head, 7);
	view_list l;
	critical_list(st, r, &l);
	const dp_graph *pg = state_plan_graph(st);
	uint32_t nrow = st->cpg_n;
	int first = l.top, rows = l.shown;
	int cur = st->cp_cursor < (int)nrow ? st->cp_cursor : (int)nrow - 1;
	vstyle num = state_plan_stale(st) ? ST_STALE : ST_NORMAL;
	for (int i = 0; i < rows && first + i < (int)nrow; i++) {
		int row = first + i, y = r.y + 2 + i, x = r.x;
		uint32_t h = st->cpg_first[row];
		uint32_t hn = st->cpg_first[row + 1] - h;
		uint32_t u = s->cp_ops[h], last = s->cp_ops[h + hn - 1];
		double gap = h ? s->start[u] - s->end[s->cp_ops[h - 1]] : 0;
		if (gap < 0)
			gap = 0;
		bool sel = row == cur;
		vstyle ns = sel ? ST_SELECTED : num;
		if (sel)
			view_select_row(g, r, y);
		snprintf(buf, sizeof buf, "%u", h + 1);
		view_cell(g, &x, y, wi, ns, buf);
		view_cell(g, &x, y, wt, ns,
			  dp_units_fmt_time(s->start[u], a, sizeof a));
		view_cell(g, &x, y, wt, ns,
			  dp_units_fmt_time(s->end[last] - s->start[u], a,
					    sizeof a));
		view_cell(g, &x, y, wt, sel ? ns : ST_DIM,
			  h ? dp_units_fmt_time(gap, a, sizeof a) : "");
		snprintf(buf, sizeof buf, "GPU%d", p->placement[u]);
		view_cell(g, &x, y, wd, ns, buf);
		dp_hop_cause c = (dp_hop_cause)s->cp_cause[h];
		view_cell(g, &x, y, wc, sel ? ns : cause_style(c),
			  dp_sim_hop_cause_name(c));
		uint32_t src = dp_plan_source(p, u);
		if (hn > 1)
			snprintf(buf, sizeof buf, "%s  %s  (%u hops: %s ..)",
				 dp_graph_op_name(st->g, src),
				 dp_graph_str(st->g, st->g->ops[src].type), hn,
				 dp_graph_op_name(pg, u));
		else
			snprintf(buf, sizeof buf, "%s  %s",
				 dp_graph_op_name(pg, u),
				 dp_graph_str(pg, pg->ops[u].type));
		grid_puts_fit(g, x, y, head[6].w, ns, buf);
	}
	view_scroll_note(g, r, r.y, first, rows, (int)nrow);
}

/* a class reads best with its hooks side by side */
/* clang-format off */
const view_class view_critical_class = {
	VIEW_CLASS(VIEW_CRITICAL, "critical", "Critical path", "Crit",
		   critical_draw, critical_list, critical_seek),
	.aliases = {"cp", "critical-path"}, .needs_plan = true,
	.enter = critical_enter,
};
/* clang-format on */

/* view_critical.c - the schedule's critical path: the ops that made the
 * step as long as it is, in order, with the device, start, duration, the
 * gap before each op and its cause (DESIGN 3.1: data, transfer, or waiting
 * for the device). */
#include <stdio.h>

#include "dnnpart/units.h"
#include "views.h"

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

void view_critical_draw(const vstate *st, vgrid *g, vrect r)
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
	int y = r.y + 1;
	int wi = 6, wt = 10, wd = 7, wc = 9;
	int wop = r.w - wi - 3 * wt - wd - wc;
	grid_fill(g, (vrect){r.x, y, r.w, 1}, ' ', ST_HEADER);
	int x = r.x;
	grid_puts_fit(g, x, y, wi, ST_HEADER, "#");
	grid_puts_fit(g, x += wi, y, wt, ST_HEADER, "start");
	grid_puts_fit(g, x += wt, y, wt, ST_HEADER, "duration");
	grid_puts_fit(g, x += wt, y, wt, ST_HEADER, "gap");
	grid_puts_fit(g, x += wt, y, wd, ST_HEADER, "device");
	grid_puts_fit(g, x += wd, y, wc, ST_HEADER, "cause");
	grid_puts_fit(g, x += wc, y, wop, ST_HEADER, "op");
	int rows = r.h - 2;
	int cur = st->cp_cursor < (int)n ? st->cp_cursor : (int)n - 1;
	int first = view_scroll_for(cur, st->cp_scroll, rows, (int)n);
	vstyle num = state_plan_stale(st) ? ST_STALE : ST_NORMAL;
	for (int i = 0; i < rows && first + i < (int)n; i++) {
		int h = first + i;
		uint32_t u = s->cp_ops[h];
		double gap = h ? s->start[u] - s->end[s->cp_ops[h - 1]] : 0;
		if (gap < 0)
			gap = 0;
		y = r.y + 2 + i;
		bool sel = h == cur;
		vstyle ns = sel ? ST_SELECTED : num;
		if (sel)
			grid_fill(g, (vrect){r.x, y, r.w, 1}, ' ', ST_SELECTED);
		x = r.x;
		snprintf(buf, sizeof buf, "%d", h + 1);
		grid_puts_fit(g, x, y, wi - 1, ns, buf);
		grid_puts_fit(g, x += wi, y, wt - 1, ns,
			      dp_units_fmt_time(s->start[u], a, sizeof a));
		grid_puts_fit(
			g, x += wt, y, wt - 1, ns,
			dp_units_fmt_time(s->end[u] - s->start[u], a, sizeof a));
		grid_puts_fit(g, x += wt, y, wt - 1, sel ? ns : ST_DIM,
			      h ? dp_units_fmt_time(gap, a, sizeof a) : "");
		snprintf(buf, sizeof buf, "GPU%d", p->placement[u]);
		grid_puts_fit(g, x += wt, y, wd - 1, ns, buf);
		dp_hop_cause c = (dp_hop_cause)s->cp_cause[h];
		grid_puts_fit(g, x += wd, y, wc - 1, sel ? ns : cause_style(c),
			      dp_sim_hop_cause_name(c));
		snprintf(buf, sizeof buf, "%s  %s", graph_op_name(st->g, u),
			 graph_str(st->g, st->g->ops[u].type));
		grid_puts_fit(g, x += wc, y, wop, ns, buf);
	}
	view_scroll_note(g, r, r.y, first, rows, (int)n);
}

/* view_ops.c - every op in a sortable, filterable table (the index is
 * built by state_prepare; `/` searches, `\` filters, `<` `>` sort). */
#include <stdio.h>

#include "dnnpart/units.h"
#include "views.h"

void view_ops_draw(const vstate *st, vgrid *g, vrect r)
{
	const dp_plan *p = st->plan;
	char buf[256], a[32], b[32];
	snprintf(a, sizeof a, "%u", st->ops_n);
	snprintf(buf, sizeof buf, "%s of %u ops", a, st->g->nops);
	int x = r.x + grid_puts(g, r.x, r.y, r.w, ST_NORMAL, buf);
	if (st->filter[0]) {
		snprintf(buf, sizeof buf, "  filter '%s'", st->filter);
		x += grid_puts(g, x, r.y, r.x + r.w - x, ST_BAR_WARN, buf);
	}
	snprintf(buf, sizeof buf, "  sorted by %s %s", ops_sort_name(st->sort),
		 st->sort_desc ? "\xe2\x96\xbc" : "\xe2\x96\xb2");
	x += grid_puts(g, x, r.y, r.x + r.w - x, ST_DIM, buf);
	if (st->search[0]) {
		snprintf(buf, sizeof buf, "  search '%s' (n/N)", st->search);
		grid_puts(g, x, r.y, r.x + r.w - x, ST_DIM, buf);
	}
	if (r.h < 3)
		return;
	int wd = 6, wt = 10, wb = 10, wc = 3;
	int wtype = r.w >= 120 ? 18 : 12;
	int wname = r.w - wtype - wd - 2 * wt - 2 * wb - wc;
	int y = r.y + 1;
	grid_fill(g, (vrect){r.x, y, r.w, 1}, ' ', ST_HEADER);
	static const struct {
		ops_sort key;
		const char *title;
	} heads[] = {
		{SORT_NAME, "op"},	 {SORT_TYPE, "type"},
		{SORT_DEVICE, "dev"},	 {SORT_START, "start"},
		{SORT_DURATION, "dur"},	 {SORT_OUTPUT, "output"},
		{SORT_PARAMS, "params"},
	};
	int widths[] = {wname, wtype, wd, wt, wt, wb, wb};
	x = r.x;
	for (int i = 0; i < 7; i++) {
		snprintf(buf, sizeof buf, "%s%s", heads[i].title,
			 heads[i].key == st->sort
				 ? (st->sort_desc ? "\xe2\x96\xbc"
						  : "\xe2\x96\xb2")
				 : "");
		grid_puts_fit(g, x, y, widths[i], ST_HEADER, buf);
		x += widths[i];
	}
	grid_puts_fit(g, x, y, wc, ST_HEADER, "cp");
	int rows = r.h - 2;
	int n = (int)st->ops_n;
	if (n == 0) {
		view_message(g, (vrect){r.x, y + 1, r.w, rows}, ST_DIM,
			     "no op matches the filter (\\ changes it)");
		return;
	}
	int cur = (int)st->ops_cursor < n ? (int)st->ops_cursor : n - 1;
	int first = view_scroll_for(cur, (int)st->ops_scroll, rows, n);
	vstyle num = state_plan_stale(st) ? ST_STALE : ST_NORMAL;
	for (int i = 0; i < rows && first + i < n; i++) {
		uint32_t u = st->ops_idx[first + i];
		const dp_op *op = &st->g->ops[u];
		bool sel = first + i == cur;
		vstyle ns = sel ? ST_SELECTED : num;
		y = r.y + 2 + i;
		if (sel)
			grid_fill(g, (vrect){r.x, y, r.w, 1}, ' ', ST_SELECTED);
		x = r.x;
		grid_puts_fit(g, x, y, wname - 1, ns, graph_op_name(st->g, u));
		grid_puts_fit(g, x += wname, y, wtype - 1, sel ? ns : ST_DIM,
			      graph_str(st->g, op->type));
		snprintf(buf, sizeof buf, "GPU%d", p->placement[u]);
		grid_puts_fit(g, x += wtype, y, wd - 1, ns, buf);
		grid_puts_fit(g, x += wd, y, wt - 1, ns,
			      dp_units_fmt_time(p->sim.start[u], a, sizeof a));
		grid_puts_fit(g, x += wt, y, wt - 1, ns,
			      dp_units_fmt_time(p->sim.end[u] - p->sim.start[u], a,
					     sizeof a));
		grid_puts_fit(g, x += wt, y, wb - 1, ns,
			      dp_units_fmt_bytes(op->output_bytes, a, sizeof a));
		grid_puts_fit(g, x += wb, y, wb - 1, ns,
			      dp_units_fmt_bytes(op->param_bytes, b, sizeof b));
		if (st->on_cp[u])
			grid_puts(g, x += wb, y, wc, sel ? ns : ST_CRITICAL,
				  "*");
	}
	view_scroll_note(g, r, r.y, first, rows, n);
}

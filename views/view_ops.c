/* view_ops.c - every op in a sortable, filterable table (the index is
 * built by state_prepare; `/` searches, `\` filters, `<` `>` sort). */
#include <stdio.h>

#include "dnnpart/units.h"
#include "view_common.h"

/* ▼ descending, ▲ ascending */
static const char *sort_arrow(const vstate *st)
{
	return st->sort_desc ? "\xe2\x96\xbc" : "\xe2\x96\xb2";
}

static void ops_list(const vstate *st, vrect r, view_list *l)
{
	view_list_cursor(l, (int)st->ops_n, r.h - 2, (int)st->ops_cursor,
			 (int)st->ops_scroll);
}

static void ops_seek(vstate *st, int row, const view_list *l)
{
	st->ops_cursor = (uint32_t)row;
	st->ops_scroll = (uint32_t)view_scroll_for(row, (int)st->ops_scroll,
						   l->shown, l->rows);
}

static unsigned ops_enter(vstate *st)
{
	/* a strategy's op opens its first shard or micro-batch */
	if (st->ops_cursor < st->ops_n)
		return view_open_op(st,
				    st->agg_first[st->ops_idx[st->ops_cursor]]);
	return AR_REDRAW;
}

static void ops_draw(const vstate *st, vgrid *g, vrect r)
{
	char buf[256], a[32], b[32];
	snprintf(a, sizeof a, "%u", st->ops_n);
	snprintf(buf, sizeof buf, "%s of %u ops", a, st->g->nops);
	int x = r.x + grid_puts(g, r.x, r.y, r.w, ST_NORMAL, buf);
	if (st->npins) {
		snprintf(buf, sizeof buf, "  %u pinned (@)", st->npins);
		x += grid_puts(g, x, r.y, r.x + r.w - x, ST_BAR_WARN, buf);
	}
	if (st->filter[0]) {
		snprintf(buf, sizeof buf, "  filter '%s'", st->filter);
		x += grid_puts(g, x, r.y, r.x + r.w - x, ST_BAR_WARN, buf);
	}
	snprintf(buf, sizeof buf, "  sorted by %s %s", ops_sort_name(st->sort),
		 sort_arrow(st));
	x += grid_puts(g, x, r.y, r.x + r.w - x, ST_DIM, buf);
	if (st->search[0]) {
		snprintf(buf, sizeof buf, "  search '%s' (n/N)", st->search);
		grid_puts(g, x, r.y, r.x + r.w - x, ST_DIM, buf);
	}

	if (r.h < 3)
		return;
	/* a strategy's dev column holds "GPU0×16" */
	int wd = st->plan && st->plan->lowered ? 8 : 6;
	int wt = 10, wb = 10, wc = 3;
	int wtype = r.w >= 120 ? 18 : 12;
	int wname = r.w - wtype - wd - 2 * wt - 2 * wb - wc;
	int y = r.y + 1;
	static const struct {
		ops_sort key;
		const char *title;
	} heads[] = {
		{SORT_NAME, "op"},	 {SORT_TYPE, "type"},
		{SORT_DEVICE, "dev"},	 {SORT_START, "start"},
		{SORT_DURATION, "dur"},	 {SORT_OUTPUT, "output"},
		{SORT_PARAMS, "params"},
	};
	const int widths[] = {wname, wtype, wd, wt, wt, wb, wb};
	char titles[7][16];
	view_col head[8];
	for (int i = 0; i < 7; i++) {
		/* the sort column carries its direction */
		snprintf(titles[i], sizeof titles[i], "%s%s", heads[i].title,
			 heads[i].key == st->sort ? sort_arrow(st) : "");
		head[i] = (view_col){titles[i], widths[i]};
	}
	head[7] = (view_col){"cp", wc};
	view_table_head(g, r, y, head, 8);
	int rows = r.h - 2;
	int n = (int)st->ops_n;
	if (n == 0) {
		view_message(g, (vrect){r.x, y + 1, r.w, rows}, ST_DIM,
			     "no op matches the filter (\\ changes it)");
		return;
	}
	view_list l;
	ops_list(st, r, &l);
	int cur = (int)st->ops_cursor < n ? (int)st->ops_cursor : n - 1;
	int first = l.top;
	vstyle num = state_plan_stale(st) ? ST_STALE : ST_NORMAL;
	for (int i = 0; i < rows && first + i < n; i++) {
		uint32_t u = st->ops_idx[first + i];
		const dp_op *op = &st->g->ops[u];
		bool sel = first + i == cur;
		vstyle ns = sel ? ST_SELECTED : num;
		y = r.y + 2 + i;
		if (sel)
			view_select_row(g, r, y);
		x = r.x;
		view_cell_name(g, &x, y, wname, ns, dp_graph_op_name(st->g, u));
		view_cell(g, &x, y, wtype, sel ? ns : ST_DIM,
			  dp_graph_str(st->g, op->type));
		/* a strategy runs an op as several: "x8" of them */
		if (st->agg_dev[u] >= 0 && st->agg_n[u] <= 1)
			snprintf(buf, sizeof buf, "GPU%d", st->agg_dev[u]);
		else if (st->agg_dev[u] >= 0)
			snprintf(buf, sizeof buf, "GPU%d\xc3\x97%u",
				 st->agg_dev[u], st->agg_n[u]);
		else
			snprintf(buf, sizeof buf, "\xc3\x97%u", st->agg_n[u]);
		view_cell(g, &x, y, wd, ns, buf);
		view_cell(g, &x, y, wt, ns,
			  dp_units_fmt_time(st->agg_start[u], a, sizeof a));
		view_cell(g, &x, y, wt, ns,
			  dp_units_fmt_time(st->agg_end[u] - st->agg_start[u],
					    a, sizeof a));
		view_cell(g, &x, y, wb, ns,
			  dp_units_fmt_bytes(op->output_bytes, a, sizeof a));
		view_cell(g, &x, y, wb, ns,
			  dp_units_fmt_bytes(op->param_bytes, b, sizeof b));
		if (st->agg_cp[u])
			grid_puts(g, x, y, wc, sel ? ns : ST_CRITICAL, "*");
		/* pinned by the file or by hand (p, P): "@" */
		if (st->pins[u] >= 0)
			grid_puts(g, x + 1, y, wc - 1, sel ? ns : ST_BAR_WARN,
				  "@");
	}
	view_scroll_note(g, r, r.y, first, rows, n);
}

/* a class reads best with its hooks side by side */
/* clang-format off */
const view_class view_ops_class = {
	VIEW_CLASS(VIEW_OPS, "ops", "Ops", "Ops",
		   ops_draw, ops_list, ops_seek),
	.needs_plan = true, .enter = ops_enter,
};
/* clang-format on */

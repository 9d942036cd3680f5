/* view_memory.c - memory over time per device against its cap, and the
 * tensors live at the selected device's peak (DESIGN 3: memory rules). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bar.h"
#include "dnnpart/units.h"
#include "fmt.h"
#include "view_common.h"

#define LABEL_W 7
#define NUM_W 22

/* Largest memory of device d in each of n columns of [t0, t0 + n*dt). */
static void column_max(const dp_sim_result *s, int d, double t0, double dt,
		       int n, int64_t *out)
{
	uint32_t lo = s->curve_off[d], hi = s->curve_off[d + 1];
	uint32_t i = lo;
	int64_t cur = 0;
	/* value in force at t0 */
	while (i < hi && s->curve[i].t <= t0)
		cur = s->curve[i++].bytes;
	for (int c = 0; c < n; c++) {
		double cb = t0 + (c + 1) * dt;
		int64_t m = cur;
		while (i < hi && s->curve[i].t < cb) {
			cur = s->curve[i++].bytes;
			if (cur > m)
				m = cur;
		}
		out[c] = m;
	}
}

static void draw_sparkline(vgrid *g, int x, int y, const int64_t *v, int n,
			   int64_t peak, int64_t cap, bool stale)
{
	double s = cap == DP_CAP_UNLIMITED ? (double)peak : 1.25 * (double)cap;
	if ((double)peak > s)
		s = (double)peak;
	for (int c = 0; c < n; c++) {
		uint32_t ch;
		vstyle st;
		if (cap != DP_CAP_UNLIMITED && v[c] > cap) {
			ch = GLYPH_OVER;
			st = ST_BAR_OVER;
		} else if (v[c] <= 0 || s <= 0) {
			ch = ' ';
			st = ST_NORMAL;
		} else {
			int lvl = (int)((double)v[c] / s * 8 + 0.999);
			if (lvl < 1)
				lvl = 1;
			if (lvl > 8)
				lvl = 8;
			ch = 0x2580u + (uint32_t)lvl; /* ▁ .. █ */
			st = cap != DP_CAP_UNLIMITED &&
					     (double)v[c] >= 0.9 * (double)cap
				     ? ST_BAR_WARN
				     : ST_BAR_OK;
		}
		if (stale && ch != ' ')
			st = ST_STALE;
		grid_put(g, x + c, y, ch, st);
	}
}

static int live_cmp(const void *a, const void *b)
{
	const dp_live_tensor *x = a, *y = b;
	if (x->bytes != y->bytes)
		return x->bytes > y->bytes ? -1 : 1;
	if (x->op != y->op)
		return x->op < y->op ? -1 : 1;
	return x->kind - y->kind;
}

static void draw_live(const vstate *st, vgrid *g, vrect r)
{
	const dp_plan *p = st->plan;
	int d = st->dev;
	char buf[256], a[32], b[32], c[32];
	if (d >= p->sim.k) {
		grid_printf(g, r.x, r.y, r.w, ST_DIM,
			    "GPU%d is new: its memory shows after the rerun",
			    d);
		return;
	}
	const dp_device_stats *s = &p->sim.dev[d];
	uint32_t lo = p->sim.live_off[d], hi = p->sim.live_off[d + 1];
	int n = (int)(hi - lo);
	snprintf(buf, sizeof buf,
		 "Live on GPU%d at its peak: %s at %s, %d tensors (cap %s)", d,
		 dp_units_fmt_bytes(s->peak_bytes, a, sizeof a),
		 dp_units_fmt_time(s->peak_time, b, sizeof b), n,
		 fmt_cap(s->cap_bytes, c, sizeof c));
	grid_puts(g, r.x, r.y, r.w, ST_NORMAL, buf);
	/* what the peak holds by role (DESIGN 10), when the graph says */
	if (state_plan_graph(st)->roles && r.h >= 4) {
		int64_t by[DP_MEMR_COUNT];
		dp_plan_peak_by_role(st->g, p, d, by);
		int x = r.x +
			grid_puts(g, r.x, r.y + 1, r.w, ST_DIM, "by role: ");
		const char *sep = "";
		for (int i = 0; i < DP_MEMR_COUNT; i++) {
			if (!by[i])
				continue;
			snprintf(buf, sizeof buf, "%s%s %s", sep,
				 dp_mem_role_name((dp_mem_role)i),
				 dp_units_fmt_bytes(by[i], a, sizeof a));
			x += grid_puts(g, x, r.y + 1, r.x + r.w - x, ST_NORMAL,
				       buf);
			sep = ", ";
		}
		r.y++;
		r.h--;
	}
	if (r.h < 3)
		return;
	int ty = r.y + 1;
	int wb = 10, wk = 7, wt = 10;
	int wop = r.w - wb - wk - 2 * wt;
	if (wop < 10)
		wop = 10;
	const view_col head[] = {
		{"bytes", wb}, {"kind", wk},  {"op", wop},
		{"from", wt},  {"until", wt},
	};
	view_table_head(g, r, ty, head, 5);
	int rows = r.h - 2;
	dp_live_tensor *v = malloc((size_t)(n ? n : 1) * sizeof *v);
	if (!v)
		return;
	memcpy(v, p->sim.live + lo, (size_t)n * sizeof *v);
	qsort(v, (size_t)n, sizeof *v, live_cmp);
	int first = st->mem_scroll;
	if (first > n - rows)
		first = n - rows;
	if (first < 0)
		first = 0;
	vstyle num = state_plan_stale(st) ? ST_STALE : ST_NORMAL;
	for (int i = 0; i < rows && first + i < n; i++) {
		const dp_live_tensor *t = &v[first + i];
		int y = ty + 1 + i, x = r.x;
		view_cell(g, &x, y, wb, num,
			  dp_units_fmt_bytes(t->bytes, a, sizeof a));
		view_cell(g, &x, y, wk, ST_DIM,
			  dp_sim_mem_kind_name((dp_mem_kind)t->kind));
		view_cell_name(g, &x, y, wop,
			       st->on_cp[t->op] ? ST_CRITICAL : num,
			       dp_graph_op_name(state_plan_graph(st), t->op));
		view_cell(g, &x, y, wt, ST_DIM,
			  dp_units_fmt_time(t->alloc, a, sizeof a));
		view_cell(g, &x, y, wt, ST_DIM,
			  dp_units_fmt_time(t->free, a, sizeof a));
	}
	view_scroll_note(g, r, ty, first, rows, n);
	free(v);
}

/* Device rows in r: up to half the view; the live list takes the rest. */
static int device_rows(int k, vrect r)
{
	int rows = (r.h - 1) / 2;
	if (rows > k)
		rows = k;
	return rows < 1 ? 1 : rows;
}

static vrect live_rect(vrect r, int rows)
{
	return (vrect){r.x, r.y + rows + 1, r.w, r.h - rows - 1};
}

static int plan_devices(const vstate *st)
{
	return st->plan ? st->plan->sim.k : state_ndev(st);
}

static void memory_list(const vstate *st, vrect r, view_list *l)
{
	view_list_devices(st, device_rows(plan_devices(st), r), l);
}

/* PgUp/PgDn scroll the live tensors (Up/Down select the device). */
static void memory_page(vstate *st, vrect r, int dir)
{
	const dp_plan *p = st->plan;
	int n = 0;
	if (p && p->sim.live_off && st->dev < p->sim.k)
		n = (int)(p->sim.live_off[st->dev + 1] -
			  p->sim.live_off[st->dev]);
	vrect lr = live_rect(r, device_rows(plan_devices(st), r));
	view_list l;
	view_list_text(&l, n, lr.h - 2, st->mem_scroll);
	long long to = (long long)l.top + (long long)dir * l.shown;
	st->mem_scroll = to < 0 ? 0 : to >= l.rows ? l.rows - 1 : (int)to;
}

static void memory_draw(const vstate *st, vgrid *g, vrect r)
{
	const dp_plan *p = st->plan;
	int k = p->sim.k;
	int n = r.w - LABEL_W - NUM_W;
	if (n < 4 || r.h < 3 || !p->sim.curve_off || !p->sim.live_off) {
		view_message(g, r, ST_DIM, "no memory detail in this plan");
		return;
	}
	int rows = device_rows(k, r);
	int sel = st->dev < k ? st->dev : k - 1;
	int first = view_scroll_for(sel, 0, rows, k);
	double t0, t1;
	view_time_window(st, VIEW_MEMORY, &t0, &t1);
	double dt = (t1 - t0) / n;
	int64_t *v = malloc((size_t)n * sizeof *v);
	if (!v)
		return;
	bool stale = state_plan_stale(st);
	char lab[16], a[32], b[32], buf[80];
	for (int i = 0; i < rows; i++) {
		int d = first + i, y = r.y + i;
		const dp_device_stats *s = &p->sim.dev[d];
		grid_puts_fit(g, r.x, y, LABEL_W - 1,
			      d == st->dev ? ST_SELECTED : ST_NORMAL,
			      view_dev_label(d, lab, sizeof lab));
		column_max(&p->sim, d, t0, dt > 0 ? dt : 1, n, v);
		draw_sparkline(g, r.x + LABEL_W, y, v, n, s->peak_bytes,
			       s->cap_bytes, stale);
		bool over = s->cap_bytes != DP_CAP_UNLIMITED &&
			    s->peak_bytes > s->cap_bytes;
		/* over: the cap and the overflow, never a peak and cap that
		 * round alike ("16.0 GiB/16.0 GiB") */
		if (over) {
			snprintf(
				buf, sizeof buf, "%s +%s",
				fmt_cap(s->cap_bytes, b, sizeof b),
				dp_units_fmt_bytes(s->peak_bytes - s->cap_bytes,
						   a, sizeof a));
			if (strlen(buf) + 5 <= NUM_W - 1)
				strcat(buf, " OVER");
		} else
			snprintf(buf, sizeof buf, "%s/%s",
				 dp_units_fmt_bytes(s->peak_bytes, a, sizeof a),
				 fmt_cap(s->cap_bytes, b, sizeof b));
		grid_puts(g, r.x + LABEL_W + n + 1, y, NUM_W - 1,
			  over && !stale ? ST_BAR_OVER
			  : stale	 ? ST_STALE
					 : ST_NORMAL,
			  buf);
	}
	free(v);
	draw_live(st, g, live_rect(r, rows));
	view_scroll_note(g, r, r.y + rows, first, rows, k);
}

/* a class reads best with its hooks side by side */
/* clang-format off */
const view_class view_memory_class = {
	VIEW_CLASS(VIEW_MEMORY, "memory", "Memory", "Memory",
		   memory_draw, memory_list, view_seek_device),
	.needs_plan = true, .sideways = view_time_scroll, .page = memory_page,
	.ends = view_time_ends, .wheel = view_time_scroll,
	.zoom = view_time_zoom,
};
/* clang-format on */

/* view_memory.c - memory over time per device against its cap, on a time
 * axis of its own (z/Z, the arrows, Home/End move this view's window, not
 * the timeline's), and what the selected device holds at its peak: split
 * by role and by layer, and the tensors live then (the rules:
 * docs/simulator.md, "Memory"; the view: docs/tui.md).
 *
 * Each device gets a band of rows when there is room: the curve fills the
 * lower rows up to the usable cap (cap - reserve); above it the cap line
 * (━) and, with a reserve, the reserve line (░) run across the band, each
 * broken by '!' in the columns where the curve goes over it, so the moment
 * it crosses is visible in colour and in monochrome. Without a cap the
 * bands share one scale, the largest peak. With one row a device is a
 * sparkline whose over-cap columns are '!'. */
#include <math.h>
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

/* A device in one row: v in eighths of a cell, scaled to 1.25 x cap (or to
 * peak, the largest peak without a cap), '!' where v is over the cap. */
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

/* One part of a device's peak: a layer (or an op type) and its bytes. */
typedef struct peak_part {
	const char *name;
	int64_t bytes;
} peak_part;

static int part_name_cmp(const void *a, const void *b)
{
	return strcmp(((const peak_part *)a)->name,
		      ((const peak_part *)b)->name);
}

static int part_bytes_cmp(const void *a, const void *b)
{
	const peak_part *x = a, *y = b;
	if (x->bytes != y->bytes)
		return x->bytes > y->bytes ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* Device d's peak split by the layer of each live tensor's op (its type
 * where it has none), largest first: a new array of *n parts, NULL when
 * out of memory. */
static peak_part *peak_by_layer(const dp_graph *g, const dp_plan *p, int d,
				int *n)
{
	uint32_t lo = p->sim.live_off[d], hi = p->sim.live_off[d + 1];
	peak_part *v = malloc((size_t)(hi > lo ? hi - lo : 1) * sizeof *v);
	*n = 0;
	if (!v)
		return NULL;
	for (uint32_t i = lo; i < hi; i++) {
		const dp_op *o = &g->ops[p->sim.live[i].op];
		uint32_t s = o->layer ? o->layer : o->type;
		v[i - lo] = (peak_part){s ? dp_graph_str(g, s) : "(no type)",
					p->sim.live[i].bytes};
	}
	int m = (int)(hi - lo);
	qsort(v, (size_t)m, sizeof *v, part_name_cmp);
	for (int i = 0; i < m; i++) {
		if (*n && strcmp(v[*n - 1].name, v[i].name) == 0)
			v[*n - 1].bytes += v[i].bytes;
		else
			v[(*n)++] = v[i];
	}
	qsort(v, (size_t)*n, sizeof *v, part_bytes_cmp);
	return v;
}

#define PART_NAME_W 24 /* a longer layer name is cut in the middle */

/* "by layer: enc/1 72.0 MiB, enc/0 40.0 MiB, other 8.00 MiB" at (x0, y)
 * in w cells: the largest parts that fit, the rest summed as "other". */
static void draw_layers(const vstate *st, vgrid *g, int x0, int y, int w, int d)
{
	int n;
	peak_part *v = peak_by_layer(state_plan_graph(st), st->plan, d, &n);
	if (!v)
		return;
	int64_t rest = 0;
	for (int i = 0; i < n; i++)
		rest += v[i].bytes;
	int end = x0 + w, x = x0 + grid_puts(g, x0, y, w, ST_DIM, "by layer: ");
	char b[32], other[48];
	int i = 0;
	for (; i < n; i++) {
		int nw = text_width(v[i].name);
		if (nw > PART_NAME_W)
			nw = PART_NAME_W;
		dp_units_fmt_bytes(v[i].bytes, b, sizeof b);
		int iw = (i ? 2 : 0) + nw + 1 + text_width(b);
		/* the part, and "other" after it when parts remain */
		int ow = 0;
		if (i + 1 < n) {
			snprintf(other, sizeof other, ", other %s",
				 dp_units_fmt_bytes(rest - v[i].bytes, b,
						    sizeof b));
			ow = text_width(other);
			dp_units_fmt_bytes(v[i].bytes, b, sizeof b);
		}
		if (x + iw + ow > end)
			break;
		if (i)
			x += grid_puts(g, x, y, end - x, ST_DIM, ", ");
		grid_puts_mid(g, x, y, nw, ST_NORMAL, v[i].name);
		x += nw + 1;
		x += grid_puts(g, x, y, end - x, ST_NORMAL, b);
		rest -= v[i].bytes;
	}
	if (i < n) {
		snprintf(other, sizeof other, "%sother %s", i ? ", " : "",
			 dp_units_fmt_bytes(rest, b, sizeof b));
		grid_puts(g, x, y, end - x, ST_DIM, other);
	}
	free(v);
}

/* Rows between the live list's title and its table: the peak by role
 * (when the graph gives roles) and by layer; none when r is too short. */
static int split_rows(const vstate *st, vrect r)
{
	int n = 1 + (state_plan_graph(st)->roles ? 1 : 0);
	return r.h >= n + 4 ? n : 0;
}

static void draw_roles(const vstate *st, vgrid *g, int x0, int y, int w, int d)
{
	char buf[80], a[32];
	int64_t by[DP_MEMR_COUNT];
	dp_plan_peak_by_role(st->g, st->plan, d, by);
	int x = x0 + grid_puts(g, x0, y, w, ST_DIM, "by role: ");
	const char *sep = "";
	for (int i = 0; i < DP_MEMR_COUNT; i++) {
		if (!by[i])
			continue;
		snprintf(buf, sizeof buf, "%s%s %s", sep,
			 dp_mem_role_name((dp_mem_role)i),
			 dp_units_fmt_bytes(by[i], a, sizeof a));
		x += grid_puts(g, x, y, x0 + w - x, ST_NORMAL, buf);
		sep = ", ";
	}
}

static void draw_live(const vstate *st, vgrid *g, vrect r)
{
	const dp_plan *p = st->plan;
	int d = st->dev;
	char buf[256], a[32], b[32], c[32];
	if (r.h < 1)
		return;
	if (d >= p->sim.k) {
		grid_printf(g, r.x, r.y, r.w, ST_DIM,
			    "GPU%d is new: its memory shows after the rerun",
			    d);
		return;
	}
	const dp_device_stats *s = &p->sim.dev[d];
	uint32_t lo = p->sim.live_off[d], hi = p->sim.live_off[d + 1];
	int n = (int)(hi - lo);
	/* the sim's cap is the usable one (cap - reserve): say so */
	snprintf(buf, sizeof buf,
		 "Live on GPU%d at its peak: %s at %s, %d tensors (%s %s)", d,
		 dp_units_fmt_bytes(s->peak_bytes, a, sizeof a),
		 dp_units_fmt_time(s->peak_time, b, sizeof b), n,
		 s->reserve_bytes && s->cap_bytes != DP_CAP_UNLIMITED
			 ? "usable cap"
			 : "cap",
		 fmt_cap(s->cap_bytes, c, sizeof c));
	grid_puts(g, r.x, r.y, r.w, ST_NORMAL, buf);
	int title_y = r.y;
	/* what the peak holds by role (docs/tui.md), when the graph says, and
	 * by layer */
	int extra = split_rows(st, r);
	if (extra == 2)
		draw_roles(st, g, r.x, r.y + 1, r.w, d);
	if (extra)
		draw_layers(st, g, r.x, r.y + extra, r.w, d);
	r.y += extra;
	r.h -= extra;
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
	/* on the title's row when it has room: the table's header keeps its
	 * last column */
	int note_y = text_width(buf) + 20 <= r.w ? title_y : ty;
	view_scroll_note(g, r, note_y, first, rows, n);
	free(v);
}

/* The chart's geometry in r: a header row and the time axis, then bands
 * of band rows per device, shown of them at once, in up to half the view;
 * the live tensors take the rest. */
typedef struct mem_geom {
	int band, shown;
} mem_geom;

#define BAND_MAX 5
#define CHART_TOP 2 /* the header and the axis */

static mem_geom chart_geom(int k, vrect r)
{
	int area = (r.h - CHART_TOP - 1) / 2;
	if (area < 1)
		area = 1;
	mem_geom m = {area / (k > 0 ? k : 1), 0};
	if (m.band > BAND_MAX)
		m.band = BAND_MAX;
	if (m.band < 1)
		m.band = 1;
	m.shown = area / m.band;
	if (m.shown > k)
		m.shown = k;
	if (m.shown < 1)
		m.shown = 1;
	return m;
}

static vrect live_rect(vrect r, mem_geom m)
{
	int top = CHART_TOP + m.shown * m.band + 1;
	return (vrect){r.x, r.y + top, r.w, r.h - top};
}

static int plan_devices(const vstate *st)
{
	return st->plan ? st->plan->sim.k : state_ndev(st);
}

static void memory_list(const vstate *st, vrect r, view_list *l)
{
	view_list_devices(st, chart_geom(plan_devices(st), r).shown, l);
}

/* PgUp/PgDn scroll the live tensors (Up/Down select the device). */
static void memory_page(vstate *st, vrect r, int dir)
{
	const dp_plan *p = st->plan;
	int n = 0;
	if (p && p->sim.live_off && st->dev < p->sim.k)
		n = (int)(p->sim.live_off[st->dev + 1] -
			  p->sim.live_off[st->dev]);
	vrect lr = live_rect(r, chart_geom(plan_devices(st), r));
	view_list l;
	view_list_text(&l, n, lr.h - 2 - split_rows(st, lr), st->mem_scroll);
	long long to = (long long)l.top + (long long)dir * l.shown;
	st->mem_scroll = to < 0 ? 0 : to >= l.rows ? l.rows - 1 : (int)to;
}

/* One line across a device's band at row y: glyph where the curve stays
 * at or under thr, '!' where it goes over. */
static void draw_line(vgrid *g, int x, int y, const int64_t *v, int n,
		      int64_t thr, uint32_t glyph, bool stale)
{
	for (int c = 0; c < n; c++) {
		bool over = v[c] > thr;
		vstyle st = over ? ST_BAR_OVER : ST_CAP_MARK;
		grid_put(g, x + c, y, over ? GLYPH_OVER : glyph,
			 stale ? ST_STALE : st);
	}
}

/* Device s's band of h >= 2 rows from (x, y): the curve v in the lower
 * rows, scaled to the usable cap (or to largest without a cap), and the
 * cap line (and the reserve line, with room) above it. */
static void draw_band(vgrid *g, int x, int y, int h, const int64_t *v, int n,
		      const dp_device_stats *s, int64_t largest, bool stale)
{
	int64_t usable = s->cap_bytes;
	bool capped = usable != DP_CAP_UNLIMITED;
	int64_t reserve = capped ? s->reserve_bytes : 0;
	int lines = !capped ? 0 : reserve > 0 && h >= 3 ? 2 : 1;
	if (lines == 2) {
		draw_line(g, x, y, v, n, usable + reserve, GLYPH_LINE, stale);
		draw_line(g, x, y + 1, v, n, usable, GLYPH_RESERVE, stale);
	} else if (lines == 1) {
		/* no room for both: the line is the limit the plan must fit */
		draw_line(g, x, y, v, n, usable, GLYPH_LINE, stale);
	}
	int f = h - lines;
	double top = capped ? (double)usable : (double)largest;
	for (int c = 0; c < n; c++) {
		bool over = capped && v[c] > usable;
		long lvl = 0;
		if (v[c] > 0 && top > 0)
			lvl = (long)ceil((double)v[c] / top * f * 8 - 1e-9);
		if (v[c] > 0 && lvl < 1)
			lvl = 1;
		vstyle st = over ? ST_BAR_OVER
			    : capped && (double)v[c] >= 0.9 * (double)usable
				    ? ST_BAR_WARN
				    : ST_BAR_OK;
		for (int i = 0; i < f; i++) {
			long e = lvl - 8L * i;
			if (e <= 0)
				break;
			uint32_t ch =
				e >= 8 ? GLYPH_FULL : 0x2580u + (uint32_t)e;
			grid_put(g, x + c, y + h - 1 - i, ch,
				 stale ? ST_STALE : st);
		}
	}
}

/* The numbers right of device d's band: the peak against the cap (or the
 * cap and the exact overflow), then when the peak happens and the
 * reserve. */
static void draw_band_text(vgrid *g, int x, int y, int h, int w,
			   const dp_device_stats *s, bool stale)
{
	char buf[80], a[32], b[32];
	bool over = s->cap_bytes != DP_CAP_UNLIMITED &&
		    s->peak_bytes > s->cap_bytes;
	/* over: the cap and the overflow, never a peak and cap that round
	 * alike ("16.0 GiB/16.0 GiB") */
	if (over) {
		snprintf(buf, sizeof buf, "%s +%s",
			 fmt_cap(s->cap_bytes, b, sizeof b),
			 dp_units_fmt_bytes(s->peak_bytes - s->cap_bytes, a,
					    sizeof a));
		if (text_width(buf) + 5 <= w)
			strcat(buf, " OVER");
	} else
		snprintf(buf, sizeof buf, "%s/%s",
			 dp_units_fmt_bytes(s->peak_bytes, a, sizeof a),
			 fmt_cap(s->cap_bytes, b, sizeof b));
	grid_puts(g, x, y, w,
		  over && !stale ? ST_BAR_OVER
		  : stale	 ? ST_STALE
				 : ST_NORMAL,
		  buf);
	if (h >= 2) {
		snprintf(buf, sizeof buf, "peak at %s",
			 dp_units_fmt_time(s->peak_time, a, sizeof a));
		grid_puts(g, x, y + 1, w, ST_DIM, buf);
	}
	if (h >= 3 && s->cap_bytes != DP_CAP_UNLIMITED && s->reserve_bytes) {
		snprintf(buf, sizeof buf, "reserve %s",
			 dp_units_fmt_bytes(s->reserve_bytes, a, sizeof a));
		grid_puts(g, x, y + 2, w, ST_DIM, buf);
	}
}

/* The view's first row: its own time window, the glyphs (the lines only
 * when the bands have room for them), the keys. */
static void draw_header(const vstate *st, vgrid *g, vrect r, int band)
{
	const dp_plan *p = st->plan;
	char buf[160];
	int x = r.x, y = r.y;
	x += grid_puts(g, x, y, r.w, ST_DIM, "Memory ");
	x += grid_puts(g, x, y, r.x + r.w - x, ST_NORMAL,
		       view_time_text(st, VIEW_MEMORY, buf, sizeof buf));
	bool capped = false, reserve = false;
	for (int d = 0; d < p->sim.k; d++) {
		if (p->sim.dev[d].cap_bytes != DP_CAP_UNLIMITED) {
			capped = true;
			reserve = reserve || p->sim.dev[d].reserve_bytes > 0;
		}
	}
	static const struct {
		uint32_t glyph;
		vstyle st;
		const char *text;
	} keys[] = {
		{GLYPH_LINE, ST_CAP_MARK, " cap"},
		{GLYPH_RESERVE, ST_CAP_MARK, " reserve"},
		{GLYPH_OVER, ST_BAR_OVER, " over"},
	};
	for (int i = 0; i < 3 && capped; i++) {
		if ((i == 0 && band < 2) || (i == 1 && (!reserve || band < 3)))
			continue;
		int need = 2 + 1 + text_width(keys[i].text);
		if (x + need > r.x + r.w)
			return;
		grid_put(g, x + 2, y, keys[i].glyph, keys[i].st);
		x += 3 + grid_puts(g, x + 3, y, -1, ST_DIM, keys[i].text);
	}
	const char *hint = "  (z/Z zoom, \xe2\x86\x90/\xe2\x86\x92 scroll)";
	if (x + text_width(hint) <= r.x + r.w)
		grid_puts(g, x, y, r.x + r.w - x, ST_DIM, hint);
}

static void memory_draw(const vstate *st, vgrid *g, vrect r)
{
	const dp_plan *p = st->plan;
	int k = p->sim.k;
	int n = r.w - LABEL_W - NUM_W;
	mem_geom m = chart_geom(k, r);
	if (n < 4 || r.h < CHART_TOP + 2 || !p->sim.curve_off ||
	    !p->sim.live_off) {
		view_message(g, r, ST_DIM, "no memory detail in this plan");
		return;
	}
	int sel = st->dev < k ? st->dev : k - 1;
	int first = view_scroll_for(sel, 0, m.shown, k);
	double t0, t1;
	view_time_window(st, VIEW_MEMORY, &t0, &t1);
	double dt = (t1 - t0) / n;
	int64_t *v = malloc((size_t)n * sizeof *v);
	if (!v)
		return;
	draw_header(st, g, r, m.band);
	view_time_axis(g, r.x + LABEL_W, r.y + 1, n, t0, dt);
	bool stale = state_plan_stale(st);
	int64_t largest = 0;
	for (int d = 0; d < k; d++)
		if (p->sim.dev[d].peak_bytes > largest)
			largest = p->sim.dev[d].peak_bytes;
	char lab[16];
	for (int i = 0; i < m.shown; i++) {
		int d = first + i, y = r.y + CHART_TOP + i * m.band;
		const dp_device_stats *s = &p->sim.dev[d];
		grid_puts_fit(g, r.x, y, LABEL_W - 1,
			      d == st->dev ? ST_SELECTED : ST_NORMAL,
			      view_dev_label(d, lab, sizeof lab));
		column_max(&p->sim, d, t0, dt > 0 ? dt : 1, n, v);
		if (m.band == 1)
			draw_sparkline(g, r.x + LABEL_W, y, v, n,
				       s->cap_bytes == DP_CAP_UNLIMITED
					       ? largest
					       : s->peak_bytes,
				       s->cap_bytes, stale);
		else
			draw_band(g, r.x + LABEL_W, y, m.band, v, n, s, largest,
				  stale);
		draw_band_text(g, r.x + LABEL_W + n + 1, y, m.band, NUM_W - 1,
			       s, stale);
	}
	free(v);
	draw_live(st, g, live_rect(r, m));
	view_scroll_note(g, r, r.y + CHART_TOP + m.shown * m.band, first,
			 m.shown, k);
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

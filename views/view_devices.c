/* view_devices.c - per-device detail: ops, busy, idle, communication, peak
 * memory and when it happens; then the selected device and the plan's
 * bounds. */
#include <stdio.h>
#include <string.h>

#include "dnnpart/units.h"
#include "fmt.h"
#include "view_common.h"

enum {
	C_DEV,
	C_OPS,
	C_BUSY,
	C_IDLE,
	C_UTIL,
	C_IN,
	C_OUT,
	C_PEAK,
	C_AT,
	C_CAP,
	C_HEAD,
	NCOL
};

static const struct {
	const char *title;
	int w;
	int prio; /* columns with a higher number go first when space is short */
} cols[NCOL] = {
	[C_DEV] = {"Dev", 7, 0},	[C_OPS] = {"ops", 8, 1},
	[C_BUSY] = {"busy", 10, 0},	[C_IDLE] = {"idle", 10, 2},
	[C_UTIL] = {"util", 5, 1},	[C_IN] = {"comm in", 10, 1},
	[C_OUT] = {"comm out", 10, 1},	[C_PEAK] = {"peak", 10, 0},
	[C_AT] = {"peak at", 10, 2},	[C_CAP] = {"cap", 10, 0},
	[C_HEAD] = {"headroom", 15, 2},
};

/* Which columns fit in w: drop priority 2, then 1, until they do. */
static void pick_columns(int w, bool show[NCOL])
{
	for (int maxp = 2; maxp >= 0; maxp--) {
		int total = 0;
		for (int c = 0; c < NCOL; c++) {
			show[c] = cols[c].prio <= maxp;
			if (show[c])
				total += cols[c].w;
		}
		if (total <= w)
			return;
	}
}

static void cell(vgrid *g, int *x, int y, int c, const bool show[NCOL],
		 vstyle st, const char *s)
{
	if (show[c])
		view_cell(g, x, y, cols[c].w, st, s);
}

static void device_row(const vstate *st, vgrid *g, int x, int y, int d,
		       const bool show[NCOL])
{
	const dp_plan *p = st->plan;
	const dp_device_stats *s = &p->sim.dev[d];
	bool stale = state_plan_stale(st);
	vstyle n = stale ? ST_STALE : ST_NORMAL;
	char b[48];
	double mk = p->sim.makespan;
	cell(g, &x, y, C_DEV, show, d == st->dev ? ST_SELECTED : n,
	     view_dev_label(d, b, sizeof b));
	cell(g, &x, y, C_OPS, show, n, fmt_count(s->ops, b, sizeof b));
	cell(g, &x, y, C_BUSY, show, n,
	     dp_units_fmt_time(s->busy_us, b, sizeof b));
	cell(g, &x, y, C_IDLE, show, n,
	     dp_units_fmt_time(mk - s->busy_us > 0 ? mk - s->busy_us : 0, b,
			       sizeof b));
	cell(g, &x, y, C_UTIL, show, n, fmt_pct(s->busy_us, mk, b, sizeof b));
	cell(g, &x, y, C_IN, show, n,
	     dp_units_fmt_bytes(s->comm_in_bytes, b, sizeof b));
	cell(g, &x, y, C_OUT, show, n,
	     dp_units_fmt_bytes(s->comm_out_bytes, b, sizeof b));
	bool over = s->cap_bytes != DP_CAP_UNLIMITED &&
		    s->peak_bytes > s->cap_bytes;
	cell(g, &x, y, C_PEAK, show, over && !stale ? ST_BAR_OVER : n,
	     dp_units_fmt_bytes(s->peak_bytes, b, sizeof b));
	cell(g, &x, y, C_AT, show, n,
	     dp_units_fmt_time(s->peak_time, b, sizeof b));
	cell(g, &x, y, C_CAP, show, n, fmt_cap(s->cap_bytes, b, sizeof b));
	if (s->cap_bytes == DP_CAP_UNLIMITED) {
		snprintf(b, sizeof b, "-");
	} else if (over) {
		char o[32];
		snprintf(b, sizeof b, "OVER +%s",
			 dp_units_fmt_bytes(s->peak_bytes - s->cap_bytes, o,
					    sizeof o));
	} else {
		dp_units_fmt_bytes(s->cap_bytes - s->peak_bytes, b, sizeof b);
	}
	cell(g, &x, y, C_HEAD, show, over && !stale ? ST_BAR_OVER : n, b);
}

/* Lines under the table: the selected device, bounds and cut. */
static int detail_lines(const vstate *st, char lines[][200], int max)
{
	const dp_plan *p = st->plan;
	char a[32], b[32], c[32], d2[32], x[32];
	int n = 0;
	int d = st->dev;
	if (d < p->sim.k && n < max) {
		const dp_device_stats *s = &p->sim.dev[d];
		uint32_t live = p->sim.live_off ? p->sim.live_off[d + 1] -
							  p->sim.live_off[d]
						: 0;
		snprintf(lines[n++], 200,
			 "GPU%d: speed %s, params %s, peak %s at %s with %u "
			 "tensors live",
			 d,
			 dp_units_fmt_c(x, sizeof x, "%.2f",
					d < st->m.k ? st->m.speed[d] : 1.0),
			 dp_units_fmt_bytes(s->param_bytes, a, sizeof a),
			 dp_units_fmt_bytes(s->peak_bytes, b, sizeof b),
			 dp_units_fmt_time(s->peak_time, c, sizeof c), live);
		if (n < max)
			snprintf(lines[n++], 200,
				 "  transfers in %u (%s, %s)  out %u (%s, %s)",
				 s->xfers_in,
				 dp_units_fmt_bytes(s->comm_in_bytes, a,
						    sizeof a),
				 dp_units_fmt_time(s->comm_in_us, b, sizeof b),
				 s->xfers_out,
				 dp_units_fmt_bytes(s->comm_out_bytes, c,
						    sizeof c),
				 dp_units_fmt_time(s->comm_out_us, d2,
						   sizeof d2));
	}
	if (n < max)
		snprintf(
			lines[n++], 200,
			"bounds: graph critical path %s, work/K %s, LB %s; "
			"makespan %s\xc3\x97LB",
			dp_units_fmt_time(p->bounds.graph_cp_us, a, sizeof a),
			dp_units_fmt_time(p->bounds.work_bound_us, b, sizeof b),
			dp_units_fmt_time(p->bounds.lb_us, c, sizeof c),
			dp_units_fmt_c(x, sizeof x, "%.2f", p->xlb));
	if (n < max && p->steady_us > 0)
		snprintf(lines[n++], 200,
			 "steady step: %s (%s, no flush: fill and drain paid "
			 "once; makespan %s with them)",
			 dp_units_fmt_time(p->steady_us, a, sizeof a),
			 p->strat ? dp_schedule_name(p->strat->pipe.schedule)
				  : "",
			 dp_units_fmt_time(p->sim.makespan, b, sizeof b));
	if (n < max)
		snprintf(
			lines[n++], 200,
			"one device: %s (speedup %s\xc3\x97), peak %s: %s",
			dp_units_fmt_time(p->bounds.one_device_us, a, sizeof a),
			dp_units_fmt_c(x, sizeof x, "%.2f", p->speedup),
			dp_units_fmt_bytes(p->one_device_peak, b, sizeof b),
			p->one_device_fits ? "fits GPU0's cap"
					   : "does not fit GPU0's cap");
	if (n < max)
		snprintf(lines[n++], 200,
			 "cut: %u edges cross devices, %u transfers move %s",
			 p->sim.cut_edges, p->sim.nxfers,
			 dp_units_fmt_bytes(p->sim.cut_bytes, a, sizeof a));
	return n;
}

/* Rows of the device table in r: what the detail lines leave, at least 3
 * (then the table takes all), at most the plan's devices. */
static int table_rows(const vstate *st, vrect r, int ndetail)
{
	int k = st->plan ? st->plan->sim.k : state_ndev(st);
	int rows = r.h - 1 - (ndetail + 1);
	if (rows < 3)
		rows = r.h - 1;
	if (rows > k)
		rows = k;
	return rows < 0 ? 0 : rows;
}

static void devices_list(const vstate *st, vrect r, view_list *l)
{
	char lines[5][200];
	int nd = st->plan ? detail_lines(st, lines, 5) : 0;
	view_list_devices(st, table_rows(st, r, nd), l);
}

static void devices_draw(const vstate *st, vgrid *g, vrect r)
{
	const dp_plan *p = st->plan;
	bool show[NCOL];
	pick_columns(r.w, show);
	view_col head[NCOL];
	int nh = 0;
	for (int c = 0; c < NCOL; c++)
		if (show[c])
			head[nh++] = (view_col){cols[c].title, cols[c].w};
	view_table_head(g, r, r.y, head, nh);
	char lines[5][200];
	int nd = detail_lines(st, lines, 5);
	int k = p->sim.k;
	int rows = table_rows(st, r, nd);
	int first = view_scroll_for(st->dev < k ? st->dev : k - 1, 0, rows, k);
	for (int i = 0; i < rows && first + i < k; i++)
		device_row(st, g, r.x, r.y + 1 + i, first + i, show);
	view_scroll_note(g, r, r.y, first, rows, k);
	int y = r.y + 1 + rows + 1;
	for (int i = 0; i < nd && y < r.y + r.h; i++, y++)
		grid_puts(g, r.x, y, r.w, i == 0 ? ST_NORMAL : ST_DIM,
			  lines[i]);
}

/* a class reads best with its hooks side by side */
/* clang-format off */
const view_class view_devices_class = {
	VIEW_CLASS(VIEW_DEVICES, "devices", "Devices", "Devices",
		   devices_draw, devices_list, view_seek_device),
	.needs_plan = true,
};
/* clang-format on */

/* view_timeline.c - a Gantt chart: one row per device, time across, ops on
 * the schedule's critical path highlighted (docs/simulator.md, "Critical
 * paths"). Zoom and scroll come from the state. A
 * pipeline's cells show their micro-batch (its last digit, a colour each)
 * and the time its devices wait, the bubble (░), with each device's share
 * of the step at the right and the whole plan's in the legend. Under
 * interleaved 1F1B a cell shows its chunk instead (a letter: a the
 * device's first chunk, b its second, ..., coloured by micro-batch), and
 * zb-h1's deferred weight-gradient blocks show w (dp_plan_pipe_blocks). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "bar.h"
#include "dnnpart/units.h"
#include "view_common.h"

#define LABEL_W 7

/* Per visible (device, column) cell: busy time and what it holds. */
typedef struct tl_cell {
	double busy;
	double mb_ov; /* overlap of the op whose micro-batch the cell shows */
	int32_t mb;   /* that micro-batch, -1: none */
	uint8_t crit, sel, in;
	uint8_t chunk; /* that op's chunk (interleaved) */
	char kind;     /* its block: 'F', 'B', 'W' (dp_pipe_block), 0 */
} tl_cell;

/* What a pipeline cell of micro-batch m shows: the chunk's letter when
 * interleaved, w in a deferred weight-gradient block, else m's last
 * digit. */
static uint32_t mb_glyph(const tl_cell *tc, bool interleaved)
{
	if (tc->kind == 'W')
		return 'w';
	if (interleaved)
		return (uint32_t)('a' + (tc->chunk < 25 ? tc->chunk : 25));
	return (uint32_t)('0' + tc->mb % 10);
}

#define GLYPH_XFER 0x2500u   /* ─ a transfer arriving */
#define GLYPH_BUBBLE 0x2591u /* ░ a pipeline device waiting */
#define BUBBLE_W 5	     /* the bubble column: " 27%" */

static void draw_legend(const vstate *st, vgrid *g, vrect r, int y, int lanes,
			bool w_blocks)
{
	char buf[160];
	const dp_strategy *s = st->plan->strat;
	int V = s && st->plan->kind == DP_STRAT_PIPELINE
			? s->pipe.virtual_stages
			: 0;
	int x = r.x;
	grid_put(g, x, y, GLYPH_FULL, ST_BAR_OK);
	x += 1 + grid_puts(g, x + 1, y, -1, ST_DIM, " busy  ");
	grid_put(g, x, y, GLYPH_HALF, ST_BAR_OK);
	x += 1 + grid_puts(g, x + 1, y, -1, ST_DIM, " partly  ");
	grid_put(g, x, y, GLYPH_CRIT, ST_CRITICAL);
	x += 1 + grid_puts(g, x + 1, y, -1, ST_DIM, " critical path  ");
	if (st->plan->micro && V > 1) {
		snprintf(buf, sizeof buf, "a-%c chunk (colour: micro-batch)  ",
			 'a' + (V < 26 ? V - 1 : 25));
		x += grid_puts(g, x, y, r.x + r.w - x, ST_DIM, buf);
	} else if (st->plan->micro) {
		x += grid_puts(g, x, y, r.x + r.w - x, ST_DIM,
			       "0-9 micro-batch  ");
	}
	if (w_blocks)
		x += grid_puts(g, x, y, r.x + r.w - x, ST_DIM,
			       "w weight gradients (W)  ");
	double bubble = dp_plan_bubble(st->plan, -1);
	if (bubble >= 0) {
		grid_put(g, x, y, GLYPH_BUBBLE, ST_BUBBLE);
		snprintf(buf, sizeof buf, " bubble %.1f%%  ", 100 * bubble);
		x += 1 + grid_puts(g, x + 1, y, r.x + r.w - x - 1, ST_DIM, buf);
	}
	if (lanes > 1) {
		grid_put(g, x, y, GLYPH_XFER, ST_BAR_WARN);
		x += 1 + grid_puts(g, x + 1, y, -1, ST_DIM, " receiving  ");
	}
	x += grid_puts(g, x, y, r.x + r.w - x, ST_DIM,
		       view_time_text(st, VIEW_TIMELINE, buf, sizeof buf));
	const char *hint = " (z/Z zoom, \xe2\x86\x90/\xe2\x86\x92 scroll)";
	if (x + text_width(hint) <= r.x + r.w)
		grid_puts(g, x, y, r.x + r.w - x, ST_DIM, hint);
}

/* Device rows of the chart in r and the lanes each takes: with room for
 * it, each device gets a second lane showing the transfers it receives. */
static int chart_rows(int k, vrect r, int *lanes)
{
	int rows = r.h - 2; /* axis on top, legend at the bottom */
	*lanes = rows >= 2 * k ? 2 : 1;
	rows /= *lanes;
	return rows > k ? k : rows;
}

static void timeline_list(const vstate *st, vrect r, view_list *l)
{
	int lanes;
	int k = st->plan ? st->plan->sim.k : state_ndev(st);
	view_list_devices(st, chart_rows(k, r, &lanes), l);
}

static void timeline_draw(const vstate *st, vgrid *g, vrect r)
{
	const dp_plan *p = st->plan;
	int k = p->sim.k;
	bool pipe = dp_plan_bubble(p, -1) >= 0;
	int n = r.w - LABEL_W - (pipe ? BUBBLE_W : 0);
	int lanes;
	int rows = chart_rows(k, r, &lanes);
	if (n < 4 || rows < 1)
		return;
	int sel = st->dev < k ? st->dev : k - 1;
	int first = view_scroll_for(sel, 0, rows, k);
	double t0, t1;
	view_time_window(st, VIEW_TIMELINE, &t0, &t1);
	double dt = (t1 - t0) / n;
	view_time_axis(g, r.x + LABEL_W, r.y, n, t0, dt);
	if (pipe)
		grid_puts(g, r.x + LABEL_W + n + 1, r.y, BUBBLE_W - 1, ST_DIM,
			  "wait");
	view_scroll_note(g, r, r.y, first, rows, k);
	tl_cell *cells = calloc((size_t)rows * (size_t)n, sizeof *cells);
	if (!cells) {
		view_message(g, r, ST_ERROR,
			     "out of memory drawing the timeline");
		return;
	}
	bool stale = state_plan_stale(st);
	for (size_t i = 0; i < (size_t)rows * (size_t)n; i++)
		cells[i].mb = -1;
	/* NULL for a placement, or out of memory: digits only */
	dp_pipe_block *blk = pipe ? dp_plan_pipe_blocks(p, st->g) : NULL;
	bool interleaved = blk && p->strat->pipe.virtual_stages > 1;
	bool w_blocks = false;
	for (uint32_t u = 0; blk && u < p->nops && !w_blocks; u++)
		w_blocks = blk[u].kind == 'W';
	for (uint32_t u = 0; dt > 0 && u < p->nops; u++) {
		int d = p->placement[u] - first;
		double s = p->sim.start[u], e = p->sim.end[u];
		if (d < 0 || d >= rows || e <= t0 || s >= t1)
			continue;
		long c0 = (long)floor((s - t0) / dt);
		long c1 = (long)floor((e - t0) / dt);
		if (c0 < 0)
			c0 = 0;
		if (c1 > n - 1)
			c1 = n - 1;
		for (long c = c0; c <= c1; c++) {
			double ca = t0 + c * dt, cb = ca + dt;
			double ov = (e < cb ? e : cb) - (s > ca ? s : ca);
			tl_cell *tc = &cells[(size_t)d * n + c];
			if (ov > 0)
				tc->busy += ov;
			/* a pipeline's cell shows the micro-batch that ran
			 * most of it */
			if (p->micro && p->micro[u] >= 0 && ov > tc->mb_ov) {
				tc->mb_ov = ov;
				tc->mb = p->micro[u];
				tc->chunk = blk ? blk[u].chunk : 0;
				tc->kind = blk ? blk[u].kind : 0;
			}
			if (st->on_cp[u])
				tc->crit = 1;
			if (u == st->op)
				tc->sel = 1;
		}
	}
	for (uint32_t i = 0; lanes > 1 && dt > 0 && i < p->sim.nxfers; i++) {
		const dp_transfer *x = &p->sim.xfers[i];
		int d = x->dst - first;
		if (d < 0 || d >= rows || x->end <= t0 || x->start >= t1)
			continue;
		long c0 = (long)floor((x->start - t0) / dt);
		long c1 = (long)floor((x->end - t0) / dt);
		for (long c = c0 < 0 ? 0 : c0; c <= c1 && c < n; c++)
			cells[(size_t)d * n + c].in = 1;
	}
	char lab[16];
	for (int i = 0; i < rows; i++) {
		int y = r.y + 1 + i * lanes, d = first + i;
		grid_puts_fit(g, r.x, y, LABEL_W - 1,
			      d == st->dev ? ST_SELECTED : ST_NORMAL,
			      view_dev_label(d, lab, sizeof lab));
		if (lanes > 1)
			grid_puts(g, r.x + 2, y + 1, LABEL_W - 3, ST_DIM, "in");
		/* a pipeline device waits in its empty cells of the step */
		double wait = pipe ? dp_plan_bubble(p, d) : -1;
		if (wait >= 0)
			grid_printf(g, r.x + LABEL_W + n, y, BUBBLE_W,
				    stale ? ST_STALE : ST_NORMAL, "%4.0f%%",
				    100 * wait);
		for (int c = 0; c < n; c++) {
			const tl_cell *tc = &cells[(size_t)i * n + c];
			uint32_t ch = ' ';
			vstyle sty = ST_NORMAL;
			if (tc->crit) {
				ch = GLYPH_CRIT;
				sty = ST_CRITICAL;
			} else if (tc->busy >= 0.5 * dt && tc->mb >= 0) {
				/* the micro-batch's last digit: 0 1 2 .. (or
				 * the chunk, or w), and a colour of its own */
				ch = mb_glyph(tc, interleaved);
				sty = (vstyle)(ST_MB0 + tc->mb % ST_MB_COLORS);
			} else if (tc->busy >= 0.5 * dt) {
				ch = GLYPH_FULL;
				sty = ST_BAR_OK;
			} else if (tc->busy > 0) {
				ch = GLYPH_HALF;
				sty = ST_BAR_OK;
			} else if (wait >= 0 && t0 + c * dt < p->sim.makespan) {
				ch = GLYPH_BUBBLE;
				sty = ST_BUBBLE;
			}
			if (tc->sel)
				sty = ST_SELECTED;
			else if (stale && ch != ' ')
				sty = ST_STALE;
			grid_put(g, r.x + LABEL_W + c, y, ch, sty);
			if (lanes > 1 && tc->in)
				grid_put(g, r.x + LABEL_W + c, y + 1,
					 GLYPH_XFER,
					 stale ? ST_STALE : ST_BAR_WARN);
		}
	}
	free(cells);
	free(blk);
	draw_legend(st, g, r, r.y + r.h - 1, lanes, w_blocks);
}

/* a class reads best with its hooks side by side */
/* clang-format off */
const view_class view_timeline_class = {
	VIEW_CLASS(VIEW_TIMELINE, "timeline", "Timeline", "Timeline",
		   timeline_draw, timeline_list, view_seek_device),
	.needs_plan = true, .sideways = view_time_scroll,
	.ends = view_time_ends, .wheel = view_time_scroll,
	.zoom = view_time_zoom,
};
/* clang-format on */

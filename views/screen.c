/* screen.c - the frame around the views (see screen.h). */
#include "screen.h"

#include <stdio.h>
#include <string.h>

#include "bar.h"
#include "dnnpart/units.h"
#include "fmt.h"
#include "keys.h"
#include "view.h"
#include "view_common.h"

/* A tab's label: the view's name when every name fits, else its short
 * label. */
static const char *tab_label(int v, bool full)
{
	return full ? view_table[v]->name : view_table[v]->tab;
}

static int tabs_width(bool full)
{
	int w = 0;
	for (int v = 0; v < VIEW_COUNT; v++)
		w += text_width(tab_label(v, full)) + 4 + (v ? 1 : 0);
	return w;
}

bool screen_tab_span(view_id v, int w, int *x0, int *x1)
{
	if ((int)v < 0 || v >= VIEW_COUNT)
		return false;
	bool full = tabs_width(true) <= w;
	int x = 0;
	for (int i = 0; i < VIEW_COUNT; i++) {
		int tw = text_width(tab_label(i, full)) + 4; /* " 1 Name " */
		if (i == (int)v) {
			*x0 = x;
			*x1 = x + tw;
			return x + tw <= w;
		}
		x += tw + 1;
	}
	return false;
}

static int fkey_natural(int n)
{
	const key_binding *b = keys_fkey(n);
	return b ? text_width(b->bar) + 1 : 1;
}

/* Width of F-key slot labels: the label plus a space, all widened to the
 * same width (up to 7 cells) when the screen has room: htop's even
 * spacing. */
static int fkey_label_width(int n, int w)
{
	int keys = 9 * 2 + 3;
	for (int even = 7; even > 0; even--) {
		int total = keys;
		for (int i = 1; i <= 10; i++) {
			int lw = fkey_natural(i);
			total += lw > even ? lw : even;
		}
		if (total <= w) {
			int lw = fkey_natural(n);
			return lw > even ? lw : even;
		}
	}
	return fkey_natural(n);
}

bool screen_fkey_span(int n, int w, int *x0, int *x1)
{
	if (n < 1 || n > 10)
		return false;
	int x = 0;
	for (int i = 1; i <= 10; i++) {
		int sw = (i < 10 ? 2 : 3) + fkey_label_width(i, w);
		if (i == n) {
			*x0 = x;
			*x1 = x + sw;
			return x + sw <= w;
		}
		x += sw;
	}
	return false;
}

int screen_panel_first(const vstate *st, int rows)
{
	int n = state_ndev(st);
	int first = 0;
	if (rows < 1)
		return 0;
	if (st->dev >= rows)
		first = st->dev - rows + 1;
	if (first > n - rows)
		first = n - rows;
	return first < 0 ? 0 : first;
}

/* ---- header and summary ---- */

/* Appends segment s to row y if it fits in whole; returns the new x. */
static int segment(vgrid *g, int x, int y, int w, vstyle st, const char *s)
{
	int tw = text_width(s);
	if (x + tw > w)
		return w; /* drop it and everything after it */
	grid_puts(g, x, y, tw, st, s);
	return x + tw + 2;
}

static void draw_header(const vstate *st, vgrid *g, vrect r)
{
	char buf[160], a[32], b[32], c[32];
	grid_fill(g, r, ' ', ST_HEADER);
	int x = 1, y = r.y;
	snprintf(buf, sizeof buf, "%.40s", st->g->name ? st->g->name : "graph");
	x = segment(g, x, y, r.w, ST_HEADER, buf);
	snprintf(buf, sizeof buf, "K=%d", st->m.k);
	x = segment(g, x, y, r.w, ST_HEADER, buf);
	snprintf(buf, sizeof buf, "algo %s", st->algo->name);
	x = segment(g, x, y, r.w, ST_HEADER, buf);
	/* the levers the graph was made with (--precision ..., the Fit
	 * view's Enter, the lever keys) */
	if (dp_graph_levers(st->g)[0]) {
		snprintf(buf, sizeof buf, "levers %.60s",
			 dp_graph_levers(st->g));
		x = segment(g, x, y, r.w, ST_HEADER, buf);
	}
	/* the knobs strategies read: batch size (x/X), micro-batches (u/U),
	 * schedule (S) */
	int64_t batch = dp_graph_batch_size(st->g);
	if (batch > 0) {
		snprintf(buf, sizeof buf, "batch %lld%s", (long long)batch,
			 st->base ? "*" : "");
		x = segment(g, x, y, r.w, ST_HEADER, buf);
	}
	if (st->microbatches) {
		snprintf(buf, sizeof buf, "M=%d", st->microbatches);
		x = segment(g, x, y, r.w, ST_HEADER, buf);
	}
	if (st->schedule >= 0) {
		snprintf(buf, sizeof buf, "sched %s",
			 dp_schedule_name((dp_schedule)st->schedule));
		x = segment(g, x, y, r.w, ST_HEADER, buf);
	}
	/* ops pinned by the file or by hand (p, P) */
	if (st->npins) {
		snprintf(buf, sizeof buf, "%u pin%s", st->npins,
			 st->npins == 1 ? "" : "s");
		x = segment(g, x, y, r.w, ST_HEADER, buf);
	}
	/* a strategy says what it is: "1f1b S=4 M=16", "dp 8" */
	if (st->plan && st->plan->strategy[0]) {
		snprintf(buf, sizeof buf, "%s", st->plan->strategy);
		x = segment(g, x, y, r.w, ST_HEADER, buf);
	}
	snprintf(buf, sizeof buf, "%s ops",
		 fmt_count(st->g->nops, a, sizeof a));
	x = segment(g, x, y, r.w, ST_HEADER, buf);
	snprintf(buf, sizeof buf, "%s edges",
		 fmt_count(st->g->nedges, a, sizeof a));
	x = segment(g, x, y, r.w, ST_HEADER, buf);
	snprintf(buf, sizeof buf, "link %s %s %s", st->m.link_name,
		 dp_units_fmt_bandwidth(st->m.bw, b, sizeof b),
		 dp_units_fmt_time(st->m.lat, c, sizeof c));
	x = segment(g, x, y, r.w, ST_HEADER, buf);
	snprintf(buf, sizeof buf, "contention %s",
		 dp_sim_contention_name(st->contention));
	segment(g, x, y, r.w, ST_HEADER, buf);
}

/* The verdict on memory: "FEASIBLE", or the worst device and how far it is
 * over, in the longest form that leaves room (level 0 longest, 3 the
 * shortest). Levels 0 and 1 add what a fit search found for these settings
 * (fit0 long, fit1 short; NULL when none ran: "fits with" is said only
 * when reruns showed it). */
static void verdict(const dp_plan *p, const char *fit0, const char *fit1,
		    int level, char *buf, size_t size)
{
	char a[32], b[32], c[32], f[200] = "";
	int worst = dp_plan_worst_device(p);
	if (worst < 0 || worst >= p->sim.k) {
		snprintf(buf, size, "FEASIBLE");
		return;
	}
	const dp_device_stats *d = &p->sim.dev[worst];
	int over = 0;
	for (int i = 0; i < p->sim.k; i++)
		if (p->sim.dev[i].cap_bytes != DP_CAP_UNLIMITED &&
		    p->sim.dev[i].peak_bytes > p->sim.dev[i].cap_bytes)
			over++;
	if (level == 0 && fit0)
		snprintf(f, sizeof f, "; %s", fit0);
	else if (level == 1 && fit1)
		snprintf(f, sizeof f, "; %s", fit1);
	dp_units_fmt_bytes(d->peak_bytes - d->cap_bytes, a, sizeof a);
	if (level == 0)
		snprintf(buf, size,
			 "INFEASIBLE: GPU%d over by %s (peak %s, cap %s)%s%s",
			 worst, a,
			 dp_units_fmt_bytes(d->peak_bytes, b, sizeof b),
			 dp_units_fmt_bytes(d->cap_bytes, c, sizeof c),
			 over > 1 ? " and more" : "", f);
	else if (level <= 2)
		snprintf(buf, size, "INFEASIBLE: GPU%d over by %s%s%s", worst,
			 a, over > 1 ? " and more" : "", f);
	else
		snprintf(buf, size, "INFEASIBLE GPU%d +%s", worst, a);
}

static void draw_summary(const vstate *st, vgrid *g, vrect r)
{
	const dp_plan *p = st->plan;
	char buf[256], lb[48], sp[48], a[32];
	int y = r.y, x = 1;
	if (!p) {
		if (st->plan_error[0])
			grid_printf(g, x, y, r.w - 1, ST_ERROR, "no plan: %s",
				    st->plan_error);
		else if (st->running)
			grid_printf(g, x, y, r.w - 1, ST_DIM,
				    "planning with %s...", st->algo->name);
		else
			grid_puts(g, x, y, r.w - 1, ST_DIM,
				  "no plan yet (r runs one)");
		return;
	}
	bool stale = state_plan_stale(st);
	vstyle n = stale ? ST_STALE : ST_NORMAL;
	const char *tag =
		stale ? (st->running ? "STALE (rerunning)" : "STALE (r reruns)")
		      : "";
	int right = r.w - (stale ? text_width(tag) + 2 : 0);
	snprintf(buf, sizeof buf, "%s:", p->algo);
	x = segment(g, x, y, right, stale ? ST_STALE : ST_HEADER, buf) - 1;
	snprintf(buf, sizeof buf, "makespan %s",
		 dp_units_fmt_time(p->sim.makespan, a, sizeof a));
	x = segment(g, x, y, right, n, buf);
	if (p->steady_us > 0) { /* an asynchronous pipeline, no flush */
		snprintf(buf, sizeof buf, "steady %s",
			 dp_units_fmt_time(p->steady_us, a, sizeof a));
		x = segment(g, x, y, right, n, buf);
	}
	/* the verdict comes before the ratios, so that it is never the part
	 * a narrow screen drops */
	dp_units_fmt_c(lb, sizeof lb, "\xc3\x97LB %.2f", p->xlb);
	dp_units_fmt_c(sp, sizeof sp, "speedup %.2f\xc3\x97", p->speedup);
	char fit0[160], fit1[96];
	bool fit = !stale && state_fit_current(st);
	if (fit) {
		state_fit_text(st, false, fit0, sizeof fit0);
		state_fit_text(st, true, fit1, sizeof fit1);
	}
	int level = 0;
	for (; level < 3; level++) {
		verdict(p, fit ? fit0 : NULL, fit ? fit1 : NULL, level, buf,
			sizeof buf);
		if (x + text_width(buf) + 2 + text_width(lb) + 2 +
			    text_width(sp) <=
		    right)
			break;
	}
	verdict(p, fit ? fit0 : NULL, fit ? fit1 : NULL, level, buf,
		sizeof buf);
	bool ok = dp_plan_worst_device(p) < 0;
	x = segment(g, x, y, right,
		    stale ? ST_STALE
		    : ok  ? ST_OK
			  : ST_ERROR,
		    buf);
	x = segment(g, x, y, right, n, lb);
	x = segment(g, x, y, right, n, sp);
	/* a plan for the current settings while the rerun goes on is one
	 * an anytime search (best) found on its way */
	snprintf(buf, sizeof buf,
		 st->running && !stale ? "found at %s, searching on"
				       : "planned in %s",
		 dp_units_fmt_time(p->plan_ms * 1000.0, a, sizeof a));
	segment(g, x, y, right, ST_DIM, buf);
	if (stale)
		grid_puts_right(g, r.w - 1, y, ST_STALE, tag);
}

/* ---- devices panel ---- */

static void draw_panel_head(const vstate *st, const vlayout *l, vgrid *g)
{
	int y = l->panel_head.y;
	grid_puts(g, l->x_name, y, l->w_name, ST_DIM, "Dev");
	grid_puts(g, l->x_load + 1, y, l->w_load - 1, ST_DIM, "Load (busy)");
	bool reserve = dp_machine_has_reserve(&st->m);
	grid_puts(g, l->x_mem + 1, y, l->w_mem - 1, ST_DIM,
		  !reserve ? "Memory peak (\xe2\x94\x83 cap)"
		  : l->w_mem > 32
			  ? "Memory peak (\xe2\x94\x83 cap, \xe2\x96\x91 "
			    "reserve)"
			  : "Memory (\xe2\x94\x83 cap, \xe2\x96\x91 reserve)");
	grid_puts(g, l->x_memtxt, y, l->w_memtxt, ST_DIM,
		  reserve ? "peak/usable" : "peak/cap");
	if (l->w_comm)
		grid_puts(g, l->x_comm, y, l->w_comm, ST_DIM, "comm in / out");
	int n = state_ndev(st);
	if (n > l->panel_rows) {
		char buf[64];
		int first = screen_panel_first(st, l->panel_rows);
		snprintf(buf, sizeof buf, " GPU%d-%d of %d ", first,
			 first + l->panel_rows - 1, n);
		grid_puts_right(g, l->w, y, ST_DIM, buf);
	}
}

static void draw_panel_row(const vstate *st, const vlayout *l, vgrid *g, int d,
			   int y)
{
	const dp_plan *p = st->plan;
	bool stale = state_plan_stale(st);
	char buf[96], a[32], b[32];
	snprintf(buf, sizeof buf, "GPU%d", d);
	grid_puts_fit(g, l->x_name, y, l->w_name - 1,
		      d == st->dev ? ST_SELECTED : ST_NORMAL, buf);
	if (!p || d >= p->sim.k) {
		int64_t cap = d < st->m.k ? st->m.cap[d] : DP_CAP_UNLIMITED;
		snprintf(buf, sizeof buf, "%s; cap %s",
			 p ? "new device: waiting for the rerun"
			   : "waiting for the first plan",
			 fmt_cap(cap, a, sizeof a));
		grid_puts(g, l->x_load, y, l->w - l->x_load, ST_DIM, buf);
		return;
	}
	const dp_device_stats *s = &p->sim.dev[d];
	vstyle num = stale ? ST_STALE : ST_NORMAL;
	double mk = p->sim.makespan;
	bar_load(g, l->x_load, y, l->w_load, mk > 0 ? s->busy_us / mk : 0,
		 stale);
	grid_puts_right(g, l->x_pct + l->w_pct, y, num,
			fmt_pct(s->busy_us, mk, buf, sizeof buf));
	/* one scale for every device's bar: a longer bar is more memory */
	double scale = 0;
	for (int i = 0; i < p->sim.k; i++) {
		const dp_device_stats *e = &p->sim.dev[i];
		int64_t cap = e->cap_bytes == DP_CAP_UNLIMITED
				      ? e->cap_bytes
				      : e->cap_bytes + e->reserve_bytes;
		double b = bar_mem_scale(e->peak_bytes, cap);
		scale = b > scale ? b : scale;
	}
	bar_memory_reserve(g, l->x_mem, y, l->w_mem, s->peak_bytes,
			   s->cap_bytes, s->reserve_bytes, (int64_t)scale,
			   stale);
	bool over = s->cap_bytes != DP_CAP_UNLIMITED &&
		    s->peak_bytes > s->cap_bytes;
	int x = l->x_memtxt;
	if (over) {
		/* the overflow itself, exactly as far as 3 digits go: a peak
		 * and cap that round alike ("16.0 GiB/16.0 GiB") would hide
		 * it: the cap and what the peak adds to it, "16.0 GiB +36.5
		 * MiB OVER" (OVER when there is room). */
		char o[32];
		snprintf(buf, sizeof buf, "%s +%s",
			 fmt_cap(s->cap_bytes, b, sizeof b),
			 dp_units_fmt_bytes(s->peak_bytes - s->cap_bytes, o,
					    sizeof o));
		x += grid_puts(g, x, y, l->w_memtxt,
			       stale ? ST_STALE : ST_BAR_OVER, buf);
		if (x + 5 <= l->x_memtxt + l->w_memtxt)
			grid_puts(g, x + 1, y, 4,
				  stale ? ST_STALE : ST_BAR_OVER, "OVER");
	} else {
		snprintf(buf, sizeof buf, "%s/%s",
			 dp_units_fmt_bytes(s->peak_bytes, a, sizeof a),
			 fmt_cap(s->cap_bytes, b, sizeof b));
		grid_puts(g, x, y, l->w_memtxt, num, buf);
	}
	if (l->w_comm) {
		snprintf(buf, sizeof buf, "in %s out %s",
			 dp_units_fmt_bytes(s->comm_in_bytes, a, sizeof a),
			 dp_units_fmt_bytes(s->comm_out_bytes, b, sizeof b));
		grid_puts(g, l->x_comm, y, l->w_comm, stale ? ST_STALE : ST_DIM,
			  buf);
	}
}

static void draw_panel(const vstate *st, const vlayout *l, vgrid *g)
{
	draw_panel_head(st, l, g);
	int n = state_ndev(st);
	int first = screen_panel_first(st, l->panel_rows);
	for (int i = 0; i < l->panel_rows && first + i < n; i++)
		draw_panel_row(st, l, g, first + i, l->panel.y + i);
}

/* ---- tabs, status line, key bar ---- */

static void draw_tabs(const vstate *st, vgrid *g, vrect r)
{
	bool full = tabs_width(true) <= r.w;
	for (int v = 0; v < VIEW_COUNT; v++) {
		int x0, x1;
		if (!screen_tab_span((view_id)v, r.w, &x0, &x1))
			break;
		char buf[48];
		snprintf(buf, sizeof buf, " %d %s ", v + 1, tab_label(v, full));
		grid_puts(g, x0, r.y, x1 - x0,
			  st->view == (view_id)v ? ST_TAB_ACTIVE : ST_TAB, buf);
	}
	/* help and diff are not tabs: while one shows, a label at the right
	 * says so when there is room */
	if (st->view < VIEW_COUNT)
		return;
	char label[32];
	snprintf(label, sizeof label, " %s %s ",
		 st->view == VIEW_HELP	 ? "?"
		 : st->view == VIEW_FIT ? "f"
					: "d",
		 view_current(st)->name);
	if (tabs_width(full) + 1 + text_width(label) <= r.w)
		grid_puts_right(g, r.w, r.y, ST_TAB_ACTIVE, label);
}

/* The status line r; a message longer than it takes rows above it, down
 * to the top of above (the main view). */
static void draw_status(const vstate *st, vgrid *g, vrect r, vrect above)
{
	int y = r.y, x = 0;
	if (st->prompt != PROMPT_NONE) {
		/* the end of a label too long for the line (a long path
		 * before "overwrite? (y/N)") */
		const char *l = st->plabel;
		while (r.w > 8 && text_width(l) > r.w - 8)
			utf8_next(&l);
		x += grid_puts(g, x, y, r.w, ST_PROMPT, l);
		/* show the end of a long input; text the prompt opened with
		 * is selected: typing replaces it */
		const char *s = st->pbuf;
		int room = r.w - x - 1;
		while (room > 0 && text_width(s) > room)
			utf8_next(&s);
		x += grid_puts(g, x, y, room,
			       st->pfresh ? ST_SELECTED : ST_PROMPT, s);
		grid_put(g, x, y, ' ', ST_SELECTED); /* the cursor */
		return;
	}
	/* what the jobs in progress say, then the message */
	char job[2][200], secs[32];
	int nj = 0, jw = 0;
	if (st->file_job != PROMPT_NONE) {
		/* the file's name, not its folder: the line is short */
		const char *base = strrchr(st->file_path, '/');
		base = base && base[1] ? base + 1 : st->file_path;
		char pct[16] = "";
		if (st->file_fraction >= 0)
			snprintf(pct, sizeof pct, " %3.0f%%",
				 100.0 * st->file_fraction);
		snprintf(job[nj++], sizeof job[0], "%s %.64s: %s%s %ss (%s)",
			 st->file_cancelling	       ? "cancelling"
			 : st->file_job == PROMPT_OPEN ? "opening"
						       : "exporting",
			 base, st->file_phase[0] ? st->file_phase : "starting",
			 pct,
			 dp_units_fmt_c(secs, sizeof secs, "%.1f",
					st->file_elapsed_s),
			 st->file_cancelling ? "waiting for it to stop"
					     : "Esc cancels");
	}
	if (st->running || st->comparing || st->fitting) {
		const char *what = st->running	 ? "rerunning"
				   : st->fitting ? "fitting"
						 : "comparing";
		const char *who =
			st->running || st->fitting ? st->algo->name : "all";
		char pct[16] = "";
		if (st->fraction >= 0)
			snprintf(pct, sizeof pct, " %3.0f%%",
				 100.0 * st->fraction);
		snprintf(job[nj++], sizeof job[0], "%s %s: %s%s %ss (Esc cancels)",
			 what, who, st->phase[0] ? st->phase : "starting", pct,
			 dp_units_fmt_c(secs, sizeof secs, "%.1f",
					st->elapsed_s));
	}
	for (int j = 0; j < nj; j++)
		jw += text_width(job[j]) + 2;
	const char *msg = st->status[0] ? st->status : NULL;
	vstyle ms = st->status_error ? ST_ERROR : ST_NORMAL;
	int mw = msg ? text_width(msg) : 0;
	/* an error while a job runs is news (a key refused, a bad cap): it
	 * goes first, in at most half the line, so the progress still shows */
	bool first = msg && nj && st->status_error && mw <= r.w / 2;
	bool inline_msg = msg && (first || mw <= r.w - jw);
	if (first) {
		x += grid_puts(g, x, y, r.w / 2, ST_ERROR, msg);
		x += 2;
	}
	for (int j = 0; j < nj; j++) {
		x += grid_puts(g, x, y, r.w - x, ST_HEADER, job[j]);
		x += 2;
	}
	if (msg && inline_msg && !first)
		grid_puts(g, x, y, r.w - x, ms, msg);
	else if (!msg && !st->running && state_plan_stale(st))
		grid_puts(g, x, y, r.w - x, ST_STALE,
			  "the plan shown is for earlier settings: r reruns");
	/* a message too long for what is left of the line is shown whole,
	 * wrapped on the rows above it (over the bottom of the view) */
	if (msg && !inline_msg) {
		text_line lines[8];
		int n = text_wrap(msg, r.w, 8, lines);
		int last = nj ? y - 1 : y;
		int top = last - n + 1;
		if (top < above.y)
			top = above.y;
		for (int i = 0; top + i <= last && i < n; i++) {
			grid_fill(g, (vrect){0, top + i, r.w, 1}, ' ', ms);
			grid_puts_n(g, 0, top + i, r.w, ms, lines[i].start,
				    lines[i].len);
		}
	}
}

static void draw_keys(vgrid *g, vrect r)
{
	grid_fill(g, r, ' ', ST_KEYLABEL);
	for (int n = 1; n <= 10; n++) {
		int x0, x1;
		if (!screen_fkey_span(n, r.w, &x0, &x1))
			break;
		const key_binding *b = keys_fkey(n);
		char k[16];
		snprintf(k, sizeof k, "F%d", n);
		int kw = grid_puts(g, x0, r.y, x1 - x0, ST_KEY, k);
		grid_puts(g, x0 + kw, r.y, x1 - x0 - kw, ST_KEYLABEL,
			  b ? b->bar : "");
	}
}

static void draw_too_small(vgrid *g)
{
	char buf[128];
	snprintf(buf, sizeof buf, "terminal too small: %dx%d", g->w, g->h);
	int y = g->h / 2 - 1;
	if (y < 0)
		y = 0;
	view_message(g, (vrect){0, y, g->w, 1}, ST_ERROR, buf);
	snprintf(buf, sizeof buf, "dnnpart needs at least %dx%d", LAYOUT_MIN_W,
		 LAYOUT_MIN_H);
	view_message(g, (vrect){0, y + 1, g->w, 1}, ST_NORMAL, buf);
	view_message(g, (vrect){0, y + 2, g->w, 1}, ST_DIM, "q quits");
}

static void draw_main(const vstate *st, vgrid *g, vrect r)
{
	const view_class *c = view_current(st);
	if (c->needs_plan && !st->plan) {
		char buf[STATE_TEXT_MAX + 32];
		if (st->running)
			snprintf(buf, sizeof buf, "planning with %s: %s",
				 st->algo->name,
				 st->phase[0] ? st->phase : "starting");
		else if (st->plan_error[0])
			snprintf(buf, sizeof buf, "no plan: %s",
				 st->plan_error);
		else
			snprintf(buf, sizeof buf, "no plan yet: r runs %s",
				 st->algo->name);
		view_message(g, r, st->plan_error[0] ? ST_ERROR : ST_DIM, buf);
		return;
	}
	c->draw(st, g, r);
}

void screen_draw(const vstate *st, vgrid *g)
{
	grid_clear(g);
	vlayout l;
	layout_compute(g->w, g->h, state_ndev(st), &l);
	if (l.too_small) {
		draw_too_small(g);
		return;
	}
	draw_header(st, g, l.header);
	draw_summary(st, g, l.summary);
	draw_panel(st, &l, g);
	draw_tabs(st, g, l.tabs);
	draw_main(st, g, l.main);
	draw_status(st, g, l.status, l.main);
	draw_keys(g, l.keys);
}

vrect screen_main(const vstate *st, int w, int h)
{
	vlayout l;
	layout_compute(w, h, state_ndev(st), &l);
	return l.main;
}

vhit screen_hit(const vstate *st, int w, int h, int x, int y)
{
	vhit hit = {HIT_NONE, 0};
	vlayout l;
	layout_compute(w, h, state_ndev(st), &l);
	if (l.too_small)
		return hit;
	if (rect_contains(l.panel, x, y)) {
		int d = screen_panel_first(st, l.panel_rows) + (y - l.panel.y);
		if (d < state_ndev(st)) {
			hit.kind = HIT_DEVICE;
			hit.index = d;
		}
	} else if (rect_contains(l.tabs, x, y)) {
		for (int v = 0; v < VIEW_COUNT; v++) {
			int x0, x1;
			if (screen_tab_span((view_id)v, w, &x0, &x1) &&
			    x >= x0 && x < x1) {
				hit.kind = HIT_TAB;
				hit.index = v;
			}
		}
	} else if (rect_contains(l.keys, x, y)) {
		for (int n = 1; n <= 10; n++) {
			int x0, x1;
			if (screen_fkey_span(n, w, &x0, &x1) && x >= x0 &&
			    x < x1) {
				hit.kind = HIT_FKEY;
				hit.index = n;
			}
		}
	} else if (rect_contains(l.main, x, y)) {
		hit.kind = HIT_MAIN;
		hit.index = y - l.main.y;
	}
	return hit;
}

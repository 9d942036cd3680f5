/* view_fit.c - what fits (f), where the graph takes levers: the table of
 * `dnnpart fit`'s lever search, the K probed, then the candidates at the
 * answer's K (computed on the worker thread; Enter adopts the row). */
#include <stdio.h>
#include <string.h>

#include "dnnpart/units.h"
#include "view_common.h"

/* The probe lines shown above the candidates: at most a third of r. */
static int probe_lines(const vstate *st, vrect r)
{
	int n = (int)st->fit_search.r.nprobes, most = r.h / 3;
	return n < most ? n : most > 1 ? most : 1;
}

/* The candidates' rows: below the title, the probes, their head, the
 * candidates' title and head; the last line the not-run summary. */
static int cand_top(const vstate *st, vrect r)
{
	return 3 + probe_lines(st, r) + 2;
}

static void fit_list(const vstate *st, vrect r, view_list *l)
{
	view_list_cursor(l, st->fit_nrows, r.h - cand_top(st, r) - 1,
			 st->fit_cursor, 0);
}

static void fit_seek(vstate *st, int row, const view_list *l)
{
	(void)l;
	st->fit_cursor = row;
}

/* Enter adopts the row: its K, strategy, ZeRO stage and levers. */
static unsigned fit_enter(vstate *st)
{
	if (!st->fit_levers || st->fit_cursor < 0 ||
	    st->fit_cursor >= st->fit_nrows)
		return AR_REDRAW;
	const dp_fit_cand *c =
		&st->fit_search.cands[st->fit_rows[st->fit_cursor]];
	if (c->skip != DP_FIT_RAN) {
		state_status(st, true, "%s was refused: nothing to adopt",
			     c->algo->name);
		return AR_REDRAW;
	}
	return AR_REDRAW | AR_FIT_ADOPT;
}

/* r: the search again on the current settings. */
static unsigned fit_rerun(vstate *st)
{
	state_status(st, false, "searching what fits...");
	return AR_FIT;
}

/* One probe line: "  K=4  zero-3 4  bf16+full  1.20 s  fits". */
static void draw_probe(vgrid *g, vrect r, int y, size_t i,
		       const dp_fit_probe *p, vstyle ns)
{
	char buf[200], t[32], o[32];
	int x = r.x;
	snprintf(buf, sizeof buf, "%5zu %4d", i + 1, p->k);
	view_cell(g, &x, y, 12, ns, buf);
	view_cell(g, &x, y, 22, ns, p->strategy[0] ? p->strategy : "-");
	view_cell(g, &x, y, 25, ns, p->levers[0] ? p->levers : "-");
	view_cell(g, &x, y, 11, ns, dp_units_fmt_time(p->makespan, t, sizeof t));
	if (p->feasible)
		snprintf(buf, sizeof buf, "fits");
	else if (p->worst < 0)
		snprintf(buf, sizeof buf, "no strategy took this K");
	else
		snprintf(buf, sizeof buf, "GPU%d over by %s", p->worst,
			 dp_units_fmt_bytes(p->over, o, sizeof o));
	grid_puts(g, x, y, r.x + r.w - x, p->feasible ? ST_OK : ST_ERROR, buf);
}

/* One candidate row, as `dnnpart fit` lists it. */
static void draw_cand(const vstate *st, vgrid *g, vrect r, int y, int row,
		      vstyle ns, bool sel)
{
	size_t i = st->fit_rows[row];
	const dp_fit_cand *c = &st->fit_search.cands[i];
	char buf[200], n[32], t[32];
	int x = r.x;
	bool ran = c->skip == DP_FIT_RAN;
	snprintf(buf, sizeof buf, "%c %s", (int)i == st->fit_search.best
						   ? '*' : ' ',
		 dp_fit_cand_strategy(c, n, sizeof n));
	view_cell(g, &x, y, 12, ns, buf);
	view_cell(g, &x, y, 25, ns, c->levers);
	view_cell(g, &x, y, 22, ns, ran ? c->run.strategy : "-");
	view_cell(g, &x, y, 11, ns,
		  ran ? dp_units_fmt_time(c->run.makespan, t, sizeof t) : "-");
	if (!ran)
		snprintf(buf, sizeof buf, "refused: %s", c->note);
	else if (c->run.feasible)
		snprintf(buf, sizeof buf, "fits%s%s",
			 c->made_fit[0] ? "  made fit by " : "", c->made_fit);
	else
		snprintf(buf, sizeof buf, "over by %s",
			 dp_units_fmt_bytes(c->run.over, t, sizeof t));
	grid_puts(g, x, y, r.x + r.w - x,
		  sel		    ? ns
		  : ran && c->run.feasible ? ST_OK
					   : ST_ERROR,
		  buf);
}

static void fit_draw(const vstate *st, vgrid *g, vrect r)
{
	if (!st->fit_levers) {
		view_message(g, r, ST_DIM,
			     "f searches what fits: K, strategy and levers");
		return;
	}
	const dp_fit_search *f = &st->fit_search;
	bool current = st->fit_gen == st->gen;
	vstyle ns = current ? ST_NORMAL : ST_STALE;
	char buf[400], a[32];
	snprintf(buf, sizeof buf,
		 "smallest K for caps %s, then the fastest plan there: 7 "
		 "strategies x %zu lever sets, %zu reruns%s",
		 dp_units_fmt_bytes(st->m.cap[0], a, sizeof a), f->nsets,
		 f->runs,
		 st->fitting ? " (running)"
		 : current   ? ""
			     : "; settings changed since: r reruns");
	grid_puts(g, r.x, r.y, r.w, ns, buf);
	if (r.h < 8)
		return;
	const view_col ph[] = {{"probe    K", 12}, {"plan", 22},
			       {"levers", 25},	   {"step", 11},
			       {"result", r.w - 70}};
	view_table_head(g, r, r.y + 2, ph, 5);
	int np = probe_lines(st, r);
	size_t first = f->r.nprobes - (size_t)np; /* the last ones */
	for (int i = 0; i < np; i++)
		draw_probe(g, r, r.y + 3 + i, first + (size_t)i,
			   &f->r.probes[first + (size_t)i], ns);
	int y = r.y + 3 + np;
	snprintf(buf, sizeof buf,
		 "candidates at K=%d (*: the answer; Enter adopts the row)",
		 dp_fit_search_k(f));
	grid_puts(g, r.x, y, r.w, ST_HEADER, buf);
	const view_col ch[] = {{"  strategy", 12}, {"levers", 25},
			       {"plan", 22},	   {"step", 11},
			       {"fits / over, made fit by", r.w - 70}};
	view_table_head(g, r, y + 1, ch, 5);
	view_list l;
	fit_list(st, r, &l);
	int top = r.y + cand_top(st, r);
	for (int i = 0; i < l.shown && l.top + i < st->fit_nrows; i++) {
		bool sel = l.top + i == st->fit_cursor;
		if (sel)
			view_select_row(g, r, top + i);
		draw_cand(st, g, r, top + i, l.top + i, sel ? ST_SELECTED : ns,
			  sel);
	}
	size_t b = st->fit_skipped[DP_FIT_SKIP_BOUND],
	       h = st->fit_skipped[DP_FIT_SKIP_HEAVIER];
	snprintf(buf, sizeof buf,
		 "not run: %zu (estimate no better than the fastest fit), %zu "
		 "(a set saving as much did not fit)%s%.80s",
		 b, h, f->nrefused ? "; the graph refuses " : "", f->refused);
	grid_puts(g, r.x, r.y + r.h - 1, r.w, ST_DIM, buf);
}

/* a class reads best with its hooks side by side */
/* clang-format off */
const view_class view_fit_class = {
	VIEW_CLASS(VIEW_FIT, "fit", "Fit", "Fit",
		   fit_draw, fit_list, fit_seek),
	.stacked = true, .home = VIEW_DEVICES,
	.enter = fit_enter, .rerun = fit_rerun,
};
/* clang-format on */

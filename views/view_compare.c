/* view_compare.c - every registered algorithm on the current settings,
 * side by side on the one simulator (computed on the worker thread; Enter
 * adopts the row under the cursor). */
#include <stdio.h>

#include "dnnpart/units.h"
#include "view_common.h"

static void compare_list(const vstate *st, vrect r, view_list *l)
{
	view_list_cursor(l, st->ncmp, r.h - 3, st->cmp_cursor, 0);
}

static void compare_seek(vstate *st, int row, const view_list *l)
{
	(void)l;
	st->cmp_cursor = row;
}

/* r: every algorithm again on the current settings. */
static unsigned compare_rerun(vstate *st)
{
	state_compare_reset(st);
	st->cmp_valid = true;
	return AR_COMPARE;
}

/* The first look starts the comparison. */
static unsigned compare_show(vstate *st)
{
	return !st->cmp_valid && !st->comparing ? compare_rerun(st) : 0;
}

/* Enter adopts the row's algorithm, and its plan when it was made for the
 * current settings (else reruns it). */
static unsigned compare_enter(vstate *st)
{
	if (st->cmp_cursor < 0 || st->cmp_cursor >= st->ncmp)
		return AR_REDRAW;
	const cmp_row *row = &st->cmp[st->cmp_cursor];
	if (row->status != CMP_DONE) {
		state_status(st, true, "%s has no result to adopt yet",
			     row->algo->name);
		return AR_REDRAW;
	}
	const char *name = row->algo->name;
	if (state_compare_adopt(st, st->cmp_cursor)) {
		state_status(st, false, "adopted %s", name);
		return AR_REDRAW | AR_CANCEL_PLAN;
	}
	state_status(st, false, "%s: rerunning on the current settings", name);
	return AR_REDRAW | AR_RERUN;
}

static void compare_draw(const vstate *st, vgrid *g, vrect r)
{
	char buf[300], a[32], b[32];
	bool current = st->cmp_gen == st->gen;
	if (!st->cmp_valid) {
		view_message(g, r, ST_DIM,
			     "r compares every algorithm on the current "
			     "settings");
		return;
	}
	/* the best row, as `dnnpart compare` marks it: the shortest makespan
	 * among the plans that fit */
	int best = -1;
	for (int i = 0; i < st->ncmp; i++) {
		const cmp_row *row = &st->cmp[i];
		if (row->status == CMP_DONE && row->feasible &&
		    (best < 0 || row->makespan < st->cmp[best].makespan))
			best = i;
	}
	/* micro-batches set by u/U price every pipeline row with them
	 * (`dnnpart compare -M`); automatic, each picks its own */
	char mb[40] = "";
	if (st->microbatches)
		snprintf(mb, sizeof mb, ", M=%d (u/U)", st->microbatches);
	snprintf(buf, sizeof buf,
		 "%d algorithms on K=%d%s, link %s (*: fastest that fits, >: "
		 "current)%s",
		 st->ncmp, st->m.k, mb, st->m.link_name,
		 st->comparing ? " (running)"
		 : current     ? "; Enter adopts the row"
			       : "; settings changed since: r reruns");
	grid_puts(g, r.x, r.y, r.w, current ? ST_NORMAL : ST_STALE, buf);
	if (r.h < 3)
		return;
	int wa = 12, wm = 11, wx = 7, wsp = 9, wcut = 11, wt = 10;
	const view_col head[] = {
		{"  algorithm", wa},
		{"makespan", wm},
		{"\xc3\x97LB", wx},
		{"speedup", wsp},
		{"moved", wcut},
		{"time", wt},
		{"memory", r.w - wa - wm - wx - wsp - wcut - wt},
	};
	view_table_head(g, r, r.y + 1, head, 7);
	view_list l;
	compare_list(st, r, &l);
	int cur = st->cmp_cursor < st->ncmp ? st->cmp_cursor : st->ncmp - 1;
	int first = l.top, rows = r.h - 3; /* the last row: the summary */
	for (int i = 0; i < rows && first + i < st->ncmp; i++) {
		const cmp_row *row = &st->cmp[first + i];
		bool sel = first + i == cur;
		int y = r.y + 2 + i, x = r.x;
		vstyle ns = sel ? ST_SELECTED : current ? ST_NORMAL : ST_STALE;
		if (sel)
			view_select_row(g, r, y);
		snprintf(buf, sizeof buf, "%c%c%s", first + i == best ? '*' : ' ',
			 row->algo == st->algo ? '>' : ' ', row->algo->name);
		view_cell(g, &x, y, wa, ns, buf);
		if (row->status == CMP_WAITING || row->status == CMP_RUNNING) {
			grid_puts(g, x, y, r.x + r.w - x, sel ? ns : ST_DIM,
				  row->status == CMP_RUNNING ? "running..."
							     : "waiting");
			continue;
		}
		if (row->status == CMP_FAILED) {
			grid_puts(g, x, y, r.x + r.w - x, sel ? ns : ST_ERROR,
				  row->err);
			continue;
		}
		view_cell(g, &x, y, wm, ns,
			  dp_units_fmt_time(row->makespan, a, sizeof a));
		dp_units_fmt_c(buf, sizeof buf, "%.2f", row->xlb);
		view_cell(g, &x, y, wx, ns, buf);
		dp_units_fmt_c(buf, sizeof buf, "%.2f\xc3\x97", row->speedup);
		view_cell(g, &x, y, wsp, ns, buf);
		view_cell(g, &x, y, wcut, ns,
			  dp_units_fmt_bytes(row->cut_bytes, a, sizeof a));
		view_cell(g, &x, y, wt, ns,
			  dp_units_fmt_time(row->plan_ms * 1000, a, sizeof a));
		/* the largest peak/cap, then what a strategy made ("1f1b
		 * S=4 M=8") */
		const char *what = row->has_plan ? row->plan.strategy : "";
		char ratio[24] = "";
		double rr = row->has_plan ? dp_plan_max_peak_ratio(&row->plan)
					  : -1;
		if (rr >= 0 && rr < 100)
			dp_units_fmt_c(ratio, sizeof ratio, " %.0f%%", rr * 100);
		if (row->feasible || row->worst < 0)
			snprintf(buf, sizeof buf, "feasible%s%s%s", ratio,
				 what[0] ? "  " : "", what);
		else
			snprintf(buf, sizeof buf, "GPU%d +%s over%s%s%s",
				 row->worst,
				 dp_units_fmt_bytes(row->over_bytes, b,
						    sizeof b),
				 ratio, what[0] ? "  " : "", what);
		grid_puts(g, x, y, r.x + r.w - x,
			  sel		  ? ns
			  : row->feasible ? ST_OK
					  : ST_ERROR,
			  buf);
	}
	const dp_algo *al = st->cmp[cur].algo;
	snprintf(buf, sizeof buf, "%s: %s (%s)", al->name, al->summary,
		 al->source);
	grid_puts(g, r.x, r.y + r.h - 1, r.w, ST_DIM, buf);
}

/* a class reads best with its hooks side by side */
/* clang-format off */
const view_class view_compare_class = {
	VIEW_CLASS(VIEW_COMPARE, "compare", "Compare", "Compare",
		   compare_draw, compare_list, compare_seek),
	.enter = compare_enter, .show = compare_show, .rerun = compare_rerun,
};
/* clang-format on */

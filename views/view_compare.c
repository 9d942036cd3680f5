/* view_compare.c - every registered algorithm on the current settings,
 * side by side on the one simulator (computed on the worker thread; Enter
 * adopts the row under the cursor). */
#include <stdio.h>

#include "dnnpart/units.h"
#include "views.h"

void view_compare_draw(const vstate *st, vgrid *g, vrect r)
{
	char buf[300], a[32], b[32];
	bool current = st->cmp_gen == st->gen;
	if (!st->cmp_valid) {
		view_message(g, r, ST_DIM,
			     "r compares every algorithm on the current "
			     "settings");
		return;
	}
	snprintf(buf, sizeof buf, "%d algorithms on K=%d, link %s%s", st->ncmp,
		 st->m.k, st->m.link_name,
		 st->comparing ? " (running)"
		 : current     ? "; Enter adopts the row"
			       : "; settings changed since: r reruns");
	grid_puts(g, r.x, r.y, r.w, current ? ST_NORMAL : ST_STALE, buf);
	if (r.h < 3)
		return;
	int wa = 12, wm = 11, wx = 7, wsp = 9, wcut = 11, wt = 10;
	int wmem = r.w - wa - wm - wx - wsp - wcut - wt;
	int y = r.y + 1, x = r.x;
	grid_fill(g, (vrect){r.x, y, r.w, 1}, ' ', ST_HEADER);
	grid_puts_fit(g, x, y, wa, ST_HEADER, "  algorithm");
	grid_puts_fit(g, x += wa, y, wm, ST_HEADER, "makespan");
	grid_puts_fit(g, x += wm, y, wx, ST_HEADER, "\xc3\x97LB");
	grid_puts_fit(g, x += wx, y, wsp, ST_HEADER, "speedup");
	grid_puts_fit(g, x += wsp, y, wcut, ST_HEADER, "moved");
	grid_puts_fit(g, x += wcut, y, wt, ST_HEADER, "time");
	grid_puts_fit(g, x += wt, y, wmem, ST_HEADER, "memory");
	int rows = r.h - 3;
	int cur = st->cmp_cursor < st->ncmp ? st->cmp_cursor : st->ncmp - 1;
	int first = view_scroll_for(cur, 0, rows, st->ncmp);
	for (int i = 0; i < rows && first + i < st->ncmp; i++) {
		const cmp_row *row = &st->cmp[first + i];
		bool sel = first + i == cur;
		y = r.y + 2 + i;
		vstyle ns = sel ? ST_SELECTED : current ? ST_NORMAL : ST_STALE;
		if (sel)
			grid_fill(g, (vrect){r.x, y, r.w, 1}, ' ', ST_SELECTED);
		x = r.x;
		snprintf(buf, sizeof buf, "%s %s",
			 row->algo == st->algo ? "*" : " ", row->algo->name);
		grid_puts_fit(g, x, y, wa - 1, ns, buf);
		x += wa;
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
		grid_puts_fit(g, x, y, wm - 1, ns,
			      dp_units_fmt_time(row->makespan, a, sizeof a));
		snprintf(buf, sizeof buf, "%.2f", row->xlb);
		grid_puts_fit(g, x += wm, y, wx - 1, ns, buf);
		snprintf(buf, sizeof buf, "%.2f\xc3\x97", row->speedup);
		grid_puts_fit(g, x += wx, y, wsp - 1, ns, buf);
		grid_puts_fit(g, x += wsp, y, wcut - 1, ns,
			      dp_units_fmt_bytes(row->cut_bytes, a, sizeof a));
		grid_puts_fit(g, x += wcut, y, wt - 1, ns,
			      dp_units_fmt_time(row->plan_ms * 1000, a, sizeof a));
		if (row->feasible || row->worst < 0)
			snprintf(buf, sizeof buf, "feasible");
		else
			snprintf(buf, sizeof buf, "GPU%d +%s over", row->worst,
				 dp_units_fmt_bytes(row->over_bytes, b, sizeof b));
		x += wt;
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

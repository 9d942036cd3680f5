/* view_common.c - helpers shared by the views (see views.h). */
#include <stdio.h>

#include "views.h"

int view_scroll_for(int cursor, int scroll, int rows, int n)
{
	if (rows < 1)
		rows = 1;
	if (cursor < scroll)
		scroll = cursor;
	if (cursor >= scroll + rows)
		scroll = cursor - rows + 1;
	if (scroll > n - rows)
		scroll = n - rows;
	return scroll < 0 ? 0 : scroll;
}

void view_time_window(const vstate *st, double *t0, double *t1)
{
	double mk = st->plan ? st->plan->sim.makespan : 0;
	int z = st->tl_zoom < 1 ? 1 : st->tl_zoom;
	double span = mk / z;
	double left = st->tl_left;
	if (left > 1.0 - 1.0 / z)
		left = 1.0 - 1.0 / z;
	if (left < 0)
		left = 0;
	*t0 = left * mk;
	*t1 = *t0 + span;
}

char *view_dev_label(int d, char *buf, int size)
{
	snprintf(buf, (size_t)size, "GPU%d", d);
	return buf;
}

void view_message(vgrid *g, vrect r, vstyle st, const char *msg)
{
	if (r.w <= 0 || r.h <= 0)
		return;
	int w = text_width(msg);
	int x = r.x + (w < r.w ? (r.w - w) / 2 : 0);
	grid_puts(g, x, r.y + r.h / 2, r.x + r.w - x, st, msg);
}

void view_scroll_note(vgrid *g, vrect r, int y, int first, int shown, int total)
{
	if (total <= shown || shown <= 0)
		return;
	char buf[64];
	int last = first + shown;
	if (last > total)
		last = total;
	snprintf(buf, sizeof buf, " %d-%d of %d ", first + 1, last, total);
	grid_puts_right(g, r.x + r.w, y, ST_DIM, buf);
}

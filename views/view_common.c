/* view_common.c - helpers shared by the views (see view_common.h). */
#include "view_common.h"

#include <stdio.h>

#define ZOOM_MAX (1 << 20)

/* ---- lists ---- */

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

void view_list_cursor(view_list *l, int rows, int shown, int cursor, int scroll)
{
	l->rows = rows < 0 ? 0 : rows;
	l->shown = shown < 1 ? 1 : shown;
	l->cursor = cursor;
	int cur = cursor < l->rows ? cursor : l->rows - 1;
	l->top = view_scroll_for(cur < 0 ? 0 : cur, scroll, l->shown, l->rows);
}

void view_list_text(view_list *l, int lines, int shown, int top)
{
	l->shown = shown < 1 ? 1 : shown;
	l->rows = lines > l->shown ? lines - l->shown + 1 : 1;
	l->cursor = top;
	l->top = top < 0 ? 0 : top < l->rows ? top : l->rows - 1;
}

void view_list_devices(const vstate *st, int shown, view_list *l)
{
	view_list_cursor(l, state_ndev(st), shown, st->dev, 0);
}

void view_seek_device(vstate *st, int row, const view_list *l)
{
	(void)l;
	view_select_device(st, row);
}

/* ---- tables ---- */

void view_table_head(vgrid *g, vrect r, int y, const view_col *cols, int n)
{
	grid_fill(g, (vrect){r.x, y, r.w, 1}, ' ', ST_HEADER);
	int x = r.x;
	for (int i = 0; i < n; i++) {
		grid_puts_fit(g, x, y, cols[i].w, ST_HEADER, cols[i].title);
		x += cols[i].w;
	}
}

void view_cell(vgrid *g, int *x, int y, int w, vstyle st, const char *s)
{
	grid_puts_fit(g, *x, y, w - 1, st, s);
	*x += w;
}

void view_cell_name(vgrid *g, int *x, int y, int w, vstyle st, const char *s)
{
	grid_puts_mid(g, *x, y, w - 1, st, s);
	*x += w;
}

void view_select_row(vgrid *g, vrect r, int y)
{
	grid_fill(g, (vrect){r.x, y, r.w, 1}, ' ', ST_SELECTED);
}

/* ---- the time window ---- */

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

/* The left edge l kept inside the step at zoom z. */
static double clamp_left(double l, int z)
{
	if (l > 1 - 1.0 / z)
		l = 1 - 1.0 / z;
	return l < 0 ? 0 : l;
}

void view_time_scroll(vstate *st, int dir)
{
	double w = 1.0 / st->tl_zoom;
	st->tl_left = clamp_left(st->tl_left + dir * w / 4, st->tl_zoom);
}

void view_time_ends(vstate *st, int dir)
{
	st->tl_left = clamp_left(dir < 0 ? 0 : 1.0, st->tl_zoom);
}

void view_time_zoom(vstate *st, bool in)
{
	int z = st->tl_zoom;
	int nz = in ? (z < ZOOM_MAX ? z * 2 : z) : (z > 1 ? z / 2 : 1);
	double center = st->tl_left + 0.5 / z;
	st->tl_zoom = nz;
	st->tl_left = clamp_left(center - 0.5 / nz, nz);
}

/* ---- text ---- */

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

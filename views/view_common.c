/* view_common.c - helpers shared by the views (see view_common.h). */
#include "view_common.h"

#include <stdio.h>

#include "dnnpart/units.h"

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

void view_time_window(const vstate *st, view_id v, double *t0, double *t1)
{
	const time_win *w = &st->time[v];
	double mk = st->plan ? st->plan->sim.makespan : 0;
	int z = w->zoom < 1 ? 1 : w->zoom;
	double span = mk / z;
	double left = w->left;
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
	time_win *w = &st->time[st->view];
	w->left = clamp_left(w->left + dir / (4.0 * w->zoom), w->zoom);
}

void view_time_ends(vstate *st, int dir)
{
	time_win *w = &st->time[st->view];
	w->left = clamp_left(dir < 0 ? 0 : 1.0, w->zoom);
}

void view_time_zoom(vstate *st, bool in)
{
	time_win *w = &st->time[st->view];
	int z = w->zoom;
	int nz = in ? (z < ZOOM_MAX ? z * 2 : z) : (z > 1 ? z / 2 : 1);
	double center = w->left + 0.5 / z;
	w->zoom = nz;
	w->left = clamp_left(center - 0.5 / nz, nz);
}

void view_time_axis(vgrid *g, int x, int y, int n, double t0, double dt)
{
	char buf[32];
	int step = 14;
	for (int c = 0; c < n; c += step) {
		dp_units_fmt_time(t0 + c * dt, buf, sizeof buf);
		/* a tick only with its whole time: a cut one would misread
		 * ("20" of "201 us") */
		if (c + 1 + text_width(buf) > n)
			break;
		grid_put(g, x + c, y, 0x2502u, ST_DIM);
		grid_puts(g, x + c + 1, y, step - 2, ST_DIM, buf);
	}
}

char *view_time_text(const vstate *st, view_id v, char *buf, int size)
{
	char a[32], b[32], c[32];
	double t0, t1;
	view_time_window(st, v, &t0, &t1);
	snprintf(buf, (size_t)size, "%s-%s of %s, zoom %d\xc3\x97",
		 dp_units_fmt_time(t0, a, sizeof a),
		 dp_units_fmt_time(t1, b, sizeof b),
		 dp_units_fmt_time(st->plan ? st->plan->sim.makespan : 0, c,
				   sizeof c),
		 st->time[v].zoom);
	return buf;
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
	/* centred; a message wider than r wraps onto lines of its own,
	 * centred as a block, so that it shows whole */
	text_line lines[16];
	int n = text_wrap(msg, r.w, r.h < 16 ? r.h : 16, lines);
	int y = r.y + r.h / 2 - n / 2;
	if (y < r.y)
		y = r.y;
	for (int i = 0; i < n; i++) {
		int w = 0;
		for (const char *p = lines[i].start;
		     p < lines[i].start + lines[i].len;)
			w += (utf8_next(&p), 1);
		int x = r.x + (w < r.w ? (r.w - w) / 2 : 0);
		grid_puts_n(g, x, y + i, r.x + r.w - x, st, lines[i].start,
			    lines[i].len);
	}
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

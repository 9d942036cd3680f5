/* layout.c - the screen layout as a pure function of size (see layout.h). */
#include "layout.h"

#include <string.h>

static int digits(int n)
{
	int d = 1;
	while (n >= 10) {
		n /= 10;
		d++;
	}
	return d;
}

/* Columns of a devices-panel row. Fixed parts first; the two bars share
 * what is left, the memory bar getting more because it carries the cap
 * mark and the over-cap region. */
static void panel_columns(vlayout *l, int ndev)
{
	int w = l->w;
	l->x_name = 0;
	l->w_name = 3 + digits(ndev > 0 ? ndev - 1 : 0) + 1;
	l->w_pct = 5;
	l->w_memtxt = 22;
	l->w_comm = w >= 110 ? 26 : 0;
	int fixed = l->w_name + l->w_pct + 1 + 1 + l->w_memtxt +
		    (l->w_comm ? 1 + l->w_comm : 0);
	int room = w - fixed;
	if (room < 16)
		room = 16;
	l->w_load = room * 2 / 5;
	if (l->w_load < 8)
		l->w_load = 8;
	l->w_mem = room - l->w_load;
	l->x_load = l->x_name + l->w_name;
	l->x_pct = l->x_load + l->w_load;
	l->x_mem = l->x_pct + l->w_pct + 1;
	l->x_memtxt = l->x_mem + l->w_mem + 1;
	l->x_comm = l->w_comm ? l->x_memtxt + l->w_memtxt + 1 : 0;
}

static vrect row(int y, int w)
{
	return (vrect){0, y, w, 1};
}

void layout_compute(int w, int h, int ndev, vlayout *l)
{
	memset(l, 0, sizeof *l);
	l->w = w < 0 ? 0 : w;
	l->h = h < 0 ? 0 : h;
	if (ndev < 1)
		ndev = 1;
	if (l->w < LAYOUT_MIN_W || l->h < LAYOUT_MIN_H) {
		l->too_small = true;
		return;
	}
	w = l->w;
	h = l->h;
	/* six single rows: header, summary, panel title, tabs, status, keys */
	int rest = h - 6;
	int rows = rest / 2; /* the panel never takes more than half */
	if (rows > ndev)
		rows = ndev;
	if (rows > rest - LAYOUT_MIN_MAIN)
		rows = rest - LAYOUT_MIN_MAIN;
	if (rows < 1)
		rows = 1;
	l->panel_rows = rows;
	int y = 0;
	l->header = row(y++, w);
	l->summary = row(y++, w);
	l->panel_head = row(y++, w);
	l->panel = (vrect){0, y, w, rows};
	y += rows;
	l->tabs = row(y++, w);
	l->main = (vrect){0, y, w, h - 2 - y};
	l->status = row(h - 2, w);
	l->keys = row(h - 1, w);
	panel_columns(l, ndev);
}

bool rect_overlap(vrect a, vrect b)
{
	if (a.w <= 0 || a.h <= 0 || b.w <= 0 || b.h <= 0)
		return false;
	return a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h &&
	       b.y < a.y + a.h;
}

bool rect_inside(vrect r, int w, int h)
{
	if (r.w <= 0 || r.h <= 0)
		return true;
	return r.x >= 0 && r.y >= 0 && r.x + r.w <= w && r.y + r.h <= h;
}

bool rect_contains(vrect r, int x, int y)
{
	return x >= r.x && y >= r.y && x < r.x + r.w && y < r.y + r.h;
}

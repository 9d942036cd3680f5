/* layout.h - where each part of the screen goes, as a pure function of the
 * terminal size and the device count (after nvtop: the layout is computed,
 * never improvised by the drawing code, and tested over every size).
 *
 * From the top: header (graph and settings), summary (the plan's verdict),
 * the devices panel (a title row, then one row per visible device), the
 * view tabs, the main view, the status line and the function-key bar. Below
 * LAYOUT_MIN_W x LAYOUT_MIN_H only a "terminal too small" message is shown.
 */
#ifndef DNNPART_VIEWS_LAYOUT_H
#define DNNPART_VIEWS_LAYOUT_H

#include <stdbool.h>

#include "grid.h"

#define LAYOUT_MIN_W 80
#define LAYOUT_MIN_H 24
/* Rows the main view keeps at the smallest size. */
#define LAYOUT_MIN_MAIN 8

typedef struct vlayout {
	int w, h;
	bool too_small;
	vrect header, summary, panel_head, panel, tabs, main, status, keys;
	int panel_rows; /* devices visible at once (panel.h) */

	/* columns of a devices-panel row; a width of 0 = not shown */
	int x_name, w_name;	/* "GPU12" */
	int x_load, w_load;	/* compute-load bar, brackets included */
	int x_pct, w_pct;	/* " 78%" */
	int x_mem, w_mem;	/* memory bar, brackets included */
	int x_memtxt, w_memtxt; /* "12.1 GiB/16.0 GiB OVER" */
	int x_comm, w_comm;	/* "in 1.20 GiB out 800 MiB" (wide screens) */
} vlayout;

/* Computes the layout of a w x h screen showing ndev devices (>= 1). */
void layout_compute(int w, int h, int ndev, vlayout *l);

/* Whether two rectangles share a cell (empty ones never do). */
bool rect_overlap(vrect a, vrect b);
/* Whether r lies inside a w x h grid (empty rectangles always do). */
bool rect_inside(vrect r, int w, int h);
/* Whether (x, y) is in r. */
bool rect_contains(vrect r, int x, int y);

#endif

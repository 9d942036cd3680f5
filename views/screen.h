/* screen.h - the whole screen: header, summary, devices panel, view tabs,
 * the active view, status line and function-key bar, placed by layout.h.
 *
 * screen_draw() is a pure function of (state, grid size): it reads the
 * state (after state_prepare) and writes every cell of the grid. The hit
 * test maps a mouse position back to what is drawn there, with the same
 * geometry, so clicks always match the picture.
 */
#ifndef DNNPART_VIEWS_SCREEN_H
#define DNNPART_VIEWS_SCREEN_H

#include <stdbool.h>

#include "grid.h"
#include "layout.h"
#include "state.h"

/* Draws the whole screen into g (its size is the terminal's). */
void screen_draw(const vstate *st, vgrid *g);

typedef enum hit_kind {
	HIT_NONE = 0,
	HIT_DEVICE, /* a devices-panel row: index = device */
	HIT_TAB,    /* a view tab: index = view */
	HIT_FKEY,   /* a function-key bar slot: index = 1..10 */
	HIT_MAIN,   /* the main view: index = row inside it */
} hit_kind;

typedef struct vhit {
	hit_kind kind;
	int index;
} vhit;

/* The rectangle of the main view on a w x h screen (empty below the
 * minimum size). */
vrect screen_main(const vstate *st, int w, int h);

/* What is drawn at (x, y) on a w x h screen. */
vhit screen_hit(const vstate *st, int w, int h, int x, int y);

/* First device the panel shows with rows rows (keeps the selected device
 * visible). */
int screen_panel_first(const vstate *st, int rows);
/* Columns [x0, x1) of view v's tab on a w-wide screen; false if hidden. */
bool screen_tab_span(view_id v, int w, int *x0, int *x1);
/* Columns [x0, x1) of F-key slot n (1..10); false if not shown. */
bool screen_fkey_span(int n, int w, int *x0, int *x1);

#endif

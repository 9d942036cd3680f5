/* view_common.h - helpers the views share (view_common.c): lists and
 * their scrolling, tables, the time window of the timeline and memory
 * views, messages. For the view_*.c files and the frame around them
 * (screen.c); everything else reaches a view through its class (view.h).
 */
#ifndef DNNPART_VIEWS_VIEW_COMMON_H
#define DNNPART_VIEWS_VIEW_COMMON_H

#include <stdint.h>

#include "grid.h"
#include "state.h"
#include "view.h"

/* ---- lists ---- */

/* Scroll offset that keeps cursor visible in a list of rows rows, starting
 * from the remembered offset. */
int view_scroll_for(int cursor, int scroll, int rows, int n);
/* Fills l for a list of rows rows with a cursor, shown rows at a time,
 * scrolled from scroll as the drawing does. */
void view_list_cursor(view_list *l, int rows, int shown, int cursor,
		      int scroll);
/* Fills l for a text of lines lines without a cursor, shown at a time,
 * whose top line is top: the rows are the lines that can be on top. */
void view_list_text(view_list *l, int lines, int shown, int top);
/* The device list of the devices, timeline and memory views: every
 * device, shown rows at a time, the selected one visible. */
void view_list_devices(const vstate *st, int shown, view_list *l);
/* Seek of the device list: selects device row. */
void view_seek_device(vstate *st, int row, const view_list *l);
/* Opens Op detail on op u (view_op.c); AR_* bits. */
unsigned view_open_op(vstate *st, uint32_t u);

/* ---- tables ---- */

typedef struct view_col {
	const char *title;
	int w; /* cells, the gap after it included */
} view_col;

/* The header row of a table at row y of r: a bar in the header style with
 * the n columns' titles from r.x on. */
void view_table_head(vgrid *g, vrect r, int y, const view_col *cols, int n);
/* One cell of a table row: s in the w - 1 cells at *x, then *x moves to
 * the next column. */
void view_cell(vgrid *g, int *x, int y, int w, vstyle st, const char *s);
/* The same for an op name: a long one is cut in the middle
 * (grid_puts_mid), not at the end. */
void view_cell_name(vgrid *g, int *x, int y, int w, vstyle st, const char *s);
/* Row y of r in the selected style (the cursor's row). */
void view_select_row(vgrid *g, vrect r, int y);

/* ---- the time window (timeline and memory, each its own) ---- */

/* View v's visible time window: [t0, t1). */
void view_time_window(const vstate *st, view_id v, double *t0, double *t1);
/* The hooks of a view with a time window; each moves the window of the
 * view shown (st->view). */
/* Moves the window by a quarter of its width (dir -1 or +1). */
void view_time_scroll(vstate *st, int dir);
/* Moves the window to the start (dir -1) or the end (+1) of the step. */
void view_time_ends(vstate *st, int dir);
/* Zooms in (twice as narrow) or out around the window's centre. */
void view_time_zoom(vstate *st, bool in);
/* A time axis of n columns from (x, y): a tick with its time every 14
 * columns (none where the time would not fit whole), the window starting
 * at t0, dt per column. */
void view_time_axis(vgrid *g, int x, int y, int n, double t0, double dt);
/* "0 us-210 us of 210 us, zoom 1×": view v's window, into buf. */
char *view_time_text(const vstate *st, view_id v, char *buf, int size);

/* ---- text ---- */

/* A short device label: "GPU3". */
char *view_dev_label(int d, char *buf, int size);
/* A one-line message centred in r (for empty views). */
void view_message(vgrid *g, vrect r, vstyle st, const char *msg);
/* A scroll indicator "12-30 of 512" at the right end of row y of r. */
void view_scroll_note(vgrid *g, vrect r, int y, int first, int shown,
		      int total);

#endif

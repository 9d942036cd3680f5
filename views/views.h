/* views.h - the views: each draws the state into one rectangle.
 *
 * A view is a pure function of (state, rectangle); it writes only inside
 * its rectangle. The state must have been prepared (state_prepare) and the
 * views that show a plan are only called when st->plan is set. Each lives
 * in its own file, view_NAME.c.
 */
#ifndef DNNPART_VIEWS_VIEWS_H
#define DNNPART_VIEWS_VIEWS_H

#include "grid.h"
#include "state.h"

typedef void (*view_draw_fn)(const vstate *st, vgrid *g, vrect r);

void view_devices_draw(const vstate *st, vgrid *g, vrect r);
void view_timeline_draw(const vstate *st, vgrid *g, vrect r);
void view_memory_draw(const vstate *st, vgrid *g, vrect r);
void view_critical_draw(const vstate *st, vgrid *g, vrect r);
void view_ops_draw(const vstate *st, vgrid *g, vrect r);
void view_op_draw(const vstate *st, vgrid *g, vrect r);
void view_compare_draw(const vstate *st, vgrid *g, vrect r);
void view_help_draw(const vstate *st, vgrid *g, vrect r);

/* Rows of the help screen's text (for scrolling). */
int view_help_lines(void);

/* Helpers shared by the table views (view_common.c). */

/* Scroll offset that keeps cursor visible in a list of rows rows, starting
 * from the remembered offset. */
int view_scroll_for(int cursor, int scroll, int rows, int n);
/* The visible time window of the timeline and memory views: [t0, t1). */
void view_time_window(const vstate *st, double *t0, double *t1);
/* A short device label: "GPU3". */
char *view_dev_label(int d, char *buf, int size);
/* A one-line message centred in r (for empty views). */
void view_message(vgrid *g, vrect r, vstyle st, const char *msg);
/* A scroll indicator "12-30 of 512" at the right end of row y of r. */
void view_scroll_note(vgrid *g, vrect r, int y, int first, int shown,
		      int total);

#endif

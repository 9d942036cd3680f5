/* view.h - a view is a table of callbacks (after tmux's window_mode).
 *
 * Everything about a view sits in one struct, view_class, defined in the
 * view's own file: the names it goes by (--view NAME, its tab, the help),
 * how it draws, the list its cursor moves through, and what Enter, the
 * arrows, PgUp/PgDn, Home/End, the wheel, z, r and showing it do. One table,
 * view_table[] in tab order, drives the tabs and the number keys, --view
 * parsing, the help screen and the actions' dispatch: nothing else keeps a
 * list of views or switches on which one is shown.
 *
 * A view is a pure function of the state and its rectangle: draw writes
 * only inside it, and list tells the actions, from the same geometry, how
 * many rows there are and how many fit, so paging and drawing agree
 * without the front end storing any size in the state.
 *
 * Adding a view:
 *   1. write views/view_NAME.c with its draw and list functions and
 *      `const view_class view_NAME_class = {...}`; hooks left NULL get the
 *      defaults written beside them below;
 *   2. add X(NAME, name) to VIEW_LIST in state.h, before HELP: that line
 *      numbers it (VIEW_NAME), puts it in view_table and gives it a tab
 *      and a number key, up to 9 (the help screen and `show --view`
 *      follow).
 * tests/test_view_table.c then checks it like every other view.
 */
#ifndef DNNPART_VIEWS_VIEW_H
#define DNNPART_VIEWS_VIEW_H

#include <stdbool.h>

#include "action_result.h"
#include "grid.h"
#include "state.h"

/* A view's list as drawn in a rectangle: what Up/Down, PgUp/PgDn, Home/End
 * and the wheel move through. For a text that scrolls without a cursor
 * (Op detail, help) the rows are its possible top lines and the cursor is
 * the top line. */
typedef struct view_list {
	int rows;   /* rows the cursor can be on (0: an empty list) */
	int shown;  /* rows that fit in the rectangle at once (>= 1) */
	int cursor; /* the cursor as the state holds it: 0..rows-1, or
		       past the end after a resize (drawn on the last row) */
	int top;    /* the first row drawn */
} view_list;

#define VIEW_ALIASES 3 /* at most; NULL after the last */

typedef struct view_class {
	view_id id;			   /* its place in view_table */
	const char *key;		   /* `show --view NAME`: "critical" */
	const char *aliases[VIEW_ALIASES]; /* other names for --view */
	const char *name; /* "Critical path": the tab, when all fit */
	const char *tab;  /* "Critical": the tab on a narrow screen */
	bool needs_plan; /* draws st->plan (the frame says why there is none) */
	bool stacked;	 /* opened over another view: Esc goes back there,
			    or to home when that is unknown */
	view_id home;

	/* Draws the view into r (prepared state; st->plan set when
	 * needs_plan). */
	void (*draw)(const vstate *st, vgrid *g, vrect r);
	/* The list as drawn in r; works without a plan. */
	void (*list)(const vstate *st, vrect r, view_list *out);
	/* Puts the cursor on row (0..l->rows-1 of the list l, as for r). */
	void (*seek)(vstate *st, int row, const view_list *l);

	/* Optional hooks: NULL does what the comment says. */
	/* Enter; AR_* bits. NULL: nothing. */
	unsigned (*enter)(vstate *st);
	/* Left (dir -1) and Right (+1). NULL: the previous / next device. */
	void (*sideways)(vstate *st, int dir);
	/* PgUp (-1) and PgDn (+1) in rectangle r. NULL: a list's page. */
	void (*page)(vstate *st, vrect r, int dir);
	/* Home (-1) and End (+1). NULL: the first / last row. */
	void (*ends)(vstate *st, int dir);
	/* The mouse wheel (-1 up, +1 down). NULL: three rows. */
	void (*wheel)(vstate *st, int dir);
	/* z (in) and Z (out). NULL: they show the timeline and zoom it. */
	void (*zoom)(vstate *st, bool in);
	/* The view was asked for (key, tab, click, Enter); AR_* bits. NULL:
	 * nothing. */
	unsigned (*show)(vstate *st);
	/* r in this view, instead of rerunning the plan; a change of the
	 * settings starts it along with the plan job. AR_* bits. NULL: r
	 * reruns the plan. */
	unsigned (*rerun)(vstate *st);
} view_class;

/* The members every view_class sets, in one line of its initializer: its
 * id, key, display name, tab label, draw, list and seek. The optional
 * hooks follow it as designated initializers. */
#define VIEW_CLASS(id_, key_, name_, tab_, draw_, list_, seek_)                \
	.id = (id_), .key = (key_), .name = (name_), .tab = (tab_),            \
	.draw = (draw_), .list = (list_), .seek = (seek_)

/* Every view, indexed by view_id (VIEW_LIST's order). */
extern const view_class *const view_table[VIEW_ALL];

/* The class of the view on screen. */
const view_class *view_current(const vstate *st);
/* The view named s (its key or an alias), or -1. */
int view_parse(const char *s);
/* The keys of every view as "a, b, ... or z" into buf. */
char *view_keys_text(char *buf, int size);

/* Shows view v: a stacked view remembers the one under it; the class's
 * show hook runs. Returns AR_* bits. */
unsigned view_show(vstate *st, view_id v);
/* Leaves a stacked view (help, Op detail) for the one it was opened over,
 * or its home. */
void view_leave(vstate *st);
/* Selects device d (clamped to the devices shown); the memory view's list
 * of live tensors starts again at the top. */
void view_select_device(vstate *st, int d);

#endif

/* style.h - semantic cell styles.
 *
 * Views name what a cell means, never how it looks: the curses backend
 * (tui/tui_colors.c) maps each style to a color pair or, in the monochrome
 * scheme, to an attribute. Bars never rely on color alone: every style that
 * carries meaning in a bar also has its own glyph (see bar.h).
 */
#ifndef DNNPART_VIEWS_STYLE_H
#define DNNPART_VIEWS_STYLE_H

typedef enum vstyle {
	ST_NORMAL = 0,
	ST_HEADER,   /* title line, table headers */
	ST_BAR_OK,   /* a bar's fill within its limit */
	ST_BAR_WARN, /* a bar's fill close to its limit (>= 90 % of the cap) */
	ST_BAR_OVER, /* memory beyond the cap */
	ST_CAP_MARK, /* the cap's position on a memory bar */
	ST_CRITICAL, /* on the schedule's critical path */
	ST_SELECTED, /* the selected device, row or op */
	ST_STALE,    /* numbers of a plan that a rerun is replacing */
	ST_DIM,	     /* secondary text */
	ST_ERROR,    /* error messages, infeasible verdicts */
	ST_OK,	     /* positive verdicts ("feasible") */
	ST_KEY,	     /* a key name in the function-key bar or the help */
	ST_KEYLABEL, /* the label beside a key in the function-key bar */
	ST_TAB,	     /* an inactive view tab */
	ST_TAB_ACTIVE, /* the active view tab */
	ST_PROMPT,     /* the line editor in the status line */
	ST_BUBBLE,     /* a pipeline device waiting in the Timeline */
	/* micro-batch m of a pipeline in the Timeline: ST_MB0 + m %
	 * ST_MB_COLORS (the cell's digit says m without colour) */
	ST_MB0,
	ST_MB1,
	ST_MB2,
	ST_MB3,
	ST_MB4,
	ST_MB5,
	ST_COUNT
} vstyle;

#define ST_MB_COLORS 6

/* Lower-case name of a style ("bar_over"), for tests and debugging. */
const char *style_name(vstyle s);

#endif

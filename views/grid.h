/* grid.h - a character grid: what a view draws into.
 *
 * A grid is w x h cells, each a Unicode codepoint and a semantic style
 * (style.h). Views draw into rectangles of a grid; the curses backend copies
 * a grid to the screen and `dnnpart show` / the golden tests print it as
 * text. Every write is clipped to the grid, so a view can never draw outside
 * it. Text is UTF-8; each codepoint takes exactly one cell: characters that
 * are not known to be one column wide (control characters, wide CJK, emoji,
 * invalid UTF-8) are stored as '?', so the screen never shifts.
 *
 * Ownership: a grid owns its cells (grid_free). Not thread-safe.
 */
#ifndef DNNPART_VIEWS_GRID_H
#define DNNPART_VIEWS_GRID_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "style.h"

typedef struct vrect {
	int x, y, w, h;
} vrect;

typedef struct vcell {
	uint32_t ch;   /* codepoint, one column wide */
	uint8_t style; /* vstyle */
} vcell;

typedef struct vgrid {
	int w, h;
	vcell *cells; /* row-major, w * h */
} vgrid;

/* Allocates a w x h grid of blanks (w, h >= 0). Returns 0, or -1 when out
 * of memory (the grid is then empty). */
int grid_init(vgrid *g, int w, int h);
void grid_free(vgrid *g);
/* Resizes to w x h, clearing it. Returns 0 or -1 (grid unchanged). */
int grid_resize(vgrid *g, int w, int h);
/* Fills every cell with a blank in ST_NORMAL. */
void grid_clear(vgrid *g);

/* The cell at (x, y), or NULL outside the grid. */
vcell *grid_cell(vgrid *g, int x, int y);
const vcell *grid_cell_const(const vgrid *g, int x, int y);

/* Writes one codepoint (replaced by '?' when not one column wide). */
void grid_put(vgrid *g, int x, int y, uint32_t ch, vstyle st);
/* Fills a rectangle (clipped) with ch. */
void grid_fill(vgrid *g, vrect r, uint32_t ch, vstyle st);
/* Changes the style of a rectangle's cells, keeping their glyphs. */
void grid_restyle(vgrid *g, vrect r, vstyle st);

/* Writes UTF-8 text at (x, y), at most maxw cells (maxw < 0: to the grid's
 * right edge). Returns the number of cells written. */
int grid_puts(vgrid *g, int x, int y, int maxw, vstyle st, const char *s);
int grid_printf(vgrid *g, int x, int y, int maxw, vstyle st, const char *fmt,
		...) __attribute__((format(printf, 6, 7)));
/* Writes s into exactly w cells: padded with blanks, or cut with a '~'
 * in the last cell when it does not fit. */
void grid_puts_fit(vgrid *g, int x, int y, int w, vstyle st, const char *s);
/* Writes s into exactly w cells like grid_puts_fit, but cuts a long text
 * in the middle ("model/h1…ttn/qkv/grad"), so that names that share a
 * prefix still read apart. */
void grid_puts_mid(vgrid *g, int x, int y, int w, vstyle st, const char *s);
/* Writes s right-aligned so that it ends at column x_end - 1; returns the
 * column where it starts. */
int grid_puts_right(vgrid *g, int x_end, int y, vstyle st, const char *s);

/* One line of wrapped text: len bytes from start. */
typedef struct text_line {
	const char *start;
	int len;
} text_line;
/* Breaks s into at most max lines of at most w cells each, after the last
 * space that keeps a line within w (mid-word only for a word longer than
 * w); spaces at a break are dropped. Returns the number of lines (text
 * left over when max is reached is not in them). */
int text_wrap(const char *s, int w, int max, text_line *lines);
/* grid_puts of the first len bytes of s. */
int grid_puts_n(vgrid *g, int x, int y, int maxw, vstyle st, const char *s,
		int len);

/* Number of cells text takes (codepoints in UTF-8; invalid bytes count as
 * one cell each). */
int text_width(const char *s);
/* Decodes one codepoint from s (advancing *s); invalid sequences give
 * U+FFFD and advance one byte. */
uint32_t utf8_next(const char **s);
/* Encodes cp as UTF-8 into out (4 bytes); returns the length. */
int utf8_encode(uint32_t cp, char out[4]);
/* Whether cp is drawn one column wide by terminals (the set the grid
 * keeps). */
bool glyph_is_narrow(uint32_t cp);
/* The ASCII stand-in of a glyph, for terminals without UTF-8. */
char glyph_ascii(uint32_t cp);

/* The grid as text: one line per row, trailing blanks removed, each line
 * ending in '\n'. UTF-8, or ASCII stand-ins when ascii is true. Returns a
 * malloc'd string (NULL when out of memory). */
char *grid_to_text(const vgrid *g, bool ascii);
/* One row as text (no newline, trailing blanks removed) into buf. */
char *grid_row_text(const vgrid *g, int y, char *buf, size_t size);

#endif

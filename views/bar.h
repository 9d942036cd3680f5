/* bar.h - the devices panel's bars, drawn into a grid.
 *
 * Bars carry their meaning in glyphs as well as styles, so that a monochrome
 * terminal shows the same thing (after htop's monochrome scheme):
 *   load    [████████▌    ]   fill in eighths of a cell
 *   memory  [██████   ┃   ]   cap mark ┃ at the cap; the scale leaves 20 %
 *                             headroom above the cap, so the mark sits
 *                             inside the bar
 *   over    [██████████┃!!!]  memory beyond the cap is drawn with '!'
 *   reserve [█████   ░░┃   ]  the part of the cap the framework reserves
 *                             (machine.h), before the mark; a peak in it is
 *                             over ('!')
 * ASCII terminals get '#', '|' and '!' (grid.h glyph_ascii).
 */
#ifndef DNNPART_VIEWS_BAR_H
#define DNNPART_VIEWS_BAR_H

#include <stdbool.h>
#include <stdint.h>

#include "grid.h"

#define GLYPH_FULL 0x2588u /* █ */
#define GLYPH_CAP 0x2503u  /* ┃ */
#define GLYPH_OVER ((uint32_t)'!')
#define GLYPH_CRIT 0x2593u    /* ▓ critical-path op in the timeline */
#define GLYPH_HALF 0x258cu    /* ▌ */
#define GLYPH_RESERVE 0x2591u /* ░ memory reserved for the framework */
#define GLYPH_LINE 0x2501u    /* ━ the cap line of the memory view */

/* Draws a bar of w cells (brackets included) at (x, y) filled to frac
 * (0..1, clamped). stale dims it. */
void bar_load(vgrid *g, int x, int y, int w, double frac, bool stale);

/* Draws a memory bar of w cells (brackets included): peak against cap
 * (DP_CAP_UNLIMITED: no mark, scaled to the peak). Fill >= 90 % of the cap
 * is ST_BAR_WARN; over the cap the fill is ST_BAR_OVER, with GLYPH_OVER
 * beyond the mark. */
void bar_memory(vgrid *g, int x, int y, int w, int64_t peak, int64_t cap,
		bool stale);

/* The same with a reserve (machine.h): usable is what the plan may use,
 * usable + reserve the cap, where the mark is; the reserve's cells show
 * GLYPH_RESERVE, and a peak above usable is over (the whole fill then in
 * the over style, not only past the cap). scale: the bytes the whole bar
 * stands for when that is more than its own bar_mem_scale(), so that the
 * bars of several devices compare (pass the largest bar_mem_scale() of
 * them; 0 for a bar of its own). */
void bar_memory_reserve(vgrid *g, int x, int y, int w, int64_t peak,
			int64_t usable, int64_t reserve, int64_t scale,
			bool stale);

/* The bytes a bar of its own stands for: the cap at 80 % of it (headroom
 * shows) unless the peak is beyond 125 % of the cap; the peak without a
 * cap. */
double bar_mem_scale(int64_t peak, int64_t cap);

/* The cell (0-based, inside the brackets) where bar_memory puts the cap
 * mark on an n-cell interior, or -1 when there is none. */
int bar_cap_cell(int n, int64_t peak, int64_t cap);

#endif

/* bar.c - load and memory bars (see bar.h). */
#include "bar.h"

#include <math.h>

#include "dnnpart/machine.h"

void bar_load(vgrid *g, int x, int y, int w, double frac, bool stale)
{
	if (w < 3)
		return;
	int n = w - 2;
	if (!(frac > 0))
		frac = 0;
	if (frac > 1)
		frac = 1;
	vstyle fill = stale ? ST_STALE : ST_BAR_OK;
	grid_put(g, x, y, '[', ST_DIM);
	grid_put(g, x + w - 1, y, ']', ST_DIM);
	long eighths = lround(frac * n * 8);
	for (int i = 0; i < n; i++) {
		long e = eighths - (long)i * 8;
		uint32_t ch = ' ';
		if (e >= 8)
			ch = GLYPH_FULL;
		else if (e > 0)
			ch = 0x2590u - (uint32_t)e; /* left e/8 block */
		grid_put(g, x + 1 + i, y, ch, ch == ' ' ? ST_NORMAL : fill);
	}
}

/* Scale of a memory bar: the cap sits at 80 % (headroom shows), unless the
 * peak is beyond 125 % of it. */
double bar_mem_scale(int64_t peak, int64_t cap)
{
	if (cap == DP_CAP_UNLIMITED)
		return peak > 0 ? (double)peak : 1.0;
	double s = 1.25 * (double)cap;
	if ((double)peak > s)
		s = (double)peak;
	return s > 0 ? s : 1.0;
}

int bar_cap_cell(int n, int64_t peak, int64_t cap)
{
	if (cap == DP_CAP_UNLIMITED || n < 1)
		return -1;
	int c = (int)floor((double)cap / bar_mem_scale(peak, cap) * n);
	if (c > n - 1)
		c = n - 1;
	if (c < 0)
		c = 0;
	return c;
}

void bar_memory(vgrid *g, int x, int y, int w, int64_t peak, int64_t cap,
		bool stale)
{
	bar_memory_reserve(g, x, y, w, peak, cap, 0, 0, stale);
}

void bar_memory_reserve(vgrid *g, int x, int y, int w, int64_t peak,
			int64_t usable, int64_t reserve, int64_t scale,
			bool stale)
{
	if (w < 3)
		return;
	if (usable == DP_CAP_UNLIMITED)
		reserve = 0;
	/* the device's cap: what the plan may use plus the reserve */
	int64_t cap = usable == DP_CAP_UNLIMITED ? usable : usable + reserve;
	int n = w - 2;
	/* the bars of all devices share one scale (the largest of theirs),
	 * so that a longer bar always means more memory; each marks its own
	 * cap on it */
	double s = bar_mem_scale(peak, cap);
	if ((double)scale > s)
		s = (double)scale;
	int c = -1;
	if (cap != DP_CAP_UNLIMITED) {
		c = (int)floor((double)cap / s * n);
		c = c > n - 1 ? n - 1 : c < 0 ? 0 : c;
	}
	/* the first cell of the reserve (c when there is none) */
	int u = c;
	if (reserve > 0 && c >= 0) {
		u = (int)floor((double)usable / s * n);
		if (u > c)
			u = c;
		if (u == c && c > 0)
			u = c - 1; /* a reserve always shows one cell */
	}
	bool over = usable != DP_CAP_UNLIMITED && peak > usable;
	bool warn = !over && usable != DP_CAP_UNLIMITED && usable > 0 &&
		    (double)peak >= 0.9 * (double)usable;
	grid_put(g, x, y, '[', ST_DIM);
	grid_put(g, x + w - 1, y, ']', ST_DIM);
	/* cells filled: those whose middle is below the peak */
	int filled = (int)floor((double)peak / s * n + 0.5);
	if (peak > 0 && filled == 0)
		filled = 1;
	if (over && filled <= u)
		filled = u + 1; /* over the usable cap: at least one '!' */
	if (!over && reserve > 0 && filled > u)
		filled = u; /* within it: never a '!' from rounding */
	if (over && reserve == 0 && filled <= c + 1)
		filled = c + 2;
	if (filled > n)
		filled = n;
	for (int i = 0; i < n; i++) {
		uint32_t ch = ' ';
		vstyle st = ST_NORMAL;
		if (i == c) {
			ch = GLYPH_CAP;
			st = over ? ST_BAR_OVER : ST_CAP_MARK;
		} else if (i < filled && (u < 0 || i < u)) {
			/* an over-cap bar is over along its whole length, not
			 * green up to the cap */
			ch = GLYPH_FULL;
			st = over   ? ST_BAR_OVER
			     : warn ? ST_BAR_WARN
				    : ST_BAR_OK;
		} else if (i < filled) {
			ch = GLYPH_OVER;
			st = ST_BAR_OVER;
		} else if (reserve > 0 && i >= u && i < c) {
			ch = GLYPH_RESERVE;
			st = ST_CAP_MARK;
		}
		if (stale && st != ST_NORMAL)
			st = ST_STALE;
		grid_put(g, x + 1 + i, y, ch, st);
	}
}

/* grid.c - the character grid (see grid.h). */
#include "grid.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const style_names[ST_COUNT] = {
	"normal",   "header",	"bar_ok", "bar_warn",	"bar_over", "cap_mark",
	"critical", "selected", "stale",  "dim",	"error",    "ok",
	"key",	    "keylabel", "tab",	  "tab_active", "prompt",   "bubble",
	"mb0",	    "mb1",	"mb2",	  "mb3",	"mb4",	    "mb5",
};

const char *style_name(vstyle s)
{
	return (unsigned)s < ST_COUNT ? style_names[s] : "?";
}

int grid_init(vgrid *g, int w, int h)
{
	g->w = g->h = 0;
	g->cells = NULL;
	if (w < 0 || h < 0)
		return -1;
	size_t n = (size_t)w * (size_t)h;
	g->cells = malloc((n ? n : 1) * sizeof *g->cells);
	if (!g->cells)
		return -1;
	g->w = w;
	g->h = h;
	grid_clear(g);
	return 0;
}

void grid_free(vgrid *g)
{
	free(g->cells);
	g->cells = NULL;
	g->w = g->h = 0;
}

int grid_resize(vgrid *g, int w, int h)
{
	vgrid n;
	if (grid_init(&n, w, h) != 0)
		return -1;
	grid_free(g);
	*g = n;
	return 0;
}

void grid_clear(vgrid *g)
{
	size_t n = (size_t)g->w * (size_t)g->h;
	for (size_t i = 0; i < n; i++) {
		g->cells[i].ch = ' ';
		g->cells[i].style = ST_NORMAL;
	}
}

vcell *grid_cell(vgrid *g, int x, int y)
{
	if (x < 0 || y < 0 || x >= g->w || y >= g->h)
		return NULL;
	return &g->cells[(size_t)y * (size_t)g->w + (size_t)x];
}

const vcell *grid_cell_const(const vgrid *g, int x, int y)
{
	if (x < 0 || y < 0 || x >= g->w || y >= g->h)
		return NULL;
	return &g->cells[(size_t)y * (size_t)g->w + (size_t)x];
}

/* The glyphs the views use (box drawing, blocks, shapes) and the scripts
 * whose letters terminals draw one column wide. East Asian wide and
 * combining characters are not in it. */
bool glyph_is_narrow(uint32_t cp)
{
	if (cp >= 0x20 && cp < 0x7f)
		return true;
	if (cp >= 0xa0 && cp <= 0x2ff)
		return true; /* Latin-1, Latin Extended, spacing modifiers */
	if (cp >= 0x370 && cp <= 0x52f)
		return true; /* Greek, Cyrillic */
	if (cp >= 0x2010 && cp <= 0x2027)
		return true; /* dashes, quotes, bullet, ellipsis */
	if (cp >= 0x2190 && cp <= 0x21ff)
		return true; /* arrows */
	if (cp >= 0x2500 && cp <= 0x25ff)
		return true; /* box drawing, block elements, geometric shapes */
	return false;
}

char glyph_ascii(uint32_t cp)
{
	if (cp >= 0x20 && cp < 0x7f)
		return (char)cp;
	switch (cp) {
	case 0x00d7:
		return 'x'; /* multiplication sign */
	case 0x00b5:
		return 'u'; /* micro */
	case 0x00b7:
		return '.'; /* middle dot */
	case 0x2026:
		return '~'; /* ellipsis */
	case 0x2013:
	case 0x2014:
		return '-';
	case 0x2022:
		return '*';
	case 0x2190:
		return '<';
	case 0x2192:
		return '>';
	case 0x2191:
	case 0x25b2:
		return '^';
	case 0x2193:
	case 0x25bc:
		return 'v';
	case 0x2500:
	case 0x2501:
		return '-';
	case 0x2502:
	case 0x2503:
		return '|';
	case 0x2588:
		return '#'; /* full block */
	case 0x2593:
		return '%'; /* dark shade: critical path */
	case 0x2592:
		return ':'; /* medium shade */
	case 0x2591:
		return '.'; /* light shade */
	case 0x25c6:
		return '*';
	}
	if (cp >= 0x2581 && cp <= 0x2587) /* lower eighths: sparklines */
		return "_.-=+*#"[cp - 0x2581];
	if (cp >= 0x2589 && cp <= 0x258f) /* left eighths: partial bar cells */
		return '|';
	if (cp >= 0x2500 && cp <= 0x257f)
		return '+'; /* other box drawing */
	return '?';
}

void grid_put(vgrid *g, int x, int y, uint32_t ch, vstyle st)
{
	vcell *c = grid_cell(g, x, y);
	if (!c)
		return;
	c->ch = glyph_is_narrow(ch) ? ch : '?';
	c->style = (uint8_t)st;
}

void grid_fill(vgrid *g, vrect r, uint32_t ch, vstyle st)
{
	for (int y = r.y; y < r.y + r.h; y++)
		for (int x = r.x; x < r.x + r.w; x++)
			grid_put(g, x, y, ch, st);
}

void grid_restyle(vgrid *g, vrect r, vstyle st)
{
	for (int y = r.y; y < r.y + r.h; y++)
		for (int x = r.x; x < r.x + r.w; x++) {
			vcell *c = grid_cell(g, x, y);
			if (c)
				c->style = (uint8_t)st;
		}
}

uint32_t utf8_next(const char **sp)
{
	const unsigned char *s = (const unsigned char *)*sp;
	uint32_t c = s[0];
	int n;
	uint32_t min;
	if (c < 0x80) {
		*sp += 1;
		return c;
	} else if ((c & 0xe0) == 0xc0) {
		n = 1, c &= 0x1f, min = 0x80;
	} else if ((c & 0xf0) == 0xe0) {
		n = 2, c &= 0x0f, min = 0x800;
	} else if ((c & 0xf8) == 0xf0) {
		n = 3, c &= 0x07, min = 0x10000;
	} else {
		*sp += 1;
		return 0xfffd;
	}
	for (int i = 1; i <= n; i++) {
		if ((s[i] & 0xc0) != 0x80) {
			*sp += 1;
			return 0xfffd;
		}
		c = (c << 6) | (s[i] & 0x3f);
	}
	*sp += n + 1;
	if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
		return 0xfffd;
	return c;
}

int utf8_encode(uint32_t cp, char out[4])
{
	if (cp < 0x80) {
		out[0] = (char)cp;
		return 1;
	} else if (cp < 0x800) {
		out[0] = (char)(0xc0 | (cp >> 6));
		out[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	} else if (cp < 0x10000) {
		out[0] = (char)(0xe0 | (cp >> 12));
		out[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		out[2] = (char)(0x80 | (cp & 0x3f));
		return 3;
	}
	out[0] = (char)(0xf0 | (cp >> 18));
	out[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
	out[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
	out[3] = (char)(0x80 | (cp & 0x3f));
	return 4;
}

int text_width(const char *s)
{
	int n = 0;
	while (*s) {
		utf8_next(&s);
		n++;
	}
	return n;
}

int text_wrap(const char *s, int w, int max, text_line *lines)
{
	int n = 0;
	if (w < 1)
		return 0;
	while (*s && n < max) {
		/* the longest run of at most w cells, cut after its last
		 * space when it has one and the text goes on */
		const char *p = s, *cut = NULL;
		int cells = 0;
		while (*p && cells < w) {
			if (*p == ' ')
				cut = p;
			utf8_next(&p);
			cells++;
		}
		if (*p && *p != ' ' && cut && cut > s)
			p = cut;
		lines[n].start = s;
		lines[n].len = (int)(p - s);
		n++;
		s = p;
		while (*s == ' ')
			s++;
	}
	return n;
}

int grid_puts_n(vgrid *g, int x, int y, int maxw, vstyle st, const char *s,
		int len)
{
	const char *end = s + len;
	int n = 0;
	while (s < end && *s && n < maxw) {
		grid_put(g, x + n, y, utf8_next(&s), st);
		n++;
	}
	return n;
}

int grid_puts(vgrid *g, int x, int y, int maxw, vstyle st, const char *s)
{
	if (maxw < 0)
		maxw = g->w - x;
	int n = 0;
	while (*s && n < maxw) {
		grid_put(g, x + n, y, utf8_next(&s), st);
		n++;
	}
	return n;
}

int grid_printf(vgrid *g, int x, int y, int maxw, vstyle st, const char *fmt,
		...)
{
	char buf[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	return grid_puts(g, x, y, maxw, st, buf);
}

void grid_puts_fit(vgrid *g, int x, int y, int w, vstyle st, const char *s)
{
	if (w <= 0)
		return;
	int tw = text_width(s);
	int n = grid_puts(g, x, y, w, st, s);
	for (int i = n; i < w; i++)
		grid_put(g, x + i, y, ' ', st);
	if (tw > w)
		grid_put(g, x + w - 1, y, '~', st);
}

void grid_puts_mid(vgrid *g, int x, int y, int w, vstyle st, const char *s)
{
	if (w <= 0)
		return;
	int tw = text_width(s);
	if (tw <= w || w < 5) {
		grid_puts_fit(g, x, y, w, st, s);
		return;
	}
	/* head, an ellipsis, tail: names that differ in the middle (h3 vs
	 * h11) or at the end (.../grad) stay apart */
	int head = (w - 1) / 2, tail = w - 1 - head;
	grid_puts(g, x, y, head, st, s);
	grid_put(g, x + head, y, 0x2026u, st);
	const char *t = s;
	for (int i = 0; i < tw - tail; i++)
		utf8_next(&t);
	grid_puts(g, x + head + 1, y, tail, st, t);
}

int grid_puts_right(vgrid *g, int x_end, int y, vstyle st, const char *s)
{
	int x = x_end - text_width(s);
	grid_puts(g, x, y, x_end - x, st, s);
	return x;
}

char *grid_row_text(const vgrid *g, int y, char *buf, size_t size)
{
	size_t pos = 0, keep = 0;
	if (size == 0)
		return buf;
	for (int x = 0; x < g->w; x++) {
		const vcell *c = grid_cell_const(g, x, y);
		char e[4];
		int n = utf8_encode(c->ch, e);
		if (pos + (size_t)n >= size)
			break;
		memcpy(buf + pos, e, (size_t)n);
		pos += (size_t)n;
		if (c->ch != ' ')
			keep = pos;
	}
	buf[keep] = '\0';
	return buf;
}

char *grid_to_text(const vgrid *g, bool ascii)
{
	size_t cap = (size_t)g->h * ((size_t)g->w * 4 + 1) + 1;
	char *out = malloc(cap);
	if (!out)
		return NULL;
	size_t pos = 0;
	for (int y = 0; y < g->h; y++) {
		size_t keep = pos;
		for (int x = 0; x < g->w; x++) {
			const vcell *c = grid_cell_const(g, x, y);
			if (ascii) {
				out[pos++] = glyph_ascii(c->ch);
			} else {
				pos += (size_t)utf8_encode(c->ch, out + pos);
			}
			if (c->ch != ' ')
				keep = pos;
		}
		pos = keep;
		out[pos++] = '\n';
	}
	out[pos] = '\0';
	return out;
}

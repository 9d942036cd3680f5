/* view_help.c - the help screen, generated from the key table (keys.c) so
 * that it always says what the keys do, plus a legend of the glyphs. */
#include <stdio.h>
#include <string.h>

#include "bar.h"
#include "keys.h"
#include "views.h"

static const char *const legend[] = {
	"Devices panel",
	"  Load   [\xe2\x96\x88\xe2\x96\x88\xe2\x96\x88\xe2\x96\x8c   ] busy "
	"time / makespan",
	"  Memory [\xe2\x96\x88\xe2\x96\x88\xe2\x96\x88   \xe2\x94\x83   ] "
	"peak against the cap \xe2\x94\x83 "
	"(the cap sits at 80 % of the bar)",
	"  Over   "
	"[\xe2\x96\x88\xe2\x96\x88\xe2\x96\x88\xe2\x96\x88\xe2\x96\x88\xe2\x94"
	"\x83!!!] memory beyond the cap, "
	"also marked OVER",
	"Timeline",
	"  \xe2\x96\x88 busy  \xe2\x96\x8c partly busy  \xe2\x96\x93 on the "
	"schedule's critical path",
	"Plans",
	"  Every change reruns the algorithm on a worker thread; the old plan "
	"stays,",
	"  marked STALE, until the new one is ready. Esc cancels a rerun.",
	"  Navigation keys never change the plan.",
};
#define NLEGEND ((int)(sizeof legend / sizeof legend[0]))

/* Line i of the help text: a group title, a binding, a blank, or legend.
 * Returns the style to draw it in, and fills buf. */
static vstyle help_line(int i, char *buf, size_t size, const char **names)
{
	*names = NULL;
	for (int gr = 0; gr < KG_COUNT; gr++) {
		if (i == 0) {
			snprintf(buf, size, "%s",
				 key_group_name((key_group)gr));
			return ST_HEADER;
		}
		i--;
		for (int k = 0; k < key_table_len; k++) {
			if (key_table[k].group != (key_group)gr)
				continue;
			if (i == 0) {
				*names = key_table[k].names;
				snprintf(buf, size, "%s", key_table[k].help);
				return ST_NORMAL;
			}
			i--;
		}
		if (i == 0) {
			buf[0] = '\0';
			return ST_NORMAL;
		}
		i--;
	}
	if (i < NLEGEND) {
		snprintf(buf, size, "%s", legend[i]);
		return legend[i][0] == ' ' ? ST_NORMAL : ST_HEADER;
	}
	buf[0] = '\0';
	return ST_NORMAL;
}

int view_help_lines(void)
{
	return KG_COUNT * 2 + key_table_len + NLEGEND;
}

void view_help_draw(const vstate *st, vgrid *g, vrect r)
{
	grid_puts(g, r.x, r.y, r.w, ST_HEADER,
		  "dnnpart explorer: keys (Up/Down/PgUp/PgDn scroll; Esc or ? "
		  "closes)");
	int rows = r.h - 1;
	int n = view_help_lines();
	int first = st->help_scroll;
	if (first > n - rows)
		first = n - rows;
	if (first < 0)
		first = 0;
	char buf[256];
	for (int i = 0; i < rows && first + i < n; i++) {
		const char *names;
		vstyle sty = help_line(first + i, buf, sizeof buf, &names);
		int y = r.y + 1 + i;
		if (names) {
			grid_puts(g, r.x + 2, y, 14, ST_KEY, names);
			grid_puts(g, r.x + 17, y, r.w - 17, sty, buf);
		} else {
			grid_puts(g, r.x, y, r.w, sty, buf);
		}
	}
	view_scroll_note(g, r, r.y, first, rows, n);
}

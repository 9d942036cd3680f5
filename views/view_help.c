/* view_help.c - the help screen, generated from the key table (keys.c) and
 * the view table (view.c) so that it always says what the keys do, plus a
 * legend of the glyphs. */
#include <stdio.h>
#include <string.h>

#include "bar.h"
#include "keys.h"
#include "view_common.h"

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

/* One line of the help text: the keys (empty for a line without) and
 * the text. */
typedef struct help_text {
	char keys[32];
	char text[256];
} help_text;

/* A binding's line; the number keys' line is made from the view table:
 * "1-7", "views: Devices Timeline ...". */
static void binding_line(const key_binding *b, help_text *t)
{
	if (b->act != ACT_VIEW) {
		snprintf(t->keys, sizeof t->keys, "%s", b->names);
		snprintf(t->text, sizeof t->text, "%s", b->help);
		return;
	}
	snprintf(t->keys, sizeof t->keys, "1-%d", VIEW_COUNT);
	size_t n = (size_t)snprintf(t->text, sizeof t->text, "views:");
	for (int v = 0; v < VIEW_COUNT && n < sizeof t->text; v++)
		n += (size_t)snprintf(t->text + n, sizeof t->text - n, " %s",
				      view_table[v]->tab);
}

/* Line i of the help text: a group title, a binding, a blank, or legend.
 * Returns the style to draw its text in. */
static vstyle help_line(int i, help_text *t)
{
	t->keys[0] = t->text[0] = '\0';
	for (int gr = 0; gr < KG_COUNT; gr++) {
		if (i == 0) {
			snprintf(t->text, sizeof t->text, "%s",
				 key_group_name((key_group)gr));
			return ST_HEADER;
		}
		i--;
		for (int k = 0; k < key_table_len; k++) {
			if (key_table[k].group != (key_group)gr)
				continue;
			if (i == 0) {
				binding_line(&key_table[k], t);
				return ST_NORMAL;
			}
			i--;
		}
		if (i == 0)
			return ST_NORMAL;
		i--;
	}
	if (i < NLEGEND) {
		snprintf(t->text, sizeof t->text, "%s", legend[i]);
		return legend[i][0] == ' ' ? ST_NORMAL : ST_HEADER;
	}
	return ST_NORMAL;
}

static int help_lines(void)
{
	return KG_COUNT * 2 + key_table_len + NLEGEND;
}

/* The title, then the text. */
static void help_list(const vstate *st, vrect r, view_list *l)
{
	view_list_text(l, help_lines(), r.h - 1, st->help_scroll);
}

static void help_seek(vstate *st, int row, const view_list *l)
{
	(void)l;
	st->help_scroll = row;
}

static unsigned help_show(vstate *st)
{
	st->help_scroll = 0;
	return 0;
}

static void help_draw(const vstate *st, vgrid *g, vrect r)
{
	grid_puts(g, r.x, r.y, r.w, ST_HEADER,
		  "dnnpart explorer: keys (Up/Down/PgUp/PgDn scroll; Esc or ? "
		  "closes)");
	view_list l;
	help_list(st, r, &l);
	int rows = r.h - 1, n = help_lines(), first = l.top;
	for (int i = 0; i < rows && first + i < n; i++) {
		help_text t;
		vstyle sty = help_line(first + i, &t);
		int y = r.y + 1 + i;
		if (t.keys[0]) {
			grid_puts(g, r.x + 2, y, 14, ST_KEY, t.keys);
			grid_puts(g, r.x + 17, y, r.w - 17, sty, t.text);
		} else {
			grid_puts(g, r.x, y, r.w, sty, t.text);
		}
	}
	view_scroll_note(g, r, r.y, first, rows, n);
}

/* a class reads best with its hooks side by side */
/* clang-format off */
const view_class view_help_class = {
	VIEW_CLASS(VIEW_HELP, "help", "Help", "Help",
		   help_draw, help_list, help_seek),
	.stacked = true, .home = VIEW_DEVICES, .show = help_show,
};
/* clang-format on */

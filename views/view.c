/* view.c - the table of views and what is the same for all of them (see
 * view.h). */
#include "view.h"

#include <stdio.h>
#include <string.h>

#define VIEW_DECLARE_(ID, name) extern const view_class view_##name##_class;
VIEW_LIST(VIEW_DECLARE_)
#undef VIEW_DECLARE_

const view_class *const view_table[VIEW_ALL] = {
#define VIEW_ENTRY_(ID, name) [VIEW_##ID] = &view_##name##_class,
	VIEW_LIST(VIEW_ENTRY_)
#undef VIEW_ENTRY_
};

_Static_assert(
	VIEW_HELP == VIEW_ALL - 1,
	"help comes last in VIEW_LIST: the views before it are the tabs");

const view_class *view_current(const vstate *st)
{
	return view_table[(unsigned)st->view < VIEW_ALL ? st->view
							: VIEW_DEVICES];
}

int view_parse(const char *s)
{
	for (int v = 0; v < VIEW_ALL; v++) {
		const view_class *c = view_table[v];
		if (strcmp(s, c->key) == 0)
			return v;
		for (int a = 0; a < VIEW_ALIASES && c->aliases[a]; a++)
			if (strcmp(s, c->aliases[a]) == 0)
				return v;
	}
	return -1;
}

char *view_keys_text(char *buf, int size)
{
	int n = 0;
	buf[0] = '\0';
	for (int v = 0; v < VIEW_ALL && n >= 0 && n < size; v++)
		n += snprintf(buf + n, (size_t)(size - n), "%s%s",
			      v == 0		  ? ""
			      : v == VIEW_ALL - 1 ? " or "
						  : ", ",
			      view_table[v]->key);
	return buf;
}

unsigned view_show(vstate *st, view_id v)
{
	const view_class *c = view_table[v];
	if (v != st->view) {
		/* help is over everything: what is under it stays */
		if (c->stacked && st->view != VIEW_HELP)
			st->back = st->view;
		st->view = v;
	}
	return AR_REDRAW | (c->show ? c->show(st) : 0);
}

void view_leave(vstate *st)
{
	const view_class *c = view_current(st);
	st->view = st->back != st->view ? st->back : c->home;
}

void view_select_device(vstate *st, int d)
{
	int n = state_ndev(st);
	st->dev = d < 0 ? 0 : d >= n ? n - 1 : d;
	st->mem_scroll = 0;
}

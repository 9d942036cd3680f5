/* screen_text.c - see screen_text.h. */
#include "screen_text.h"

#include "grid.h"
#include "screen.h"

char *test_screen_text(const vstate *st, int w, int h)
{
	vgrid g;
	if (grid_init(&g, w, h) != 0)
		return NULL;
	screen_draw(st, &g);
	char *t = grid_to_text(&g, false);
	grid_free(&g);
	return t;
}

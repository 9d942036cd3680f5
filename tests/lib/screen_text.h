/* screen_text.h - the explorer's screen as text, for the view tests. */
#ifndef DNNPART_TEST_SCREEN_TEXT_H
#define DNNPART_TEST_SCREEN_TEXT_H

#include "state.h"

/* screen_draw(st) on a fresh w x h grid, as plain text (no colour, a line
 * a row); NULL when the grid cannot be made. The caller frees. */
char *test_screen_text(const vstate *st, int w, int h);

#endif

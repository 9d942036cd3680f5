/* actions.h - what keys and clicks do to the state.
 *
 * Each action is a function of the state that returns a bitmask saying what
 * the front end must do next (AR_*, action_result.h; after htop's
 * Action.c): redraw, start a rerun or a comparison, cancel the running job,
 * quit, or carry out a submitted prompt that needs files (open, save,
 * export: st->io, st->io_path). Actions never run the engine's algorithms
 * and never touch files or the terminal, so tests drive them directly.
 * Navigation keys never change the settings or the plan.
 *
 * The screen's size (w x h) comes with every key and click: paging moves
 * by what the view shows at that size (its class's list, view.h), and a
 * click lands on what is drawn there. The state stores no size.
 */
#ifndef DNNPART_VIEWS_ACTIONS_H
#define DNNPART_VIEWS_ACTIONS_H

#include "action_result.h"
#include "keys.h"
#include "state.h"

/* Handles one key on a w x h screen: the line editor's when a prompt is
 * open, else the key table's action. Returns AR_* bits. */
unsigned actions_key(vstate *st, int w, int h, int key);

/* Runs one action of the key table (key is the key that triggered it, for
 * ACT_VIEW's number). */
unsigned actions_run(vstate *st, int w, int h, key_action act, int key);

typedef enum mouse_kind {
	MOUSE_CLICK = 0,
	MOUSE_WHEEL_UP,
	MOUSE_WHEEL_DOWN,
} mouse_kind;

/* Handles a mouse event at (x, y) on a w x h screen: a click on a device
 * selects it, on a tab shows that view, on the function-key bar runs the
 * key; the wheel scrolls the main view. */
unsigned actions_mouse(vstate *st, int w, int h, int x, int y, mouse_kind kind);

/* For the front end, when a submitted save or export (k) names a file that
 * exists: asks "PATH exists - overwrite? (y/N)"; y hands it back (AR_IO)
 * with st->io_replace set, any other key keeps the file. */
void actions_confirm_overwrite(vstate *st, prompt_kind k, const char *path);

#endif

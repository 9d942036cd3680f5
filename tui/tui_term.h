/* tui_term.h - the curses backend: the only code that talks to the
 * terminal (after tmux's tty layer). It copies a views grid to the screen,
 * maps semantic styles to colors or monochrome attributes, and turns curses
 * input into the views' key codes (views/keys.h) and mouse events.
 */
#ifndef DNNPART_TUI_TERM_H
#define DNNPART_TUI_TERM_H

#include <stdbool.h>

#include "actions.h"
#include "grid.h"

typedef enum color_mode {
	COLOR_AUTO =
		0, /* color when the terminal has it and NO_COLOR is unset */
	COLOR_ALWAYS,
	COLOR_NEVER,
} color_mode;

/* Parses "auto", "always", "never"; -1 when unknown. */
int term_color_parse(const char *s);

/* Starts curses on the terminal (alternate screen, no echo, keypad, mouse
 * unless no_mouse). Returns 0, or -1 when stdin/stdout is not a terminal
 * curses can use (msg says why). */
int term_init(color_mode mode, bool no_mouse, char *msg, int size);
/* Restores the terminal. Safe to call twice. */
void term_fini(void);
bool term_active(void);

/* The terminal's size now. */
void term_size(int *w, int *h);
/* Copies g to the screen and refreshes; full repaints everything (Ctrl-L). */
void term_draw(const vgrid *g, bool full);

/* An input event: a key code, or a mouse event. */
typedef struct term_event {
	int key; /* views key code; 0 = nothing */
	bool mouse;
	mouse_kind mkind;
	int mx, my;
} term_event;

/* Reads one pending input event without waiting; false when none. */
bool term_read(term_event *ev);

/* The attribute (with color pair) a style is drawn with, for tests and
 * the monochrome scheme's documentation. */
int term_style_attr(vstyle s);

#endif

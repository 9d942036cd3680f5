/* tui_term.c - the curses backend (see tui_term.h). */
#include "tui_term.h"

#include <curses.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <term.h>
#include <unistd.h>
#include <wchar.h>

static bool active;
static bool utf8;
static bool use_color;
static int style_attr[ST_COUNT];

int term_color_parse(const char *s)
{
	if (!strcmp(s, "auto"))
		return COLOR_AUTO;
	if (!strcmp(s, "always"))
		return COLOR_ALWAYS;
	if (!strcmp(s, "never"))
		return COLOR_NEVER;
	return -1;
}

/* Colors by meaning (htop's per-scheme tables): fg, bg, extra attrs.
 * -1 is the terminal's default color (use_default_colors). */
static const struct {
	short fg, bg;
	int attr;
} color_scheme[ST_COUNT] = {
	[ST_NORMAL] = {-1, -1, 0},
	[ST_HEADER] = {COLOR_BLACK, COLOR_CYAN, 0},
	[ST_BAR_OK] = {COLOR_GREEN, -1, 0},
	[ST_BAR_WARN] = {COLOR_YELLOW, -1, A_BOLD},
	[ST_BAR_OVER] = {COLOR_RED, -1, A_BOLD},
	[ST_CAP_MARK] = {COLOR_MAGENTA, -1, A_BOLD},
	[ST_CRITICAL] = {COLOR_RED, -1, 0},
	[ST_SELECTED] = {COLOR_BLACK, COLOR_YELLOW, 0},
	[ST_STALE] = {-1, -1, A_DIM},
	[ST_DIM] = {-1, -1, A_DIM},
	[ST_ERROR] = {COLOR_RED, -1, A_BOLD},
	[ST_OK] = {COLOR_GREEN, -1, A_BOLD},
	[ST_KEY] = {-1, -1, A_BOLD},
	[ST_KEYLABEL] = {COLOR_BLACK, COLOR_CYAN, 0},
	[ST_TAB] = {-1, -1, 0},
	[ST_TAB_ACTIVE] = {COLOR_BLACK, COLOR_GREEN, A_BOLD},
	[ST_PROMPT] = {COLOR_YELLOW, -1, A_BOLD},
	[ST_BUBBLE] = {COLOR_YELLOW, -1, A_DIM},
	/* micro-batches: a background each, red left to the critical path */
	[ST_MB0] = {COLOR_BLACK, COLOR_GREEN, 0},
	[ST_MB1] = {COLOR_BLACK, COLOR_CYAN, 0},
	[ST_MB2] = {COLOR_BLACK, COLOR_MAGENTA, 0},
	[ST_MB3] = {COLOR_WHITE, COLOR_BLUE, A_BOLD},
	[ST_MB4] = {COLOR_BLACK, COLOR_WHITE, 0},
	[ST_MB5] = {COLOR_BLACK, COLOR_YELLOW, 0},
};

/* The monochrome scheme: attributes only; the bars' glyphs carry the
 * rest (views/bar.h). */
static const int mono_scheme[ST_COUNT] = {
	[ST_NORMAL] = 0,
	[ST_HEADER] = A_REVERSE,
	[ST_BAR_OK] = 0,
	[ST_BAR_WARN] = A_BOLD,
	[ST_BAR_OVER] = A_BOLD,
	[ST_CAP_MARK] = A_BOLD,
	[ST_CRITICAL] = A_BOLD,
	[ST_SELECTED] = A_REVERSE,
	[ST_STALE] = A_DIM,
	[ST_DIM] = A_DIM,
	[ST_ERROR] = A_BOLD | A_UNDERLINE,
	[ST_OK] = A_BOLD,
	[ST_KEY] = A_BOLD,
	[ST_KEYLABEL] = A_REVERSE,
	[ST_TAB] = 0,
	[ST_TAB_ACTIVE] = A_REVERSE | A_BOLD,
	[ST_PROMPT] = A_BOLD,
	[ST_BUBBLE] = A_DIM, /* its glyph says it: ░; micro-batches: their
				digits */
};

static void setup_styles(void)
{
	for (int s = 0; s < ST_COUNT; s++) {
		if (!use_color) {
			style_attr[s] = mono_scheme[s];
			continue;
		}
		if (color_scheme[s].fg == -1 && color_scheme[s].bg == -1) {
			style_attr[s] = color_scheme[s].attr;
			continue;
		}
		init_pair((short)(s + 1), color_scheme[s].fg,
			  color_scheme[s].bg);
		style_attr[s] = (int)COLOR_PAIR(s + 1) | color_scheme[s].attr;
	}
}

int term_style_attr(vstyle s)
{
	return (unsigned)s < ST_COUNT ? style_attr[s] : 0;
}

int term_init(color_mode mode, bool no_mouse, char *msg, int size)
{
	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
		snprintf(
			msg, (size_t)size,
			"the explorer needs a terminal (stdin and stdout); "
			"for text output use 'dnnpart show' or 'dnnpart plan'");
		return -1;
	}
	setlocale(LC_ALL, "");
	const char *cs = setlocale(LC_CTYPE, NULL);
	utf8 = MB_CUR_MAX > 1 && cs &&
	       (strstr(cs, "UTF-8") || strstr(cs, "utf8") ||
		strstr(cs, "UTF8") || strstr(cs, "utf-8"));
	/* a short Esc: the key cancels reruns, it must feel immediate */
	if (!getenv("ESCDELAY"))
		set_escdelay(25);
	if (!newterm(NULL, stdout, stdin)) {
		snprintf(msg, (size_t)size,
			 "cannot start curses on this terminal (TERM=%s)",
			 getenv("TERM") ? getenv("TERM") : "");
		return -1;
	}
	active = true;
	cbreak();
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	nodelay(stdscr, TRUE);
	scrollok(stdscr, FALSE);
	curs_set(0);
	const char *nc = getenv("NO_COLOR");
	bool want =
		mode == COLOR_ALWAYS || (mode == COLOR_AUTO && !(nc && nc[0]));
	use_color = want && has_colors();
	if (use_color) {
		start_color();
		use_default_colors();
	}
	setup_styles();
	if (!no_mouse) {
		mousemask(BUTTON1_PRESSED | BUTTON1_CLICKED | BUTTON4_PRESSED |
				  BUTTON5_PRESSED,
			  NULL);
		mouseinterval(0);
	}
	return 0;
}

/* Sets the terminal's scrolling region to the whole screen. curses keeps
 * the region it last set (for its scrolling optimisation) and does not
 * reset it when the terminal is resized; a region of the old height left on
 * a taller screen makes tmux carry explorer lines over to the normal screen
 * on exit. */
static void reset_scroll_region(void)
{
	char *csr = tigetstr("csr");
	if (csr && csr != (char *)-1) {
		/* putp writes through stdio, curses through its own buffer
		 * (flushed at the end of every refresh): flush now so that
		 * the order on the terminal is the order of the calls */
		putp(tparm(csr, 0, LINES - 1));
		fflush(stdout);
	}
}

void term_fini(void)
{
	if (!active)
		return;
	active = false;
	/* leave a blank alternate screen: when the terminal was resized
	 * while it was shown, tmux may carry some of its lines over to the
	 * normal screen on the way out */
	erase();
	refresh();
	reset_scroll_region();
	endwin();
}

bool term_active(void)
{
	return active;
}

void term_size(int *w, int *h)
{
	getmaxyx(stdscr, *h, *w);
}

void term_draw(const vgrid *g, bool full)
{
	if (full) {
		reset_scroll_region();
		clearok(curscr, TRUE);
	}
	int sw, sh;
	getmaxyx(stdscr, sh, sw);
	for (int y = 0; y < g->h && y < sh; y++) {
		for (int x = 0; x < g->w && x < sw; x++) {
			const vcell *c = grid_cell_const(g, x, y);
			int attr =
				style_attr[c->style < ST_COUNT ? c->style : 0];
			wchar_t wc[2] = {utf8 ? (wchar_t)c->ch
					      : (wchar_t)glyph_ascii(c->ch),
					 0};
			cchar_t cc;
			setcchar(&cc, wc, (attr_t)(attr & ~A_COLOR),
				 (short)PAIR_NUMBER(attr), NULL);
			/* at the last cell of the screen this returns ERR
			 * (the cursor cannot move on) but stores the cell */
			mvadd_wch(y, x, &cc);
		}
	}
	refresh();
}

static int translate_key(int code)
{
	switch (code) {
	case KEY_UP:
		return VK_UP;
	case KEY_DOWN:
		return VK_DOWN;
	case KEY_LEFT:
		return VK_LEFT;
	case KEY_RIGHT:
		return VK_RIGHT;
	case KEY_PPAGE:
		return VK_PGUP;
	case KEY_NPAGE:
		return VK_PGDN;
	case KEY_HOME:
		return VK_HOME;
	case KEY_END:
		return VK_END;
	case KEY_BTAB:
		return VK_BTAB;
	case KEY_DC:
		return VK_DELETE;
	case KEY_ENTER:
		return VK_ENTER;
	case KEY_BACKSPACE:
		return VK_BACKSPACE;
	case KEY_RESIZE:
		return VK_RESIZE;
	}
	if (code >= KEY_F(1) && code <= KEY_F(12))
		return VK_F1 + (code - KEY_F(1));
	return 0;
}

bool term_read(term_event *ev)
{
	memset(ev, 0, sizeof *ev);
	wint_t ch;
	int rc = get_wch(&ch);
	if (rc == ERR)
		return false;
	if (rc == KEY_CODE_YES) {
		if (ch == KEY_MOUSE) {
			MEVENT me;
			if (getmouse(&me) != OK)
				return true; /* consumed; nothing to do */
			ev->mouse = true;
			ev->mx = me.x;
			ev->my = me.y;
			if (me.bstate & BUTTON4_PRESSED)
				ev->mkind = MOUSE_WHEEL_UP;
			else if (me.bstate & BUTTON5_PRESSED)
				ev->mkind = MOUSE_WHEEL_DOWN;
			else if (me.bstate &
				 (BUTTON1_PRESSED | BUTTON1_CLICKED))
				ev->mkind = MOUSE_CLICK;
			else
				ev->mouse = false;
			return true;
		}
		ev->key = translate_key((int)ch);
		return true;
	}
	switch (ch) {
	case '\r':
		ev->key = VK_ENTER;
		break;
	case 127:
	case 8:
		ev->key = VK_BACKSPACE;
		break;
	default:
		ev->key = (int)ch;
	}
	return true;
}

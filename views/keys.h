/* keys.h - the one key table: dispatch, the function-key bar and the help
 * screen all read it, so they cannot drift apart (after htop's key table,
 * with one table instead of htop's two).
 *
 * Key codes are independent of curses: printable keys and control keys are
 * their ASCII codes; special keys are VK_* values above Unicode. The curses
 * backend translates its codes (tui/tui_term.c).
 */
#ifndef DNNPART_VIEWS_KEYS_H
#define DNNPART_VIEWS_KEYS_H

#include <stdbool.h>

#include "state.h"

enum {
	VK_TAB = 9,
	VK_ENTER = 13,
	VK_ESC = 27,
	VK_CTRL_L = 12,
	VK_CTRL_U = 21,
	VK_CTRL_W = 23,
	VK_BACKSPACE = 127,
	VK_BASE = 0x110000,
	VK_UP,
	VK_DOWN,
	VK_LEFT,
	VK_RIGHT,
	VK_PGUP,
	VK_PGDN,
	VK_HOME,
	VK_END,
	VK_BTAB, /* Shift-Tab */
	VK_DELETE,
	VK_RESIZE,
	VK_F1,
	VK_F2,
	VK_F3,
	VK_F4,
	VK_F5,
	VK_F6,
	VK_F7,
	VK_F8,
	VK_F9,
	VK_F10,
	VK_F11,
	VK_F12,
};

typedef enum key_action {
	ACT_NONE = 0,
	ACT_QUIT,
	ACT_HELP,
	ACT_REDRAW,
	ACT_NEXT_VIEW,
	ACT_PREV_VIEW,
	ACT_VIEW,  /* the number key's view: '1' the first tab */
	ACT_ENTER, /* open the op / adopt the algorithm */
	ACT_ESCAPE, /* close help, cancel an export/open/rerun, leave op detail */
	ACT_UP,
	ACT_DOWN,
	ACT_LEFT,
	ACT_RIGHT,
	ACT_PAGE_UP,
	ACT_PAGE_DOWN,
	ACT_TOP,
	ACT_BOTTOM,
	ACT_ZOOM_IN,
	ACT_ZOOM_OUT,
	ACT_DEV_ADD,
	ACT_DEV_REMOVE,
	ACT_CAP_LOWER,
	ACT_CAP_RAISE,
	ACT_CAP_TYPE,
	ACT_CAP_TYPE_ALL,
	ACT_RESERVE, /* type the memory reserve of every device */
	ACT_BW_LOWER,
	ACT_BW_RAISE,
	ACT_MB_LOWER,
	ACT_MB_RAISE,
	ACT_SCHEDULE, /* the next pipeline schedule */
	ACT_BATCH_LOWER,
	ACT_BATCH_RAISE,
	ACT_PRECISION, /* the next precision: fp32, bf16, fp16 */
	ACT_RECOMPUTE, /* the next recomputation: none, selective, full */
	ACT_ALGO_NEXT,
	ACT_ALGO_PREV,
	ACT_CONTENTION,
	ACT_RERUN,
	ACT_FIT, /* what fits: the smallest K and the selected device's cap */
	ACT_SEARCH,
	ACT_SEARCH_NEXT,
	ACT_SEARCH_PREV,
	ACT_FILTER,
	ACT_SORT_NEXT,
	ACT_SORT_PREV,
	ACT_SORT_INVERT,
	ACT_SAVE,
	ACT_EXPORT,
	ACT_OPEN,
	ACT_PIN,
	ACT_PIN_LAYER,
	ACT_UNPIN,
	ACT_UNPIN_ALL,
	ACT_DIFF,
	ACT_COUNT
} key_action;

/* Groups of the help screen, in order. */
typedef enum key_group {
	KG_VIEWS = 0,
	KG_NAVIGATE,
	KG_MACHINE,
	KG_PLAN,
	KG_OPS,
	KG_FILES,
	KG_COUNT
} key_group;

#define KEY_MAX_CODES 10

typedef struct key_binding {
	int keys[KEY_MAX_CODES]; /* codes that trigger it, 0-terminated */
	const char *names;	 /* as the help shows them: "q F10" (the
				    number keys' line comes from the view
				    table: NULL here) */
	int fkey;		 /* 1..10 when it has a slot in the F-key bar */
	const char *bar;	 /* its label there ("Quit") */
	const char *help;	 /* one line for the help screen */
	key_action act;
	key_group group;
	bool navigation; /* never changes the settings or the plan */
} key_binding;

extern const key_binding key_table[];
extern const int key_table_len;

/* The binding of key code, or NULL. */
const key_binding *keys_find(int key);
/* The binding that owns F-key slot n (1..10), or NULL. */
const key_binding *keys_fkey(int n);
const char *key_group_name(key_group g);
/* A readable name of a key code ("Up", "F5", "a", "Ctrl-L"). */
const char *keys_name(int key, char *buf, int size);

#endif

/* keys.c - the key table (see keys.h). Order is the help screen's order
 * within each group. */
#include "keys.h"

#include <stdio.h>

/* clang-format off */
#define K(...) {__VA_ARGS__, 0}
/* clang-format on */

const key_binding key_table[] = {
	/* views */
	{K(VK_TAB), "Tab", 0, NULL, "next view", ACT_NEXT_VIEW, KG_VIEWS, true},
	{K(VK_BTAB), "Shift-Tab", 0, NULL, "previous view", ACT_PREV_VIEW,
	 KG_VIEWS, true},
	/* names and help from the view table (view_help.c); the keys past
	 * the last tab do nothing */
	{K('1', '2', '3', '4', '5', '6', '7', '8', '9'), NULL, 0, NULL, NULL,
	 ACT_VIEW, KG_VIEWS, true},
	{K(VK_ENTER, '\n'), "Enter", 0, NULL,
	 "open the op under the cursor; in Compare: adopt the algorithm",
	 ACT_ENTER, KG_VIEWS, true},
	{K(VK_ESC), "Esc", 0, NULL,
	 "cancel an export/open/rerun; close help; leave Op detail", ACT_ESCAPE,
	 KG_VIEWS, true},
	{K('?', VK_F1), "? F1", 1, "Help", "this help (scrollable)", ACT_HELP,
	 KG_VIEWS, true},
	{K(VK_CTRL_L), "Ctrl-L", 0, NULL, "redraw the screen", ACT_REDRAW,
	 KG_VIEWS, true},
	{K('q', VK_F10), "q F10", 10, "Quit", "quit", ACT_QUIT, KG_VIEWS, true},

	/* navigation */
	{K(VK_UP, 'k'), "Up k", 0, NULL,
	 "previous row; previous device in Devices, Timeline, Memory", ACT_UP,
	 KG_NAVIGATE, true},
	{K(VK_DOWN, 'j'), "Down j", 0, NULL,
	 "next row; next device in Devices, Timeline, Memory", ACT_DOWN,
	 KG_NAVIGATE, true},
	{K(VK_LEFT, 'h'), "Left h", 0, NULL,
	 "previous device; scroll time back in Timeline and Memory", ACT_LEFT,
	 KG_NAVIGATE, true},
	{K(VK_RIGHT, 'l'), "Right l", 0, NULL,
	 "next device; scroll time forward in Timeline and Memory", ACT_RIGHT,
	 KG_NAVIGATE, true},
	{K(VK_PGUP), "PgUp", 0, NULL, "page up", ACT_PAGE_UP, KG_NAVIGATE,
	 true},
	{K(VK_PGDN, ' '), "PgDn Space", 0, NULL, "page down", ACT_PAGE_DOWN,
	 KG_NAVIGATE, true},
	{K('g', VK_HOME), "g Home", 0, NULL, "first row; start of the step",
	 ACT_TOP, KG_NAVIGATE, true},
	{K('G', VK_END), "G End", 0, NULL, "last row; end of the step",
	 ACT_BOTTOM, KG_NAVIGATE, true},
	{K('z'), "z", 0, NULL,
	 "zoom time in: Timeline and Memory each zoom their own (elsewhere: "
	 "the Timeline)",
	 ACT_ZOOM_IN, KG_NAVIGATE, true},
	{K('Z'), "Z", 0, NULL, "zoom time out", ACT_ZOOM_OUT, KG_NAVIGATE,
	 true},

	/* machine */
	{K('+', '=', VK_F8), "+ F8", 8, "Dev+", "add a device", ACT_DEV_ADD,
	 KG_MACHINE, false},
	{K('-', VK_F7), "- F7", 7, "Dev-", "remove the last device",
	 ACT_DEV_REMOVE, KG_MACHINE, false},
	{K('m'), "m", 0, NULL,
	 "lower the selected device's cap a step (16->14 GiB)", ACT_CAP_LOWER,
	 KG_MACHINE, false},
	{K('M'), "M", 0, NULL,
	 "raise the selected device's cap a step (M undoes m)", ACT_CAP_RAISE,
	 KG_MACHINE, false},
	{K('c', VK_F2), "c F2", 2, "Cap",
	 "type the selected device's cap (16GiB, 800MB, inf)", ACT_CAP_TYPE,
	 KG_MACHINE, false},
	{K('C'), "C", 0, NULL, "type one cap for every device",
	 ACT_CAP_TYPE_ALL, KG_MACHINE, false},
	{K('R'), "R", 0, NULL,
	 "type the memory every device reserves for the framework (1GiB, 5%, "
	 "none)",
	 ACT_RESERVE, KG_MACHINE, false},
	{K('b'), "b", 0, NULL, "halve the link bandwidth", ACT_BW_LOWER,
	 KG_MACHINE, false},
	{K('B'), "B", 0, NULL, "double the link bandwidth", ACT_BW_RAISE,
	 KG_MACHINE, false},
	{K('u'), "u", 0, NULL, "halve the micro-batches of pipelines (below 1: automatic again)",
	 ACT_MB_LOWER, KG_MACHINE, false},
	{K('U'), "U", 0, NULL, "double the micro-batches of pipelines (up to the batch size; past it: "
	 "automatic again)",
	 ACT_MB_RAISE, KG_MACHINE, false},
	{K('S'), "S", 0, NULL,
	 "pipeline schedule: gpipe / 1f1b / zb-h1 (reprices the pipeline on "
	 "screen)",
	 ACT_SCHEDULE, KG_MACHINE, false},
	{K('x'), "x", 0, NULL, "halve the batch size (graphs with a batch dim)",
	 ACT_BATCH_LOWER, KG_MACHINE, false},
	{K('X'), "X", 0, NULL, "double the batch size", ACT_BATCH_RAISE,
	 KG_MACHINE, false},
	{K('F'), "F", 0, NULL, "precision: fp32 / bf16 / fp16", ACT_PRECISION,
	 KG_MACHINE, false},
	{K('K'), "K", 0, NULL, "recompute: none / selective / full",
	 ACT_RECOMPUTE, KG_MACHINE, false},

	/* plan */
	{K('a', VK_F9), "a F9", 9, "Algo", "next algorithm", ACT_ALGO_NEXT,
	 KG_PLAN, false},
	{K('A'), "A", 0, NULL, "previous algorithm", ACT_ALGO_PREV, KG_PLAN,
	 false},
	{K('p'), "p", 0, NULL,
	 "pin the op under the cursor (Ops, Op detail) to a device; - frees it",
	 ACT_PIN, KG_PLAN, false},
	{K('P'), "P", 0, NULL, "pin the op's whole layer to a device",
	 ACT_PIN_LAYER, KG_PLAN, false},
	{K('y'), "y", 0, NULL, "free the op under the cursor (and its group)",
	 ACT_UNPIN, KG_PLAN, false},
	{K('Y'), "Y", 0, NULL, "free every pinned op", ACT_UNPIN_ALL, KG_PLAN,
	 false},
	{K('d'), "d", 0, NULL,
	 "diff: this plan against the one before (makespan, peaks, ops moved)",
	 ACT_DIFF, KG_PLAN, true},
	{K('t'), "t", 0, NULL,
	 "contention model: port (one transfer per port) or none",
	 ACT_CONTENTION, KG_PLAN, false},
	{K('r', VK_F5), "r F5", 5, "Rerun",
	 "rerun the plan; in Compare: rerun every algorithm", ACT_RERUN,
	 KG_PLAN, false},
	{K('f'), "f", 0, NULL,
	 "what fits: the smallest K and the fastest strategy and levers there "
	 "(Enter adopts a row); a graph that takes no lever: the smallest K "
	 "and the selected device's smallest cap, by reruns",
	 ACT_FIT, KG_PLAN, true},

	/* ops view */
	{K('/', VK_F3), "/ F3", 3, "Search",
	 "search ops by name, type or layer", ACT_SEARCH, KG_OPS, true},
	{K('n'), "n", 0, NULL,
	 "next match (the status line says which of how many)", ACT_SEARCH_NEXT,
	 KG_OPS, true},
	{K('N'), "N", 0, NULL, "previous match", ACT_SEARCH_PREV, KG_OPS, true},
	{K('\\', VK_F4), "\\ F4", 4, "Filter",
	 "show only ops whose name, type or layer contains a text", ACT_FILTER,
	 KG_OPS, true},
	{K('>', '.', VK_F6), "> F6", 6, "Sort", "sort by the next column",
	 ACT_SORT_NEXT, KG_OPS, true},
	{K('<', ','), "<", 0, NULL, "sort by the previous column",
	 ACT_SORT_PREV, KG_OPS, true},
	{K('I'), "I", 0, NULL, "invert the sort order", ACT_SORT_INVERT, KG_OPS,
	 true},

	/* files */
	{K('s'), "s", 0, NULL, "save the placement (JSON, or .place)", ACT_SAVE,
	 KG_FILES, true},
	{K('e'), "e", 0, NULL,
	 "export the plan (.svg .png .pdf .trace.json .dot .json .csv ... "
	 "by extension; Tab picks the detail)",
	 ACT_EXPORT, KG_FILES, true},
	{K('o'), "o", 0, NULL, "open another graph", ACT_OPEN, KG_FILES, false},
};

const int key_table_len = (int)(sizeof key_table / sizeof key_table[0]);

const key_binding *keys_find(int key)
{
	if (key == 0)
		return NULL;
	for (int i = 0; i < key_table_len; i++)
		for (int j = 0; j < KEY_MAX_CODES && key_table[i].keys[j]; j++)
			if (key_table[i].keys[j] == key)
				return &key_table[i];
	return NULL;
}

const key_binding *keys_fkey(int n)
{
	for (int i = 0; i < key_table_len; i++)
		if (key_table[i].fkey == n)
			return &key_table[i];
	return NULL;
}

const char *key_group_name(key_group g)
{
	static const char *const names[KG_COUNT] = {
		"Views", "Navigation", "Machine", "Plan", "Ops view", "Files",
	};
	return (unsigned)g < KG_COUNT ? names[g] : "?";
}

const char *keys_name(int key, char *buf, int size)
{
	static const char *const special[] = {
		"Up",	"Down", "Left",	     "Right",  "PgUp",	 "PgDn",
		"Home", "End",	"Shift-Tab", "Delete", "Resize",
	};
	if (key > VK_BASE && key <= VK_RESIZE)
		snprintf(buf, (size_t)size, "%s", special[key - VK_BASE - 1]);
	else if (key >= VK_F1 && key <= VK_F12)
		snprintf(buf, (size_t)size, "F%d", key - VK_F1 + 1);
	else if (key == VK_TAB)
		snprintf(buf, (size_t)size, "Tab");
	else if (key == VK_ENTER || key == '\n')
		snprintf(buf, (size_t)size, "Enter");
	else if (key == VK_ESC)
		snprintf(buf, (size_t)size, "Esc");
	else if (key == VK_BACKSPACE)
		snprintf(buf, (size_t)size, "Backspace");
	else if (key == ' ')
		snprintf(buf, (size_t)size, "Space");
	else if (key > 0 && key < 32)
		snprintf(buf, (size_t)size, "Ctrl-%c", '@' + key);
	else if (key >= 32 && key < 127)
		snprintf(buf, (size_t)size, "%c", key);
	else
		snprintf(buf, (size_t)size, "key %d", key);
	return buf;
}

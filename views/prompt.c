/* prompt.c - the line editor in the status line and the prompts' effects
 * (see prompt.h). */
#include "prompt.h"

#include <stdio.h>
#include <string.h>

#include "dnnpart/machine.h"
#include "dnnpart/units.h"
#include "grid.h"
#include "keys.h"
#include "pins.h"
#include "settings.h"

void prompt_open(vstate *st, prompt_kind k, const char *label, const char *init)
{
	st->prompt = k;
	snprintf(st->plabel, sizeof st->plabel, "%s", label);
	snprintf(st->pbuf, sizeof st->pbuf, "%s", init ? init : "");
	st->pfresh = st->pbuf[0] != '\0';
}

void prompt_confirm(vstate *st, prompt_kind k, const char *path)
{
	char label[sizeof st->plabel];
	snprintf(label, sizeof label, "%.500s exists - overwrite? (y/N) ",
		 path);
	if (path != st->io_path) /* the front end passes st->io_path */
		snprintf(st->io_path, sizeof st->io_path, "%s", path);
	prompt_open(st, PROMPT_CONFIRM, label, "");
	st->confirm_for = k;
}

/* A key at the overwrite question: y replaces, anything else keeps. */
static unsigned confirm_key(vstate *st, int key)
{
	prompt_kind k = st->confirm_for;
	st->prompt = PROMPT_NONE;
	st->confirm_for = PROMPT_NONE;
	if (key == 'y' || key == 'Y') {
		st->io = k;
		st->io_replace = true;
		return AR_REDRAW | AR_IO;
	}
	state_status(st, false, "not %s: %s kept as it was",
		     k == PROMPT_SAVE ? "saved" : "exported", st->io_path);
	return AR_REDRAW;
}

/* ---- the export prompt's detail ---- */

const char *prompt_detail_name(dp_export_coarsen d)
{
	return d == DP_COARSEN_ALWAYS  ? "groups"
	       : d == DP_COARSEN_NEVER ? "every op"
				       : "auto";
}

void prompt_export_label(vstate *st)
{
	snprintf(st->plabel, sizeof st->plabel, "Export [Tab: detail %s] to: ",
		 prompt_detail_name(st->export_detail));
}

/* auto -> groups -> every op -> auto */
static unsigned next_detail(vstate *st)
{
	st->export_detail =
		st->export_detail == DP_COARSEN_AUTO	 ? DP_COARSEN_ALWAYS
		: st->export_detail == DP_COARSEN_ALWAYS ? DP_COARSEN_NEVER
							 : DP_COARSEN_AUTO;
	prompt_export_label(st);
	return AR_REDRAW;
}

/* ---- the Ops view: search ---- */

unsigned prompt_search(vstate *st, int dir, bool include_cursor)
{
	if (!st->search[0]) {
		state_status(st, false, "no search yet: / starts one");
		return AR_REDRAW;
	}
	if (state_prepare(st) != DP_OK) {
		state_status(st, true, "out of memory sorting the ops");
		return AR_REDRAW;
	}
	uint32_t n = st->ops_n;
	for (uint32_t i = include_cursor ? 0 : 1; i <= n && n; i++) {
		uint32_t at = dir > 0 ? (st->ops_cursor + i) % n
				      : (st->ops_cursor + n - i % n) % n;
		if (state_op_matches(st, st->ops_idx[at], st->search)) {
			st->ops_cursor = at;
			/* which match of how many, in the list's order */
			uint32_t nth = 0, total = 0;
			for (uint32_t j = 0; j < n; j++)
				if (state_op_matches(st, st->ops_idx[j],
						     st->search)) {
					total++;
					if (j <= at)
						nth++;
				}
			state_status(st, false, "'%s': %u of %u: %s",
				     st->search, nth, total,
				     dp_graph_op_name(st->g, st->ops_idx[at]));
			return AR_REDRAW;
		}
	}
	state_status(st, true, "no match for '%s'%s", st->search,
		     st->filter[0] ? " among the filtered ones" : "");
	return AR_REDRAW;
}

/* ---- the line editor ---- */

static unsigned prompt_submit(vstate *st)
{
	prompt_kind k = st->prompt;
	char text[sizeof st->pbuf];
	/* trim blanks at both ends */
	const char *s = st->pbuf;
	while (*s == ' ')
		s++;
	snprintf(text, sizeof text, "%s", s);
	size_t n = strlen(text);
	while (n && text[n - 1] == ' ')
		text[--n] = '\0';
	st->prompt = PROMPT_NONE;
	dp_err err;
	dp_err_clear(&err);
	switch (k) {
	case PROMPT_CAP: {
		int d = st->dev;
		if (d >= st->m.k)
			return AR_REDRAW;
		/* the parser of --mem, with its messages */
		int64_t v;
		if (dp_machine_parse_cap(text, &v, &err) != DP_OK) {
			state_status(st, true, "cap not changed: %s: %s", text,
				     err.msg);
			return AR_REDRAW;
		}
		return settings_cap(st, d, v);
	}
	case PROMPT_CAP_ALL:
		return settings_caps(st, text);
	case PROMPT_RESERVE:
		return settings_reserve(st, text);
	case PROMPT_SEARCH:
		snprintf(st->search, sizeof st->search, "%.*s",
			 (int)sizeof st->search - 1, text);
		if (!text[0]) {
			state_status(st, false, "search cleared");
			return AR_REDRAW;
		}
		return prompt_search(st, 1, true);
	case PROMPT_FILTER:
		snprintf(st->filter, sizeof st->filter, "%.*s",
			 (int)sizeof st->filter - 1, text);
		st->ops_dirty = true;
		st->ops_cursor = st->ops_scroll = 0;
		state_status(st, false,
			     text[0] ? "filter '%s'" : "filter cleared", text);
		return AR_REDRAW;
	case PROMPT_OPEN:
	case PROMPT_SAVE:
	case PROMPT_EXPORT:
		if (!text[0]) {
			state_status(st, true, "no file name given");
			return AR_REDRAW;
		}
		st->io = k;
		st->io_replace = false;
		snprintf(st->io_path, sizeof st->io_path, "%s", text);
		return AR_REDRAW | AR_IO;
	case PROMPT_PIN:
	case PROMPT_LAYER:
		return pins_submit(st, k == PROMPT_LAYER, text);
	case PROMPT_CONFIRM:
	case PROMPT_NONE:
		break;
	}
	return AR_REDRAW;
}

static void prompt_backspace(vstate *st)
{
	size_t n = strlen(st->pbuf);
	/* drop one UTF-8 codepoint */
	while (n > 0) {
		n--;
		if (((unsigned char)st->pbuf[n] & 0xc0) != 0x80)
			break;
	}
	st->pbuf[n] = '\0';
}

unsigned prompt_key(vstate *st, int key)
{
	if (st->prompt == PROMPT_CONFIRM)
		return confirm_key(st, key);
	bool fresh = st->pfresh;
	st->pfresh = false;
	size_t n = strlen(st->pbuf);
	switch (key) {
	case VK_ENTER:
	case '\n':
		return prompt_submit(st);
	case VK_ESC:
		st->prompt = PROMPT_NONE;
		state_status(st, false, "cancelled");
		return AR_REDRAW;
	case VK_BACKSPACE:
	case 8:
		prompt_backspace(st);
		return AR_REDRAW;
	case VK_CTRL_U:
		st->pbuf[0] = '\0';
		return AR_REDRAW;
	case VK_TAB:
		if (st->prompt == PROMPT_EXPORT)
			return next_detail(st);
		return 0;
	case VK_CTRL_W:
		while (n && st->pbuf[n - 1] == ' ')
			st->pbuf[--n] = '\0';
		while (n && st->pbuf[n - 1] != ' ' && st->pbuf[n - 1] != '/')
			st->pbuf[--n] = '\0';
		return AR_REDRAW;
	default:
		break;
	}
	if (key < 32 || key >= VK_BASE || key == 127) {
		st->pfresh = fresh;
		return 0; /* other special keys do nothing while typing */
	}
	if (fresh) /* typing replaces the text the prompt opened with */
		st->pbuf[0] = '\0', n = 0;
	char e[4];
	int len = utf8_encode((uint32_t)key, e);
	if (n + (size_t)len < sizeof st->pbuf) {
		memcpy(st->pbuf + n, e, (size_t)len);
		st->pbuf[n + (size_t)len] = '\0';
	}
	return AR_REDRAW;
}

/* pins.c - pins set by hand (see pins.h). */
#include "pins.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "settings.h"

uint32_t pins_selected_op(const vstate *st)
{
	if (st->view == VIEW_OPS) {
		if (!st->ops_n)
			return UINT32_MAX;
		uint32_t i = st->ops_cursor < st->ops_n ? st->ops_cursor
							: st->ops_n - 1;
		return st->ops_idx[i];
	}
	if (st->view == VIEW_OP && st->plan &&
	    st->op < state_plan_graph(st)->nops) {
		uint32_t u = dp_plan_source(st->plan, st->op);
		return u < st->g->nops ? u : UINT32_MAX;
	}
	return UINT32_MAX;
}

static uint32_t set_one(vstate *st, uint32_t v, int32_t d)
{
	if (st->pins[v] == d)
		return 0;
	st->npins += (uint32_t)(d >= 0);
	st->npins -= (uint32_t)(st->pins[v] >= 0);
	st->pins[v] = d;
	st->pins_dirty = true;
	return 1;
}

uint32_t pins_set_op(vstate *st, uint32_t u, int32_t d)
{
	const dp_graph *g = st->g;
	if (u >= g->nops)
		return 0;
	int32_t c = g->ops[u].colocate;
	if (c < 0 || (uint32_t)c >= g->ngroups)
		return set_one(st, u, d);
	uint32_t n = 0;
	for (uint32_t i = g->group_off[c]; i < g->group_off[c + 1]; i++)
		n += set_one(st, g->group_ops[i], d);
	return n;
}

uint32_t pins_set_layer(vstate *st, uint32_t u, int32_t d)
{
	const dp_graph *g = st->g;
	if (u >= g->nops || !g->ops[u].layer)
		return 0;
	const char *layer = dp_graph_str(g, g->ops[u].layer);
	uint32_t n = 0;
	for (uint32_t v = 0; v < g->nops; v++)
		if (g->ops[v].layer &&
		    (g->ops[v].layer == g->ops[u].layer ||
		     strcmp(dp_graph_str(g, g->ops[v].layer), layer) == 0))
			n += pins_set_op(st, v, d);
	return n;
}

uint32_t pins_clear_all(vstate *st)
{
	uint32_t n = 0;
	for (uint32_t u = 0; u < st->g->nops; u++)
		n += set_one(st, u, -1);
	return n;
}

/* Ops of op u's layer. */
static uint32_t layer_size(const vstate *st, uint32_t u)
{
	const dp_graph *g = st->g;
	uint32_t n = 0;
	for (uint32_t v = 0; v < g->nops; v++)
		n += g->ops[v].layer == g->ops[u].layer;
	return n;
}

/* Why pins cannot change now, or NULL. */
static const char *pins_refused(const vstate *st)
{
	/* an export reads the graph's pins on its own thread */
	if (st->file_job == PROMPT_EXPORT)
		return "wait for the export to finish (it reads the pins)";
	if (st->file_job == PROMPT_OPEN)
		return "wait for the open to finish";
	return NULL;
}

/* The selected op, or UINT32_MAX with the status line saying why. */
static uint32_t target(vstate *st)
{
	const char *why = pins_refused(st);
	if (why) {
		state_status(st, true, "%s", why);
		return UINT32_MAX;
	}
	uint32_t u = pins_selected_op(st);
	if (u == UINT32_MAX)
		state_status(st, true,
			     "no op selected: pins are set from the Ops view "
			     "(5) or Op detail");
	return u;
}

uint32_t pins_prompt_label(vstate *st, bool layer, char *label, int size)
{
	uint32_t u = target(st);
	if (u == UINT32_MAX)
		return u;
	const dp_graph *g = st->g;
	int d = st->dev < st->m.k ? st->dev : 0;
	if (!layer) {
		snprintf(label, (size_t)size,
			 "Pin %.32s to [GPU%d] (0-%d, - frees): ",
			 dp_graph_op_name(g, u), d, st->m.k - 1);
		return u;
	}
	if (!g->ops[u].layer) {
		state_status(st, true, "%s has no layer: p pins the op",
			     dp_graph_op_name(g, u));
		return UINT32_MAX;
	}
	snprintf(label, (size_t)size,
		 "Pin layer %.24s (%u ops) to [GPU%d] (0-%d, - frees): ",
		 dp_graph_str(g, g->ops[u].layer), layer_size(st, u), d,
		 st->m.k - 1);
	return u;
}

/* The status line after a change: what moved and how many pins now. */
static unsigned changed(vstate *st, const char *what, int32_t d, uint32_t n)
{
	unsigned r = settings_changed(st) | AR_REPIN;
	char dev[24] = "";
	if (d >= 0)
		snprintf(dev, sizeof dev, " to GPU%d", d);
	state_status(st, false, "%s %s%s (%u op%s); %u pin%s",
		     d >= 0 ? "pinned" : "freed", what, dev, n,
		     n == 1 ? "" : "s", st->npins, st->npins == 1 ? "" : "s");
	return r;
}

unsigned pins_submit(vstate *st, bool layer, const char *text)
{
	const char *why = pins_refused(st);
	if (why) {
		state_status(st, true, "%s", why);
		return AR_REDRAW;
	}
	uint32_t u = st->pin_op;
	if (u >= st->g->nops)
		return AR_REDRAW;
	int32_t d;
	const char *s = text;
	if (!strncmp(s, "GPU", 3) || !strncmp(s, "gpu", 3))
		s += 3;
	if (!text[0]) {
		d = st->dev < st->m.k ? st->dev : 0;
	} else if (!strcmp(text, "-")) {
		d = -1;
	} else {
		char *end = (char *)s;
		long v =
			isdigit((unsigned char)s[0]) ? strtol(s, &end, 10) : -1;
		if (v < 0 || *end || v >= st->m.k) {
			state_status(st, true,
				     "not pinned: '%.40s' is no device of "
				     "K=%d (0-%d, or - to free)",
				     text, st->m.k, st->m.k - 1);
			return AR_REDRAW;
		}
		d = (int32_t)v;
	}
	const dp_graph *g = st->g;
	char what[96];
	uint32_t n;
	if (layer) {
		snprintf(what, sizeof what, "layer %.40s",
			 dp_graph_str(g, g->ops[u].layer));
		n = pins_set_layer(st, u, d);
	} else {
		snprintf(what, sizeof what, "%.60s", dp_graph_op_name(g, u));
		n = pins_set_op(st, u, d);
	}
	if (!n) {
		if (d >= 0)
			state_status(st, false, "%s is already pinned to GPU%d",
				     what, d);
		else
			state_status(st, false, "%s is already free", what);
		return AR_REDRAW;
	}
	return changed(st, what, d, n);
}

unsigned pins_unpin(vstate *st, bool all)
{
	if (all) {
		const char *why = pins_refused(st);
		if (why) {
			state_status(st, true, "%s", why);
			return AR_REDRAW;
		}
		uint32_t n = pins_clear_all(st);
		if (!n) {
			state_status(st, false, "no op is pinned");
			return AR_REDRAW;
		}
		return changed(st, "every op", -1, n);
	}
	uint32_t u = target(st);
	if (u == UINT32_MAX)
		return AR_REDRAW;
	char what[96];
	snprintf(what, sizeof what, "%.60s", dp_graph_op_name(st->g, u));
	uint32_t n = pins_set_op(st, u, -1);
	if (!n) {
		state_status(st, false, "%s is not pinned", what);
		return AR_REDRAW;
	}
	return changed(st, what, -1, n);
}

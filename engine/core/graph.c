/* graph.c - graph storage: ops, edges, names and labels (see graph.h);
 * freezing it is graph_finalize.c. */
#include "dnnpart/graph.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal/arrays.h"
#include "internal/graph_int.h"
#include "internal/grow.h"
#include "internal/minheap.h"
#include "internal/nomem.h"
#include "internal/utf8.h"

#define EMPTY UINT32_MAX

static uint64_t hash_str(const char *s)
{
	uint64_t h = 1469598103934665603ull;
	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 1099511628211ull;
	}
	return h;
}

/* Appends s to the arena; returns its offset or UINT32_MAX on failure. */
static uint32_t arena_add(dp_graph *g, const char *s)
{
	size_t n = strlen(s) + 1;
	if (g->strs_len + n > UINT32_MAX)
		return EMPTY;
	if (g->strs_len + n > g->strs_cap) {
		size_t nc = g->strs_cap ? g->strs_cap * 2 : 4096;
		while (nc < g->strs_len + n)
			nc *= 2;
		char *q = realloc(g->strs, nc);
		if (!q)
			return EMPTY;
		g->strs = q;
		g->strs_cap = nc;
	}
	memcpy(g->strs + g->strs_len, s, n);
	uint32_t off = (uint32_t)g->strs_len;
	g->strs_len += n;
	return off;
}

dp_graph *dp_graph_new(const char *name)
{
	dp_graph *g = calloc(1, sizeof *g);
	if (!g)
		return NULL;
	g->name = strdup(name ? name : "");
	g->source = strdup("");
	g->strs = malloc(4096);
	if (!g->name || !g->source || !g->strs) {
		dp_graph_free(g);
		return NULL;
	}
	g->strs_cap = 4096;
	g->strs[0] = '\0';
	g->strs_len = 1;
	g->hint.lat_us = -1;
	return g;
}

void dp_graph_free(dp_graph *g)
{
	if (!g)
		return;
	DPI_FREE_ALL(g->name, g->source, g->ops, g->edges, g->strs,
		     g->name_hash, g->group_label, g->group_hash,
		     g->intern_hash, g->succ_off, g->succ_edge, g->pred_off,
		     g->pred_edge, g->topo, g->topo_pos, g->group_off,
		     g->group_ops, g->xfer_us);
	dpi_graph_free_dims(g);
	free(g);
}

/* Offset of the first byte of s that is not part of well-formed UTF-8, or
 * -1 when s is all UTF-8. Names and labels are shown on terminals and
 * written into JSON, where other bytes would garble both. */
static long utf8_bad_at(const char *s)
{
	long i = 0;
	for (int n; s[i]; i += n)
		if (!(n = dpi_utf8_seq_len(s + i)))
			return i;
	return -1;
}

/* DP_EINPUT when s is not UTF-8, naming what it is and where it breaks. */
static dp_status check_utf8(const char *what, const char *s, dp_err *err)
{
	long at = utf8_bad_at(s);
	if (at < 0)
		return DP_OK;
	int shown = at > 40 ? 40 : (int)at;
	/* the shown part starts on a character, not inside one */
	while (shown < at && (s[at - shown] & 0xC0) == 0x80)
		shown--;
	return dp_err_set(
		err, DP_EINPUT, NULL, 0, 0,
		"%s is not valid UTF-8: byte 0x%02X %s%s%.*s%s "
		"(names must be UTF-8 text)",
		what, (unsigned char)s[at], at ? "after \"" : "at its start",
		at > shown ? "..." : "", shown, s + at - shown, at ? "\"" : "");
}

static dp_status set_str(char **dst, const char *s, dp_err *err)
{
	char *c = strdup(s ? s : "");
	if (!c)
		return dpi_nomem(err, "storing %s", "a name");
	free(*dst);
	*dst = c;
	return DP_OK;
}

dp_status dp_graph_set_source(dp_graph *g, const char *path, dp_err *err)
{
	return set_str(&g->source, path, err);
}

dp_status dp_graph_set_name(dp_graph *g, const char *name, dp_err *err)
{
	dp_status st = set_str(&g->name, name, err);
	/* the name often comes from the file's name, which may be in any
	 * encoding: rather than refuse the graph, bytes that are not UTF-8
	 * become '?' (the name is shown and written into JSON) */
	long at;
	while (!st && (at = utf8_bad_at(g->name)) >= 0)
		g->name[at] = '?';
	return st;
}

/* Open-addressing table of uint32 values keyed by the string key(value).
 * Rehashes when more than half full. Slot i is tab[2i], the value, and
 * tab[2i + 1], the low 32 bits of its key's hash (one cache line), so that
 * a probe compares hashes before it reads a key (a lowered graph of a
 * million ops spent a tenth of a pase run in reading the keys of other
 * names) and a rehash reads no key. */
typedef const char *(*key_fn)(const dp_graph *g, uint32_t v);

static const char *op_key(const dp_graph *g, uint32_t v)
{
	return g->strs + g->ops[v].name;
}
static const char *group_key(const dp_graph *g, uint32_t v)
{
	return g->strs + g->group_label[v];
}
static const char *intern_key(const dp_graph *g, uint32_t v)
{
	return g->strs + v;
}

/* The slot of s in tab: where it is, else the empty slot for it. */
static uint32_t table_slot(const dp_graph *g, const uint32_t *tab, uint32_t cap,
			   key_fn key, const char *s, uint32_t h)
{
	uint32_t i = h & (cap - 1);
	while (tab[2 * i] != EMPTY &&
	       (tab[2 * i + 1] != h || strcmp(key(g, tab[2 * i]), s) != 0))
		i = (i + 1) & (cap - 1);
	return i;
}

static uint32_t table_find(const dp_graph *g, const uint32_t *tab, uint32_t cap,
			   key_fn key, const char *s)
{
	if (!cap)
		return EMPTY;
	return tab[2 * table_slot(g, tab, cap, key, s, (uint32_t)hash_str(s))];
}

/* Makes room for count + 1 entries (at most half full), rehashing. */
static int table_reserve(uint32_t **tab, uint32_t *cap, uint32_t count)
{
	if ((uint64_t)(count + 1) * 2 > *cap) {
		uint64_t want = *cap ? (uint64_t)*cap * 2 : 1024;
		while ((uint64_t)(count + 1) * 2 > want)
			want *= 2;
		if (want > ((uint64_t)1 << 31))
			return -1;
		uint32_t nc = (uint32_t)want;
		uint32_t *nt = malloc((size_t)nc * 2 * sizeof *nt);
		if (!nt)
			return -1;
		memset(nt, 0xff, (size_t)nc * 2 * sizeof *nt);
		for (uint32_t i = 0; i < *cap; i++) {
			uint32_t w = (*tab)[2 * i], h = (*tab)[2 * i + 1];
			if (w == EMPTY)
				continue;
			uint32_t j = h & (nc - 1);
			while (nt[2 * j] != EMPTY)
				j = (j + 1) & (nc - 1);
			nt[2 * j] = w;
			nt[2 * j + 1] = h;
		}
		free(*tab);
		*tab = nt;
		*cap = nc;
	}
	return 0;
}

static int table_insert(const dp_graph *g, uint32_t **tab, uint32_t *cap,
			uint32_t count, key_fn key, uint32_t v)
{
	if (table_reserve(tab, cap, count))
		return -1;
	uint32_t h = (uint32_t)hash_str(key(g, v)), j = h & (*cap - 1);
	while ((*tab)[2 * j] != EMPTY)
		j = (j + 1) & (*cap - 1);
	(*tab)[2 * j] = v;
	(*tab)[2 * j + 1] = h;
	return 0;
}

dp_status dpi_graph_reserve(dp_graph *g, uint32_t nops, uint32_t nedges,
			    size_t name_bytes, dp_err *err)
{
	if (dpi_grow((void **)&g->ops, &g->ops_cap, nops, sizeof *g->ops, 64) ||
	    dpi_grow((void **)&g->edges, &g->edges_cap, nedges,
		     sizeof *g->edges, 64))
		return dpi_nomem(err, "storing %s", "ops and edges");
	if (nops && table_reserve(&g->name_hash, &g->name_hash_cap, nops - 1))
		return dpi_nomem(err, "storing %s", "the op name index");
	if (g->strs_len + name_bytes > g->strs_cap &&
	    g->strs_len + name_bytes <= UINT32_MAX) {
		char *q = realloc(g->strs, g->strs_len + name_bytes);
		if (!q)
			return dpi_nomem(err, "storing %s", "op names");
		g->strs = q;
		g->strs_cap = g->strs_len + name_bytes;
	}
	return DP_OK;
}

uint32_t dp_graph_find(const dp_graph *g, const char *name)
{
	return table_find(g, g->name_hash, g->name_hash_cap, op_key, name);
}

dp_status dp_graph_add_op(dp_graph *g, const char *name, uint32_t *id,
			  dp_err *err)
{
	if (g->finalized)
		return dp_err_set(err, DP_EINTERNAL, NULL, 0, 0,
				  "dp_graph_add_op on a finalized graph");
	if (!name || !name[0])
		return dp_err_set(err, DP_EINPUT, NULL, 0, 0,
				  "op name must be a non-empty string");
	if (check_utf8("op name", name, err))
		return DP_EINPUT;
	/* one hash of the name finds a duplicate and the slot for it */
	if (table_reserve(&g->name_hash, &g->name_hash_cap, g->nops))
		return dpi_nomem(err, "storing %s", "the op name index");
	uint32_t h = (uint32_t)hash_str(name);
	uint32_t slot =
		table_slot(g, g->name_hash, g->name_hash_cap, op_key, name, h);
	if (g->name_hash[2 * slot] != EMPTY)
		return dp_err_set(err, DP_EINPUT, NULL, 0, 0,
				  "duplicate op name '%s' (op names "
				  "must be unique)",
				  name);
	if (g->nops >= DP_MAX_OPS)
		return dp_err_set(err, DP_EINPUT, NULL, 0, 0,
				  "too many ops: at most %u are supported",
				  DP_MAX_OPS);
	if (dpi_grow((void **)&g->ops, &g->ops_cap, g->nops + 1, sizeof *g->ops,
		     64) ||
	    dpi_graph_grow_roles(g))
		return dpi_nomem(err, "storing %s", "ops");
	uint32_t off = arena_add(g, name);
	if (off == EMPTY)
		return dpi_nomem(err, "storing %s", "op names");
	dp_op *op = &g->ops[g->nops];
	memset(op, 0, sizeof *op);
	op->name = off;
	op->colocate = -1;
	op->pin = -1;
	g->name_hash[2 * slot] = g->nops;
	g->name_hash[2 * slot + 1] = h;
	*id = g->nops++;
	return DP_OK;
}

dp_status dpi_graph_intern(dp_graph *g, const char *s, const char *what,
			   uint32_t *off, dp_err *err)
{
	if (!s || !s[0]) {
		*off = 0;
		return DP_OK;
	}
	uint32_t o = table_find(g, g->intern_hash, g->intern_hash_cap,
				intern_key, s);
	if (o == EMPTY) {
		if (check_utf8(what, s, err))
			return DP_EINPUT;
		o = arena_add(g, s);
		if (o == EMPTY ||
		    table_insert(g, &g->intern_hash, &g->intern_hash_cap,
				 g->nintern, intern_key, o))
			return dpi_nomem(err, "storing %s", "strings");
		g->nintern++;
	}
	*off = o;
	return DP_OK;
}

dp_status dp_graph_set_type(dp_graph *g, uint32_t op, const char *type,
			    dp_err *err)
{
	return dpi_graph_intern(g, type, "op type", &g->ops[op].type, err);
}

dp_status dp_graph_set_layer(dp_graph *g, uint32_t op, const char *layer,
			     dp_err *err)
{
	return dpi_graph_intern(g, layer, "layer", &g->ops[op].layer, err);
}

dp_status dp_graph_set_colocate(dp_graph *g, uint32_t op, const char *label,
				dp_err *err)
{
	if (!label || !label[0]) {
		g->ops[op].colocate = -1;
		return DP_OK;
	}
	uint32_t grp = table_find(g, g->group_hash, g->group_hash_cap,
				  group_key, label);
	if (grp == EMPTY) {
		uint32_t off;
		dp_status st = dpi_graph_intern(g, label, "colocation label",
						&off, err);
		if (st)
			return st;
		if (dpi_grow((void **)&g->group_label, &g->groups_cap,
			     g->ngroups + 1, sizeof *g->group_label, 64))
			return dpi_nomem(err, "storing %s", "colocation groups");
		g->group_label[g->ngroups] = off;
		if (table_insert(g, &g->group_hash, &g->group_hash_cap,
				 g->ngroups, group_key, g->ngroups))
			return dpi_nomem(err, "storing %s", "colocation groups");
		grp = g->ngroups++;
	}
	g->ops[op].colocate = (int32_t)grp;
	return DP_OK;
}

dp_status dp_graph_add_edge(dp_graph *g, uint32_t from, uint32_t to,
			    int64_t bytes, bool control, dp_err *err)
{
	if (from >= g->nops || to >= g->nops)
		return dp_err_set(err, DP_EINTERNAL, NULL, 0, 0,
				  "edge endpoint out of range");
	if (from == to)
		return dp_err_set(err, DP_EINPUT, NULL, 0, 0,
				  "self-loop on op '%s' (an op cannot depend "
				  "on itself)",
				  dp_graph_op_name(g, from));
	if (g->nedges >= DP_MAX_EDGES)
		return dp_err_set(err, DP_EINPUT, NULL, 0, 0,
				  "too many edges: at most %u are supported",
				  DP_MAX_EDGES);
	if (dpi_grow((void **)&g->edges, &g->edges_cap, g->nedges + 1,
		     sizeof *g->edges, 64))
		return dpi_nomem(err, "storing %s", "edges");
	dp_edge *e = &g->edges[g->nedges++];
	e->from = from;
	e->to = to;
	e->bytes = bytes;
	e->control = control;
	e->dims = 0;
	return DP_OK;
}

dp_status dp_graph_check_number(const char *field, const char *opname, double v,
				dp_err *err)
{
	if (isfinite(v) && v >= 0)
		return DP_OK;
	return dp_err_set(err, DP_EINPUT, NULL, 0, 0,
			  "%s of op '%s' must be a finite number >= 0, got %g",
			  field, opname, v);
}

bool dpi_graph_has_pins(const dp_graph *g)
{
	for (uint32_t u = 0; u < g->nops; u++)
		if (g->ops[u].pin >= 0)
			return true;
	return false;
}

/* graph.c - graph storage, validation and topological order (see graph.h). */
#include "dnnpart/graph.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal/graph_int.h"
#include "internal/minheap.h"
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

static dp_status nomem(dp_err *err, const char *what)
{
	return dp_err_set(err, DP_ENOMEM, NULL, 0, 0,
			  "out of memory while storing %s", what);
}

static int grow(void **p, uint32_t *cap, uint32_t need, size_t elem)
{
	if (need <= *cap)
		return 0;
	uint64_t nc = *cap ? (uint64_t)*cap * 2 : 64;
	while (nc < need)
		nc *= 2;
	if (nc > UINT32_MAX)
		nc = UINT32_MAX;
	void *q = realloc(*p, (size_t)nc * elem);
	if (!q)
		return -1;
	*p = q;
	*cap = (uint32_t)nc;
	return 0;
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
	free(g->name);
	free(g->source);
	free(g->ops);
	free(g->edges);
	free(g->strs);
	free(g->name_hash);
	free(g->group_label);
	free(g->group_hash);
	free(g->intern_hash);
	free(g->succ_off);
	free(g->succ_edge);
	free(g->pred_off);
	free(g->pred_edge);
	free(g->topo);
	free(g->topo_pos);
	free(g->group_off);
	free(g->group_ops);
	free(g->xfer_us);
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
		return nomem(err, "a name");
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
 * Rehashes when more than half full. */
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

static uint32_t table_find(const dp_graph *g, const uint32_t *tab, uint32_t cap,
			   key_fn key, const char *s)
{
	if (!cap)
		return EMPTY;
	uint32_t i = (uint32_t)hash_str(s) & (cap - 1);
	while (tab[i] != EMPTY) {
		if (strcmp(key(g, tab[i]), s) == 0)
			return tab[i];
		i = (i + 1) & (cap - 1);
	}
	return EMPTY;
}

static int table_insert(const dp_graph *g, uint32_t **tab, uint32_t *cap,
			uint32_t count, key_fn key, uint32_t v)
{
	if ((uint64_t)(count + 1) * 2 > *cap) {
		uint32_t nc = *cap ? *cap * 2 : 1024;
		uint32_t *nt = malloc((size_t)nc * sizeof *nt);
		if (!nt)
			return -1;
		memset(nt, 0xff, (size_t)nc * sizeof *nt);
		for (uint32_t i = 0; i < *cap; i++) {
			uint32_t w = (*tab)[i];
			if (w == EMPTY)
				continue;
			uint32_t j = (uint32_t)hash_str(key(g, w)) & (nc - 1);
			while (nt[j] != EMPTY)
				j = (j + 1) & (nc - 1);
			nt[j] = w;
		}
		free(*tab);
		*tab = nt;
		*cap = nc;
	}
	uint32_t j = (uint32_t)hash_str(key(g, v)) & (*cap - 1);
	while ((*tab)[j] != EMPTY)
		j = (j + 1) & (*cap - 1);
	(*tab)[j] = v;
	return 0;
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
	if (dp_graph_find(g, name) != EMPTY)
		return dp_err_set(err, DP_EINPUT, NULL, 0, 0,
				  "duplicate op name '%s' (op names must be "
				  "unique)",
				  name);
	if (g->nops >= DP_MAX_OPS)
		return dp_err_set(err, DP_EINPUT, NULL, 0, 0,
				  "too many ops: at most %u are supported",
				  DP_MAX_OPS);
	if (grow((void **)&g->ops, &g->ops_cap, g->nops + 1, sizeof *g->ops) ||
	    dpi_graph_grow_roles(g))
		return nomem(err, "ops");
	uint32_t off = arena_add(g, name);
	if (off == EMPTY)
		return nomem(err, "op names");
	dp_op *op = &g->ops[g->nops];
	memset(op, 0, sizeof *op);
	op->name = off;
	op->colocate = -1;
	op->pin = -1;
	if (table_insert(g, &g->name_hash, &g->name_hash_cap, g->nops, op_key,
			 g->nops))
		return nomem(err, "the op name index");
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
			return nomem(err, "strings");
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
		if (grow((void **)&g->group_label, &g->groups_cap,
			 g->ngroups + 1, sizeof *g->group_label))
			return nomem(err, "colocation groups");
		g->group_label[g->ngroups] = off;
		if (table_insert(g, &g->group_hash, &g->group_hash_cap,
				 g->ngroups, group_key, g->ngroups))
			return nomem(err, "colocation groups");
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
	if (grow((void **)&g->edges, &g->edges_cap, g->nedges + 1,
		 sizeof *g->edges))
		return nomem(err, "edges");
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

/* Builds off/idx CSR arrays of edge ids keyed by from (succ) or to (pred). */
static int build_csr(const dp_graph *g, bool by_to, uint32_t **off_out,
		     uint32_t **idx_out)
{
	uint32_t n = g->nops, m = g->nedges;
	uint32_t *off = calloc((size_t)n + 1, sizeof *off);
	uint32_t *idx = malloc((size_t)(m ? m : 1) * sizeof *idx);
	if (!off || !idx) {
		free(off);
		free(idx);
		return -1;
	}
	for (uint32_t e = 0; e < m; e++)
		off[(by_to ? g->edges[e].to : g->edges[e].from) + 1]++;
	for (uint32_t i = 0; i < n; i++)
		off[i + 1] += off[i];
	/* fill using a moving cursor per op, kept in idx order by edge id */
	uint32_t *cur = malloc((size_t)(n ? n : 1) * sizeof *cur);
	if (!cur) {
		free(off);
		free(idx);
		return -1;
	}
	memcpy(cur, off, (size_t)n * sizeof *cur);
	for (uint32_t e = 0; e < m; e++) {
		uint32_t u = by_to ? g->edges[e].to : g->edges[e].from;
		idx[cur[u]++] = e;
	}
	free(cur);
	*off_out = off;
	*idx_out = idx;
	return 0;
}

/* Reports one cycle among the ops that Kahn's algorithm could not order
 * (indeg > 0): walk predecessors that are still unordered until an op
 * repeats. */
static dp_status report_cycle(const dp_graph *g, const uint32_t *indeg,
			      dp_err *err)
{
	uint32_t n = g->nops;
	uint32_t start = 0;
	while (start < n && indeg[start] == 0)
		start++;
	uint32_t *seen = malloc((size_t)n * sizeof *seen); /* step index + 1 */
	uint32_t *walk = malloc((size_t)n * sizeof *walk);
	if (!seen || !walk) {
		free(seen);
		free(walk);
		return nomem(err, "the cycle report");
	}
	memset(seen, 0, (size_t)n * sizeof *seen);
	uint32_t len = 0, u = start;
	while (!seen[u]) {
		seen[u] = ++len;
		walk[len - 1] = u;
		uint32_t next = EMPTY;
		for (uint32_t i = g->pred_off[u]; i < g->pred_off[u + 1]; i++) {
			uint32_t p = g->edges[g->pred_edge[i]].from;
			if (indeg[p] > 0) {
				next = p;
				break;
			}
		}
		if (next == EMPTY)
			break; /* cannot happen: unordered ops have unordered preds */
		u = next;
	}
	/* walk[first..len-1] is the cycle in predecessor order (walk[i+1]
	 * feeds walk[i]) and walk[len-1] is fed by walk[first]; forward it
	 * reads walk[first], walk[len-1], walk[len-2], ..., walk[first+1]. */
	uint32_t first = seen[u] - 1, clen = len - first;
	char names[900];
	size_t pos = 0;
	names[0] = '\0';
	uint32_t shown = clen < 12 ? clen : 12;
	for (uint32_t i = 0; i <= shown; i++) {
		uint32_t v = i == 0 || i == clen ? walk[first] : walk[len - i];
		const char *nm = i == shown && shown < clen
					 ? NULL
					 : dp_graph_op_name(g, v);
		int w = nm ? snprintf(names + pos, sizeof names - pos, "%s'%s'",
				      i ? " -> " : "", nm)
			   : snprintf(names + pos, sizeof names - pos,
				      " -> ...");
		if (w < 0 || (size_t)w >= sizeof names - pos)
			break;
		pos += (size_t)w;
	}
	free(seen);
	free(walk);
	return dp_err_set(err, DP_EINPUT, g->source, 0, 0,
			  "the graph has a cycle of %u ops: %s", clen, names);
}

static dp_status build_topo(dp_graph *g, dp_err *err)
{
	uint32_t n = g->nops;
	uint32_t *indeg = calloc((size_t)n + 1, sizeof *indeg);
	g->topo = malloc(((size_t)n + 1) * sizeof *g->topo);
	g->topo_pos = malloc(((size_t)n + 1) * sizeof *g->topo_pos);
	/* the ready ops, smallest id first: the order is the same whatever
	 * order the edges were added in */
	uint32_t *ready = malloc(((size_t)n + 1) * sizeof *ready), nready = 0;
	if (!indeg || !g->topo || !g->topo_pos || !ready) {
		free(indeg);
		free(ready);
		return nomem(err, "the topological order");
	}
	for (uint32_t e = 0; e < g->nedges; e++)
		indeg[g->edges[e].to]++;
	for (uint32_t u = 0; u < n; u++)
		if (!indeg[u])
			dpi_u32heap_push(ready, &nready, u);
	uint32_t k = 0;
	while (nready) {
		uint32_t u = dpi_u32heap_pop(ready, &nready);
		g->topo_pos[u] = k;
		g->topo[k++] = u;
		for (uint32_t i = g->succ_off[u]; i < g->succ_off[u + 1]; i++) {
			uint32_t v = g->edges[g->succ_edge[i]].to;
			if (--indeg[v] == 0)
				dpi_u32heap_push(ready, &nready, v);
		}
	}
	free(ready);
	dp_status st = DP_OK;
	if (k < n)
		st = report_cycle(g, indeg, err);
	free(indeg);
	return st;
}

static dp_status build_groups(dp_graph *g, dp_err *err)
{
	uint32_t c = g->ngroups;
	g->group_off = calloc((size_t)c + 1, sizeof *g->group_off);
	uint32_t members = 0;
	for (uint32_t u = 0; u < g->nops; u++)
		if (g->ops[u].colocate >= 0)
			members++;
	g->group_ops =
		malloc((size_t)(members ? members : 1) * sizeof *g->group_ops);
	if (!g->group_off || !g->group_ops)
		return nomem(err, "colocation groups");
	for (uint32_t u = 0; u < g->nops; u++)
		if (g->ops[u].colocate >= 0)
			g->group_off[g->ops[u].colocate + 1]++;
	for (uint32_t i = 0; i < c; i++)
		g->group_off[i + 1] += g->group_off[i];
	uint32_t *cur = malloc((size_t)(c ? c : 1) * sizeof *cur);
	if (!cur)
		return nomem(err, "colocation groups");
	memcpy(cur, g->group_off, (size_t)c * sizeof *cur);
	for (uint32_t u = 0; u < g->nops; u++)
		if (g->ops[u].colocate >= 0)
			g->group_ops[cur[g->ops[u].colocate]++] = u;
	free(cur);
	/* every pinned member of a group must name the same device */
	for (uint32_t grp = 0; grp < c; grp++) {
		int32_t pin = -1;
		uint32_t pinned_by = 0;
		for (uint32_t i = g->group_off[grp]; i < g->group_off[grp + 1];
		     i++) {
			uint32_t u = g->group_ops[i];
			if (g->ops[u].pin < 0)
				continue;
			if (pin >= 0 && g->ops[u].pin != pin)
				return dp_err_set(
					err, DP_EINPUT, g->source, 0, 0,
					"colocation group '%s': op '%s' is "
					"pinned to device %d but op '%s' to "
					"device %d (a group must share one "
					"device)",
					dp_graph_str(g, g->group_label[grp]),
					dp_graph_op_name(g, pinned_by), pin,
					dp_graph_op_name(g, u), g->ops[u].pin);
			pin = g->ops[u].pin;
			pinned_by = u;
		}
	}
	return DP_OK;
}

/* Adds v to *sum unless the sum would pass DP_MAX_GRAPH_BYTES (see
 * graph.h); v is >= 0 (checked before). */
static bool add_graph_bytes(int64_t *sum, int64_t v)
{
	if (v > DP_MAX_GRAPH_BYTES - *sum)
		return false;
	*sum += v;
	return true;
}

static dp_status too_many_bytes(const dp_graph *g, const char *where,
				const char *name, dp_err *err)
{
	return dp_err_set(err, DP_EINPUT, g->source, 0, 0,
			  "the sizes in the graph add up to more than 4 PiB "
			  "(2^52 bytes) at %s '%s': the output, param and "
			  "temp bytes of every op and the bytes of every edge "
			  "must stay under that in total",
			  where, name);
}

/* An iteration-space error found by finalize: named by op (or edge) and
 * field, in the graph's file. */
static dp_status dims_error(const dp_graph *g, bool edge, uint32_t id,
			    const dpi_dims_at *at, dp_status st, dp_err *err)
{
	if (st == DP_EINPUT)
		dpi_graph_dims_label(g, edge, id, at, err);
	if (err)
		snprintf(err->file, sizeof err->file, "%s", g->source);
	return st;
}

dp_status dp_graph_finalize(dp_graph *g, dp_err *err)
{
	if (g->finalized)
		return DP_OK;
	g->total_time_us = 0;
	g->total_output_bytes = g->total_param_bytes = g->max_temp_bytes = 0;
	int64_t all_bytes = 0;
	for (uint32_t u = 0; u < g->nops; u++) {
		const dp_op *op = &g->ops[u];
		const char *nm = dp_graph_op_name(g, u);
		dp_status st;
		if ((st = dp_graph_check_number("time_us", nm, op->time_us,
						err)) ||
		    (st = dp_graph_check_number("output_bytes", nm,
						(double)op->output_bytes,
						err)) ||
		    (st = dp_graph_check_number("param_bytes", nm,
						(double)op->param_bytes,
						err)) ||
		    (st = dp_graph_check_number("temp_bytes", nm,
						(double)op->temp_bytes, err))) {
			if (err)
				snprintf(err->file, sizeof err->file, "%s",
					 g->source);
			return st;
		}
		dpi_dims_at at = {NULL, -1};
		if (op->dims && (st = dpi_graph_check_op_dims(g, u, &at, err)))
			return dims_error(g, false, u, &at, st, err);
		if (!add_graph_bytes(&all_bytes, op->output_bytes) ||
		    !add_graph_bytes(&all_bytes, op->param_bytes) ||
		    !add_graph_bytes(&all_bytes, op->temp_bytes))
			return too_many_bytes(g, "op", nm, err);
		g->total_time_us += op->time_us;
		if (!(g->total_time_us <= DP_MAX_GRAPH_TIME_US))
			return dp_err_set(
				err, DP_EINPUT, g->source, 0, 0,
				"the op times add up to more than 1e15 us "
				"(about 31 years) at op '%s' (time_us %g): "
				"times this large are not supported",
				nm, op->time_us);
		g->total_output_bytes += op->output_bytes;
		g->total_param_bytes += op->param_bytes;
		if (op->temp_bytes > g->max_temp_bytes)
			g->max_temp_bytes = op->temp_bytes;
	}
	for (uint32_t e = 0; e < g->nedges; e++) {
		dp_edge *ed = &g->edges[e];
		dpi_dims_at at = {NULL, -1};
		dp_status st;
		if (ed->dims &&
		    (st = dpi_graph_check_edge_dims(g, e, &at, err)))
			return dims_error(g, true, e, &at, st, err);
		if (ed->control)
			ed->bytes = 0;
		else if (ed->bytes < 0)
			ed->bytes = g->ops[ed->from].output_bytes;
		if (!add_graph_bytes(&all_bytes, ed->bytes))
			return too_many_bytes(g, "the edge from",
					      dp_graph_op_name(g, ed->from),
					      err);
	}
	dp_status st = dpi_graph_check_batch_dim(g, err);
	if (st) {
		dpi_dims_at at = {"batch_dim", -1};
		return dims_error(g, false, 0, &at, st, err);
	}
	if (build_csr(g, false, &g->succ_off, &g->succ_edge) ||
	    build_csr(g, true, &g->pred_off, &g->pred_edge))
		return nomem(err, "adjacency lists");
	st = build_topo(g, err);
	if (st)
		return st;
	st = build_groups(g, err);
	if (st)
		return st;
	g->finalized = true;
	return DP_OK;
}

size_t dp_graph_memory_bytes(const dp_graph *g)
{
	size_t b = sizeof *g;
	b += (size_t)g->ops_cap * sizeof *g->ops;
	b += (size_t)g->edges_cap * sizeof *g->edges;
	b += g->strs_cap;
	b += (size_t)(g->name_hash_cap + g->group_hash_cap +
		      g->intern_hash_cap) *
	     sizeof(uint32_t);
	b += (size_t)g->groups_cap * sizeof(uint32_t);
	b += dpi_graph_dims_memory(g);
	if (g->finalized) {
		b += 2 * ((size_t)g->nops + 1) * sizeof(uint32_t); /* offsets */
		b += 2 * (size_t)g->nedges * sizeof(uint32_t);
		b += 2 * (size_t)g->nops * sizeof(uint32_t); /* topo */
		b += ((size_t)g->ngroups + 1 + g->nops) * sizeof(uint32_t);
	}
	return b;
}

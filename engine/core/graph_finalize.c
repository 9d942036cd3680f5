/* graph_finalize.c - freezing a graph (graph.h: dp_graph_finalize): CSR
 * lists, the topological order with the cycle it may find, colocation
 * groups, totals and the checks that need the whole graph; and what a
 * graph costs in memory. */
#include "dnnpart/graph.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal/graph_int.h"
#include "internal/minheap.h"
#include "internal/nomem.h"

#define EMPTY UINT32_MAX

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
		return dpi_nomem(err, "storing %s", "the cycle report");
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
		return dpi_nomem(err, "storing %s", "the topological order");
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
		return dpi_nomem(err, "storing %s", "colocation groups");
	for (uint32_t u = 0; u < g->nops; u++)
		if (g->ops[u].colocate >= 0)
			g->group_off[g->ops[u].colocate + 1]++;
	for (uint32_t i = 0; i < c; i++)
		g->group_off[i + 1] += g->group_off[i];
	uint32_t *cur = malloc((size_t)(c ? c : 1) * sizeof *cur);
	if (!cur)
		return dpi_nomem(err, "storing %s", "colocation groups");
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
		return dpi_nomem(err, "storing %s", "adjacency lists");
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
	     2 * sizeof(uint32_t); /* values and their hashes */
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

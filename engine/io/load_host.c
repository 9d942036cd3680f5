/* load_host.c - keeping host-CPU ops out of the graph (see
 * internal/load_host.h). */
#include "internal/load_host.h"
#include "internal/arrays.h"
#include "internal/nomem.h"

#include <stdlib.h>
#include <string.h>

#define NONE UINT32_MAX

/* Copies op u of t into g as a new op. */
static dp_status copy_op(const dp_graph *t, uint32_t u, dp_graph *g,
			 uint32_t *id, dp_err *err)
{
	const dp_op *src = &t->ops[u];
	dp_status st = dp_graph_add_op(g, dp_graph_op_name(t, u), id, err);
	if (st)
		return st;
	if ((st = dp_graph_set_type(g, *id, dp_graph_str(t, src->type), err)) ||
	    (st = dp_graph_set_layer(g, *id, dp_graph_str(t, src->layer), err)))
		return st;
	if (src->colocate >= 0 &&
	    (st = dp_graph_set_colocate(
		     g, *id, dp_graph_str(t, t->group_label[src->colocate]),
		     err)))
		return st;
	if ((st = dp_graph_set_role(g, *id, dp_op_role(t, u), err)))
		return st;
	dp_op *dst = &g->ops[*id];
	dst->pin = src->pin;
	dst->time_us = src->time_us;
	dst->output_bytes = src->output_bytes;
	dst->param_bytes = src->param_bytes;
	dst->temp_bytes = src->temp_bytes;
	return DP_OK;
}

/* Adds a control edge p -> s for every kept op p that reaches kept op s
 * through host ops only. Walks back from s's host predecessors with an
 * explicit stack; seen[] and found[] hold s + 1 for "visited for s". */
static dp_status bypass_into(const dp_graph *t, const bool *host,
			     const uint32_t *newid, uint32_t s, uint32_t *seen,
			     uint32_t *found, uint32_t *stack, dp_graph *g,
			     dp_err *err)
{
	uint32_t top = 0, mark = s + 1;
	for (uint32_t i = t->pred_off[s]; i < t->pred_off[s + 1]; i++) {
		uint32_t c = t->edges[t->pred_edge[i]].from;
		if (host[c] && seen[c] != mark) {
			seen[c] = mark;
			stack[top++] = c;
		}
	}
	while (top) {
		uint32_t c = stack[--top];
		for (uint32_t i = t->pred_off[c]; i < t->pred_off[c + 1]; i++) {
			uint32_t p = t->edges[t->pred_edge[i]].from;
			if (host[p]) {
				if (seen[p] != mark) {
					seen[p] = mark;
					stack[top++] = p;
				}
				continue;
			}
			if (found[p] == mark)
				continue;
			found[p] = mark;
			dp_status st = dp_graph_add_edge(g, newid[p], newid[s],
							 0, true, err);
			if (st)
				return st;
		}
	}
	return DP_OK;
}

dp_status dpi_load_drop_host_ops(const dp_graph *t, const bool *host,
				 dp_graph **out, dp_err *err)
{
	if (!t->finalized)
		return dp_err_set(
			err, DP_EINTERNAL, NULL, 0, 0,
			"dpi_load_drop_host_ops needs a finalized graph");
	uint32_t n = t->nops;
	dp_graph *g = dp_graph_new(t->name);
	uint32_t *newid = malloc(((size_t)n + 1) * sizeof *newid);
	uint32_t *seen = calloc((size_t)n + 1, sizeof *seen);
	uint32_t *found = calloc((size_t)n + 1, sizeof *found);
	uint32_t *stack = malloc(((size_t)n + 1) * sizeof *stack);
	dp_status st = DP_OK;
	if (!g || !newid || !seen || !found || !stack) {
		st = dpi_nomem(err, "leaving host-CPU ops out of the graph");
		goto done;
	}
	if ((st = dp_graph_set_source(g, t->source, err)))
		goto done;
	g->hint = t->hint;
	g->unknown_names = t->unknown_names;
	for (uint32_t u = 0; u < n; u++) {
		newid[u] = NONE;
		if (host[u]) {
			g->cpu_pinned++;
			continue;
		}
		if ((st = copy_op(t, u, g, &newid[u], err)))
			goto done;
	}
	for (uint32_t e = 0; e < t->nedges; e++) {
		const dp_edge *ed = &t->edges[e];
		if (host[ed->from] || host[ed->to])
			continue;
		if ((st = dp_graph_add_edge(g, newid[ed->from], newid[ed->to],
					    ed->bytes, ed->control, err)))
			goto done;
		double x = dp_edge_xfer_us(t, e);
		if (!isnan(x) &&
		    (st = dp_graph_set_edge_xfer(g, g->nedges - 1, x, err)))
			goto done;
	}
	for (uint32_t s = 0; s < n; s++) {
		if (host[s])
			continue;
		if ((st = bypass_into(t, host, newid, s, seen, found, stack, g,
				      err)))
			goto done;
	}
done:
	DPI_FREE_ALL(newid, seen, found, stack);
	if (st) {
		dp_graph_free(g);
		return st;
	}
	*out = g;
	return DP_OK;
}

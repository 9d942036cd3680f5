/* lower_build.c - the one builder of lowered graphs (internal/lower.h). */
#include "internal/arrays.h"
#include "internal/graph_int.h"
#include "internal/lower.h"
#include "internal/nomem.h"

#include <stdlib.h>
#include <string.h>

/* The most ops and edges a lowered graph may have: beyond them the
 * simulator's arrays take gigabytes (tofu at K = 1024 on a 500-op graph
 * went past 16 GiB before this bound). A strategy that would need more is
 * refused with what to change. */
#define LOWER_MAX_OPS 10000000u
#define LOWER_MAX_EDGES 20000000u

static dp_status too_large(const dpi_lower_buf *b, const char *what,
			   uint32_t max, dp_err *err)
{
	return dp_err_set(err, DP_EINPUT, b->src_g->source, 0, 0,
			  "lowering this strategy of graph '%s' would make "
			  "more than %u %s, more than the simulator can price "
			  "in memory; use fewer devices, a smaller split or "
			  "fewer micro-batches",
			  b->src_g->name, max, what);
}

static dp_status grow(dpi_lower_buf *b, uint32_t need, dp_err *err)
{
	if (need <= b->cap)
		return DP_OK;
	uint32_t cap = b->cap ? b->cap : 64;
	while (cap < need)
		cap = cap > UINT32_MAX / 2 ? need : cap * 2;
	const dpi_arr arrs[] = {DPI_ARR(b->placement, cap),
				DPI_ARR(b->source, cap),
				DPI_ARR(b->micro, cap)};
	if (dpi_arrays_resize(arrs, DPI_NARR(arrs)))
		return dpi_nomem(err, "lowering a strategy");
	b->cap = cap;
	return DP_OK;
}

dp_status dpi_lower_begin(dpi_lower_buf *b, const dp_graph *src_g,
			  uint32_t expect_ops, dp_err *err)
{
	memset(b, 0, sizeof *b);
	b->src_g = src_g;
	b->g = dp_graph_new(src_g->name);
	if (!b->g)
		return dpi_nomem(err, "lowering a strategy");
	dp_status st = grow(b, expect_ops ? expect_ops : 1, err);
	/* names: the source's average length and a suffix ("@m12#d3") */
	size_t names = 0;
	for (uint32_t u = 0; u < src_g->nops; u++)
		names += strlen(dp_graph_op_name(src_g, u)) + 1;
	size_t avg = src_g->nops ? names / src_g->nops + 8 : 16;
	if (!st)
		st = dpi_graph_reserve(b->g, expect_ops, 0,
				       (size_t)expect_ops * avg, err);
	if (!st && src_g->source[0])
		st = dp_graph_set_source(b->g, src_g->source, err);
	if (st)
		dpi_lower_abort(b);
	return st;
}

dp_status dpi_lower_add(dpi_lower_buf *b, const char *name,
			const dpi_lower_op *op, uint32_t *id, dp_err *err)
{
	const dp_graph *sg = b->src_g;
	const dp_op *so = &sg->ops[op->source];
	if (b->g->nops >= LOWER_MAX_OPS)
		return too_large(b, "ops", LOWER_MAX_OPS, err);
	dp_status st = grow(b, b->g->nops + 1, err);
	if (st)
		return st;
	uint32_t v;
	st = dp_graph_add_op(b->g, name, &v, err);
	if (st == DP_EINPUT)
		return dp_err_set(err, DP_EINPUT, sg->source, 0, 0,
				  "lowering op '%s' needs the name '%s', but "
				  "that name is already taken (an op of the "
				  "graph or another lowered op); rename the "
				  "op",
				  dp_graph_op_name(sg, op->source), name);
	if (st)
		return st;
	dp_op *o = &b->g->ops[v];
	o->time_us = op->time_us;
	o->output_bytes = op->output_bytes;
	o->param_bytes = op->param_bytes;
	o->temp_bytes = op->temp_bytes;
	if (so->type)
		st = dp_graph_set_type(b->g, v, dp_graph_str(sg, so->type),
				       err);
	if (!st && so->layer)
		st = dp_graph_set_layer(b->g, v, dp_graph_str(sg, so->layer),
					err);
	dp_role role = op->role != DP_ROLE_NONE ? op->role
						: dp_op_role(sg, op->source);
	if (!st && role != DP_ROLE_NONE)
		st = dp_graph_set_role(b->g, v, role, err);
	if (st)
		return st;
	b->placement[v] = op->device;
	b->source[v] = op->source;
	b->micro[v] = op->micro;
	*id = v;
	return DP_OK;
}

dp_status dpi_lower_edge(dpi_lower_buf *b, uint32_t from, uint32_t to,
			 int64_t bytes, bool control, dp_err *err)
{
	if (b->g->nedges >= LOWER_MAX_EDGES)
		return too_large(b, "edges", LOWER_MAX_EDGES, err);
	return dp_graph_add_edge(b->g, from, to, control ? 0 : bytes, control,
				 err);
}

dp_status dpi_lower_finish(dpi_lower_buf *b, dp_lowered *out, dp_err *err)
{
	dp_status st = dp_graph_finalize(b->g, err);
	if (st) {
		dpi_lower_abort(b);
		return st;
	}
	out->g = b->g;
	out->placement = b->placement;
	out->source = b->source;
	out->micro = b->micro;
	memset(b, 0, sizeof *b);
	return DP_OK;
}

void dpi_lower_abort(dpi_lower_buf *b)
{
	dp_graph_free(b->g);
	free(b->placement);
	free(b->source);
	free(b->micro);
	memset(b, 0, sizeof *b);
}

/* lower_pipe3d.c - a pipeline whose stages are data parallel (the 3D case
 * with T = 1; docs/pipeline.md "Stages on several devices").
 *
 * The pipeline is first lowered as if every stage ran on one device
 * (lower_pipeline.c: micro-batch copies, accumulation chains, the
 * schedule's control edges); then every op of that graph is replicated on
 * the D devices of its stage's group, replica r on group[r]:
 *   - an op that runs once (param, update) is copied whole (plain data
 *     parallelism keeps a full copy of the weights and the optimizer);
 *   - a micro-batch copy or accumulation takes 1/D of its time and temp
 *     when its source op's time scales with the batch, and 1/D of its
 *     output when the batch splits it (dpi_pipe_scaling); else the whole;
 *   - a data edge between them joins replica r to replica r (across stages
 *     too: group[r] of one stage sends to group[r] of the next), with 1/D
 *     of the bytes when the producer's output is split, else the whole;
 *     a control edge joins r to r;
 *   - a data edge from a copied op to an op that runs once (the summed
 *     weight gradient to its update) is the gradient all-reduce inside the
 *     group: D reduce ops `name/rs#d<dev>` (0 µs), replica q sends block r
 *     (1/D of the bytes) to reduce r, and reduce r sends its block to every
 *     replica of the consumer: 2 (D-1)/D x the bytes per device, as a ring
 *     all-reduce moves.
 * Names: the one-device name + "#d<dev>", e.g. "fc1@m2#d5".
 */
#include "internal/lower.h"
#include "internal/pipeline.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct p3 {
	const dp_graph *g;
	const dp_strategy *s;
	const dp_lowered *l1;
	const uint8_t *kind;
	int D;
	dpi_lower_buf b;
	uint32_t *rs_count; /* per one-device op: reduce sets made */
	char name[1024];
	dp_err *err;
} p3;

static int32_t dev_of(const p3 *c, uint32_t x, int r)
{
	int32_t st = c->l1->placement[x];
	return c->s->pipe.group[c->s->pipe.group_off[st] + r];
}

static bool is_once(const p3 *c, uint32_t x)
{
	return c->kind[c->l1->source[x]] == DPI_PIPE_ONCE;
}

static bool out_split(const p3 *c, uint32_t x)
{
	bool ts, os;
	dpi_pipe_scaling(c->g, c->l1->source[x], &ts, &os);
	return !is_once(c, x) && os;
}

static dp_status add_ops(p3 *c)
{
	const dp_graph *g1 = c->l1->g;
	int D = c->D;
	for (uint32_t x = 0; x < g1->nops; x++) {
		const dp_op *o = &g1->ops[x];
		uint32_t u = c->l1->source[x];
		bool ts = false, os = false;
		if (!is_once(c, x))
			dpi_pipe_scaling(c->g, u, &ts, &os);
		for (int r = 0; r < D; r++) {
			dpi_lower_op lo = {
				.source = u,
				.device = dev_of(c, x, r),
				.micro = c->l1->micro[x],
				.time_us = ts ? o->time_us / D : o->time_us,
				.output_bytes =
					os ? dpi_pipe_share(o->output_bytes, D,
							    r)
					   : o->output_bytes,
				.param_bytes = o->param_bytes,
				.temp_bytes =
					ts ? dpi_pipe_share(o->temp_bytes, D, r)
					   : o->temp_bytes,
				.role = dp_op_role(g1, x),
			};
			snprintf(c->name, sizeof c->name, "%s#d%d",
				 dp_graph_op_name(g1, x), (int)lo.device);
			uint32_t id;
			dp_status st =
				dpi_lower_add(&c->b, c->name, &lo, &id, c->err);
			if (st)
				return st;
		}
	}
	return DP_OK;
}

/* The all-reduce of edge x -> y (x copied, y once) through D reduces. */
static dp_status all_reduce(p3 *c, uint32_t x, uint32_t y, int64_t bytes)
{
	int D = c->D;
	uint32_t k = c->rs_count[x]++;
	uint32_t first = c->b.g->nops;
	const char *nx = dp_graph_op_name(c->l1->g, x);
	for (int r = 0; r < D; r++) {
		dpi_lower_op lo = {
			.source = c->l1->source[x],
			.device = dev_of(c, x, r),
			.micro = -1,
			.output_bytes = dpi_pipe_share(bytes, D, r),
			.role = DP_ROLE_NONE,
		};
		if (k)
			snprintf(c->name, sizeof c->name, "%s/rs%u#d%d", nx,
				 (unsigned)k + 1, (int)lo.device);
		else
			snprintf(c->name, sizeof c->name, "%s/rs#d%d", nx,
				 (int)lo.device);
		uint32_t id;
		dp_status st = dpi_lower_add(&c->b, c->name, &lo, &id, c->err);
		for (int q = 0; !st && q < D; q++)
			st = dpi_lower_edge(
				&c->b, x * (uint32_t)D + (uint32_t)q, id,
				dpi_pipe_share(bytes, D, r), false, c->err);
		if (st)
			return st;
	}
	for (int r = 0; r < D; r++)
		for (int q = 0; q < D; q++) {
			dp_status st = dpi_lower_edge(
				&c->b, first + (uint32_t)r,
				y * (uint32_t)D + (uint32_t)q,
				dpi_pipe_share(bytes, D, r), false, c->err);
			if (st)
				return st;
		}
	return DP_OK;
}

static dp_status add_edges(p3 *c, const dp_progress *p)
{
	const dp_graph *g1 = c->l1->g;
	uint32_t D = (uint32_t)c->D;
	for (uint32_t e = 0; e < g1->nedges; e++) {
		if ((e & 4095) == 0 && dp_progress_canceled(p))
			return dp_err_set(c->err, DP_ECANCELED, NULL, 0, 0,
					  "lowering: canceled");
		const dp_edge *ed = &g1->edges[e];
		uint32_t x = ed->from, y = ed->to;
		dp_status st = DP_OK;
		if (!ed->control && !is_once(c, x) && is_once(c, y)) {
			st = all_reduce(c, x, y, ed->bytes);
		} else {
			bool split = !ed->control && out_split(c, x);
			for (uint32_t r = 0; !st && r < D; r++)
				st = dpi_lower_edge(
					&c->b, x * D + r, y * D + r,
					split ? dpi_pipe_share(ed->bytes,
							       (int)D, (int)r)
					      : ed->bytes,
					ed->control, c->err);
		}
		if (st)
			return st;
	}
	return DP_OK;
}

dp_status dpi_lower_pipeline3d(const dp_graph *g, const dp_machine *m,
			       const dp_strategy *s, const dp_progress *p,
			       dp_lowered *out, dp_err *err)
{
	int S = s->pipe.nstages;
	dp_strategy s1 = *s;
	s1.spmd.naxes = 0;
	s1.pipe.group_off = malloc(((size_t)S + 1) * sizeof(int32_t));
	s1.pipe.group = malloc((size_t)S * sizeof(int32_t));
	p3 c;
	memset(&c, 0, sizeof c);
	c.g = g;
	c.s = s;
	c.D = dp_spmd_size(&s->spmd);
	c.err = err;
	c.kind = dpi_pipe_kinds(g);
	dp_lowered l1;
	memset(&l1, 0, sizeof l1);
	dp_status st = DP_OK;
	if (!s1.pipe.group_off || !s1.pipe.group || !c.kind)
		st = dp_err_set(err, DP_ENOMEM, NULL, 0, 0,
				"out of memory while lowering a pipeline");
	for (int i = 0; !st && i <= S; i++) {
		s1.pipe.group_off[i] = i;
		if (i < S)
			s1.pipe.group[i] = i;
	}
	if (!st)
		st = dpi_lower_pipeline(g, m, &s1, p, &l1, err);
	free(s1.pipe.group_off);
	free(s1.pipe.group);
	bool begun = false;
	if (!st) {
		c.l1 = &l1;
		c.rs_count = calloc((size_t)l1.g->nops + 1, sizeof *c.rs_count);
		st = c.rs_count
			     ? dpi_lower_begin(&c.b, g,
					       l1.g->nops * (uint32_t)c.D, err)
			     : dp_err_set(err, DP_ENOMEM, NULL, 0, 0,
					  "out of memory while lowering a "
					  "pipeline");
		begun = !st;
	}
	if (!st)
		st = add_ops(&c);
	if (!st)
		st = add_edges(&c, p);
	free(c.rs_count);
	free((void *)c.kind);
	if (l1.g)
		dp_lowered_free(&l1);
	if (st) {
		if (begun)
			dpi_lower_abort(&c.b);
		return st;
	}
	return dpi_lower_finish(&c.b, out, err);
}

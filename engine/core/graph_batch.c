/* graph_batch.c - the same training step at another batch size
 * (graph.h: dp_graph_batch_size, dp_graph_with_batch).
 *
 * Only what the iteration spaces say scales: an op whose dims hold the
 * graph's batch dim gets that dim's size times batch / B (B: the batch
 * dim's size in the first op that has it), its time and temp scale by the
 * same factor, its output bytes too when its output is indexed by the batch
 * dim (or it has several outputs); a data edge scales when its dims name
 * the consumer's batch dim (or, without dims, when its producer's output
 * scales). Ops without dims, and
 * params, are unchanged: nothing says how they depend on the batch.
 */
#include "dnnpart/graph.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "internal/graph_int.h"

int64_t dp_graph_batch_size(const dp_graph *g)
{
	const char *b = dp_graph_batch_dim(g);
	if (!b[0])
		return 0;
	for (uint32_t u = 0; u < g->nops; u++) {
		int i = dp_op_find_dim(g, u, b);
		if (i >= 0) {
			dp_dims d;
			dp_op_dims(g, u, &d);
			return d.sizes[i];
		}
	}
	return 0;
}

/* Whether op u's output is indexed by its dim bi. */
static bool out_has(const dp_dims *d, int bi)
{
	for (int32_t j = 0; j < d->nout; j++)
		if (d->out[j] == bi)
			return true;
	return false;
}

static bool edge_has(const dp_graph *g, uint32_t e, const char *b)
{
	const uint32_t *names;
	int n = dp_edge_dims(g, e, &names);
	for (int i = 0; i < n; i++)
		if (!strcmp(dp_graph_str(g, names[i]), b))
			return true;
	return false;
}

static dp_status copy_dims(dp_graph *ng, const dp_graph *g, uint32_t u,
			   int bi, int64_t bsize, dp_err *err)
{
	dp_dims d;
	if (!dp_op_dims(g, u, &d))
		return DP_OK;
	const char *names[DP_MAX_OP_DIMS], *out[DP_MAX_OP_DIMS],
		*param[DP_MAX_OP_DIMS];
	int64_t sizes[DP_MAX_OP_DIMS];
	for (uint32_t i = 0; i < d.n; i++) {
		names[i] = dp_graph_str(g, d.name_off[i]);
		sizes[i] = (int)i == bi ? bsize : d.sizes[i];
	}
	for (int32_t i = 0; i < d.nout; i++)
		out[i] = names[d.out[i]];
	for (int32_t i = 0; i < d.nparam; i++)
		param[i] = names[d.param[i]];
	dp_dims_spec sp = {d.n,	    names,    sizes,	      d.nout,
			   out,	    d.nparam, param,	      d.elem_bytes};
	return dp_graph_set_op_dims(ng, u, &sp, err);
}

static dp_status build(dp_graph *ng, const dp_graph *g, int64_t batch,
		       int64_t b0, double *factor, dp_err *err)
{
	const char *b = dp_graph_batch_dim(g);
	dp_status st = DP_OK;
	if (g->source[0])
		st = dp_graph_set_source(ng, g->source, err);
	for (uint32_t u = 0; !st && u < g->nops; u++) {
		const dp_op *o = &g->ops[u];
		uint32_t v;
		if ((st = dp_graph_add_op(ng, dp_graph_op_name(g, u), &v, err)))
			break;
		dp_op *no = &ng->ops[v];
		int bi = dp_op_find_dim(g, u, b);
		double f = 1.0;
		int64_t bsize = 0;
		if (bi >= 0) {
			dp_dims d;
			dp_op_dims(g, u, &d);
			/* this op's batch size scales like the graph's */
			if ((d.sizes[bi] * batch) % b0)
				return dp_err_set(
					err, DP_EINPUT, g->source, 0, 0,
					"batch size %lld: op '%s' has %s=%lld "
					"where the graph's batch is %lld, and "
					"%lld x %lld / %lld is not a whole "
					"number",
					(long long)batch,
					dp_graph_op_name(g, u), b,
					(long long)d.sizes[bi], (long long)b0,
					(long long)d.sizes[bi], (long long)batch,
					(long long)b0);
			bsize = d.sizes[bi] * batch / b0;
			f = (double)bsize / (double)d.sizes[bi];
			/* an op with several outputs (no out): its
			 * tensors are its inputs' gradients, batched */
			factor[u] = d.nout < 0 || out_has(&d, bi) ? f : 1.0;
		} else {
			factor[u] = 1.0;
		}
		no->time_us = o->time_us * f;
		no->temp_bytes = (int64_t)llround((double)o->temp_bytes * f);
		no->output_bytes =
			(int64_t)llround((double)o->output_bytes * factor[u]);
		no->param_bytes = o->param_bytes;
		no->pin = o->pin;
		if (o->type)
			st = dp_graph_set_type(ng, v, dp_graph_str(g, o->type),
					       err);
		if (!st && o->layer)
			st = dp_graph_set_layer(ng, v,
						dp_graph_str(g, o->layer), err);
		if (!st && o->colocate >= 0)
			st = dp_graph_set_colocate(
				ng, v,
				dp_graph_str(g, g->group_label[o->colocate]),
				err);
		if (!st && dp_op_role(g, u) != DP_ROLE_NONE)
			st = dp_graph_set_role(ng, v, dp_op_role(g, u), err);
		if (!st)
			st = copy_dims(ng, g, u, bi, bsize, err);
	}
	for (uint32_t e = 0; !st && e < g->nedges; e++) {
		const dp_edge *ed = &g->edges[e];
		double f = 1.0;
		const uint32_t *names;
		int n = dp_edge_dims(g, e, &names);
		if (ed->control)
			f = 0;
		else if (n >= 0)
			f = edge_has(g, e, b) ? (double)batch / (double)b0 : 1.0;
		else
			f = factor[ed->from];
		int64_t bytes =
			ed->control ? 0 : (int64_t)llround((double)ed->bytes * f);
		if ((st = dp_graph_add_edge(ng, ed->from, ed->to, bytes,
					    ed->control, err)))
			break;
		if (n >= 0) {
			const char *dn[DP_MAX_OP_DIMS], *fn[DP_MAX_OP_DIMS];
			const uint32_t *from;
			bool hf = dp_edge_from_dims(g, e, &from) >= 0;
			for (int i = 0; i < n && i < DP_MAX_OP_DIMS; i++) {
				dn[i] = dp_graph_str(g, names[i]);
				fn[i] = hf ? dp_graph_str(g, from[i]) : NULL;
			}
			dpi_dims_at at = {NULL, -1};
			st = dpi_graph_set_edge_dims(ng, ng->nedges - 1,
						     (uint32_t)n, dn,
						     hf ? fn : NULL, &at, err);
			if (st == DP_EINPUT)
				dpi_graph_dims_label(ng, true, ng->nedges - 1,
						     &at, err);
		}
	}
	if (!st)
		st = dp_graph_set_batch_dim(ng, b, err);
	if (!st) {
		ng->hint = g->hint;
		ng->cpu_pinned = g->cpu_pinned;
		ng->unknown_names = g->unknown_names;
		st = dp_graph_finalize(ng, err);
	}
	return st;
}

dp_status dp_graph_with_batch(const dp_graph *g, int64_t batch,
			      dp_graph **out, dp_err *err)
{
	int64_t b0 = dp_graph_batch_size(g);
	if (b0 <= 0)
		return dp_err_set(err, DP_EINPUT, g->source, 0, 0,
				  "graph '%s' has no batch dim (batch_dim and "
				  "ops whose dims name it): its batch size "
				  "cannot change; see docs/formats.md",
				  g->name);
	if (batch < 1 || batch > ((int64_t)1 << 40))
		return dp_err_set(err, DP_EINPUT, g->source, 0, 0,
				  "batch size %lld: expected 1 .. 2^40",
				  (long long)batch);
	dp_graph *ng = dp_graph_new(g->name);
	double *factor = malloc((size_t)(g->nops ? g->nops : 1) *
				sizeof *factor);
	if (!ng || !factor) {
		dp_graph_free(ng);
		free(factor);
		return dp_err_set(err, DP_ENOMEM, NULL, 0, 0,
				  "out of memory copying graph '%s'", g->name);
	}
	dp_status st = build(ng, g, batch, b0, factor, err);
	free(factor);
	if (st) {
		dp_graph_free(ng);
		return st;
	}
	*out = ng;
	return DP_OK;
}

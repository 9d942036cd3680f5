/* graph_levers.c - the levers as one graph transform (levers.h;
 * docs/memory.md gives every formula).
 *
 * Precision, by role: an op of the forward or backward pass (or a weight
 * gradient) keeps its output in 2 bytes unless autocast keeps its type in
 * fp32 (dp_levers_keeps_fp32) or it is the loss; its time is divided by
 * the device's 2-byte GEMM ratio for a GEMM (a type with MatMul or Conv)
 * and by 2 for any other op (half the bytes to move); a weight gains a
 * 2-byte working copy beside its fp32 master weight and Adam moments
 * (w / 2 more bytes, w its fp32 bytes); inputs and updates are unchanged.
 * Data edges carry their producer's bytes.
 *
 * Recomputation and fusion (graph_levers_sets.c) add a copy `NAME@rc` of
 * each re-run op after the user's ops: it reads what the original read
 * (the copy of an op of its own segment, else the original, such as the
 * layer's input), the backward ops of the original's layer read the copy
 * instead of the original, and control edges from the segment's gates
 * start the copies just before the backward pass needs them. A fused op
 * stores none of what its kernel keeps on chip (its `drop` bytes) and
 * takes the time of its arithmetic: its elements at the reference
 * device's rate, when that is less than its own time; a fused op that
 * still writes its whole output (a chain's output or statistic) keeps its
 * time, the memory traffic of that write.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dnnpart/units.h"
#include "internal/graph_int.h"
#include "internal/levers_int.h"
#include "internal/nomem.h"

/* Element-wise operations per µs of the reference device (V100 fp32 at
 * 50 %, the sample graphs' 7.85 TFLOP/s): a fused element-wise op's time. */
#define LV_ELEMS_PER_US 7.85e6

static bool is_gemm(const char *type)
{
	return strstr(type, "MatMul") || strstr(type, "Conv");
}

/* What precision and offload do to one op. */
typedef struct lv_op {
	double scale;	/* of its output, temp and outgoing edges */
	double time_us; /* its new time */
	int64_t param_bytes;
	int64_t elem; /* new elem_bytes of its dims, 0: unchanged */
	int64_t out;  /* its output bytes when set (>= 0): a fetched weight */
	int64_t host; /* bytes it keeps in host memory (--offload) */
} lv_op;

/* A weight's parameters: its fp32 bytes w over 4, from its dims, else a
 * third of its params (weight, Adam's m and v). */
static int64_t weight_bytes(const dp_graph *g, uint32_t u)
{
	dp_dims d;
	int64_t w = g->ops[u].param_bytes / 3;
	if (dp_op_dims(g, u, &d) && d.nparam > 0) {
		w = d.elem_bytes;
		for (int32_t i = 0; i < d.nparam; i++)
			w *= d.sizes[d.param[i]];
	}
	return w;
}

/* A weight (role param) under precision and offload: params on the
 * device, bytes on the host; docs/memory.md has the table. */
static void param_op(const dp_graph *g, uint32_t u, const dp_levers *lv,
		     lv_op *r)
{
	int64_t w = weight_bytes(g, u);
	bool mixed = lv->precision != DP_PREC_FP32;
	int64_t work = mixed ? w / 2 : w; /* the working weights */
	if (lv->offload && mixed) {
		/* what stays is the 2-byte working copy, and its edges */
		r->elem = 2;
		r->scale = 0.5;
	}
	switch (lv->offload) {
	case DP_OFFLOAD_OPTIMIZER: /* master, m, v and the fp32 gradient */
		r->param_bytes = work;
		r->host = mixed ? 4 * w : 3 * w;
		break;
	case DP_OFFLOAD_PARAMS: /* the working weights too, fetched */
		r->param_bytes = 0;
		r->host = mixed ? 4 * w + work : 4 * w;
		r->out = work;
		r->time_us = (double)work / DP_HOST_LINK_BW + DP_HOST_LINK_LAT;
		break;
	default:
		r->param_bytes = g->ops[u].param_bytes + (mixed ? w / 2 : 0);
	}
}

/* An update under offload: on the host, its time is the gradient's copy
 * over the host link, the CPU's Adam and (optimizer) the working
 * weights' copy back; the graph's sizes are fp32, so its parameters are
 * its gradient bytes over 4. */
static double offload_update_time(const dp_graph *g, uint32_t u,
				  const dp_levers *lv)
{
	int64_t grad = 0;
	for (uint32_t k = g->pred_off[u]; k < g->pred_off[u + 1]; k++) {
		const dp_edge *e = &g->edges[g->pred_edge[k]];
		grad += e->control ? 0 : e->bytes;
	}
	double n = (double)grad / 4, eb = lv->precision ? 2 : 4;
	double t = n * eb / DP_HOST_LINK_BW + n / DP_CPU_ADAM_RATE +
		   DP_HOST_LINK_LAT;
	if (lv->offload == DP_OFFLOAD_OPTIMIZER)
		t += n * eb / DP_HOST_LINK_BW + DP_HOST_LINK_LAT;
	return t;
}

static void precision_op(const dp_graph *g, uint32_t u, const dp_levers *lv,
			 lv_op *r)
{
	const dp_op *o = &g->ops[u];
	dp_role role = dp_op_role(g, u);
	const char *type = dp_graph_str(g, o->type);
	r->scale = 1.0;
	r->time_us = o->time_us;
	r->param_bytes = o->param_bytes;
	r->elem = 0;
	r->out = -1;
	r->host = 0;
	if (role == DP_ROLE_PARAM &&
	    (lv->precision != DP_PREC_FP32 || lv->offload))
		param_op(g, u, lv, r);
	if (role == DP_ROLE_UPDATE && lv->offload)
		r->time_us = offload_update_time(g, u, lv);
	if (lv->precision == DP_PREC_FP32 || role == DP_ROLE_PARAM)
		return;
	dp_dims d;
	bool dims = dp_op_dims(g, u, &d);
	if (role == DP_ROLE_INPUT || role == DP_ROLE_UPDATE ||
	    role == DP_ROLE_LOSS || dp_levers_keeps_fp32(type) ||
	    (dims && d.elem_bytes != 4))
		return;
	r->scale = 0.5;
	r->elem = dims ? 2 : 0;
	double ratio = lv->gemm_ratio > 0 ? lv->gemm_ratio
					  : DP_LEVERS_DEFAULT_GEMM_RATIO;
	r->time_us = o->time_us / (is_gemm(type) ? ratio : 2.0);
}

/* A fused op's time: its elements (the larger of its output and its
 * largest input) at LV_ELEMS_PER_US, when less than its time; a GEMM
 * keeps its own. */
static double fused_time(const dp_graph *g, uint32_t u, double t)
{
	if (is_gemm(dp_graph_str(g, g->ops[u].type)))
		return t;
	int64_t b = g->ops[u].output_bytes;
	for (uint32_t k = g->pred_off[u]; k < g->pred_off[u + 1]; k++) {
		const dp_edge *e = &g->edges[g->pred_edge[k]];
		if (e->bytes > b)
			b = e->bytes;
	}
	dp_dims d;
	dp_op_dims(g, u, &d);
	double a = (double)(b / d.elem_bytes) / LV_ELEMS_PER_US;
	return a < t ? a : t;
}

typedef struct lv_build {
	const dp_graph *g;
	const dp_levers *lv;
	dpi_lv_sets sets;
	lv_op *op;
	int64_t *out;	/* new output bytes */
	uint32_t *copy; /* per op: its copy's id in ng, UINT32_MAX: none */
	dp_graph *ng;
} lv_build;

/* Whether op u keeps its dims: not when a fused kernel stores part of an
 * output its dims index (the rest no longer matches them). */
static bool keeps_dims(const lv_build *b, uint32_t u)
{
	dp_dims d;
	bool part = b->sets.drop && b->sets.drop[u] > 0 && b->out[u];
	return !part || !dp_op_dims(b->g, u, &d) || d.nout < 0;
}

/* Adds op v of ng as the transformed op u. */
static dp_status add_op(lv_build *b, uint32_t u, const char *name,
			uint32_t *v, dp_err *err)
{
	const dp_graph *g = b->g;
	const lv_op *r = &b->op[u];
	dp_status st = dp_graph_add_op(b->ng, name, v, err);
	if (st)
		return st;
	dp_op *no = &b->ng->ops[*v];
	bool orig = *v == u;
	no->time_us = r->time_us;
	no->output_bytes = b->out[u];
	no->temp_bytes = (int64_t)llround((double)g->ops[u].temp_bytes * r->scale);
	no->param_bytes = orig ? r->param_bytes : 0;
	st = dpi_graph_copy_op_attrs(b->ng, *v, g, u, orig, err);
	/* a weight's second fetch (--offload params) is part of the backward
	 * pass, with no weight of its own */
	bool fetch = !orig && dp_op_role(g, u) == DP_ROLE_PARAM;
	if (!st && fetch)
		st = dp_graph_set_role(b->ng, *v, DP_ROLE_BACKWARD, err);
	if (!st && keeps_dims(b, u))
		st = dpi_graph_copy_op_dims(b->ng, *v, g, u, -1, 0, r->elem,
					    err);
	return st;
}

/* Adds edge e of g from `from` to `to` of ng, with its transformed bytes. */
static dp_status add_edge(lv_build *b, uint32_t e, uint32_t from, uint32_t to,
			  dp_err *err)
{
	const dp_graph *g = b->g;
	const dp_edge *ed = &g->edges[e];
	bool dropped = b->sets.drop && b->sets.drop[ed->from] > 0;
	int64_t bytes = 0;
	if (!ed->control) {
		bytes = (int64_t)llround((double)ed->bytes *
					 b->op[ed->from].scale);
		if (dropped && bytes > b->out[ed->from])
			bytes = b->out[ed->from];
	}
	dp_status st =
		dp_graph_add_edge(b->ng, from, to, bytes, ed->control, err);
	const uint32_t *names;
	int n = dp_edge_dims(g, e, &names);
	if (!st && n >= 0 && !dropped && keeps_dims(b, ed->to)) {
		const char *dn[DP_MAX_OP_DIMS];
		for (int i = 0; i < n && i < DP_MAX_OP_DIMS; i++)
			dn[i] = dp_graph_str(g, names[i]);
		st = dp_graph_set_edge_dims(b->ng, b->ng->nedges - 1,
					    (uint32_t)n, dn, err);
	}
	if (!st && from == ed->from && to == ed->to &&
	    !isnan(dp_edge_xfer_us(g, e)))
		st = dp_graph_set_edge_xfer(b->ng, b->ng->nedges - 1,
					    dp_edge_xfer_us(g, e), err);
	return st;
}

/* Frees b's scratch; hands the graph to *out on success, else frees it. */
static void lv_build_end(lv_build *b, dp_status st, dp_graph **out)
{
	dpi_levers_sets_free(&b->sets);
	free(b->op);
	free(b->out);
	free(b->copy);
	if (st)
		dp_graph_free(b->ng);
	else
		*out = b->ng;
}

static dp_status build_ops(lv_build *b, dp_err *err)
{
	const dp_graph *g = b->g;
	dp_status st = DP_OK;
	for (uint32_t u = 0; u < g->nops; u++) {
		precision_op(g, u, b->lv, &b->op[u]);
		int64_t out = (int64_t)llround(
			(double)g->ops[u].output_bytes * b->op[u].scale);
		if (b->sets.drop && b->sets.drop[u] > 0) {
			out -= (int64_t)llround((double)b->sets.drop[u] *
						b->op[u].scale);
			if (out < 0)
				out = 0;
		}
		if (b->sets.drop && b->sets.drop[u] > 0)
			b->op[u].time_us = fused_time(g, u, b->op[u].time_us);
		b->out[u] = b->op[u].out >= 0 ? b->op[u].out : out;
		b->ng->host_bytes += b->op[u].host;
	}
	for (uint32_t u = 0; !st && u < g->nops; u++) {
		uint32_t v;
		st = add_op(b, u, dp_graph_op_name(g, u), &v, err);
	}
	char name[1024];
	for (uint32_t u = 0; !st && u < g->nops; u++) {
		b->copy[u] = UINT32_MAX;
		if (!b->sets.seg[u])
			continue;
		snprintf(name, sizeof name, "%s@rc", dp_graph_op_name(g, u));
		st = add_op(b, u, name, &b->copy[u], err);
	}
	return st;
}

static dp_status build_edges(lv_build *b, dp_err *err)
{
	const dp_graph *g = b->g;
	const uint32_t *seg = b->sets.seg, *cp = b->copy;
	dp_status st = DP_OK;
	for (uint32_t e = 0; !st && e < g->nedges; e++) {
		const dp_edge *ed = &g->edges[e];
		uint32_t u = ed->from, v = ed->to;
		uint32_t from = u;
		if (cp[u] != UINT32_MAX && !ed->control &&
		    dpi_levers_redirects(g, u, v))
			from = cp[u];
		st = add_edge(b, e, from, v, err);
		if (!st && cp[v] != UINT32_MAX)
			st = add_edge(b, e,
				      cp[u] != UINT32_MAX && seg[u] == seg[v]
					      ? cp[u]
					      : u,
				      cp[v], err);
	}
	/* a fused chain's inputs, to the backward ops that recompute it */
	for (uint32_t i = 0; !st && i < b->sets.nextra; i++) {
		uint32_t p = b->sets.extra[2 * i], r = b->sets.extra[2 * i + 1];
		uint32_t from = cp[p] != UINT32_MAX &&
					dpi_levers_redirects(g, p, r)
				? cp[p]
				: p;
		st = dp_graph_add_edge(b->ng, from, r, b->out[p], false, err);
	}
	/* gates: to every copy of the segment that reads no copy of it */
	for (uint32_t i = 0; !st && i < b->sets.ngates; i++) {
		uint32_t sg = b->sets.gate[2 * i + 1];
		for (uint32_t v = 0; !st && v < g->nops; v++) {
			if (seg[v] != sg)
				continue;
			bool root = true;
			for (uint32_t k = g->pred_off[v];
			     k < g->pred_off[v + 1] && root; k++)
				root = seg[g->edges[g->pred_edge[k]].from] != sg;
			if (root)
				st = dp_graph_add_edge(b->ng, b->sets.gate[2 * i],
						       cp[v], 0, true, err);
		}
	}
	return st;
}

dp_status dp_levers_apply(const dp_graph *g, const dp_levers *lv,
			  dp_graph **out, dp_err *err)
{
	if (lv->precision != DP_PREC_FP32 && !g->roles)
		return dp_err_set(err, DP_EINPUT, NULL, 0, 0,
				  "--precision %s: graph '%s' has no op roles "
				  "(weights, gradients, activations: "
				  "docs/formats.md)",
				  dp_precision_name(lv->precision), g->name);
	lv_build b;
	memset(&b, 0, sizeof b);
	b.g = g;
	b.lv = lv;
	dp_status st = DP_OK;
	if (lv->recompute != DP_RECOMP_NONE || lv->fuse ||
	    lv->offload == DP_OFFLOAD_PARAMS)
		st = dpi_levers_sets(g, lv, &b.sets, err);
	else if (!(b.sets.seg = calloc(g->nops ? g->nops : 1,
				       sizeof *b.sets.seg)))
		st = dpi_nomem(err, "applying the levers");
	if (st)
		return st;
	size_t n = g->nops ? g->nops : 1;
	b.op = malloc(n * sizeof *b.op);
	b.out = malloc(n * sizeof *b.out);
	b.copy = malloc(n * sizeof *b.copy);
	b.ng = dp_graph_new(g->name);
	if (!b.op || !b.out || !b.copy || !b.ng)
		st = dpi_nomem(err, "applying the levers");
	if (!st && g->source[0])
		st = dp_graph_set_source(b.ng, g->source, err);
	if (!st)
		st = build_ops(&b, err);
	if (!st)
		st = build_edges(&b, err);
	if (!st)
		st = dp_graph_set_batch_dim(b.ng, dp_graph_batch_dim(g), err);
	char name[8192];
	if (!st)
		st = dpi_graph_intern(b.ng, dp_levers_set_name(lv, name, sizeof name),
				      "levers", &b.ng->levers, err);
	char hb[32], hm[32];
	if (!st && b.ng->host_bytes > dp_levers_host_mem(lv))
		st = dp_err_set(err, DP_EINPUT, NULL, 0, 0,
				"--offload %s: the host would hold %s of model "
				"states, more than its %s (--host-mem)",
				dp_offload_name(lv->offload),
				dp_units_fmt_bytes(b.ng->host_bytes, hb,
						   sizeof hb),
				dp_units_fmt_bytes(dp_levers_host_mem(lv), hm,
						   sizeof hm));
	if (!st) {
		dpi_graph_copy_notes(b.ng, g);
		st = dp_graph_finalize(b.ng, err);
	}
	lv_build_end(&b, st, out);
	return st;
}

/* graph_dims_check.c - the iteration-space rules that involve bytes,
 * the ops at both ends of an edge, or the whole graph (graph.h); the rules
 * about one op's fields alone are checked when they are set
 * (graph_dims.c). */
#include <stdio.h>
#include <string.h>

#include "internal/graph_int.h"

/* "b, s, k" for the dims idx[0..n) of d (all of them when idx is NULL),
 * cut with "..." when long. */
static const char *list_names(const dp_graph *g, const dp_dims *d,
			      const uint8_t *idx, int n, char *buf, size_t cap)
{
	size_t pos = 0;
	buf[0] = '\0';
	for (int i = 0; i < n; i++) {
		const char *nm = dp_graph_str(g, d->name_off[idx ? idx[i] : i]);
		int w = snprintf(buf + pos, cap - pos, "%s%s", i ? ", " : "",
				 nm);
		if (w < 0 || (size_t)w >= cap - pos - 4) {
			snprintf(buf + pos, cap - pos, ", ...");
			break;
		}
		pos += (size_t)w;
	}
	return buf;
}

/* "8 x 1024 x 3072" for the dims idx[0..n) of d ("1" for none). */
static const char *list_sizes(const dp_dims *d, const uint8_t *idx, int n,
			      char *buf, size_t cap)
{
	size_t pos = 0;
	snprintf(buf, cap, "1");
	for (int i = 0; i < n; i++) {
		int w = snprintf(buf + pos, cap - pos, "%s%lld", i ? " x " : "",
				 (long long)d->sizes[idx[i]]);
		if (w < 0 || (size_t)w >= cap - pos - 6) {
			snprintf(buf + pos, cap - pos, " x ...");
			break;
		}
		pos += (size_t)w;
	}
	return buf;
}

/* Index of the dim with name offset off in d, or -1. */
static int find_off(const dp_dims *d, uint32_t off)
{
	for (uint32_t i = 0; i < d->n; i++)
		if (d->name_off[i] == off)
			return (int)i;
	return -1;
}

/* Bytes of the tensor indexed by idx[0..n) of d: the product of their
 * sizes times elem_bytes (at most 2^62: dpi_graph_set_op_dims checked). */
static int64_t tensor_bytes(const dp_dims *d, const uint8_t *idx, int n)
{
	int64_t p = d->elem_bytes;
	for (int i = 0; i < n; i++)
		p *= d->sizes[idx[i]];
	return p;
}

/* The error for output_bytes (param false: must equal want, the bytes of
 * the tensor idx[0..n) of d) or param_bytes (at least want), set to got. */
static dp_status bytes_fail(const dp_graph *g, const dp_dims *d,
			    dpi_dims_at *at, bool param, const uint8_t *idx,
			    int n, int64_t want, int64_t got, dp_err *err)
{
	char names[300], sizes[300];
	return dpi_graph_dims_fail(
		at, param ? "param_bytes" : "output_bytes", -1, err,
		"expected %s%lld bytes (%s [%s]: %s elements of %lld bytes%s), "
		"got %lld",
		param ? "at least " : "", (long long)want,
		param ? "param" : "out",
		list_names(g, d, idx, n, names, sizeof names),
		list_sizes(d, idx, n, sizes, sizeof sizes),
		(long long)d->elem_bytes,
		param ? "; param_bytes may add gradients and optimizer state"
		      : "",
		(long long)got);
}

dp_status dpi_graph_check_op_dims(const dp_graph *g, uint32_t op,
				  dpi_dims_at *at, dp_err *err)
{
	dp_dims d;
	if (!dp_op_dims(g, op, &d))
		return DP_OK;
	const dp_op *o = &g->ops[op];
	if (d.nout >= 0) {
		int64_t want = tensor_bytes(&d, d.out, d.nout);
		if (o->output_bytes && o->output_bytes != want)
			return bytes_fail(g, &d, at, false, d.out, d.nout, want,
					  o->output_bytes, err);
	}
	if (d.nparam >= 0) {
		int64_t want = tensor_bytes(&d, d.param, d.nparam);
		if (o->param_bytes && o->param_bytes < want)
			return bytes_fail(g, &d, at, true, d.param, d.nparam,
					  want, o->param_bytes, err);
	}
	return DP_OK;
}

/* Edge e out of an op p with several outputs (dims, no out): each of
 * the edge's dims is a dim of the consumer; from_dims, when given, name
 * the producer's dims of that output, of the same sizes; the bytes are
 * product(sizes) x the producer's elem_bytes. */
static dp_status check_multi(const dp_graph *g, uint32_t e, const dp_dims *p,
			     dpi_dims_at *at, dp_err *err)
{
	const dp_edge *ed = &g->edges[e];
	const char *from = dp_graph_op_name(g, ed->from);
	const uint32_t *en, *fn;
	int n = dp_edge_dims(g, e, &en);
	bool hf = dp_edge_from_dims(g, e, &fn) >= 0;
	dp_dims c;
	bool has_c = dp_op_dims(g, ed->to, &c);
	int64_t want = p->elem_bytes;
	char names[300];
	for (int i = 0; i < n; i++) {
		int k = has_c ? find_off(&c, en[i]) : -1;
		if (k < 0)
			return dpi_graph_dims_fail(
				at, "dims", i, err,
				"'%s' is not a dim of the consumer '%s'",
				dp_graph_str(g, en[i]),
				dp_graph_op_name(g, ed->to));
		want *= c.sizes[k];
		int q = hf ? find_off(p, fn[i]) : 0;
		if (hf && (q < 0 || p->sizes[q] != c.sizes[k])) {
			char got[40] = " (not one of its dims)";
			if (q >= 0)
				snprintf(got, sizeof got, " (size %lld)",
					 (long long)p->sizes[q]);
			return dpi_graph_dims_fail(
				at, "from_dims", i, err,
				"op '%s' has several outputs: from_dims names "
				"'%s'%s for the consumer's '%s' of size %lld; "
				"expected one of its dims [%s] of that size",
				from, dp_graph_str(g, fn[i]), got,
				dp_graph_str(g, en[i]), (long long)c.sizes[k],
				list_names(g, p, NULL, (int)p->n, names,
					   sizeof names));
		}
	}
	bool own = g->finalized || ed->bytes >= 0;
	int64_t has = own ? ed->bytes : g->ops[ed->from].output_bytes;
	if (own && has != want)
		return dpi_graph_dims_fail(
			at, "bytes", -1, err,
			"op '%s' has several outputs: the one on this edge "
			"(its dims' sizes x %lld bytes) has %lld bytes, got "
			"%lld",
			from, (long long)p->elem_bytes, (long long)want,
			(long long)has);
	return DP_OK;
}

dp_status dpi_graph_check_edge_dims(const dp_graph *g, uint32_t e,
				    dpi_dims_at *at, dp_err *err)
{
	const dp_edge *ed = &g->edges[e];
	const uint32_t *en;
	int n = dp_edge_dims(g, e, &en);
	if (n < 0)
		return DP_OK;
	const char *from = dp_graph_op_name(g, ed->from);
	const char *to = dp_graph_op_name(g, ed->to);
	if (ed->control)
		return dpi_graph_dims_fail(
			at, "dims", -1, err,
			"a control edge carries no tensor, so it has no "
			"dims");
	dp_dims p, c;
	char names[300], sizes[300];
	const uint32_t *fn;
	bool has_p = dp_op_dims(g, ed->from, &p);
	if (dp_edge_from_dims(g, e, &fn) >= 0 && has_p && p.nout >= 0)
		return dpi_graph_dims_fail(
			at, "from_dims", -1, err,
			"the producer '%s' has one output (out [%s]): "
			"from_dims are for an op with several outputs",
			from,
			list_names(g, &p, p.out, p.nout, names, sizeof names));
	if (has_p && p.nout < 0)
		return check_multi(g, e, &p, at, err);
	if (!has_p)
		return dpi_graph_dims_fail(
			at, "dims", -1, err,
			"the producer '%s' has no out: edge dims name, "
			"for each dim of the producer's out, the "
			"consumer's dim that indexes it",
			from);
	if (n != p.nout)
		return dpi_graph_dims_fail(
			at, "dims", -1, err,
			"expected %d dims, one per dim of the out [%s] "
			"of the producer '%s', got %d",
			(int)p.nout,
			list_names(g, &p, p.out, p.nout, names, sizeof names),
			from, n);
	bool has_c = dp_op_dims(g, ed->to, &c);
	for (int i = 0; i < n; i++) {
		const char *nm = dp_graph_str(g, en[i]);
		int k = find_off(&c, en[i]);
		if (k < 0 && !has_c)
			return dpi_graph_dims_fail(
				at, "dims", i, err,
				"'%s' is not a dim of the consumer '%s': "
				"it has no dims",
				nm, to);
		if (k < 0)
			return dpi_graph_dims_fail(
				at, "dims", i, err,
				"'%s' is not a dim of the consumer '%s' "
				"(its dims: %s)",
				nm, to,
				list_names(g, &c, NULL, (int)c.n, names,
					   sizeof names));
		int64_t pz = p.sizes[p.out[i]];
		if (c.sizes[k] != pz)
			return dpi_graph_dims_fail(
				at, "dims", i, err,
				"'%s' of the consumer '%s' has size %lld, "
				"but the producer '%s' indexes this axis "
				"of its output with '%s' of size %lld (the "
				"sizes must agree)",
				nm, to, (long long)c.sizes[k], from,
				dp_graph_str(g, p.name_off[p.out[i]]),
				(long long)pz);
	}
	/* the edge carries that tensor: its bytes, or the producer's output
	 * when it gives none (before finalize; after, they are resolved) */
	int64_t want = tensor_bytes(&p, p.out, p.nout);
	bool own = g->finalized || ed->bytes >= 0;
	int64_t has = own ? ed->bytes : g->ops[ed->from].output_bytes;
	if (has != want)
		return dpi_graph_dims_fail(
			at, "bytes", -1, err,
			"expected %lld bytes, the output of '%s' (out [%s]: "
			"%s elements of %lld bytes), got %lld%s",
			(long long)want, from,
			list_names(g, &p, p.out, p.nout, names, sizeof names),
			list_sizes(&p, p.out, p.nout, sizes, sizeof sizes),
			(long long)p.elem_bytes, (long long)has,
			own ? ""
			    : " (the producer's output_bytes: give "
			      "the edge's bytes)");
	return DP_OK;
}

dp_status dpi_graph_check_batch_dim(const dp_graph *g, dp_err *err)
{
	if (!g->batch_dim)
		return DP_OK;
	for (uint32_t u = 0; u < g->nops; u++) {
		dp_dims d;
		if (dp_op_dims(g, u, &d) && find_off(&d, g->batch_dim) >= 0)
			return DP_OK;
	}
	return dpi_graph_dims_fail(
		NULL, "batch_dim", -1, err,
		"no op has a dim '%s' (batch_dim names the dim that data "
		"parallelism and micro-batches split; give it in the dims "
		"of the ops it indexes)",
		dp_graph_str(g, g->batch_dim));
}

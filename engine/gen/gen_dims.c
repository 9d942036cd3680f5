/* gen_dims.c - the iteration spaces and roles of the generated graph
 * (docs/formats.md, graph.h): what lets strategies split its ops and batches.
 *
 * Activations are [b, c, h, w] (batch, channels, height, width; the batch
 * dim "b" is the graph's batch_dim). Each forward op's dims are its loop
 * nest, named locally:
 *   Conv2D   b, k (output channels), c (input channels), h, w (output
 *            pixels), r, s (kernel); hi, wi when the input is larger
 *            (a strided conv reads [b, c, hi, wi]); weights [k, c, r, s]
 *   BN       b, c, h, w, g (gamma and beta: weights [g, c])
 *   Relu, Dropout, AddV2: b, c, h, w
 *   ConcatV2 b, c, h, w and c0, c1, ... (the channels of each input)
 *   MaxPool  b, c, h, w, r, s (+ hi, wi)
 *   Mean     b, c, h, w (reduced) and y, x (the 1 x 1 output)
 *   MatMul   b, n (classes), c (features), y, x; its variable holds weight
 *            and bias, so it has param [c, n] and no out
 *   loss     a scalar output; the accuracy op a [b] of 1-byte flags.
 * A gradient op has its forward op's dims; its output is one tensor (then
 * `out` says which: the input's gradient or the weights') or several (no
 * out). Variables and updates have the weights' dims. Every edge whose
 * tensor is one op's `out` gets dims; the others (several gradients in one
 * op's output, a variable without out) are whole.
 *
 * Nothing here changes times, bytes or the PRNG: the fields are optional
 * and a plan of the graph is the same with or without them.
 */
#include <stdio.h>
#include <string.h>

#include "internal/gen_impl.h"

/* Dims being built: names (copied) and sizes. */
typedef struct dimset {
	uint32_t n;
	char name[DP_MAX_OP_DIMS][DP_MAX_DIM_NAME + 1];
	int64_t size[DP_MAX_OP_DIMS];
} dimset;

static void add(dimset *d, const char *name, int64_t size)
{
	if (d->n < DP_MAX_OP_DIMS) {
		snprintf(d->name[d->n], sizeof d->name[0], "%s", name);
		d->size[d->n++] = size;
	}
}

/* Sets op's dims to d with out and param (NULL: not given, else n names
 * of d's dims), elem_bytes elem. */
static dp_status set_dims(gen *s, uint32_t op, const dimset *d,
			  const char *const *out, int nout,
			  const char *const *param, int nparam, int64_t elem)
{
	const char *names[DP_MAX_OP_DIMS];
	for (uint32_t i = 0; i < d->n; i++)
		names[i] = d->name[i];
	dp_dims_spec spec = {d->n,    names,
			     d->size, out ? nout : -1,
			     out,     param ? nparam : -1,
			     param,   elem};
	return dp_graph_set_op_dims(s->g, op, &spec, s->err);
}

static dp_status set_edge(gen *s, uint32_t e, const char *const *names, int n)
{
	return dp_graph_set_edge_dims(s->g, e, (uint32_t)n, names, s->err);
}

/* The out sizes of op (an activation [b, c, h, w] or another tensor);
 * the number of them, 0 when op has no out. */
static int out_sizes(const gen *s, uint32_t op, int64_t *z)
{
	dp_dims d;
	if (!dp_op_dims(s->g, op, &d) || d.nout < 0)
		return 0;
	for (int i = 0; i < d.nout; i++)
		z[i] = d.sizes[d.out[i]];
	return d.nout;
}

static const char *const bchw[] = {"b", "c", "h", "w"};
static const char *const bchiwi[] = {"b", "c", "hi", "wi"};
static const char *const bkhw[] = {"b", "k", "h", "w"};
static const char *const bcyx[] = {"b", "c", "y", "x"};
static const char *const bnyx[] = {"b", "n", "y", "x"};
static const char *const kcrs[] = {"k", "c", "r", "s"};
static const char *const gc[] = {"g", "c"};
static const char *const cn[] = {"c", "n"};
static const char *const b_[] = {"b"};

/* b, c, h, w of an activation of shape sh */
static void act(const gen *s, dimset *d, gen_shape sh)
{
	add(d, "b", s->batch);
	add(d, "c", sh.c);
	add(d, "h", sh.h);
	add(d, "w", sh.h);
}

/* The variable w of a forward op: the weights' dims, out and param. */
static dp_status var_dims(gen *s, uint32_t w, int kind, const dimset *fd)
{
	dimset d = {0};
	if (kind == K_CONV) {
		for (int i = 0; i < 4; i++)
			add(&d, kcrs[i],
			    fd->size[i == 0   ? 1
				     : i == 1 ? 2
					      : i + 3]);
		return set_dims(s, w, &d, kcrs, 4, kcrs, 4, 4);
	}
	if (kind == K_BN) {
		add(&d, "g", 2);
		add(&d, "c", fd->size[1]);
		return set_dims(s, w, &d, gc, 2, gc, 2, 4);
	}
	/* MatMul: weight [c, n] plus a bias, one tensor: no out */
	add(&d, "c", fd->size[2]);
	add(&d, "n", fd->size[1]);
	return set_dims(s, w, &d, NULL, 0, cn, 2, 4);
}

dp_status dpi_gen_fwd_dims(gen *s, uint32_t id, int kind, const uint32_t *in,
			   int nin, uint32_t w, uint32_t e0,
			   const gen_geom *geo)
{
	dimset d = {0};
	int64_t z[4] = {0};
	bool wide = nin > 0 && out_sizes(s, in[0], z) == 4 &&
		    z[2] != geo->out.h; /* input larger than the output */
	dp_status st;
	const char *const *ein = bchw; /* names of the input edges */
	switch (kind) {
	case K_DATA:
		if (geo->out.c) {
			act(s, &d, geo->out);
			st = set_dims(s, id, &d, bchw, 4, NULL, 0, 4);
		} else { /* labels */
			add(&d, "b", s->batch);
			st = set_dims(s, id, &d, b_, 1, NULL, 0, 4);
		}
		if (!st)
			st = dp_graph_set_role(s->g, id, DP_ROLE_INPUT, s->err);
		return st;
	case K_CONV:
		add(&d, "b", s->batch);
		add(&d, "k", geo->out.c);
		add(&d, "c", z[1]);
		add(&d, "h", geo->out.h);
		add(&d, "w", geo->out.h);
		add(&d, "r", geo->k);
		add(&d, "s", geo->k);
		break;
	case K_BN:
		act(s, &d, geo->out);
		add(&d, "g", 2);
		break;
	case K_MAXPOOL:
		act(s, &d, geo->out);
		add(&d, "r", geo->k);
		add(&d, "s", geo->k);
		break;
	case K_MEAN:
		act(s, &d, (gen_shape){geo->out.c, (uint32_t)z[2]});
		add(&d, "y", 1);
		add(&d, "x", 1);
		wide = false;
		break;
	case K_MATMUL:
		add(&d, "b", s->batch);
		add(&d, "n", geo->out.c);
		add(&d, "c", z[1]);
		add(&d, "y", 1);
		add(&d, "x", 1);
		ein = bcyx;
		wide = false;
		break;
	case K_LOSS:
	case K_METRIC:
		out_sizes(s, in[0], z); /* the logits */
		add(&d, "b", s->batch);
		add(&d, "n", z[1]);
		add(&d, "y", 1);
		add(&d, "x", 1);
		ein = bnyx;
		wide = false;
		break;
	default: /* Relu, Dropout, AddV2, ConcatV2 */
		act(s, &d, geo->out);
		wide = false;
		break;
	}
	if (wide) {
		add(&d, "hi", z[2]);
		add(&d, "wi", z[3]);
		ein = bchiwi;
	}
	bool per_input =
		kind == K_CONCAT && d.n + (uint32_t)nin <= DP_MAX_OP_DIMS;
	char cname[DP_GEN_MAX_TOWERS][16];
	for (int i = 0; per_input && i < nin; i++) {
		int64_t zi[4];
		out_sizes(s, in[i], zi);
		snprintf(cname[i], sizeof cname[i], "c%d", i);
		add(&d, cname[i], zi[1]);
	}
	if (kind == K_LOSS)
		st = set_dims(s, id, &d, b_, 0, NULL, 0, 4); /* a scalar */
	else if (kind == K_METRIC)
		st = set_dims(s, id, &d, b_, 1, NULL, 0, 1);
	else
		st = set_dims(s, id, &d,
			      kind == K_CONV	 ? bkhw
			      : kind == K_MEAN	 ? bcyx
			      : kind == K_MATMUL ? bnyx
						 : bchw,
			      4, NULL, 0, 4);
	if (!st)
		st = dp_graph_set_role(s->g, id,
				       kind == K_LOSS ? DP_ROLE_LOSS
						      : DP_ROLE_FORWARD,
				       s->err);
	for (int i = 0; !st && i < nin; i++) {
		const char *names[4] = {ein[0], ein[1], ein[2], ein[3]};
		if (kind == K_CONCAT) {
			if (!per_input)
				continue;
			names[1] = cname[i];
		}
		if ((kind == K_LOSS || kind == K_METRIC) && i == 1)
			st = set_edge(s, e0 + 1, b_, 1); /* the labels */
		else
			st = set_edge(s, e0 + (uint32_t)i, names, 4);
	}
	if (st || w == GEN_NONE)
		return st;
	if ((st = var_dims(s, w, kind, &d)) ||
	    (st = dp_graph_set_role(s->g, w, DP_ROLE_PARAM, s->err)))
		return st;
	if (kind == K_MATMUL)
		return DP_OK; /* weight and bias: no out, so no edge dims */
	return kind == K_CONV ? set_edge(s, e0 + (uint32_t)nin, kcrs, 4)
			      : set_edge(s, e0 + (uint32_t)nin, gc, 2);
}

/* The names of edge e's dims into names[] (copied into buf); their count,
 * -1 when it has none. */
static int edge_names(const gen *s, uint32_t e, const char **names,
		      char (*buf)[DP_MAX_DIM_NAME + 1])
{
	const uint32_t *off;
	int n = dp_edge_dims(s->g, e, &off);
	for (int i = 0; i < n; i++) {
		snprintf(buf[i], sizeof buf[0], "%s",
			 dp_graph_str(s->g, off[i]));
		names[i] = buf[i];
	}
	return n;
}

/* The op's dims as a dimset, its out names into out (copied into obuf);
 * returns the out count, -1 when not given. */
static int op_dimset(const gen *s, uint32_t op, dimset *d, const char **out,
		     char (*obuf)[DP_MAX_DIM_NAME + 1])
{
	dp_dims v;
	memset(d, 0, sizeof *d);
	if (!dp_op_dims(s->g, op, &v))
		return -1;
	for (uint32_t i = 0; i < v.n; i++)
		add(d, dp_graph_str(s->g, v.name_off[i]), v.sizes[i]);
	for (int i = 0; i < v.nout; i++) {
		snprintf(obuf[i], sizeof obuf[0], "%s", d->name[v.out[i]]);
		out[i] = obuf[i];
	}
	return v.nout;
}

dp_status dpi_gen_grad_dims(gen *s, const gen_fwd_rec *r, uint32_t gid,
			    int ngrad_in, int grad_in)
{
	dimset d;
	const char *out[DP_MAX_OP_DIMS];
	char obuf[DP_MAX_OP_DIMS][DP_MAX_DIM_NAME + 1];
	if (op_dimset(s, r->op, &d, out, obuf) < 0)
		return DP_OK;
	/* one tensor out: the weights' gradient, or one input's */
	int nout = -1;
	if (r->weight != GEN_NONE && ngrad_in == 0)
		nout = edge_names(s, r->e0 + r->nin, out, obuf);
	else if (r->weight == GEN_NONE && ngrad_in == 1)
		nout = edge_names(s, r->e0 + (uint32_t)grad_in, out, obuf);
	dp_status st = set_dims(s, gid, &d, nout >= 0 ? out : NULL, nout, NULL,
				0, r->kind == K_METRIC ? 1 : 4);
	if (!st)
		st = dp_graph_set_role(s->g, gid, DP_ROLE_BACKWARD, s->err);
	return st;
}

dp_status dpi_gen_edge_like(gen *s, uint32_t e, uint32_t model)
{
	const char *names[DP_MAX_OP_DIMS];
	char buf[DP_MAX_OP_DIMS][DP_MAX_DIM_NAME + 1];
	int n = edge_names(s, model, names, buf);
	return n < 0 ? DP_OK : set_edge(s, e, names, n);
}

dp_status dpi_gen_edge_out(gen *s, uint32_t e, uint32_t op)
{
	dimset d;
	const char *out[DP_MAX_OP_DIMS];
	char obuf[DP_MAX_OP_DIMS][DP_MAX_DIM_NAME + 1];
	int n = op_dimset(s, op, &d, out, obuf);
	return n < 0 ? DP_OK : set_edge(s, e, out, n);
}

dp_status dpi_gen_update_dims(gen *s, uint32_t uid, uint32_t w,
			      uint32_t grad_edge, uint32_t gid)
{
	dimset d;
	const char *out[DP_MAX_OP_DIMS];
	char obuf[DP_MAX_OP_DIMS][DP_MAX_DIM_NAME + 1];
	dp_dims v;
	dp_status st;
	if (!dp_op_dims(s->g, w, &v))
		return DP_OK;
	/* the update indexes its variable's param (held there: 0 bytes here) */
	const char *param[DP_MAX_OP_DIMS];
	char pbuf[DP_MAX_OP_DIMS][DP_MAX_DIM_NAME + 1];
	op_dimset(s, w, &d, out, obuf);
	for (int i = 0; i < v.nparam; i++) {
		snprintf(pbuf[i], sizeof pbuf[0], "%s", d.name[v.param[i]]);
		param[i] = pbuf[i];
	}
	if ((st = set_dims(s, uid, &d, NULL, 0, param, v.nparam, 4)) ||
	    (st = dp_graph_set_role(s->g, uid, DP_ROLE_UPDATE, s->err)))
		return st;
	/* the weights' gradient, when the gradient op's out is just that */
	dp_dims gv;
	if (dp_op_dims(s->g, gid, &gv) && gv.nout >= 0 &&
	    s->g->ops[gid].output_bytes == s->g->edges[grad_edge].bytes)
		return dpi_gen_edge_out(s, grad_edge, w);
	return DP_OK;
}

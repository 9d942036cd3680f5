/* gen.c - deterministic synthetic training graphs (see gen.h).
 *
 * The network is a multi-tower ResNet/Inception hybrid (its scale, chosen
 * by gen_scale.c, is T towers, width W, batch B and images of side I):
 *
 *   data -> stem (7x7 conv, BN, ReLU, max pool) -> T towers of 4 stages
 *        -> a global mean per tower -> concat -> fully connected (1000
 *        classes) -> softmax cross-entropy loss
 *
 * Stage s (s = 1..4) has W << (s-1) channels at (I/4) >> (s-1) pixels
 * square, and takes a share 3:4:6:3 of each tower's op budget (ResNet-50's
 * block counts). Its blocks are drawn from the PRNG: residual blocks
 * (conv-BN-ReLU-conv-BN, plus a skip connection, projected by a 1x1 conv
 * where the shape changes) and inception-like blocks (2-4 branches of 1-3
 * conv+ReLU, one may start with a max pool, joined by a concat). Towers are
 * independent columns, like those of multi-column CNNs (Ciresan et al.,
 * CVPR 2012), except where a stage begins: there the projected skip of each
 * tower reads its neighbour's features, as AlexNet's two columns
 * (Krizhevsky et al., NIPS 2012) talk only at some layers. The towers give
 * the graph its parallelism; the exchanges keep them from being K disjoint
 * problems.
 *
 * Training structure, as TensorFlow lays it out: each conv/BN/matmul reads a
 * variable op (VariableV2) holding weights plus Adam's two moments as
 * param_bytes; every forward op f has one gradient op grad/f that receives
 * the gradients of f's consumers and the activations f's backward needs
 * (saved inputs and/or output: the forward -> backward edges that make
 * training memory-hungry); each variable gets an ApplyAdam update op,
 * colocated with it, fed by the gradient of the weights only: the updates
 * are independent of each other.
 *
 * Costs are those of the reference GPU (gen_impl.h), computed in integer
 * nanoseconds with a +-10% jitter from the PRNG; sizes are the fp32 tensor
 * sizes. The op count is exact: blocks are added while they fit the budget,
 * then the smallest blocks and 2-op dropout layers, tower by tower, and, for
 * an odd count, an accuracy op fill the rest.
 *
 * The same code also runs "dry" (no graph, only sums of tensor sizes): the
 * scale rule measures a candidate model that way. The PRNG draws are the
 * same in both runs, so the dry run measures exactly the graph built later.
 */
#include "dnnpart/gen.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal/gen_impl.h"

/* ---- the forward pass ---- */

/* Scope of part (e.g. "b7") of tower t's stage (1-based): "s2/b7" with one
 * tower, "t3/s2/b7" with several. */
static void set_scope(gen *s, uint32_t t, uint32_t stage, const char *part)
{
	if (s->towers > 1)
		snprintf(s->scope, sizeof s->scope, "t%u/s%u/%s", t, stage,
			 part);
	else
		snprintf(s->scope, sizeof s->scope, "s%u/%s", stage, part);
}

/* "b7": the n-th block of a tower */
static void set_block_scope(gen *s, uint32_t t, uint32_t stage, uint32_t n)
{
	char part[16];
	snprintf(part, sizeof part, "b%u", n);
	set_scope(s, t, stage, part);
}

/* The towers' blocks: stage by stage, tower by tower, each (stage, tower)
 * cell drawing blocks until its share of the budget is spent; then the
 * rest of the budget, round-robin over the towers. */
static dp_status build_towers(gen *s, uint32_t body, uint32_t *x, gen_shape *sh)
{
	static const uint32_t cum[5] = {0, 3, 7, 13, 16};
	uint32_t T = s->towers, blk[DP_GEN_MAX_TOWERS] = {0},
		 xin[DP_GEN_MAX_TOWERS];
	gen_shape shin[DP_GEN_MAX_TOWERS];
	uint32_t used = 0, y;
	dp_status st;
	for (uint32_t si = 0; si < 4; si++) {
		/* what each tower held when the stage began */
		memcpy(xin, x, T * sizeof *x);
		memcpy(shin, sh, T * sizeof *sh);
		uint32_t h = (s->image / 4) >> si;
		gen_shape want = {s->width << si, h ? h : 1};
		for (uint32_t t = 0; t < T; t++) {
			uint64_t end = (uint64_t)body *
				       (cum[si] * T +
					(cum[si + 1] - cum[si]) * (t + 1)) /
				       (16u * T);
			uint32_t nb = (t + 1) % T;
			for (;;) {
				bool reshape = !gen_same_shape(sh[t], want);
				bool res = reshape ||
					   dpi_gen_rng_below(s, 100) < 55;
				gen_incep ic;
				uint32_t cost;
				if (res) {
					cost = dpi_gen_residual_cost(sh[t],
								     want);
				} else {
					dpi_gen_incep_draw(s, &ic);
					cost = dpi_gen_incep_cost(&ic);
				}
				if (used + cost > end)
					break;
				set_block_scope(s, t, si + 1, blk[t]++);
				/* a stage's first block: the projected skip
				 * reads the neighbouring tower */
				uint32_t skip = x[t];
				if (T > 1 && reshape &&
				    gen_same_shape(shin[nb], sh[t]))
					skip = xin[nb];
				st = res ? dpi_gen_residual(s, x[t], skip,
							    sh[t], want, &y)
					 : dpi_gen_inception(s, &ic, x[t],
							     sh[t], &y);
				if (st)
					return st;
				x[t] = y;
				sh[t] = want;
				used += cost;
			}
		}
	}
	/* what the drawn blocks left: the smallest blocks, then dropout */
	gen_incep small = {2, {1, 1, 0, 0}, {false, false, false, false}};
	for (uint32_t t = 0; used + GEN_MIN_BLOCK_OPS <= body;
	     t = (t + 1) % T) {
		set_block_scope(s, t, 4, blk[t]++);
		if ((st = dpi_gen_inception(s, &small, x[t], sh[t], &x[t])))
			return st;
		used += GEN_MIN_BLOCK_OPS;
	}
	for (uint32_t i = 0; used + 2 <= body; i++, used += 2) {
		char suf[32];
		uint32_t t = i % T;
		set_scope(s, t, 4, "tail");
		snprintf(suf, sizeof suf, "dropout%u", i / T);
		if ((st = dpi_gen_eltwise(s, suf, K_DROPOUT, x[t], sh[t],
					  &x[t])))
			return st;
	}
	return DP_OK;
}

static dp_status forward(gen *s)
{
	dp_status st;
	uint32_t images, labels, logits, x, y, in2[2], T = s->towers;
	uint32_t xs[DP_GEN_MAX_TOWERS], pooled[DP_GEN_MAX_TOWERS];
	gen_shape img = {3, s->image}, half = {s->width, s->image / 2},
		  quarter = {s->width, s->image / 4}, sh[DP_GEN_MAX_TOWERS];

	/* data: the input pipeline hands over a batch */
	snprintf(s->scope, sizeof s->scope, "data");
	if ((st = dpi_gen_fwd(s, "images", K_DATA, NULL, 0,
			      gen_act_bytes(s, img), 100000, 0, 0,
			      (gen_geom){img, 0}, &images)) ||
	    (st = dpi_gen_fwd(s, "labels", K_DATA, NULL, 0,
			      (int64_t)s->batch * 4, 10000, 0, 0,
			      (gen_geom){{0, 0}, 0}, &labels)))
		return st;

	snprintf(s->scope, sizeof s->scope, "stem");
	if ((st = dpi_gen_conv(s, "conv", images, img, half, 7, &x)) ||
	    (st = dpi_gen_eltwise(s, "bn", K_BN, x, half, &x)) ||
	    (st = dpi_gen_eltwise(s, "relu", K_RELU, x, half, &x)) ||
	    (st = dpi_gen_maxpool(s, "pool", x, half, quarter, &x)))
		return st;

	uint32_t body = s->target - gen_fixed_ops(T);
	bool metric = body % 2 == 1;
	if (metric)
		body--;
	for (uint32_t t = 0; t < T; t++) {
		xs[t] = x;
		sh[t] = quarter;
	}
	if ((st = build_towers(s, body, xs, sh)))
		return st;

	snprintf(s->scope, sizeof s->scope, "head");
	gen_shape feat = {0, 1}, cls = {GEN_CLASSES, 1};
	for (uint32_t t = 0; t < T; t++) {
		char suf[32];
		gen_shape p = {sh[t].c, 1};
		if (T > 1)
			snprintf(suf, sizeof suf, "mean%u", t);
		else
			snprintf(suf, sizeof suf, "mean");
		if ((st = dpi_gen_fwd(
			     s, suf, K_MEAN, &xs[t], 1, gen_act_bytes(s, p),
			     dpi_gen_kernel_ns(
				     s, (uint64_t)gen_act_bytes(s, sh[t]) / 4,
				     (uint64_t)gen_act_bytes(s, sh[t])),
			     0, 0, (gen_geom){p, 0}, &pooled[t])))
			return st;
		feat.c += sh[t].c;
	}
	x = pooled[0];
	if (T > 1 && (st = dpi_gen_join(s, "concat", K_CONCAT, pooled, (int)T,
					feat, &x)))
		return st;
	int64_t fcw = (int64_t)feat.c * GEN_CLASSES * 4 + GEN_CLASSES * 4;
	if ((st = dpi_gen_fwd(s, "fc", K_MATMUL, &x, 1, gen_act_bytes(s, cls),
			      dpi_gen_kernel_ns(
				      s, 2ull * s->batch * feat.c * GEN_CLASSES,
				      (uint64_t)fcw),
			      0, fcw, (gen_geom){cls, 0}, &logits)))
		return st;
	in2[0] = logits;
	in2[1] = labels;
	if ((st = dpi_gen_fwd(
		     s, "loss", K_LOSS, in2, 2, 4,
		     dpi_gen_kernel_ns(s, 8ull * s->batch * GEN_CLASSES,
				       (uint64_t)gen_act_bytes(s, cls)),
		     0, 0, (gen_geom){{0, 0}, 0}, &y)))
		return st;
	if (metric)
		st = dpi_gen_fwd(s, "accuracy", K_METRIC, in2, 2,
				 (int64_t)s->batch, GEN_MIN_KERNEL_NS, 0, 0,
				 (gen_geom){{0, 0}, 0}, &y);
	return st;
}

/* ---- the backward pass and the updates ---- */

static bool has_grad(const gen *s, uint32_t op)
{
	uint32_t r = s->rec_of[op];
	return r != GEN_NONE && dpi_gen_kinds[s->f[r].kind].grad_type;
}

/* The update of r's variable: Adam reads w, g, m, v and writes w, m, v. */
static dp_status update(gen *s, const gen_fwd_rec *r, uint32_t gid)
{
	dp_graph *g = s->g;
	dp_status st;
	const char *wname = dp_graph_op_name(g, r->weight);
	snprintf(s->name, sizeof s->name, "update/%s", wname);
	snprintf(s->buf, sizeof s->buf, "%s", wname);
	snprintf(s->layer, sizeof s->layer, "update/%s",
		 dp_graph_str(g, g->ops[r->op].layer));
	uint64_t uns = (uint64_t)(7 * r->wbytes) / GEN_BYTES_PER_NS;
	uint32_t uid;
	if ((st = dpi_gen_add_op(s, s->name, "ApplyAdam", s->layer,
				 uns < GEN_MIN_KERNEL_NS ? GEN_MIN_KERNEL_NS
							 : uns,
				 0, 0, 0, &uid)) ||
	    (st = dp_graph_set_colocate(g, uid, s->buf, s->err)) ||
	    (st = dp_graph_add_edge(g, gid, uid, r->wbytes, false, s->err)) ||
	    (st = dpi_gen_update_dims(s, uid, r->weight, g->nedges - 1, gid)))
		return st;
	return dp_graph_add_edge(g, r->weight, uid, -1, true, s->err);
}

static dp_status backward(gen *s)
{
	dp_graph *g = s->g;
	dp_status st;
	/* gradient ops in reverse forward order, each followed by the update
	 * of its variable */
	for (uint32_t i = s->nf; i-- > 0;) {
		gen_fwd_rec *r = &s->f[i];
		const gen_kind_info *ki = &dpi_gen_kinds[r->kind];
		const uint32_t *in = s->ins + r->in0;
		if (!ki->grad_type)
			continue;
		int64_t out = r->wbytes;
		int ngrad = 0, last = 0;
		for (int j = 0; j < r->nin; j++)
			if (has_grad(s, in[j])) {
				out += g->ops[in[j]].output_bytes;
				ngrad++;
				last = j;
			}
		snprintf(s->name, sizeof s->name, "grad/%s",
			 dp_graph_op_name(g, r->op));
		snprintf(s->layer, sizeof s->layer, "grad/%s",
			 dp_graph_str(g, g->ops[r->op].layer));
		uint64_t ns = r->ns * ki->grad_x2 / 2;
		int64_t temp = r->kind == K_CONV ? 2 * r->temp : 0;
		uint32_t gid;
		if ((st = dpi_gen_add_op(s, s->name, ki->grad_type, s->layer,
					 ns, out, 0, temp, &gid)) ||
		    (st = dpi_gen_grad_dims(s, r, gid, ngrad, last)))
			return st;
		r = &s->f[i];
		r->grad = gid;
		/* saved activations: forward -> backward edges, with the dims
		 * of the forward op's own */
		if (ki->save_in)
			for (int j = 0; j < r->nin; j++)
				if ((st = dp_graph_add_edge(g, in[j], gid, -1,
							    false, s->err)) ||
				    (st = dpi_gen_edge_like(
					     s, g->nedges - 1,
					     r->e0 + (uint32_t)j)))
					return st;
		if (ki->save_out &&
		    ((st = dp_graph_add_edge(g, r->op, gid, -1, false,
					     s->err)) ||
		     (st = dpi_gen_edge_out(s, g->nedges - 1, r->op))))
			return st;
		if (r->weight == GEN_NONE)
			continue;
		if ((st = dp_graph_add_edge(g, r->weight, gid, -1, false,
					    s->err)) ||
		    (st = dpi_gen_edge_like(s, g->nedges - 1,
					    r->e0 + r->nin)) ||
		    (st = update(s, r, gid)))
			return st;
	}
	/* gradient flow: grad/s -> grad/x for every input x of s, carrying
	 * the gradient of x (x's output size) */
	for (uint32_t i = 0; i < s->nf; i++) {
		const gen_fwd_rec *r = &s->f[i];
		const uint32_t *in = s->ins + r->in0;
		if (r->grad == GEN_NONE)
			continue;
		for (int j = 0; j < r->nin; j++) {
			if (!has_grad(s, in[j]))
				continue;
			uint32_t gx = s->f[s->rec_of[in[j]]].grad;
			if ((st = dp_graph_add_edge(g, r->grad, gx,
						    g->ops[in[j]].output_bytes,
						    false, s->err)))
				return st;
			/* the gradient of x alone: indexed as x's output */
			dp_dims gd;
			if (dp_op_dims(g, r->grad, &gd) && gd.nout >= 0 &&
			    (st = dpi_gen_edge_out(s, g->nedges - 1, in[j])))
				return st;
		}
	}
	return DP_OK;
}

/* ---- entry points ---- */

static void gen_start(gen *s, const dp_gen_opts *o, const dp_gen_scale *sc)
{
	memset(s, 0, sizeof *s);
	s->target = o->ops;
	s->towers = sc->towers;
	s->width = sc->width;
	s->batch = sc->batch;
	s->image = sc->image;
	dpi_gen_seed(s, o->seed);
}

void dpi_gen_dry_run(const dp_gen_opts *o, const dp_gen_scale *sc,
		     gen_scratch *scratch, gen_sizes *sizes)
{
	gen s;
	gen_start(&s, o, sc);
	s.scratch = scratch;
	/* without a graph nothing can fail */
	(void)forward(&s);
	*sizes = s.dry;
}

void dp_gen_opts_default(dp_gen_opts *o)
{
	memset(o, 0, sizeof *o);
	o->ops = 10000;
	o->seed = 1;
}

dp_status dp_gen_graph(const dp_gen_opts *o, dp_graph **out, dp_err *err)
{
	dp_gen_scale sc;
	dp_status st = dp_gen_compute_scale(o, &sc, err);
	if (st)
		return st;
	char nm[64];
	if (!o->name)
		snprintf(nm, sizeof nm, "synthetic-%u", o->ops);
	gen s;
	gen_start(&s, o, &sc);
	s.err = err;
	s.g = dp_graph_new(o->name ? o->name : nm);
	s.rec_of = malloc((size_t)o->ops * sizeof *s.rec_of);
	if (!s.g || !s.rec_of) {
		dp_graph_free(s.g);
		free(s.rec_of);
		return dp_err_set(err, DP_ENOMEM, NULL, 0, 0,
				  "out of memory generating %u ops", o->ops);
	}
	memset(s.rec_of, 0xff, (size_t)o->ops * sizeof *s.rec_of);
	s.g->hint.devices = o->devices;
	s.g->hint.memory_bytes = o->memory_bytes;

	st = forward(&s);
	if (!st)
		st = backward(&s);
	if (!st)
		st = dp_graph_set_batch_dim(s.g, "b", err);
	if (!st && s.g->nops != o->ops)
		st = dp_err_set(err, DP_EINTERNAL, NULL, 0, 0,
				"generator made %u ops instead of %u",
				s.g->nops, o->ops);
	if (!st)
		st = dp_graph_finalize(s.g, err);
	free(s.f);
	free(s.ins);
	free(s.rec_of);
	if (st) {
		dp_graph_free(s.g);
		return st;
	}
	*out = s.g;
	return DP_OK;
}

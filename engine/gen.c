/* gen.c - deterministic synthetic training graphs (see gen.h).
 *
 * The network is a ResNet/Inception hybrid on 224x224 images, batch 16:
 *
 *   data -> stem (7x7 conv, BN, ReLU, max pool) -> 4 stages -> global mean
 *        -> fully connected (1000 classes) -> softmax cross-entropy loss
 *
 * Stage s (s = 1..4) has 64 << (s-1) channels at 56 >> (s-1) pixels square,
 * and takes a share 3:4:6:3 of the op budget (ResNet-50's block counts).
 * Its blocks are drawn from the PRNG: residual blocks (conv-BN-ReLU-conv-BN,
 * plus a skip connection, projected by a 1x1 conv where the shape changes)
 * and inception-like blocks (2-4 branches of 1-3 conv+ReLU, one may start
 * with a max pool, joined by a concat).
 *
 * Training structure, as TensorFlow lays it out: each conv/BN/matmul reads a
 * variable op (VariableV2) holding weights plus Adam's two moments as
 * param_bytes; every forward op f has one gradient op grad/f that receives
 * the gradients of f's consumers and the activations f's backward needs
 * (saved inputs and/or output: the forward -> backward edges that make
 * training memory-hungry); each variable gets an ApplyAdam update op,
 * colocated with it, fed by the gradient of the weights.
 *
 * Costs are those of the reference GPU below, computed in integer
 * nanoseconds with a +-10% jitter from the PRNG; sizes are the fp32 tensor
 * sizes. The op count is exact: blocks are added while they fit the budget,
 * then 2-op dropout layers and, for an odd count, an accuracy op fill the
 * rest.
 */
#include "gen.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


#define NONE UINT32_MAX
#define BATCH 16u
#define CLASSES 1000u
#define MAXIN 4
/* Reference GPU: NVIDIA V100 (fp32 peak 15.7 TFLOP/s, HBM2 900 GB/s),
 * assumed to reach 50% of peak FLOP/s and 70% of peak bandwidth; no kernel
 * takes less than 3 us (launch and tail). */
#define FLOP_PER_NS 7850u
#define BYTES_PER_NS 630u
#define MIN_KERNEL_NS 3000u
#define VAR_READ_NS 1000u

/* Ops outside the blocks: data (2), stem (conv 4, BN 4, ReLU 2, pool 2),
 * head (mean 2, matmul 4, loss 2). Every block op costs an even number. */
#define FIXED_OPS 22u
/* The smallest block: a 2-branch inception block of one conv each. */
#define MIN_BLOCK_OPS 14u

enum kind {
	K_DATA,
	K_CONV,
	K_BN,
	K_RELU,
	K_ADD,
	K_CONCAT,
	K_MAXPOOL,
	K_MEAN,
	K_MATMUL,
	K_LOSS,
	K_DROPOUT,
	K_METRIC,
	NKINDS
};

static const struct kind_info {
	const char *type, *grad_type; /* grad_type NULL: no gradient op */
	bool save_in, save_out; /* what the backward op reads from forward */
	unsigned grad_x2;	/* gradient time = forward time * grad_x2 / 2 */
} kinds[NKINDS] = {
	[K_DATA] = {"IteratorGetNext", NULL, false, false, 0},
	[K_CONV] = {"Conv2D", "Conv2DBackprop", true, false, 4},
	[K_BN] = {"FusedBatchNorm", "FusedBatchNormGrad", true, false, 4},
	[K_RELU] = {"Relu", "ReluGrad", false, true, 2},
	[K_ADD] = {"AddV2", "AddGrad", false, false, 2},
	[K_CONCAT] = {"ConcatV2", "ConcatGrad", false, false, 2},
	[K_MAXPOOL] = {"MaxPool", "MaxPoolGrad", true, true, 3},
	[K_MEAN] = {"Mean", "MeanGrad", false, false, 2},
	[K_MATMUL] = {"MatMul", "MatMulGrad", true, false, 4},
	[K_LOSS] = {"SoftmaxCrossEntropyWithLogits", "LossGrad", true, true, 2},
	[K_DROPOUT] = {"Dropout", "DropoutGrad", false, true, 2},
	[K_METRIC] = {"InTopK", NULL, false, false, 0},
};

typedef struct shape {
	uint32_t c, h; /* channels, height = width */
} shape;

static int64_t act_bytes(shape s)
{
	return (int64_t)BATCH * s.c * s.h * s.h * 4;
}

/* One forward op, remembered to build its gradient. */
typedef struct fwd_rec {
	uint32_t op, weight; /* weight: its variable op, or NONE */
	uint32_t grad;	     /* gradient op, or NONE */
	uint32_t in[MAXIN];
	uint8_t nin, kind;
	int64_t wbytes; /* weight tensor bytes (0: none) */
	uint64_t ns;	/* forward time */
	int64_t temp;	/* forward workspace */
} fwd_rec;

typedef struct gen {
	dp_graph *g;
	dp_err *err;
	uint64_t rs[4]; /* xoshiro256** state */
	fwd_rec *f;
	uint32_t nf, fcap;
	uint32_t *rec_of; /* op id -> index in f, or NONE */
	uint32_t target;
	char scope[64];
	char name[160], buf[192], layer[96];
} gen;

/* ---- PRNG: xoshiro256** seeded by splitmix64 (Blackman & Vigna) ---- */

static uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

static uint64_t rng_next(gen *s)
{
	uint64_t *q = s->rs;
	uint64_t r = rotl(q[1] * 5, 7) * 9, t = q[1] << 17;
	q[2] ^= q[0];
	q[3] ^= q[1];
	q[1] ^= q[2];
	q[0] ^= q[3];
	q[2] ^= t;
	q[3] = rotl(q[3], 45);
	return r;
}

/* Uniform in 0..n-1 (n small: the modulo bias is irrelevant here). */
static uint32_t rng_below(gen *s, uint32_t n)
{
	return (uint32_t)((rng_next(s) >> 11) % n);
}

/* Kernel time: the slower of compute and memory traffic, jittered. */
static uint64_t kernel_ns(gen *s, uint64_t flops, uint64_t bytes)
{
	uint64_t t = flops / FLOP_PER_NS, tb = bytes / BYTES_PER_NS;
	if (tb > t)
		t = tb;
	t = t * (900 + rng_below(s, 201)) / 1000;
	return t < MIN_KERNEL_NS ? MIN_KERNEL_NS : t;
}

/* ---- building ops ---- */

static dp_status add_op(gen *s, const char *name, const char *type,
			const char *layer, uint64_t ns, int64_t out,
			int64_t param, int64_t temp, uint32_t *id)
{
	dp_status st = graph_add_op(s->g, name, id, s->err);
	if (!st)
		st = graph_set_type(s->g, *id, type, s->err);
	if (!st)
		st = graph_set_layer(s->g, *id, layer, s->err);
	if (st)
		return st;
	dp_op *op = &s->g->ops[*id];
	op->time_us = (double)ns / 1000.0;
	op->output_bytes = out;
	op->param_bytes = param;
	op->temp_bytes = temp;
	return DP_OK;
}

/* Adds forward op SCOPE/suffix of the given kind reading in[0..nin) and,
 * when wbytes > 0, a variable op SCOPE/suffix/w of that tensor size. */
static dp_status fwd(gen *s, const char *suffix, int kind, const uint32_t *in,
		     int nin, int64_t out, uint64_t ns, int64_t temp,
		     int64_t wbytes, uint32_t *id)
{
	dp_status st;
	uint32_t w = NONE, inputs[MAXIN];
	/* copied first: id may point into in (x = f(x)) */
	for (int i = 0; i < nin; i++)
		inputs[i] = in[i];
	in = inputs;
	snprintf(s->name, sizeof s->name, "%s/%s", s->scope, suffix);
	if (wbytes > 0) {
		/* weights + Adam's first and second moments stay resident */
		snprintf(s->buf, sizeof s->buf, "%s/w", s->name);
		if ((st = add_op(s, s->buf, "VariableV2", s->scope, VAR_READ_NS,
				 wbytes, 3 * wbytes, 0, &w)) ||
		    (st = graph_set_colocate(s->g, w, s->buf, s->err)))
			return st;
	}
	if ((st = add_op(s, s->name, kinds[kind].type, s->scope, ns, out, 0,
			 temp, id)))
		return st;
	for (int i = 0; i < nin; i++)
		if ((st = graph_add_edge(s->g, in[i], *id, -1, false, s->err)))
			return st;
	if (w != NONE && (st = graph_add_edge(s->g, w, *id, -1, false, s->err)))
		return st;
	if (s->nf == s->fcap) {
		uint32_t nc = s->fcap ? s->fcap * 2 : 1024;
		fwd_rec *q = realloc(s->f, (size_t)nc * sizeof *q);
		if (!q)
			return dp_err_set(s->err, DP_ENOMEM, NULL, 0, 0,
					  "out of memory generating %u ops",
					  s->target);
		s->f = q;
		s->fcap = nc;
	}
	fwd_rec *r = &s->f[s->nf];
	memset(r, 0, sizeof *r);
	r->op = *id;
	r->weight = w;
	r->grad = NONE;
	r->nin = (uint8_t)nin;
	memcpy(r->in, in, (size_t)nin * sizeof *in);
	r->kind = (uint8_t)kind;
	r->wbytes = wbytes;
	r->ns = ns;
	r->temp = temp;
	s->rec_of[*id] = s->nf++;
	return DP_OK;
}

static dp_status conv(gen *s, const char *suffix, uint32_t x, shape in,
		      shape out, uint32_t k, uint32_t *id)
{
	int64_t w = (int64_t)k * k * in.c * out.c * 4;
	uint64_t flops = 2ull * k * k * in.c * out.c * out.h * out.h * BATCH;
	uint64_t bytes = (uint64_t)(act_bytes(in) + act_bytes(out) + w);
	/* cuDNN's workspace: half the output, capped at 64 MiB */
	int64_t temp = act_bytes(out) / 2;
	if (temp > ((int64_t)64 << 20))
		temp = (int64_t)64 << 20;
	return fwd(s, suffix, K_CONV, &x, 1, act_bytes(out),
		   kernel_ns(s, flops, bytes), temp, w, id);
}

/* Element-wise ops: BN (with gamma/beta), ReLU, dropout. */
static dp_status eltwise(gen *s, const char *suffix, int kind, uint32_t x,
			 shape sh, uint32_t *id)
{
	int64_t b = act_bytes(sh);
	int64_t w = kind == K_BN ? (int64_t)2 * sh.c * 4 : 0;
	uint64_t passes = kind == K_BN ? 3 : 2;
	uint64_t flops = (kind == K_BN ? 8ull : 1ull) * (uint64_t)b / 4;
	return fwd(s, suffix, kind, &x, 1, b,
		   kernel_ns(s, flops, passes * (uint64_t)b), 0, w, id);
}

static dp_status join(gen *s, const char *suffix, int kind, const uint32_t *in,
		      int nin, shape out, uint32_t *id)
{
	int64_t b = act_bytes(out);
	uint64_t traffic = (uint64_t)b * (kind == K_ADD ? 3 : 2);
	return fwd(s, suffix, kind, in, nin, b,
		   kernel_ns(s, (uint64_t)b / 4, traffic), 0, 0, id);
}

static dp_status maxpool(gen *s, const char *suffix, uint32_t x, shape in,
			 shape out, uint32_t *id)
{
	uint64_t traffic = (uint64_t)(act_bytes(in) + act_bytes(out));
	return fwd(s, suffix, K_MAXPOOL, &x, 1, act_bytes(out),
		   kernel_ns(s, 9ull * (uint64_t)act_bytes(out) / 4, traffic),
		   0, 0, id);
}

/* ---- blocks ---- */

/* conv-BN-ReLU-conv-BN + skip (projected when the shape changes), ReLU:
 * 22 ops, 30 with the projection. */
static dp_status residual(gen *s, uint32_t x, shape in, shape out, uint32_t *y)
{
	uint32_t c1, b1, r1, c2, b2, skip = x, p, a[2];
	dp_status st;
	if ((st = conv(s, "conv1", x, in, out, 3, &c1)) ||
	    (st = eltwise(s, "bn1", K_BN, c1, out, &b1)) ||
	    (st = eltwise(s, "relu1", K_RELU, b1, out, &r1)) ||
	    (st = conv(s, "conv2", r1, out, out, 3, &c2)) ||
	    (st = eltwise(s, "bn2", K_BN, c2, out, &b2)))
		return st;
	if (in.c != out.c || in.h != out.h) {
		if ((st = conv(s, "proj", x, in, out, 1, &p)) ||
		    (st = eltwise(s, "proj_bn", K_BN, p, out, &skip)))
			return st;
	}
	a[0] = b2;
	a[1] = skip;
	if ((st = join(s, "add", K_ADD, a, 2, out, &p)))
		return st;
	return eltwise(s, "relu2", K_RELU, p, out, y);
}

static uint32_t residual_cost(shape in, shape out)
{
	return in.c != out.c || in.h != out.h ? 30 : 22;
}

typedef struct incep {
	uint32_t nb;
	uint32_t depth[MAXIN];
	bool pool[MAXIN]; /* branch starts with a 3x3 max pool */
} incep;

static uint32_t incep_cost(const incep *ic)
{
	uint32_t c = 2;
	for (uint32_t b = 0; b < ic->nb; b++)
		c += ic->depth[b] * 6 + (ic->pool[b] ? 2 : 0);
	return c;
}

static void incep_draw(gen *s, incep *ic)
{
	ic->nb = 2 + rng_below(s, 3);
	for (uint32_t b = 0; b < ic->nb; b++) {
		ic->depth[b] = 1 + rng_below(s, 3);
		ic->pool[b] =
			b == ic->nb - 1 && ic->nb >= 3 && rng_below(s, 2) == 0;
	}
}

/* Branches of 1x1 then 3x3 conv+ReLU on a split of the channels, joined by
 * a concat back to sh.c channels. */
static dp_status inception(gen *s, const incep *ic, uint32_t x, shape sh,
			   uint32_t *y)
{
	uint32_t outs[MAXIN], cb = sh.c / ic->nb;
	dp_status st;
	char suf[32];
	for (uint32_t b = 0; b < ic->nb; b++) {
		shape bin = sh,
		      bout = {b + 1 == ic->nb ? sh.c - cb * (ic->nb - 1) : cb,
			      sh.h};
		uint32_t cur = x;
		if (ic->pool[b]) {
			snprintf(suf, sizeof suf, "br%u/pool", b);
			if ((st = maxpool(s, suf, cur, sh, sh, &cur)))
				return st;
		}
		for (uint32_t d = 0; d < ic->depth[b]; d++) {
			snprintf(suf, sizeof suf, "br%u/conv%u", b, d);
			if ((st = conv(s, suf, cur, bin, bout, d ? 3 : 1,
				       &cur)))
				return st;
			snprintf(suf, sizeof suf, "br%u/relu%u", b, d);
			if ((st = eltwise(s, suf, K_RELU, cur, bout, &cur)))
				return st;
			bin = bout;
		}
		outs[b] = cur;
	}
	return join(s, "concat", K_CONCAT, outs, (int)ic->nb, sh, y);
}

/* ---- the forward pass ---- */

static dp_status forward(gen *s, uint32_t *logits, uint32_t *labels)
{
	dp_status st;
	uint32_t images, x, y, in2[2];
	shape img = {3, 224}, sh = {64, 112}, cur = {64, 56};

	/* data: the input pipeline hands over a batch */
	snprintf(s->scope, sizeof s->scope, "data");
	if ((st = fwd(s, "images", K_DATA, NULL, 0, act_bytes(img), 100000, 0,
		      0, &images)) ||
	    (st = fwd(s, "labels", K_DATA, NULL, 0, (int64_t)BATCH * 4, 10000,
		      0, 0, labels)))
		return st;

	snprintf(s->scope, sizeof s->scope, "stem");
	if ((st = conv(s, "conv", images, img, sh, 7, &x)) ||
	    (st = eltwise(s, "bn", K_BN, x, sh, &x)) ||
	    (st = eltwise(s, "relu", K_RELU, x, sh, &x)) ||
	    (st = maxpool(s, "pool", x, sh, cur, &x)))
		return st;

	uint32_t body = s->target - FIXED_OPS;
	bool metric = body % 2 == 1;
	if (metric)
		body--;
	static const uint32_t cum[5] = {0, 3, 7, 13, 16};
	uint32_t used = 0, blk = 0;
	for (uint32_t st_i = 0; st_i < 4; st_i++) {
		uint32_t end = (uint32_t)((uint64_t)body * cum[st_i + 1] / 16);
		shape want = {64u << st_i, 56u >> st_i};
		for (;;) {
			bool reshape = cur.c != want.c || cur.h != want.h;
			bool res = reshape || rng_below(s, 100) < 55;
			incep ic;
			uint32_t cost;
			if (res) {
				cost = residual_cost(cur, want);
			} else {
				incep_draw(s, &ic);
				cost = incep_cost(&ic);
			}
			if (used + cost > end)
				break;
			snprintf(s->scope, sizeof s->scope, "s%u/b%u", st_i + 1,
				 blk++);
			st = res ? residual(s, x, cur, want, &y)
				 : inception(s, &ic, x, cur, &y);
			if (st)
				return st;
			x = y;
			cur = want;
			used += cost;
		}
	}
	/* what the drawn blocks left: the smallest blocks, then dropout */
	incep small = {2, {1, 1, 0, 0}, {false, false, false, false}};
	while (used + MIN_BLOCK_OPS <= body) {
		snprintf(s->scope, sizeof s->scope, "s4/b%u", blk++);
		if ((st = inception(s, &small, x, cur, &x)))
			return st;
		used += MIN_BLOCK_OPS;
	}
	snprintf(s->scope, sizeof s->scope, "s4/tail");
	for (uint32_t i = 0; used + 2 <= body; i++, used += 2) {
		char suf[32];
		snprintf(suf, sizeof suf, "dropout%u", i);
		if ((st = eltwise(s, suf, K_DROPOUT, x, cur, &x)))
			return st;
	}

	snprintf(s->scope, sizeof s->scope, "head");
	shape pooled = {cur.c, 1}, cls = {CLASSES, 1};
	int64_t fcw = (int64_t)cur.c * CLASSES * 4 + CLASSES * 4;
	if ((st = fwd(s, "mean", K_MEAN, &x, 1, act_bytes(pooled),
		      kernel_ns(s, (uint64_t)act_bytes(cur) / 4,
				(uint64_t)act_bytes(cur)),
		      0, 0, &x)) ||
	    (st = fwd(s, "fc", K_MATMUL, &x, 1, act_bytes(cls),
		      kernel_ns(s, 2ull * BATCH * cur.c * CLASSES,
				(uint64_t)fcw),
		      0, fcw, logits)))
		return st;
	in2[0] = *logits;
	in2[1] = *labels;
	if ((st = fwd(s, "loss", K_LOSS, in2, 2, 4,
		      kernel_ns(s, 8ull * BATCH * CLASSES,
				(uint64_t)act_bytes(cls)),
		      0, 0, &y)))
		return st;
	if (metric)
		st = fwd(s, "accuracy", K_METRIC, in2, 2, (int64_t)BATCH,
			 MIN_KERNEL_NS, 0, 0, &y);
	return st;
}

/* ---- the backward pass and the updates ---- */

static bool has_grad(const gen *s, uint32_t op)
{
	uint32_t r = s->rec_of[op];
	return r != NONE && kinds[s->f[r].kind].grad_type;
}

static dp_status backward(gen *s)
{
	dp_graph *g = s->g;
	dp_status st;
	/* gradient ops in reverse forward order, each followed by the update
	 * of its variable */
	for (uint32_t i = s->nf; i-- > 0;) {
		fwd_rec *r = &s->f[i];
		const struct kind_info *ki = &kinds[r->kind];
		if (!ki->grad_type)
			continue;
		int64_t out = r->wbytes;
		for (int j = 0; j < r->nin; j++)
			if (has_grad(s, r->in[j]))
				out += g->ops[r->in[j]].output_bytes;
		snprintf(s->name, sizeof s->name, "grad/%s",
			 graph_op_name(g, r->op));
		snprintf(s->layer, sizeof s->layer, "grad/%s",
			 graph_str(g, g->ops[r->op].layer));
		uint64_t ns = r->ns * ki->grad_x2 / 2;
		int64_t temp = r->kind == K_CONV ? 2 * r->temp : 0;
		uint32_t gid;
		if ((st = add_op(s, s->name, ki->grad_type, s->layer, ns, out,
				 0, temp, &gid)))
			return st;
		r = &s->f[i];
		r->grad = gid;
		/* saved activations: forward -> backward edges */
		if (ki->save_in)
			for (int j = 0; j < r->nin; j++)
				if ((st = graph_add_edge(g, r->in[j], gid, -1,
							 false, s->err)))
					return st;
		if (ki->save_out &&
		    (st = graph_add_edge(g, r->op, gid, -1, false, s->err)))
			return st;
		if (r->weight == NONE)
			continue;
		if ((st = graph_add_edge(g, r->weight, gid, -1, false, s->err)))
			return st;
		const char *wname = graph_op_name(g, r->weight);
		snprintf(s->name, sizeof s->name, "update/%s", wname);
		snprintf(s->buf, sizeof s->buf, "%s", wname);
		snprintf(s->layer, sizeof s->layer, "update/%s",
			 graph_str(g, g->ops[r->op].layer));
		/* Adam reads w, g, m, v and writes w, m, v */
		uint64_t uns = (uint64_t)(7 * r->wbytes) / BYTES_PER_NS;
		uint32_t uid;
		if ((st = add_op(s, s->name, "ApplyAdam", s->layer,
				 uns < MIN_KERNEL_NS ? MIN_KERNEL_NS : uns, 0,
				 0, 0, &uid)) ||
		    (st = graph_set_colocate(g, uid, s->buf, s->err)) ||
		    (st = graph_add_edge(g, gid, uid, r->wbytes, false,
					 s->err)) ||
		    (st = graph_add_edge(g, r->weight, uid, -1, true, s->err)))
			return st;
	}
	/* gradient flow: grad/s -> grad/x for every input x of s, carrying
	 * the gradient of x (x's output size) */
	for (uint32_t i = 0; i < s->nf; i++) {
		const fwd_rec *r = &s->f[i];
		if (r->grad == NONE)
			continue;
		for (int j = 0; j < r->nin; j++) {
			if (!has_grad(s, r->in[j]))
				continue;
			uint32_t gx = s->f[s->rec_of[r->in[j]]].grad;
			if ((st = graph_add_edge(g, r->grad, gx,
						 g->ops[r->in[j]].output_bytes,
						 false, s->err)))
				return st;
		}
	}
	return DP_OK;
}

void gen_opts_default(dp_gen_opts *o)
{
	memset(o, 0, sizeof *o);
	o->ops = 10000;
	o->seed = 1;
}

dp_status gen_graph(const dp_gen_opts *o, dp_graph **out, dp_err *err)
{
	if (o->ops < DP_GEN_MIN_OPS || o->ops > DP_GEN_MAX_OPS)
		return dp_err_set(err, DP_EINPUT, NULL, 0, 0,
				  "cannot generate %u ops: expected an op "
				  "count from %u to %u",
				  o->ops, DP_GEN_MIN_OPS, DP_GEN_MAX_OPS);
	char nm[64];
	if (!o->name)
		snprintf(nm, sizeof nm, "synthetic-%u", o->ops);
	gen s;
	memset(&s, 0, sizeof s);
	s.err = err;
	s.target = o->ops;
	uint64_t seed = o->seed;
	for (int i = 0; i < 4; i++)
		s.rs[i] = splitmix64(&seed);
	s.g = graph_new(o->name ? o->name : nm);
	s.rec_of = malloc((size_t)o->ops * sizeof *s.rec_of);
	if (!s.g || !s.rec_of) {
		graph_free(s.g);
		free(s.rec_of);
		return dp_err_set(err, DP_ENOMEM, NULL, 0, 0,
				  "out of memory generating %u ops", o->ops);
	}
	memset(s.rec_of, 0xff, (size_t)o->ops * sizeof *s.rec_of);
	s.g->hint.devices = o->devices;
	s.g->hint.memory_bytes = o->memory_bytes;

	uint32_t logits, labels;
	dp_status st = forward(&s, &logits, &labels);
	if (!st)
		st = backward(&s);
	if (!st && s.g->nops != o->ops)
		st = dp_err_set(err, DP_EINTERNAL, NULL, 0, 0,
				"generator made %u ops instead of %u",
				s.g->nops, o->ops);
	if (!st)
		st = graph_finalize(s.g, err);
	free(s.f);
	free(s.rec_of);
	if (st) {
		graph_free(s.g);
		return st;
	}
	*out = s.g;
	return DP_OK;
}

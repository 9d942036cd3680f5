/* gen_ops.c - the generator's building blocks (see gen.h, gen.c): its
 * PRNG, the cost model of the reference GPU (gen_impl.h), forward ops with
 * their variables, and residual and inception-like blocks.
 *
 * Every op's time is computed in integer nanoseconds: the slower of FLOPs
 * and memory traffic, with a +-10% jitter from the generator's own PRNG;
 * sizes are the fp32 tensor sizes at the model's batch.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal/gen_impl.h"
#include "internal/grow.h"

const gen_kind_info dpi_gen_kinds[GEN_NKINDS] = {
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

static int64_t add_sat(int64_t a, int64_t b)
{
	return a > INT64_MAX / 2 - b ? INT64_MAX / 2 : a + b;
}

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

/* Seeds xoshiro256** from one 64-bit value through splitmix64, as its
 * authors recommend. */
void dpi_gen_seed(gen *s, uint64_t seed)
{
	for (int i = 0; i < 4; i++)
		s->rs[i] = splitmix64(&seed);
}

/* Uniform in 0..n-1 (n small: the modulo bias is irrelevant here). */
uint32_t dpi_gen_rng_below(gen *s, uint32_t n)
{
	return (uint32_t)((rng_next(s) >> 11) % n);
}

/* Kernel time: the slower of compute and memory traffic, jittered. */
uint64_t dpi_gen_kernel_ns(gen *s, uint64_t flops, uint64_t bytes)
{
	uint64_t t = flops / GEN_FLOP_PER_NS, tb = bytes / GEN_BYTES_PER_NS;
	if (tb > t)
		t = tb;
	t = t * (900 + dpi_gen_rng_below(s, 201)) / 1000;
	return t < GEN_MIN_KERNEL_NS ? GEN_MIN_KERNEL_NS : t;
}

/* ---- building ops ---- */

dp_status dpi_gen_add_op(gen *s, const char *name, const char *type,
			 const char *layer, uint64_t ns, int64_t out,
			 int64_t param, int64_t temp, uint32_t *id)
{
	dp_status st = dp_graph_add_op(s->g, name, id, s->err);
	if (!st)
		st = dp_graph_set_type(s->g, *id, type, s->err);
	if (!st)
		st = dp_graph_set_layer(s->g, *id, layer, s->err);
	if (st)
		return st;
	dp_op *op = &s->g->ops[*id];
	op->time_us = (double)ns / 1000.0;
	op->output_bytes = out;
	op->param_bytes = param;
	op->temp_bytes = temp;
	return DP_OK;
}

static dp_status no_memory(gen *s)
{
	return dp_err_set(s->err, DP_ENOMEM, NULL, 0, 0,
			  "out of memory generating %u ops", s->target);
}

/* Remembers forward op id (for its gradient), reading in[0..nin). */
static dp_status remember(gen *s, uint32_t id, uint32_t w, int kind,
			  const uint32_t *in, int nin, uint32_t e0,
			  int64_t wbytes, uint64_t ns, int64_t temp)
{
	if (dpi_grow((void **)&s->f, &s->fcap, s->nf + 1, sizeof *s->f, 1024) ||
	    dpi_grow((void **)&s->ins, &s->inscap, (uint64_t)s->nins + nin,
		     sizeof *s->ins, 2048))
		return no_memory(s);
	gen_fwd_rec *r = &s->f[s->nf];
	memset(r, 0, sizeof *r);
	r->op = id;
	r->weight = w;
	r->grad = GEN_NONE;
	r->in0 = s->nins;
	r->e0 = e0;
	r->nin = (uint8_t)nin;
	if (nin > 0) /* data ops have none, and ins may not exist yet */
		memcpy(s->ins + s->nins, in, (size_t)nin * sizeof *in);
	s->nins += (uint32_t)nin;
	r->kind = (uint8_t)kind;
	r->wbytes = wbytes;
	r->ns = ns;
	r->temp = temp;
	s->rec_of[id] = s->nf++;
	return DP_OK;
}

/* A dry run's forward op: adds its sizes to s->dry (see gen_sizes). */
static void dry_fwd(gen *s, int kind, const uint32_t *in, int nin, int64_t out,
		    int64_t wbytes, uint32_t *id)
{
	const gen_kind_info *ki = &dpi_gen_kinds[kind];
	gen_scratch *d = s->scratch;
	int64_t in_grads = 0;
	for (int i = 0; i < nin; i++) {
		uint32_t x = in[i];
		if (d->flags[x] & GEN_HAS_GRAD)
			in_grads = add_sat(in_grads, d->size[x]);
		if (ki->grad_type && ki->save_in &&
		    !(d->flags[x] & GEN_SAVED)) {
			d->flags[x] |= GEN_SAVED;
			s->dry.saved = add_sat(s->dry.saved, d->size[x]);
		}
	}
	/* in range: each forward op is one of the target's ops, and the
	 * scratch holds one entry per op */
	*id = s->dry_id++;
	d->size[*id] = out;
	d->flags[*id] = ki->grad_type ? GEN_HAS_GRAD : 0;
	if (ki->grad_type && ki->save_out) {
		d->flags[*id] |= GEN_SAVED;
		s->dry.saved = add_sat(s->dry.saved, out);
	}
	s->dry.weight = add_sat(s->dry.weight, wbytes);
	s->dry.act = add_sat(s->dry.act, out);
	if (ki->grad_type && wbytes > 0)
		s->dry.held = add_sat(s->dry.held, add_sat(wbytes, in_grads));
}

/* Adds forward op SCOPE/suffix of the given kind reading in[0..nin) and,
 * when wbytes > 0, a variable op SCOPE/suffix/w of that tensor size. A dry
 * run only adds up the sizes and hands out made-up ids. */
dp_status dpi_gen_fwd(gen *s, const char *suffix, int kind, const uint32_t *in,
		      int nin, int64_t out, uint64_t ns, int64_t temp,
		      int64_t wbytes, gen_geom geo, uint32_t *id)
{
	dp_status st;
	uint32_t w = GEN_NONE, inputs[DP_GEN_MAX_TOWERS];
	if (!s->g) {
		dry_fwd(s, kind, in, nin, out, wbytes, id);
		return DP_OK;
	}
	/* copied first: id may point into in (x = f(x)) */
	for (int i = 0; i < nin; i++)
		inputs[i] = in[i];
	in = inputs;
	snprintf(s->name, sizeof s->name, "%s/%s", s->scope, suffix);
	if (wbytes > 0) {
		/* weights + Adam's first and second moments stay resident */
		snprintf(s->buf, sizeof s->buf, "%s/w", s->name);
		if ((st = dpi_gen_add_op(s, s->buf, "VariableV2", s->scope,
					 GEN_VAR_READ_NS, wbytes, 3 * wbytes, 0,
					 &w)) ||
		    (st = dp_graph_set_colocate(s->g, w, s->buf, s->err)))
			return st;
	}
	if ((st = dpi_gen_add_op(s, s->name, dpi_gen_kinds[kind].type, s->scope,
				 ns, out, 0, temp, id)))
		return st;
	uint32_t e0 = s->g->nedges;
	for (int i = 0; i < nin; i++)
		if ((st = dp_graph_add_edge(s->g, in[i], *id, -1, false,
					    s->err)))
			return st;
	if (w != GEN_NONE &&
	    (st = dp_graph_add_edge(s->g, w, *id, -1, false, s->err)))
		return st;
	if ((st = dpi_gen_fwd_dims(s, *id, kind, in, nin, w, e0, &geo)))
		return st;
	return remember(s, *id, w, kind, in, nin, e0, wbytes, ns, temp);
}

dp_status dpi_gen_conv(gen *s, const char *suffix, uint32_t x, gen_shape in,
		       gen_shape out, uint32_t k, uint32_t *id)
{
	int64_t w = (int64_t)k * k * in.c * out.c * 4;
	uint64_t flops = 2ull * k * k * in.c * out.c * out.h * out.h * s->batch;
	uint64_t bytes =
		(uint64_t)(gen_act_bytes(s, in) + gen_act_bytes(s, out) + w);
	/* cuDNN's workspace: half the output, capped at 64 MiB */
	int64_t temp = gen_act_bytes(s, out) / 2;
	if (temp > ((int64_t)64 << 20))
		temp = (int64_t)64 << 20;
	return dpi_gen_fwd(s, suffix, K_CONV, &x, 1, gen_act_bytes(s, out),
			   dpi_gen_kernel_ns(s, flops, bytes), temp, w,
			   (gen_geom){out, k}, id);
}

/* Element-wise ops: BN (with gamma/beta), ReLU, dropout. */
dp_status dpi_gen_eltwise(gen *s, const char *suffix, int kind, uint32_t x,
			  gen_shape sh, uint32_t *id)
{
	int64_t b = gen_act_bytes(s, sh);
	int64_t w = kind == K_BN ? (int64_t)2 * sh.c * 4 : 0;
	uint64_t passes = kind == K_BN ? 3 : 2;
	uint64_t flops = (kind == K_BN ? 8ull : 1ull) * (uint64_t)b / 4;
	return dpi_gen_fwd(s, suffix, kind, &x, 1, b,
			   dpi_gen_kernel_ns(s, flops, passes * (uint64_t)b), 0,
			   w, (gen_geom){sh, 0}, id);
}

dp_status dpi_gen_join(gen *s, const char *suffix, int kind, const uint32_t *in,
		       int nin, gen_shape out, uint32_t *id)
{
	int64_t b = gen_act_bytes(s, out);
	uint64_t traffic = (uint64_t)b * (kind == K_ADD ? 3 : 2);
	return dpi_gen_fwd(s, suffix, kind, in, nin, b,
			   dpi_gen_kernel_ns(s, (uint64_t)b / 4, traffic), 0, 0,
			   (gen_geom){out, 0}, id);
}

dp_status dpi_gen_maxpool(gen *s, const char *suffix, uint32_t x, gen_shape in,
			  gen_shape out, uint32_t *id)
{
	uint64_t traffic =
		(uint64_t)(gen_act_bytes(s, in) + gen_act_bytes(s, out));
	return dpi_gen_fwd(
		s, suffix, K_MAXPOOL, &x, 1, gen_act_bytes(s, out),
		dpi_gen_kernel_ns(s, 9ull * (uint64_t)gen_act_bytes(s, out) / 4,
				  traffic),
		0, 0, (gen_geom){out, 3}, id);
}

/* ---- blocks ---- */

/* dpi_gen_conv-BN-ReLU-dpi_gen_conv-BN + skip, ReLU: 22 ops. Where the gen_shape changes the
 * skip is projected by a 1x1 dpi_gen_conv + BN (30 ops), which reads skip_src:
 * the block's own input, or a neighbouring tower's. */
dp_status dpi_gen_residual(gen *s, uint32_t x, uint32_t skip_src, gen_shape in,
			   gen_shape out, uint32_t *y)
{
	uint32_t c1, b1, r1, c2, b2, skip = x, p, a[2];
	dp_status st;
	if ((st = dpi_gen_conv(s, "conv1", x, in, out, 3, &c1)) ||
	    (st = dpi_gen_eltwise(s, "bn1", K_BN, c1, out, &b1)) ||
	    (st = dpi_gen_eltwise(s, "relu1", K_RELU, b1, out, &r1)) ||
	    (st = dpi_gen_conv(s, "conv2", r1, out, out, 3, &c2)) ||
	    (st = dpi_gen_eltwise(s, "bn2", K_BN, c2, out, &b2)))
		return st;
	if (!gen_same_shape(in, out)) {
		if ((st = dpi_gen_conv(s, "proj", skip_src, in, out, 1, &p)) ||
		    (st = dpi_gen_eltwise(s, "proj_bn", K_BN, p, out, &skip)))
			return st;
	}
	a[0] = b2;
	a[1] = skip;
	if ((st = dpi_gen_join(s, "add", K_ADD, a, 2, out, &p)))
		return st;
	return dpi_gen_eltwise(s, "relu2", K_RELU, p, out, y);
}

uint32_t dpi_gen_residual_cost(gen_shape in, gen_shape out)
{
	return gen_same_shape(in, out) ? 22 : 30;
}

uint32_t dpi_gen_incep_cost(const gen_incep *ic)
{
	uint32_t c = 2;
	for (uint32_t b = 0; b < ic->nb; b++)
		c += ic->depth[b] * 6 + (ic->pool[b] ? 2 : 0);
	return c;
}

void dpi_gen_incep_draw(gen *s, gen_incep *ic)
{
	ic->nb = 2 + dpi_gen_rng_below(s, 3);
	for (uint32_t b = 0; b < ic->nb; b++) {
		ic->depth[b] = 1 + dpi_gen_rng_below(s, 3);
		ic->pool[b] = b == ic->nb - 1 && ic->nb >= 3 &&
			      dpi_gen_rng_below(s, 2) == 0;
	}
}

/* Branches of 1x1 then 3x3 conv+ReLU on a split of the channels, joined by
 * a concat back to sh.c channels. */
dp_status dpi_gen_inception(gen *s, const gen_incep *ic, uint32_t x,
			    gen_shape sh, uint32_t *y)
{
	uint32_t outs[GEN_MAXBR], cb = sh.c / ic->nb;
	dp_status st;
	char suf[32];
	for (uint32_t b = 0; b < ic->nb; b++) {
		gen_shape bin = sh,
			  bout = {b + 1 == ic->nb ? sh.c - cb * (ic->nb - 1)
						  : cb,
				  sh.h};
		uint32_t cur = x;
		if (ic->pool[b]) {
			snprintf(suf, sizeof suf, "br%u/pool", b);
			if ((st = dpi_gen_maxpool(s, suf, cur, sh, sh, &cur)))
				return st;
		}
		for (uint32_t d = 0; d < ic->depth[b]; d++) {
			snprintf(suf, sizeof suf, "br%u/conv%u", b, d);
			if ((st = dpi_gen_conv(s, suf, cur, bin, bout,
					       d ? 3 : 1, &cur)))
				return st;
			snprintf(suf, sizeof suf, "br%u/relu%u", b, d);
			if ((st = dpi_gen_eltwise(s, suf, K_RELU, cur, bout,
						  &cur)))
				return st;
			bin = bout;
		}
		outs[b] = cur;
	}
	return dpi_gen_join(s, "concat", K_CONCAT, outs, (int)ic->nb, sh, y);
}

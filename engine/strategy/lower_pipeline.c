/* lower_pipeline.c - lowering of pipeline strategies
 * (docs/pipeline.md): micro-batch copies, gradient accumulation and the
 * schedule's order as control edges, for the one simulator to price.
 *
 * Every op of the forward or backward kind (internal/pipeline.h) becomes
 * M copies `name@m<i>` on its stage's device; param and update ops stay one
 * op. A micro-batched op that feeds an op running once has its M outputs
 * summed by a chain `name/acc@m1` .. `name/acc@m<M-1>` (acc@m1 = copy 0 +
 * copy 1, acc@m<i> = acc@m<i-1> + copy i): the running sum stays live
 * across micro-batches, which is the memory a gradient accumulation
 * really costs; the adds take no time (fused into the gradient kernels, as
 * Megatron's gradient accumulation fusion does).
 *
 * A block is the copies (and accumulations) of one micro-batch of one
 * stage's forward, or backward, ops. Each stage runs its blocks in the
 * schedule's order; "block j before the next" is a chain of control edges
 * through block j's sinks (in op order) and one control edge from its last
 * sink to each source of the next block: linear in size, and free on one
 * device (a control edge there arrives when its producer ends).
 */
#include "internal/nomem.h"
#include "internal/poll.h"
#include "internal/arrays.h"
#include "internal/lower.h"
#include "internal/pipeline.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct lctx {
	const dp_graph *ug;  /* the user's graph */
	const dp_graph *g;   /* the graph pipelined: ug, or its spmd lowering */
	const uint32_t *src; /* g's op -> ug's op; NULL: the same */
	const int32_t *sub;  /* g's op -> its device in its stage's group */
	int G;		     /* devices of a group (1 without sub) */
	const dp_strategy *s;
	const dp_progress *p;
	dp_err *err;
	dpi_lower_buf b;
	int S, M;
	const uint8_t *kind; /* g's op -> dpi_pipe_kind */
	uint32_t total;	     /* lowered ops */
	uint32_t *base;	     /* user's op -> its first lowered op */
	uint32_t *acc;	     /* user's op -> its acc@m1, or 0: none */
	int32_t *blk;	     /* lowered op -> its block, -1: none */
	uint8_t *inner;	   /* lowered op: 1 has a pred in its block, 2 a succ */
	uint32_t *blk_off; /* nblocks + 1 */
	uint32_t *srcs, *sinks;
	uint32_t *src_off, *sink_off;
	char *name;
	size_t name_cap;
} lctx;

static uint32_t src_of(const lctx *c, uint32_t x)
{
	return c->src ? c->src[x] : x;
}

static int sub_of(const lctx *c, uint32_t x)
{
	return c->sub ? c->sub[x] : 0;
}

static int32_t op_device(const lctx *c, uint32_t x)
{
	int32_t stage = c->s->pipe.stage[src_of(c, x)];
	return c->s->pipe.group[c->s->pipe.group_off[stage] + sub_of(c, x)];
}

/* Blocks are kept apart per device of a group: each runs its own order. */
static int32_t block_of(const lctx *c, uint32_t u, int micro)
{
	int phase = c->kind[u] == DPI_PIPE_BWD;
	int32_t stage = c->s->pipe.stage[src_of(c, u)];
	return ((stage * 2 + phase) * c->M + micro) * c->G + sub_of(c, u);
}

/* Appends prefix and the decimal v (>= 0) at dst; returns the length. */
static size_t put_num(char *dst, const char *prefix, int v)
{
	size_t k = strlen(prefix);
	memcpy(dst, prefix, k);
	char d[16];
	int n = 0;
	do
		d[n++] = (char)('0' + v % 10);
	while ((v /= 10) > 0 && n < 15);
	while (n > 0)
		dst[k++] = d[--n];
	return k;
}

/* The lowered name of g's op x: its name + tag + "@m<micro>" (micro >= 0);
 * over an spmd lowering, its name without the mesh device "#d<i>", then
 * the real device: "fc1" + "/acc" + "@m2" + "#d5". Built by hand: it runs
 * once per lowered op (name_cap has room for the tag and two numbers). */
static void name_op(lctx *c, uint32_t x, const char *tag, int micro)
{
	const char *n = dp_graph_op_name(c->g, x);
	size_t len = strlen(n), tl = strlen(tag);
	if (c->src) {
		const char *h = strrchr(n, '#');
		if (h && h[1] == 'd')
			len = (size_t)(h - n);
	}
	memcpy(c->name, n, len);
	memcpy(c->name + len, tag, tl);
	size_t k = len + tl;
	if (micro >= 0)
		k += put_num(c->name + k, "@m", micro);
	if (c->src)
		k += put_num(c->name + k, "#d", (int)op_device(c, x));
	c->name[k] = '\0';
}

static dp_status edge(lctx *c, uint32_t from, uint32_t to, int64_t bytes,
		      bool control)
{
	if (c->blk[from] >= 0 && c->blk[from] == c->blk[to]) {
		c->inner[from] |= 2;
		c->inner[to] |= 1;
	}
	return dpi_lower_edge(&c->b, from, to, bytes, control, c->err);
}

static bool feeds_once(const dp_graph *g, const uint8_t *kind, uint32_t u)
{
	for (uint32_t j = g->succ_off[u]; j < g->succ_off[u + 1]; j++) {
		const dp_edge *e = &g->edges[g->succ_edge[j]];
		if (!e->control && kind[e->to] == DPI_PIPE_ONCE)
			return true;
	}
	return false;
}

static dp_status add_op(lctx *c, uint32_t u, int micro, const char *tag,
			const dpi_lower_op *lo)
{
	name_op(c, u, tag, micro);
	uint32_t id;
	dp_status st = dpi_lower_add(&c->b, c->name, lo, &id, c->err);
	if (!st)
		c->blk[id] = micro >= 0 ? block_of(c, u, micro) : -1;
	return st;
}

/* u's lowered ops, and the accumulation chain's edges. */
static dp_status lower_op(lctx *c, uint32_t u)
{
	const dp_op *o = &c->g->ops[u];
	dpi_lower_op lo = dpi_lower_op_of(c->g, u, op_device(c, u));
	lo.source = src_of(c, u);
	c->base[u] = c->b.g->nops;
	if (c->kind[u] == DPI_PIPE_ONCE) {
		name_op(c, u, "", -1);
		uint32_t id;
		dp_status st = dpi_lower_add(&c->b, c->name, &lo, &id, c->err);
		if (!st)
			c->blk[id] = -1;
		return st;
	}
	int M = c->M;
	bool tsplit, osplit;
	dpi_pipe_scaling(c->ug, src_of(c, u), &tsplit, &osplit);
	dp_status st = DP_OK;
	for (int i = 0; !st && i < M; i++) {
		lo.micro = i;
		lo.time_us = tsplit ? o->time_us / M : o->time_us;
		lo.output_bytes = osplit ? dpi_pipe_share(o->output_bytes, M, i)
					 : o->output_bytes;
		lo.temp_bytes = tsplit ? dpi_pipe_share(o->temp_bytes, M, i)
				       : o->temp_bytes;
		lo.param_bytes = i == 0 ? o->param_bytes : 0;
		st = add_op(c, u, i, "", &lo);
	}
	if (st || c->acc[u] == 0)
		return st;
	c->acc[u] = c->b.g->nops;
	lo.time_us = 0;
	lo.output_bytes = o->output_bytes;
	lo.param_bytes = 0;
	lo.temp_bytes = 0;
	for (int i = 1; !st && i < M; i++) {
		lo.micro = i;
		st = add_op(c, u, i, "/acc", &lo);
	}
	const dp_graph *lg = c->b.g;
	for (int i = 1; !st && i < M; i++) {
		uint32_t a = c->acc[u] + (uint32_t)i - 1;
		uint32_t prev = i == 1 ? c->base[u] : a - 1;
		uint32_t copy = c->base[u] + (uint32_t)i;
		st = edge(c, prev, a, lg->ops[prev].output_bytes, false);
		if (!st)
			st = edge(c, copy, a, lg->ops[copy].output_bytes,
				  false);
	}
	return st;
}

static dp_status lower_edge(lctx *c, const dp_edge *e)
{
	uint32_t u = e->from, v = e->to;
	bool ou = c->kind[u] == DPI_PIPE_ONCE;
	bool ov = c->kind[v] == DPI_PIPE_ONCE;
	int M = c->M;
	dp_status st = DP_OK;
	if (ou && ov)
		return edge(c, c->base[u], c->base[v], e->bytes, e->control);
	if (ou) {
		for (int i = 0; !st && i < M; i++)
			st = edge(c, c->base[u], c->base[v] + (uint32_t)i,
				  e->bytes, e->control);
		return st;
	}
	if (ov) {
		if (!e->control) {
			uint32_t last = M > 1 ? c->acc[u] + (uint32_t)M - 2
					      : c->base[u];
			return edge(c, last, c->base[v], e->bytes, false);
		}
		for (int i = 0; !st && i < M; i++)
			st = edge(c, c->base[u] + (uint32_t)i, c->base[v], 0,
				  true);
		return st;
	}
	bool tsplit, osplit;
	dpi_pipe_scaling(c->ug, src_of(c, u), &tsplit, &osplit);
	for (int i = 0; !st && i < M; i++) {
		int64_t bytes =
			osplit ? dpi_pipe_share(e->bytes, M, i) : e->bytes;
		st = edge(c, c->base[u] + (uint32_t)i, c->base[v] + (uint32_t)i,
			  e->control ? 0 : bytes, e->control);
	}
	return st;
}

/* Sources and sinks of every block, in op order. */
static dp_status collect_ends(lctx *c, uint32_t nblocks)
{
	uint32_t n = c->b.g->nops;
	c->src_off = calloc((size_t)nblocks + 1, sizeof *c->src_off);
	c->sink_off = calloc((size_t)nblocks + 1, sizeof *c->sink_off);
	if (!c->src_off || !c->sink_off)
		return dpi_nomem(c->err, "lowering a pipeline");
	uint32_t ns = 0, nk = 0;
	for (uint32_t x = 0; x < n; x++) {
		if (c->blk[x] < 0)
			continue;
		if (!(c->inner[x] & 1)) {
			c->src_off[c->blk[x] + 1]++;
			ns++;
		}
		if (!(c->inner[x] & 2)) {
			c->sink_off[c->blk[x] + 1]++;
			nk++;
		}
	}
	for (uint32_t k = 0; k < nblocks; k++) {
		c->src_off[k + 1] += c->src_off[k];
		c->sink_off[k + 1] += c->sink_off[k];
	}
	c->srcs = malloc((size_t)(ns ? ns : 1) * sizeof *c->srcs);
	c->sinks = malloc((size_t)(nk ? nk : 1) * sizeof *c->sinks);
	uint32_t *fs = malloc((size_t)nblocks * 2 * sizeof *fs);
	if (!c->srcs || !c->sinks || !fs) {
		free(fs);
		return dpi_nomem(c->err, "lowering a pipeline");
	}
	memcpy(fs, c->src_off, (size_t)nblocks * sizeof *fs);
	memcpy(fs + nblocks, c->sink_off, (size_t)nblocks * sizeof *fs);
	for (uint32_t x = 0; x < n; x++) {
		int32_t k = c->blk[x];
		if (k < 0)
			continue;
		if (!(c->inner[x] & 1))
			c->srcs[fs[k]++] = x;
		if (!(c->inner[x] & 2))
			c->sinks[fs[nblocks + (uint32_t)k]++] = x;
	}
	free(fs);
	return DP_OK;
}

/* Links block a (before) to block b: a's sinks in a chain, the last to
 * every source of b. */
static dp_status link_blocks(lctx *c, int32_t a, int32_t b)
{
	dp_status st = DP_OK;
	uint32_t k0 = c->sink_off[a], k1 = c->sink_off[a + 1];
	for (uint32_t k = k0; !st && k + 1 < k1; k++)
		st = dpi_lower_edge(&c->b, c->sinks[k], c->sinks[k + 1], 0,
				    true, c->err);
	uint32_t last = c->sinks[k1 - 1];
	for (uint32_t k = c->src_off[b]; !st && k < c->src_off[b + 1]; k++)
		st = dpi_lower_edge(&c->b, last, c->srcs[k], 0, true, c->err);
	return st;
}

/* The i-th block (0 .. 2M-1) that stage s runs: GPipe F0..F(M-1) then
 * B0..B(M-1); 1F1B (PipeDream-flush) w = min(S-s-1, M) warm-up forwards
 * F0..F(w-1), then F(w+i) (while there is one) and B(i) in turn. */
static void schedule_at(dp_schedule sch, int S, int M, int s, int i, int *phase,
			int *micro)
{
	if (sch == DP_SCHED_GPIPE) {
		*phase = i >= M;
		*micro = i % M;
		return;
	}
	int w = S - s - 1 < M ? S - s - 1 : M;
	if (i < w) {
		*phase = 0;
		*micro = i;
		return;
	}
	int r = i - w; /* steady state and cool-down: F(w+j) B(j) pairs */
	int fwd_left = M - w;
	if (r < 2 * fwd_left) {
		*phase = r % 2;
		*micro = r % 2 ? r / 2 : w + r / 2;
		return;
	}
	*phase = 1;
	*micro = fwd_left + (r - 2 * fwd_left);
}

static dp_status order_blocks(lctx *c)
{
	int S = c->S, M = c->M;
	uint32_t nblocks = (uint32_t)S * 2u * (uint32_t)M * (uint32_t)c->G;
	dp_status st = collect_ends(c, nblocks);
	for (int s = 0; !st && s < S; s++) {
		for (int r = 0; !st && r < c->G; r++) {
			int32_t prev = -1;
			for (int i = 0; !st && i < 2 * M; i++) {
				int phase, micro;
				schedule_at(c->s->pipe.schedule, S, M, s, i,
					    &phase, &micro);
				int32_t k =
					((s * 2 + phase) * M + micro) * c->G +
					r;
				if (c->src_off[k] == c->src_off[k + 1])
					continue; /* an empty block */
				if (prev >= 0)
					st = link_blocks(c, prev, k);
				prev = k;
			}
		}
		if (!st)
			st = dpi_poll(c->p, "lowering", "lowering: order",
					   0.9 + 0.1 * (s + 1) / S, c->err);
	}
	return st;
}

static dp_status count_ops(lctx *c)
{
	const dp_graph *g = c->g;
	uint64_t total = 0;
	size_t longest = 0;
	for (uint32_t u = 0; u < g->nops; u++) {
		size_t len = strlen(dp_graph_op_name(g, u));
		longest = len > longest ? len : longest;
		c->acc[u] = 0;
		if (c->kind[u] == DPI_PIPE_ONCE) {
			total++;
			continue;
		}
		total += (uint64_t)c->M;
		if (c->M > 1 && feeds_once(g, c->kind, u)) {
			c->acc[u] = 1; /* set to its id when added */
			total += (uint64_t)c->M - 1;
		}
	}
	if (total > DP_MAX_OPS)
		return dp_err_set(c->err, DP_EINPUT, g->source, 0, 0,
				  "%d micro-batches would make a lowered "
				  "graph of %llu ops; at most %u fit: use "
				  "fewer micro-batches",
				  c->M, (unsigned long long)total, DP_MAX_OPS);
	c->total = (uint32_t)total;
	c->name_cap = longest + 48;
	c->name = malloc(c->name_cap);
	c->blk = malloc((size_t)(total ? total : 1) * sizeof *c->blk);
	c->inner = calloc(total ? total : 1, 1);
	if (!c->name || !c->blk || !c->inner)
		return dpi_nomem(c->err, "lowering a pipeline");
	return DP_OK;
}

static void ctx_free(lctx *c)
{
	DPI_FREE_ALL(c->base, c->acc, c->blk, c->inner, c->srcs, c->sinks,
		     c->src_off, c->sink_off, c->name);
}

dp_status dpi_lower_pipeline_of(const dp_graph *ug, const dp_strategy *s,
				const dpi_pipe_src *ps, const dp_progress *p,
				dp_lowered *out, dp_err *err)
{
	const dp_graph *g = ps->g;
	lctx c = {.ug = ug,
		  .g = g,
		  .src = ps->source,
		  .sub = ps->sub,
		  .G = ps->sub ? ps->group : 1,
		  .kind = ps->kind, /* borrowed: the caller frees it */
		  .s = s,
		  .p = p,
		  .err = err,
		  .S = s->pipe.nstages,
		  .M = s->pipe.microbatches};
	size_t n = g->nops ? g->nops : 1;
	c.base = malloc(n * sizeof *c.base);
	c.acc = malloc(n * sizeof *c.acc);
	dp_status st = c.base && c.acc ? count_ops(&c) : dpi_nomem(err, "lowering a pipeline");
	bool begun = false;
	if (!st) {
		st = dpi_lower_begin(&c.b, ug, c.total, err);
		begun = !st;
	}
	for (uint32_t i = 0; !st && i < g->nops; i++) {
		if ((i & 4095) == 0)
			st = dpi_poll(p, "lowering", "lowering: ops",
					   0.5 * i / g->nops, err);
		if (!st)
			st = lower_op(&c, g->topo[i]);
	}
	for (uint32_t e = 0; !st && e < g->nedges; e++) {
		if ((e & 4095) == 0)
			st = dpi_poll(p, "lowering", "lowering: edges",
					   0.5 + 0.4 * e / g->nedges, err);
		if (!st)
			st = lower_edge(&c, &g->edges[e]);
	}
	if (!st)
		st = order_blocks(&c);
	ctx_free(&c);
	if (st) {
		if (begun)
			dpi_lower_abort(&c.b);
		return st;
	}
	return dpi_lower_finish(&c.b, out, err);
}

dp_status dpi_lower_pipeline(const dp_graph *g, const dp_machine *m,
			     const dp_strategy *s, const dp_progress *p,
			     dp_lowered *out, dp_err *err)
{
	(void)m;
	dpi_pipe_src ps = {.g = g, .kind = dpi_pipe_kinds(g)};
	if (!ps.kind)
		return dpi_nomem(err, "lowering a pipeline");
	dp_status st = dpi_lower_pipeline_of(g, s, &ps, p, out, err);
	free(ps.kind);
	return st;
}

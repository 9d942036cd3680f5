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
#include "internal/arrays.h"
#include "internal/lower.h"
#include "internal/nomem.h"
#include "internal/pipeline.h"
#include "internal/poll.h"

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
	uint8_t *wop;	     /* user's op -> 1: in the W blocks (zb-h1) */
	uint32_t total;	     /* lowered ops */
	uint32_t *base;	     /* user's op -> its first lowered op */
	uint32_t *acc;	     /* user's op -> its acc@m1, or 0: none */
	uint32_t *send;	     /* g's op -> its send@m0, 0: none (yet) */
	int32_t *blk;	     /* lowered op -> its block, -1: none */
	uint8_t *inner;	     /* lowered op: 1 has a pred in its block, 2 a succ,
			   4 a send */
	uint32_t *blk_off;   /* nblocks + 1 */
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

/* The phase of u's blocks: 0 forward, 1 backward (B), 2 the weight
 * gradients (W: ops of role grad) when the schedule splits them off. */
static int phase_of(const lctx *c, uint32_t u)
{
	if (c->kind[u] != DPI_PIPE_BWD)
		return 0;
	return c->wop && c->wop[src_of(c, u)] ? 2 : 1;
}

/* Blocks are kept apart per device of a group: each runs its own order. */
static int32_t block_of(const lctx *c, uint32_t u, int micro)
{
	int32_t stage = c->s->pipe.stage[src_of(c, u)];
	return ((stage * 3 + phase_of(c, u)) * c->M + micro) * c->G +
	       sub_of(c, u);
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

/* Whether u (of the backward kind) sends data to a copied op of another
 * stage: its block then ends with M sends (`name/send@m<i>`). */
static bool sends_out(const lctx *c, uint32_t u)
{
	const dp_graph *g = c->g;
	if (c->kind[u] != DPI_PIPE_BWD)
		return false;
	int32_t su = c->s->pipe.stage[src_of(c, u)];
	for (uint32_t j = g->succ_off[u]; j < g->succ_off[u + 1]; j++) {
		const dp_edge *e = &g->edges[g->succ_edge[j]];
		if (!e->control && c->kind[e->to] != DPI_PIPE_ONCE &&
		    c->s->pipe.stage[src_of(c, e->to)] != su)
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
	/* asynchronous schedules: the extra weight versions, persistent */
	int64_t pb = lo.param_bytes +
		     dpi_pipe_stash_bytes(c->ug, c->s, lo.source, lo.param_bytes);
	lo.param_bytes = pb;
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
		lo.param_bytes = i == 0 ? pb : 0;
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
		/* the copy stays a sink of its block, the sum one too */
		c->inner[a] |= 8 | 1;
		if (!st)
			st = dpi_lower_edge(&c->b, copy, a,
					    lg->ops[copy].output_bytes, false,
					    c->err);
	}
	return st;
}

/* u's sends: M ops of no time and no bytes, copy i's data edge (of no
 * bytes: u's output stays live until sent, and is not counted twice) into
 * send i, which sends to the other stage. Made after every copy, a send is
 * the last of its block's sinks in op order, so the chain of sinks puts it
 * after the whole block: a backward block's input gradient leaves when its
 * weight gradients are done too, as Megatron-LM and
 * torch.distributed.pipelining run a backward (one autograd call, then the
 * send). */
static dp_status add_sends(lctx *c, uint32_t u)
{
	dpi_lower_op lo = dpi_lower_op_of(c->g, u, op_device(c, u));
	lo.source = src_of(c, u);
	lo.time_us = 0;
	lo.output_bytes = lo.param_bytes = lo.temp_bytes = 0;
	c->send[u] = c->b.g->nops;
	dp_status st = DP_OK;
	for (int i = 0; !st && i < c->M; i++) {
		lo.micro = i;
		st = add_op(c, u, i, "/send", &lo);
		if (!st)
			c->inner[c->b.g->nops - 1] |= 4;
		if (!st)
			st = edge(c, c->base[u] + (uint32_t)i,
				  c->send[u] + (uint32_t)i, 0, false);
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
	bool via = !e->control && c->kind[u] == DPI_PIPE_BWD &&
		   c->s->pipe.stage[src_of(c, u)] !=
			   c->s->pipe.stage[src_of(c, v)];
	if (via && c->send[u] == 0)
		st = add_sends(c, u);
	for (int i = 0; !st && i < M; i++) {
		int64_t bytes =
			osplit ? dpi_pipe_share(e->bytes, M, i) : e->bytes;
		uint32_t from = via ? c->send[u] + (uint32_t)i
				    : c->base[u] + (uint32_t)i;
		st = edge(c, from, c->base[v] + (uint32_t)i,
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

/* Links block a (before) to block b: a's sinks in a chain (in op order: a
 * weight gradient's copy and its running sum are both sinks), the last to
 * every source of b. b < 0: a is its stage's last block; when it sends,
 * its sinks but the sums go to its first send, the sends in a chain, the
 * last to the sums: the backward is whole before its input gradient
 * leaves, and that send has its link before the gradient all-reduce that
 * the last sums start (data parallel stages). */
static dp_status link_blocks(lctx *c, int32_t a, int32_t b)
{
	dp_status st = DP_OK;
	uint32_t k0 = c->sink_off[a], k1 = c->sink_off[a + 1];
	if (b < 0) {
		uint32_t ks = k0;
		while (ks < k1 && !(c->inner[c->sinks[ks]] & 4))
			ks++; /* the first send (sends come last) */
		if (ks == k1)
			return DP_OK;
		for (uint32_t k = k0; !st && k < k1; k++) {
			uint32_t x = c->sinks[k];
			if (c->inner[x] & 4) {
				if (k + 1 < k1 &&
				    (c->inner[c->sinks[k + 1]] & 4))
					st = dpi_lower_edge(&c->b, x,
							    c->sinks[k + 1], 0,
							    true, c->err);
			} else if (c->inner[x] & 8) {
				st = dpi_lower_edge(&c->b, c->sinks[k1 - 1], x,
						    0, true, c->err);
			} else {
				st = dpi_lower_edge(&c->b, x, c->sinks[ks], 0,
						    true, c->err);
			}
		}
		return st;
	}
	for (uint32_t k = k0; !st && k + 1 < k1; k++)
		st = dpi_lower_edge(&c->b, c->sinks[k], c->sinks[k + 1], 0,
				    true, c->err);
	uint32_t last = c->sinks[k1 - 1];
	for (uint32_t k = c->src_off[b]; !st && k < c->src_off[b + 1]; k++)
		st = dpi_lower_edge(&c->b, last, c->srcs[k], 0, true, c->err);
	return st;
}

/* The blocks stage s of S runs, in order, as (phase, micro-batch) pairs
 * into ph[], mi[] (room for 3M); returns their number.
 *   gpipe: F0..F(M-1), then B0..B(M-1);
 *   1f1b (PipeDream-flush): w = min(S-s-1, M) warm-up forwards, then
 *     F(w+j) B(j) while forwards remain, then the remaining backwards;
 *   zb-h1 (Qi et al. 2023): 1F1B's order of F and B (B: the input
 *     gradients only), each B followed by the oldest pending W (weight
 *     gradients) once more than s are pending in the steady state, and by
 *     one W in the cool-down; the last s Ws at the end. So stage s defers
 *     at most s Ws: F-without-W micro-batches stay at most S, 1F1B's
 *     stash on stage 0. */
static int schedule_seq(dp_schedule sch, int S, int M, int s, int *ph, int *mi)
{
	int n = 0, f = 0, b = 0, w = 0;
#define PUT(p, m) (ph[n] = (p), mi[n] = (m), n++)
	if (sch == DP_SCHED_GPIPE) {
		for (int i = 0; i < 2 * M; i++)
			PUT(i >= M, i % M);
		return n;
	}
	int warm = S - s - 1 < M ? S - s - 1 : M;
	bool zb = sch == DP_SCHED_ZBH1;
	while (f < warm)
		PUT(0, f++);
	while (b < M) {
		bool steady = f < M;
		if (steady)
			PUT(0, f++);
		PUT(1, b++);
		if (zb && (!steady || b - w > s))
			PUT(2, w++);
	}
	while (zb && w < M)
		PUT(2, w++);
#undef PUT
	return n;
}

/* Interleaved 1F1B (Megatron-LM's virtual pipeline) on device d of P,
 * V chunks each (chunk v of the device is stage v P + d): M V virtual
 * micro-batches; virtual forward k is micro-batch (k / (P V)) P + k % P of
 * the device's chunk (k / P) % V, virtual backward k the same micro-batch
 * of chunk V - 1 - (k / P) % V; w = min((P - d - 1) 2 + (V - 1) P, M V)
 * warm-up forwards, then F(w + j) B(j) pairs, then the remaining
 * backwards. Into ch[], ph[], mi[] (room for 2 M V); returns their number. */
static int interleaved_seq(int P, int V, int M, int d, int *ch, int *ph,
			   int *mi)
{
	int n = 0, total = M * V, f = 0, b = 0;
	int warm = (P - d - 1) * 2 + (V - 1) * P;
	warm = warm < total ? warm : total;
	while (n < 2 * total) {
		bool fw = f < warm || (f < total && (n - warm) % 2 == 0);
		int k = fw ? f++ : b++;
		int v = (k / P) % V;
		ch[n] = (fw ? v : V - 1 - v) * P + d;
		ph[n] = fw ? 0 : 1;
		mi[n] = (k / (P * V)) * P + k % P;
		n++;
	}
	return n;
}

static dp_status order_blocks(lctx *c)
{
	int S = c->S, M = c->M;
	int V = c->s->pipe.virtual_stages > 1 ? c->s->pipe.virtual_stages : 1;
	int P = S / V; /* devices (groups); chunk s on group s mod P */
	uint32_t nblocks = (uint32_t)S * 3u * (uint32_t)M * (uint32_t)c->G;
	dp_status st = collect_ends(c, nblocks);
	size_t room = (size_t)M * 3 * (size_t)V;
	int *ph = st ? NULL : malloc(room * 3 * sizeof *ph);
	if (!st && !ph)
		st = dpi_nomem(c->err, "lowering a pipeline");
	int *mi = ph ? ph + room : NULL, *ch = ph ? ph + 2 * room : NULL;
	for (int d = 0; !st && d < P; d++) {
		int n = V > 1 ? interleaved_seq(P, V, M, d, ch, ph, mi)
			      : schedule_seq(c->s->pipe.schedule, S, M, d, ph,
					     mi);
		for (int i = 0; V == 1 && i < n; i++)
			ch[i] = d;
		for (int r = 0; !st && r < c->G; r++) {
			int32_t prev = -1;
			for (int i = 0; !st && i < n; i++) {
				int32_t k = ((ch[i] * 3 + ph[i]) * M + mi[i]) *
						    c->G +
					    r;
				if (c->src_off[k] == c->src_off[k + 1])
					continue; /* an empty block */
				if (prev >= 0)
					st = link_blocks(c, prev, k);
				prev = k;
			}
			if (!st && prev >= 0)
				st = link_blocks(c, prev, -1);
		}
		if (!st)
			st = dpi_poll(c->p, "lowering", "lowering: order",
				      0.9 + 0.1 * (d + 1) / P, c->err);
	}
	free(ph);
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
		c->send[u] = 0;
		if (c->kind[u] == DPI_PIPE_ONCE) {
			total++;
			continue;
		}
		total += (uint64_t)c->M * (sends_out(c, u) ? 2u : 1u);
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
	DPI_FREE_ALL(c->base, c->acc, c->send, c->wop, c->blk, c->inner,
		     c->srcs, c->sinks, c->src_off, c->sink_off, c->name);
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
	c.send = malloc(n * sizeof *c.send);
	bool zb = s->pipe.schedule == DP_SCHED_ZBH1;
	uint8_t *ukind = zb ? dpi_pipe_kinds(ug) : NULL;
	c.wop = ukind ? dpi_pipe_w_ops(ug, s, ukind) : NULL;
	free(ukind);
	dp_status st = c.base && c.acc && c.send && (c.wop || !zb)
			       ? count_ops(&c)
			       : dpi_nomem(err, "lowering a pipeline");
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

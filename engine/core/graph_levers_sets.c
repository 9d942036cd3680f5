/* graph_levers_sets.c - which ops recomputation and fusion re-run, and
 * what gates them (internal/levers_int.h; docs/memory.md).
 *
 * A segment is a set of forward ops re-run together: a layer (every
 * forward op with one `layer` label) for full recomputation, an attention
 * core for selective recomputation and fused attention. An attention core
 * is a forward BatchMatMul (the scores, Q.K^T) with the forward ops of its
 * layer between it and the next BatchMatMul (the product with V): scale,
 * mask, softmax, dropout, every op whose output is a b.a.s^2 tensor.
 * A segment is re-run just before its backward: after the backward ops
 * outside it that feed the backward ops reading it (the gradient arriving
 * from the layer above). A segment whose activations no backward op reads,
 * or that has no such gradient (the last layer), is not re-run.
 */
#include <stdlib.h>
#include <string.h>

#include "internal/levers_int.h"
#include "internal/nomem.h"

/* Ops a BFS from a scores BatchMatMul visits at most. */
#define CORE_MAX 64

static bool is_bwd(dp_role r)
{
	return r == DP_ROLE_BACKWARD || r == DP_ROLE_GRAD;
}

bool dpi_levers_redirects(const dp_graph *g, uint32_t u, uint32_t v)
{
	return is_bwd(dp_op_role(g, v)) && g->ops[v].layer == g->ops[u].layer;
}

static bool is_bmm(const dp_graph *g, uint32_t u)
{
	return !strncmp(dp_graph_str(g, g->ops[u].type), "BatchMatMul", 11);
}

/* The attention core that starts at the forward BatchMatMul a: the ops
 * of a's layer on a path from a to another BatchMatMul, marked in seg with
 * id. Returns how many ops it marked (0: a starts no core). */
static uint32_t mark_core(const dp_graph *g, uint32_t a, uint32_t id,
			  uint32_t *seg)
{
	uint32_t vis[CORE_MAX], n = 0, head = 0;
	bool good[CORE_MAX], any = false;
	vis[n++] = a;
	while (head < n) {
		uint32_t u = vis[head++];
		for (uint32_t i = g->succ_off[u]; i < g->succ_off[u + 1]; i++) {
			const dp_edge *e = &g->edges[g->succ_edge[i]];
			uint32_t v = e->to;
			if (e->control || dp_op_role(g, v) != DP_ROLE_FORWARD ||
			    g->ops[v].layer != g->ops[a].layer || seg[v])
				continue;
			if (is_bmm(g, v)) {
				any = true;
				continue;
			}
			bool seen = false;
			for (uint32_t j = 0; j < n && !seen; j++)
				seen = vis[j] == v;
			if (!seen && n < CORE_MAX)
				vis[n++] = v;
		}
	}
	if (!any)
		return 0;
	/* keep the ops that reach the product with V: decreasing topological
	 * position, so successors are decided first */
	for (uint32_t i = 1; i < n; i++)
		for (uint32_t j = i; j > 0 && g->topo_pos[vis[j - 1]] <
						      g->topo_pos[vis[j]];
		     j--) {
			uint32_t t = vis[j];
			vis[j] = vis[j - 1];
			vis[j - 1] = t;
		}
	uint32_t marked = 0;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t u = vis[i];
		good[i] = false;
		for (uint32_t k = g->succ_off[u];
		     k < g->succ_off[u + 1] && !good[i]; k++) {
			uint32_t v = g->edges[g->succ_edge[k]].to;
			if (dp_op_role(g, v) == DP_ROLE_FORWARD &&
			    g->ops[v].layer == g->ops[a].layer && is_bmm(g, v) &&
			    v != a)
				good[i] = true;
			for (uint32_t j = 0; j < i && !good[i]; j++)
				good[i] = good[j] && vis[j] == v;
		}
		if (good[i] || u == a) {
			seg[u] = id;
			marked++;
		}
	}
	return marked;
}

/* The backward ops of a fused core's layer that hold its scores' gradient
 * (an output of at least half a scores tensor z) and read the core or
 * such an op: FlashAttention's backward keeps them on chip too. */
static void mark_fused_backward(const dp_graph *g, const uint32_t *core,
				uint32_t id, int64_t z, dpi_lv_sets *s,
				uint32_t *queue)
{
	uint32_t n = 0, head = 0;
	for (uint32_t u = 0; u < g->nops; u++)
		if (core[u] == id)
			queue[n++] = u;
	while (head < n) {
		uint32_t u = queue[head++];
		for (uint32_t i = g->succ_off[u]; i < g->succ_off[u + 1]; i++) {
			uint32_t v = g->edges[g->succ_edge[i]].to;
			if (s->drop[v] >= 0 || !dpi_levers_redirects(g, u, v) ||
			    g->ops[v].output_bytes < z / 2)
				continue;
			int64_t o = g->ops[v].output_bytes;
			s->drop[v] = o < z ? o : z;
			queue[n++] = v;
		}
	}
}

/* Forward ops by layer label: one segment per label, in order of first
 * appearance. */
static dp_status layer_segments(const dp_graph *g, dpi_lv_sets *s,
				dp_err *err)
{
	uint32_t *lab = calloc((size_t)g->strs_len + 1, sizeof *lab);
	if (!lab)
		return dpi_nomem(err, "applying the levers");
	for (uint32_t u = 0; u < g->nops; u++) {
		uint32_t l = g->ops[u].layer;
		if (!l || dp_op_role(g, u) != DP_ROLE_FORWARD)
			continue;
		if (!lab[l])
			lab[l] = ++s->nseg;
		s->seg[u] = lab[l];
	}
	free(lab);
	return DP_OK;
}

dp_status dpi_levers_push_pair(uint32_t **arr, uint32_t *n, uint32_t *cap,
				uint32_t a, uint32_t b, dp_err *err)
{
	if (*n == *cap) {
		uint32_t c = *cap ? 2 * *cap : 64;
		uint32_t *p = realloc(*arr, 2 * (size_t)c * sizeof *p);
		if (!p)
			return dpi_nomem(err, "applying the levers");
		*arr = p;
		*cap = c;
	}
	(*arr)[2 * *n] = a;
	(*arr)[2 * (*n)++ + 1] = b;
	return DP_OK;
}

/* Appends gate p of segment sg. */
static dp_status add_gate(dpi_lv_sets *s, uint32_t *cap, uint32_t p,
			  uint32_t sg, dp_err *err)
{
	return dpi_levers_push_pair(&s->gate, &s->ngates, cap, p, sg, err);
}

/* Scratch of the gate search. */
typedef struct gate_ctx {
	const dp_graph *g;
	dpi_lv_sets *s;
	uint32_t *stamp;	  /* per op: the last mark set */
	uint32_t *rd, *cand;	  /* readers, candidates */
	uint32_t *stack;	  /* DFS */
	uint32_t *bw_off, *bw_ops; /* backward ops of layer index i (lab):
				      bw_ops[bw_off[i] .. bw_off[i + 1]) */
	uint32_t *lab;		  /* layer offset -> layer index + 1 */
	uint32_t *lstamp;	  /* per layer index: last segment that took
				     its backward ops */
	uint32_t cap;		  /* of the gate arrays */
} gate_ctx;

/* Whether p, a predecessor of a backward reader of segment sg, is part of
 * the backward pass and outside the segment. */
static bool gate_candidate(const dp_graph *g, const dpi_lv_sets *s,
			   uint32_t p, uint32_t sg)
{
	dp_role r = dp_op_role(g, p);
	return s->seg[p] != sg && (is_bwd(r) || r == DP_ROLE_LOSS);
}

/* Adds candidate p once (mark: this segment's "candidate" mark). */
static void add_cand(gate_ctx *c, uint32_t p, uint32_t mark, uint32_t *n)
{
	if (c->stamp[p] >= mark - 3 && c->stamp[p] <= mark)
		return; /* a reader, reached, or already a candidate */
	c->stamp[p] = mark;
	c->cand[(*n)++] = p;
}

/* The gates of segment sg, whose ops are ops[0..nops): the backward ops
 * that feed its readers, with every backward op of their layers when that
 * is another layer (that layer's backward ends before this one's re-run
 * starts), less what the readers reach. Marks 4sg .. 4sg+3: reader,
 * reached, (unused), candidate. */
static dp_status segment_gates(gate_ctx *c, uint32_t sg, const uint32_t *ops,
			       uint32_t nops, dp_err *err)
{
	const dp_graph *g = c->g;
	dpi_lv_sets *s = c->s;
	uint32_t m_rd = 4 * sg, m_reach = m_rd + 1, m_cand = m_rd + 3;
	uint32_t nrd = 0, ncand = 0;
	for (uint32_t i = 0; i < nops; i++)
		for (uint32_t k = g->succ_off[ops[i]];
		     k < g->succ_off[ops[i] + 1]; k++) {
			const dp_edge *e = &g->edges[g->succ_edge[k]];
			if (!e->control && c->stamp[e->to] != m_rd &&
			    dpi_levers_redirects(g, ops[i], e->to)) {
				c->stamp[e->to] = m_rd;
				c->rd[nrd++] = e->to;
			}
		}
	for (uint32_t i = 0; i < nrd; i++)
		for (uint32_t k = g->pred_off[c->rd[i]];
		     k < g->pred_off[c->rd[i] + 1]; k++) {
			uint32_t p = g->edges[g->pred_edge[k]].from;
			if (gate_candidate(g, s, p, sg))
				add_cand(c, p, m_cand, &ncand);
		}
	/* the layers whose backward feeds this layer's: all of their
	 * backward ops */
	uint32_t own = g->ops[ops[0]].layer;
	uint32_t li = own ? c->lab[own] : 0;
	for (uint32_t j = li ? c->bw_off[li] : 0;
	     li && j < c->bw_off[li + 1]; j++) {
		uint32_t w = c->bw_ops[j];
		for (uint32_t k = g->pred_off[w]; k < g->pred_off[w + 1]; k++) {
			uint32_t p = g->edges[g->pred_edge[k]].from;
			uint32_t l = g->ops[p].layer;
			if (l == own || !l || !c->lab[l] ||
			    !is_bwd(dp_op_role(g, p)) ||
			    c->lstamp[c->lab[l] - 1] == sg)
				continue;
			c->lstamp[c->lab[l] - 1] = sg;
			for (uint32_t q = c->bw_off[c->lab[l]];
			     q < c->bw_off[c->lab[l] + 1]; q++)
				add_cand(c, c->bw_ops[q], m_cand, &ncand);
		}
	}
	uint32_t maxpos = 0;
	for (uint32_t i = 0; i < ncand; i++)
		if (g->topo_pos[c->cand[i]] > maxpos)
			maxpos = g->topo_pos[c->cand[i]];
	/* what the readers reach: a candidate there depends on the re-run,
	 * so it cannot gate it */
	uint32_t sp = 0;
	for (uint32_t i = 0; i < nrd; i++)
		c->stack[sp++] = c->rd[i];
	while (sp) {
		uint32_t u = c->stack[--sp];
		for (uint32_t k = g->succ_off[u]; k < g->succ_off[u + 1]; k++) {
			uint32_t v = g->edges[g->succ_edge[k]].to;
			if (c->stamp[v] == m_reach || c->stamp[v] == m_rd ||
			    g->topo_pos[v] > maxpos)
				continue;
			c->stamp[v] = m_reach;
			c->stack[sp++] = v;
		}
	}
	uint32_t first = s->ngates;
	for (uint32_t i = 0; i < ncand; i++) {
		uint32_t p = c->cand[i];
		if (c->stamp[p] != m_cand)
			continue;
		dp_status st = add_gate(s, &c->cap, p, sg, err);
		if (st)
			return st;
	}
	if (s->ngates == first)
		for (uint32_t i = 0; i < nops; i++)
			s->seg[ops[i]] = 0; /* nothing gates it: not re-run */
	return DP_OK;
}

/* Backward and weight-gradient ops by layer label (c->lab, bw_off,
 * bw_ops). */
static dp_status backward_by_layer(gate_ctx *c, dp_err *err)
{
	const dp_graph *g = c->g;
	uint32_t nl = 0;
	c->lab = calloc(g->strs_len + 1, sizeof *c->lab);
	if (!c->lab)
		return dpi_nomem(err, "applying the levers");
	for (uint32_t u = 0; u < g->nops; u++)
		if (g->ops[u].layer && is_bwd(dp_op_role(g, u)) &&
		    !c->lab[g->ops[u].layer])
			c->lab[g->ops[u].layer] = ++nl;
	c->bw_off = calloc((size_t)nl + 2, sizeof *c->bw_off);
	c->lstamp = calloc((size_t)nl + 1, sizeof *c->lstamp);
	c->bw_ops = malloc(((size_t)g->nops + 1) * sizeof *c->bw_ops);
	if (!c->bw_off || !c->bw_ops || !c->lstamp)
		return dpi_nomem(err, "applying the levers");
	for (uint32_t u = 0; u < g->nops; u++)
		if (g->ops[u].layer && is_bwd(dp_op_role(g, u)))
			c->bw_off[c->lab[g->ops[u].layer] + 1]++;
	for (uint32_t i = 1; i <= nl + 1; i++)
		c->bw_off[i] += c->bw_off[i - 1];
	for (uint32_t u = 0; u < g->nops; u++)
		if (g->ops[u].layer && is_bwd(dp_op_role(g, u)))
			c->bw_ops[c->bw_off[c->lab[g->ops[u].layer]]++] = u;
	for (uint32_t i = nl + 1; i > 0; i--)
		c->bw_off[i] = c->bw_off[i - 1];
	c->bw_off[0] = 0;
	return DP_OK;
}

/* The gates of every segment; segments without a gate are dropped. */
static dp_status find_gates(const dp_graph *g, dpi_lv_sets *s, dp_err *err)
{
	uint32_t n = g->nops, ns = s->nseg;
	size_t nn = n ? n : 1;
	gate_ctx c = {.g = g, .s = s};
	uint32_t *off = calloc((size_t)ns + 2, sizeof *off);
	uint32_t *ops = malloc(nn * sizeof *ops);
	c.stamp = calloc(nn, sizeof *c.stamp);
	c.rd = malloc(nn * sizeof *c.rd);
	c.cand = malloc(nn * sizeof *c.cand);
	c.stack = malloc(((size_t)g->nedges + nn) * sizeof *c.stack);
	dp_status st = DP_OK;
	if (!off || !ops || !c.stamp || !c.rd || !c.cand || !c.stack)
		st = dpi_nomem(err, "applying the levers");
	if (!st)
		st = backward_by_layer(&c, err);
	if (st)
		goto out;
	/* ops of segment sg: ops[off[sg] .. off[sg + 1]) */
	for (uint32_t u = 0; u < n; u++)
		if (s->seg[u])
			off[s->seg[u] + 1]++;
	for (uint32_t i = 1; i <= ns + 1; i++)
		off[i] += off[i - 1];
	for (uint32_t u = 0; u < n; u++)
		if (s->seg[u])
			ops[off[s->seg[u]]++] = u;
	for (uint32_t i = ns + 1; i > 0; i--)
		off[i] = off[i - 1];
	off[0] = 0;
	for (uint32_t sg = 1; !st && sg <= ns; sg++)
		if (off[sg + 1] > off[sg])
			st = segment_gates(&c, sg, ops + off[sg],
					   off[sg + 1] - off[sg], err);
out:
	free(off);
	free(ops);
	free(c.stamp);
	free(c.rd);
	free(c.cand);
	free(c.stack);
	free(c.lab);
	free(c.bw_off);
	free(c.bw_ops);
	free(c.lstamp);
	return st;
}

/* Drops the layers whose forward feeds the loss (the head): their
 * backward starts as their forward ends, nothing to gain. */
static void drop_head_layers(const dp_graph *g, dpi_lv_sets *s)
{
	for (uint32_t u = 0; u < g->nops; u++) {
		if (!s->seg[u])
			continue;
		for (uint32_t k = g->succ_off[u]; k < g->succ_off[u + 1]; k++)
			if (dp_op_role(g, g->edges[g->succ_edge[k]].to) ==
			    DP_ROLE_LOSS) {
				uint32_t sg = s->seg[u];
				for (uint32_t v = 0; v < g->nops; v++)
					if (s->seg[v] == sg)
						s->seg[v] = 0;
				break;
			}
	}
}

static dp_status refuse(const dp_graph *g, dp_err *err, const char *lever,
			const char *what)
{
	return dp_err_set(err, DP_EINPUT, NULL, 0, 0,
			  "%s: graph '%s' has no %s (docs/memory.md)", lever,
			  g->name, what);
}

dp_status dpi_levers_sets(const dp_graph *g, const dp_levers *lv,
			  dpi_lv_sets *s, dp_err *err)
{
	memset(s, 0, sizeof *s);
	size_t n = g->nops ? g->nops : 1;
	bool fuse = lv->fuse & DP_FUSE_ATTENTION;
	bool ew = lv->fuse & DP_FUSE_ELEMENTWISE;
	s->seg = calloc(n, sizeof *s->seg);
	if (fuse || ew) {
		s->drop = malloc(n * sizeof *s->drop);
		for (size_t u = 0; s->drop && u < n; u++)
			s->drop[u] = -1;
	}
	uint32_t *core = calloc(n, sizeof *core);
	uint32_t *queue = malloc(n * sizeof *queue);
	dp_status st = DP_OK;
	if (!s->seg || !core || !queue || ((fuse || ew) && !s->drop)) {
		st = dpi_nomem(err, "applying the levers");
		goto out;
	}
	bool layers = false;
	for (uint32_t u = 0; u < g->nops && !layers; u++)
		layers = g->ops[u].layer && dp_op_role(g, u) == DP_ROLE_FORWARD;
	/* attention cores */
	uint32_t ncore = 0;
	if (fuse || lv->recompute == DP_RECOMP_SELECTIVE)
		for (uint32_t i = 0; i < g->nops; i++) {
			uint32_t a = g->topo[i];
			if (dp_op_role(g, a) == DP_ROLE_FORWARD && is_bmm(g, a) &&
			    !core[a] && mark_core(g, a, ncore + 1, core))
				ncore++;
		}
	bool by_layer = lv->recompute == DP_RECOMP_FULL ||
			lv->recompute == DP_RECOMP_AUTO;
	if (by_layer && !layers) {
		st = refuse(g, err,
			    lv->recompute == DP_RECOMP_AUTO ? "--recompute auto"
							    : "--recompute full",
			    "forward ops with `layer` labels");
		goto out;
	}
	if ((fuse || lv->recompute == DP_RECOMP_SELECTIVE) && !ncore) {
		st = refuse(g, err,
			    lv->recompute == DP_RECOMP_SELECTIVE
				    ? "--recompute selective"
				    : "--fuse attention",
			    "attention core (a forward BatchMatMul whose "
			    "result reaches another one in its layer)");
		goto out;
	}
	for (uint32_t c = 1; fuse && c <= ncore; c++) {
		int64_t z = 0;
		for (uint32_t u = 0; u < g->nops; u++)
			if (core[u] == c && is_bmm(g, u))
				z = g->ops[u].output_bytes;
		for (uint32_t u = 0; u < g->nops; u++)
			if (core[u] == c)
				s->drop[u] = g->ops[u].output_bytes;
		mark_fused_backward(g, core, c, z, s, queue);
	}
	if (ew && (st = dpi_levers_fuse_elementwise(g, s, err)))
		goto out;
	if (by_layer) {
		st = layer_segments(g, s, err);
		if (!st)
			drop_head_layers(g, s);
		/* auto: the chosen layers only (segment i + 1 is layer i) */
		for (uint32_t u = 0; !st && u < g->nops &&
				     lv->recompute == DP_RECOMP_AUTO;
		     u++)
			if (s->seg[u] && !dp_levers_rc_has(lv, s->seg[u] - 1))
				s->seg[u] = 0;
	} else if (ncore) {
		memcpy(s->seg, core, n * sizeof *core);
		s->nseg = ncore;
	}
	/* --offload params: each weight is fetched again before the
	 * backward of its layer reads it */
	for (uint32_t u = 0; !st && lv->offload == DP_OFFLOAD_PARAMS &&
			     u < g->nops;
	     u++) {
		if (dp_op_role(g, u) != DP_ROLE_PARAM || !g->ops[u].layer)
			continue;
		bool read = false;
		for (uint32_t k = g->succ_off[u];
		     k < g->succ_off[u + 1] && !read; k++)
			read = dpi_levers_redirects(
				g, u, g->edges[g->succ_edge[k]].to);
		if (read)
			s->seg[u] = ++s->nseg;
	}
	if (!st)
		st = find_gates(g, s, err);
out:
	free(core);
	free(queue);
	if (st)
		dpi_levers_sets_free(s);
	return st;
}

void dpi_levers_sets_free(dpi_lv_sets *s)
{
	free(s->seg);
	free(s->drop);
	free(s->gate);
	free(s->extra);
	memset(s, 0, sizeof *s);
}

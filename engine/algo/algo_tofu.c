/* algo_tofu.c - `tofu`: recursive partitioning of every op (Wang et al.,
 * "Supporting very large models using automatic dataflow graph
 * partitioning", EuroSys 2019), returning an spmd strategy.
 *
 * K is factored into primes (at most DP_MAX_MESH_AXES levels: the
 * smallest factors are merged when there are more); level l splits every
 * op into f_l parts along one of its dims whose remaining size f_l divides,
 * chosen to minimise the level's communication in the model of
 * internal/tofu.h. The mesh's axes are the levels ([2,2,2] for K=8). A
 * level's bytes do not depend on the others, its messages grow with the
 * groups above it: the levels are decided from the last (the most groups)
 * to the first, so that the dearest level has the first pick of the dims
 * that divide (a batch of 2 is split where messages cost the most).
 *
 * As in the paper, chains of element-wise ops are coarsened into one group
 * that takes one choice (ops with the same dims, no reduction, joined by an
 * edge that maps each dim onto itself). Per level, the choice of every
 * group is found by dynamic programming: exhaustively when the level has at
 * most 4096 combinations, else by a Viterbi pass along the groups in
 * topological order (edges to groups further back priced at their current
 * choice) followed by coordinate descent, repeated while the cost falls.
 *
 * Memory caps (ours): the search runs first for communication alone; when
 * the per-device estimate (params, gradients and optimizer state divided by
 * the parts of their param dims, plus forward activations divided by the
 * parts of their out dims) exceeds the smallest cap, it runs again with a
 * penalty of lambda x the bytes each choice leaves undivided (weights kept
 * whole, outputs of reduction splits), lambda = 1/16, 1/4, 1, 4, 16, 64,
 * and keeps the first result that fits, else the one with the smallest
 * estimate. Pinned ops stay whole on their pin.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dnnpart/strategy.h"
#include "internal/algo_int.h"
#include "internal/spmd.h"
#include "internal/tofu.h"

#define MAXC (DP_MAX_OP_DIMS + 1)
#define EXHAUSTIVE 4096

typedef struct tofu {
	const dp_graph *g;
	const dp_progress *p;
	dpi_tofu_edge *te;
	uint32_t ng;
	uint32_t *grp;	   /* op -> group */
	uint32_t *rep;	   /* group -> its first op */
	uint32_t *order;   /* groups by topological position */
	uint32_t *adj_off; /* group -> its edges to other groups */
	uint32_t *adj;
	int8_t *own;	/* op x rep dim -> the op's own dim index */
	int32_t *parts; /* op x dim -> parts so far */
	int8_t *cand;	/* group x MAXC: rep dim, -1 none, -2 pinned */
	uint8_t *ncand;
	uint8_t *weights; /* group holds a param or update op, or one
			     without the batch (a position embedding): it
			     may stay replicated, as data parallelism keeps
			     weights */
	double *unary;	  /* group x MAXC */
	uint8_t *a, *b;	  /* assignments: index into cand */
	double *dp;
	uint8_t *bp;
	double lambda;
	int f;
	dpi_tofu_level lv;
} tofu;

static uint32_t find(uint32_t *par, uint32_t x)
{
	while (par[x] != x)
		x = par[x] = par[par[x]];
	return x;
}

/* Is u -> v (edge e) element-wise: same dims, no reduction, identity? */
static bool elementwise(const dp_graph *g, uint32_t e)
{
	const dp_edge *ed = &g->edges[e];
	uint32_t u = ed->from, v = ed->to;
	dp_dims a, c;
	const uint32_t *names;
	if (ed->control || g->ops[u].pin >= 0 || g->ops[v].pin >= 0 ||
	    !dp_op_dims(g, u, &a) || !dp_op_dims(g, v, &c) || a.n != c.n ||
	    a.nout != (int32_t)a.n || c.nout != (int32_t)c.n ||
	    dp_edge_dims(g, e, &names) != (int)a.n)
		return false;
	for (uint32_t j = 0; j < a.n; j++) {
		if (names[j] != a.name_off[a.out[j]])
			return false;
		int k = dp_op_find_dim(g, v, dp_graph_str(g, a.name_off[j]));
		if (k < 0 || c.sizes[k] != a.sizes[j])
			return false;
	}
	return true;
}

/* Do u and v have the same dims (names and sizes), in any order? */
static bool same_dims(const dp_graph *g, uint32_t u, uint32_t v)
{
	dp_dims a, c;
	if (g->ops[u].pin >= 0 || g->ops[v].pin >= 0 || !dp_op_dims(g, u, &a) ||
	    !dp_op_dims(g, v, &c) || a.n != c.n)
		return false;
	for (uint32_t j = 0; j < a.n; j++) {
		int k = dp_op_find_dim(g, v, dp_graph_str(g, a.name_off[j]));
		if (k < 0 || c.sizes[k] != a.sizes[j])
			return false;
	}
	return true;
}

static dp_status build(tofu *t, dp_err *err)
{
	const dp_graph *g = t->g;
	uint32_t n = g->nops, ne = g->nedges ? g->nedges : 1;
	t->te = malloc(ne * sizeof *t->te);
	t->grp = malloc((n + 1) * sizeof *t->grp);
	t->rep = malloc((n + 1) * sizeof *t->rep);
	t->order = malloc((n + 1) * sizeof *t->order);
	t->adj_off = calloc(n + 2, sizeof *t->adj_off);
	t->adj = malloc(2 * ne * sizeof *t->adj);
	t->own = malloc((size_t)n * DP_MAX_OP_DIMS + 1);
	t->parts = malloc(((size_t)n * DP_MAX_OP_DIMS + 1) * sizeof *t->parts);
	t->cand = malloc((size_t)(n + 1) * MAXC);
	t->ncand = malloc(n + 1);
	t->weights = calloc(n + 1, 1);
	t->unary = malloc((size_t)(n + 1) * MAXC * sizeof *t->unary);
	t->a = malloc(n + 1);
	t->b = malloc(n + 1);
	t->dp = malloc((size_t)(n + 1) * MAXC * sizeof *t->dp);
	t->bp = malloc((size_t)(n + 1) * MAXC);
	if (!t->te || !t->grp || !t->rep || !t->order || !t->adj_off ||
	    !t->adj || !t->own || !t->parts || !t->cand || !t->ncand ||
	    !t->weights || !t->unary || !t->a || !t->b || !t->dp || !t->bp)
		return dp_err_set(err, DP_ENOMEM, NULL, 0, 0,
				  "tofu: out of memory");
	dpi_tofu_edges(g, t->te);
	uint32_t *par = t->grp;
	for (uint32_t u = 0; u < n; u++)
		par[u] = u;
	for (uint32_t e = 0; e < g->nedges; e++)
		if (elementwise(g, e)) {
			uint32_t x = find(par, g->edges[e].from);
			uint32_t y = find(par, g->edges[e].to);
			if (x != y)
				par[x > y ? x : y] = x < y ? x : y;
		}
	/* a variable and its update (one colocation group) split alike */
	for (uint32_t c = 0; c < g->ngroups; c++) {
		uint32_t lo = g->group_off[c], hi = g->group_off[c + 1];
		for (uint32_t i = lo + 1; i < hi; i++)
			if (same_dims(g, g->group_ops[lo], g->group_ops[i])) {
				uint32_t x = find(par, g->group_ops[lo]);
				uint32_t y = find(par, g->group_ops[i]);
				if (x != y)
					par[x > y ? x : y] = x < y ? x : y;
			}
	}
	/* number groups by their first op in topological order */
	uint32_t *id = t->order; /* scratch: root -> group */
	for (uint32_t u = 0; u < n; u++)
		id[u] = UINT32_MAX;
	t->ng = 0;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t u = g->topo[i], r = find(par, u);
		if (id[r] == UINT32_MAX) {
			id[r] = t->ng;
			t->rep[t->ng++] = u;
		}
	}
	for (uint32_t u = 0; u < n; u++)
		t->grp[u] = find(par, u);
	for (uint32_t u = 0; u < n; u++)
		t->grp[u] = id[t->grp[u]];
	const char *bd = dp_graph_batch_dim(g);
	for (uint32_t u = 0; u < n; u++) {
		dp_role r = dp_op_role(g, u);
		dp_dims d;
		if (r == DP_ROLE_PARAM || r == DP_ROLE_UPDATE ||
		    (bd[0] && dp_op_dims(g, u, &d) &&
		     dp_op_find_dim(g, u, bd) < 0))
			t->weights[t->grp[u]] = 1;
	}
	/* each op's dims named after its group's first op's */
	for (uint32_t u = 0; u < n; u++) {
		dp_dims d, rd;
		int8_t *o = &t->own[(size_t)u * DP_MAX_OP_DIMS];
		uint32_t r = t->rep[t->grp[u]];
		bool hd = dp_op_dims(g, u, &d);
		dp_op_dims(g, r, &rd);
		for (uint32_t i = 0; i < DP_MAX_OP_DIMS; i++)
			o[i] = (int8_t)(hd && i < rd.n && u != r
						? dp_op_find_dim(
							  g, u,
							  dp_graph_str(
								  g,
								  rd.name_off
									  [i]))
						: (int)i);
		for (uint32_t i = 0; i < DP_MAX_OP_DIMS; i++)
			t->parts[(size_t)u * DP_MAX_OP_DIMS + i] = 1;
	}
	/* edges between groups, per group */
	for (uint32_t e = 0; e < g->nedges; e++) {
		uint32_t x = t->grp[g->edges[e].from],
			 y = t->grp[g->edges[e].to];
		if (x != y && t->te[e].bytes > 0) {
			t->adj_off[x + 1]++;
			t->adj_off[y + 1]++;
		}
	}
	for (uint32_t k = 0; k < t->ng; k++)
		t->adj_off[k + 1] += t->adj_off[k];
	uint32_t *fill = t->order; /* reuse as a cursor, then restore */
	for (uint32_t k = 0; k < t->ng; k++)
		fill[k] = t->adj_off[k];
	for (uint32_t e = 0; e < g->nedges; e++) {
		uint32_t x = t->grp[g->edges[e].from],
			 y = t->grp[g->edges[e].to];
		if (x != y && t->te[e].bytes > 0) {
			t->adj[fill[x]++] = e;
			t->adj[fill[y]++] = e;
		}
	}
	for (uint32_t k = 0; k < t->ng; k++)
		t->order[k] = k;
	return DP_OK;
}

static void release(tofu *t)
{
	free(t->te);
	free(t->grp);
	free(t->rep);
	free(t->order);
	free(t->adj_off);
	free(t->adj);
	free(t->own);
	free(t->parts);
	free(t->cand);
	free(t->ncand);
	free(t->weights);
	free(t->unary);
	free(t->a);
	free(t->b);
	free(t->dp);
	free(t->bp);
}

/* Op u's own dim for its group's choice c (a rep dim, -1 or -2). */
static int dim_of(const tofu *t, uint32_t u, int c)
{
	return c < 0 ? c : t->own[(size_t)u * DP_MAX_OP_DIMS + c];
}

static int choice(const tofu *t, uint32_t u, const uint8_t *a)
{
	uint32_t k = t->grp[u];
	return dim_of(t, u, t->cand[(size_t)k * MAXC + a[k]]);
}

/* The candidates of every group at a level of f parts. */
static void candidates(tofu *t)
{
	const dp_graph *g = t->g;
	for (uint32_t k = 0; k < t->ng; k++) {
		uint32_t r = t->rep[k];
		int8_t *c = &t->cand[(size_t)k * MAXC];
		int n = 0;
		dp_dims d;
		if (t->weights[k] && g->ops[r].pin < 0)
			c[n++] = -1; /* first: ties keep weights whole */
		if (g->ops[r].pin >= 0)
			c[n++] = -2;
		else if (!dp_op_dims(g, r, &d)) {
			if (dpi_spmd_batch_role(dp_op_role(g, r)))
				c[n++] = 0;
		} else {
			const int32_t *parts =
				&t->parts[(size_t)r * DP_MAX_OP_DIMS];
			for (uint32_t i = 0; i < d.n; i++)
				if (d.sizes[i] % ((int64_t)parts[i] * t->f) ==
				    0)
					c[n++] = (int8_t)i;
		}
		if (n == 0)
			c[n++] = -1;
		t->ncand[k] = (uint8_t)n;
	}
}

/* Bytes op u leaves undivided when it splits its dim i (memory). */
static double kept(const dp_graph *g, uint32_t u, int i)
{
	const dp_op *o = &g->ops[u];
	dp_dims d;
	if (!dp_op_dims(g, u, &d)) {
		bool split = i == 0 && dp_op_role(g, u) != DP_ROLE_GRAD;
		return (double)o->param_bytes + (split ? 0 : o->output_bytes);
	}
	double k = 0;
	bool inp = false, ino = d.nout < 0;
	for (int j = 0; i >= 0 && j < d.nparam; j++)
		inp = inp || d.param[j] == i;
	for (int j = 0; i >= 0 && j < d.nout; j++)
		ino = ino || d.out[j] == i;
	if (!inp)
		k += (double)o->param_bytes;
	if (!ino || i < 0)
		k += (double)o->output_bytes;
	return k;
}

/* Per group and candidate: its edges inside the group and the memory
 * penalty. */
static void unary_costs(tofu *t)
{
	const dp_graph *g = t->g;
	size_t tot = (size_t)t->ng * MAXC;
	memset(t->unary, 0, tot * sizeof *t->unary);
	double share = (double)(t->f - 1) / t->f;
	for (uint32_t u = 0; t->lambda > 0 && u < g->nops; u++) {
		uint32_t k = t->grp[u];
		for (int c = 0; c < t->ncand[k]; c++)
			t->unary[(size_t)k * MAXC + c] +=
				t->lambda * share *
				kept(g, u,
				     dim_of(t, u,
					    t->cand[(size_t)k * MAXC + c]));
	}
	for (uint32_t e = 0; e < g->nedges; e++) {
		const dpi_tofu_edge *te = &t->te[e];
		uint32_t k = t->grp[te->from];
		if (k != t->grp[te->to] || te->bytes == 0)
			continue;
		for (int c = 0; c < t->ncand[k]; c++) {
			int cc = t->cand[(size_t)k * MAXC + c];
			t->unary[(size_t)k * MAXC + c] += dpi_tofu_edge_cost(
				te, dim_of(t, te->from, cc),
				dim_of(t, te->to, cc), &t->lv);
		}
	}
}

/* Cost of edge e when group k takes candidate c, the others a[]. */
static double edge_with(const tofu *t, uint32_t e, uint32_t k, int c,
			const uint8_t *a)
{
	const dpi_tofu_edge *te = &t->te[e];
	int cc = t->cand[(size_t)k * MAXC + c];
	int iu = t->grp[te->from] == k ? dim_of(t, te->from, cc)
				       : choice(t, te->from, a);
	int iv = t->grp[te->to] == k ? dim_of(t, te->to, cc)
				     : choice(t, te->to, a);
	return dpi_tofu_edge_cost(te, iu, iv, &t->lv);
}

static double total(const tofu *t, const uint8_t *a)
{
	double s = 0;
	for (uint32_t k = 0; k < t->ng; k++)
		s += t->unary[(size_t)k * MAXC + a[k]];
	for (uint32_t e = 0; e < t->g->nedges; e++) {
		const dpi_tofu_edge *te = &t->te[e];
		if (t->grp[te->from] != t->grp[te->to])
			s += dpi_tofu_edge_cost(te, choice(t, te->from, a),
						choice(t, te->to, a), &t->lv);
	}
	return s;
}

/* Every combination, first minimum in odometer order. */
static void exhaustive(tofu *t)
{
	memset(t->b, 0, t->ng);
	memset(t->a, 0, t->ng);
	double best = total(t, t->a);
	for (;;) {
		uint32_t k = 0;
		while (k < t->ng && t->b[k] + 1 >= t->ncand[k])
			t->b[k++] = 0;
		if (k == t->ng)
			return;
		t->b[k]++;
		double c = total(t, t->b);
		if (c < best) {
			best = c;
			memcpy(t->a, t->b, t->ng);
		}
	}
}

/* Coordinate descent: each group its best choice given the others. */
static void descend(tofu *t, uint8_t *a)
{
	for (int sweep = 0; sweep < 100; sweep++) {
		bool changed = false;
		for (uint32_t k = 0; k < t->ng; k++) {
			double bestv = 0;
			int best = a[k];
			for (int c = 0; c < t->ncand[k]; c++) {
				double v = t->unary[(size_t)k * MAXC + c];
				for (uint32_t j = t->adj_off[k];
				     j < t->adj_off[k + 1]; j++)
					v += edge_with(t, t->adj[j], k, c, a);
				if (c == 0 || v < bestv - 1e-9 * bestv) {
					bestv = v;
					best = c;
				}
			}
			if (best != a[k]) {
				/* move only when strictly better than now */
				double now = t->unary[(size_t)k * MAXC + a[k]];
				for (uint32_t j = t->adj_off[k];
				     j < t->adj_off[k + 1]; j++)
					now += edge_with(t, t->adj[j], k, a[k],
							 a);
				if (bestv < now - 1e-9 * now) {
					a[k] = (uint8_t)best;
					changed = true;
				}
			}
		}
		if (!changed)
			return;
	}
}

/* A Viterbi pass along the groups in order: edges to the group just
 * before are exact, edges to groups further back use a[]. Writes b[]. */
static void viterbi(tofu *t, const uint8_t *a, uint8_t *b)
{
	for (uint32_t k = 0; k < t->ng; k++) {
		for (int c = 0; c < t->ncand[k]; c++) {
			double loc = t->unary[(size_t)k * MAXC + c];
			double best = 0;
			int bi = 0;
			for (uint32_t j = t->adj_off[k]; j < t->adj_off[k + 1];
			     j++) {
				uint32_t e = t->adj[j];
				uint32_t q = t->grp[t->te[e].from] == k
						     ? t->grp[t->te[e].to]
						     : t->grp[t->te[e].from];
				if (q + 1 < k)
					loc += edge_with(t, e, k, c, a);
			}
			for (int c2 = 0; k > 0 && c2 < t->ncand[k - 1]; c2++) {
				double v = t->dp[(size_t)(k - 1) * MAXC + c2];
				for (uint32_t j = t->adj_off[k];
				     j < t->adj_off[k + 1]; j++) {
					uint32_t e = t->adj[j];
					const dpi_tofu_edge *te = &t->te[e];
					bool fromk = t->grp[te->from] == k;
					uint32_t q = fromk ? t->grp[te->to]
							   : t->grp[te->from];
					if (q != k - 1)
						continue;
					int ck = t->cand[(size_t)k * MAXC + c];
					int cq = t->cand[(size_t)q * MAXC + c2];
					int iu =
						fromk ? dim_of(t, te->from, ck)
						      : dim_of(t, te->from, cq);
					int iv = fromk ? dim_of(t, te->to, cq)
						       : dim_of(t, te->to, ck);
					v += dpi_tofu_edge_cost(te, iu, iv,
								&t->lv);
				}
				if (c2 == 0 || v < best) {
					best = v;
					bi = c2;
				}
			}
			t->dp[(size_t)k * MAXC + c] = loc + best;
			t->bp[(size_t)k * MAXC + c] = (uint8_t)bi;
		}
	}
	if (t->ng == 0)
		return;
	uint32_t k = t->ng - 1;
	int bc = 0;
	for (int c = 1; c < t->ncand[k]; c++)
		if (t->dp[(size_t)k * MAXC + c] < t->dp[(size_t)k * MAXC + bc])
			bc = c;
	for (;;) {
		b[k] = (uint8_t)bc;
		if (k == 0)
			break;
		bc = t->bp[(size_t)k * MAXC + bc];
		k--;
	}
}

/* One level: fills t->a with every group's choice. */
static dp_status level(tofu *t, double frac, dp_err *err)
{
	candidates(t);
	unary_costs(t);
	double combos = 1;
	for (uint32_t k = 0; k < t->ng && combos <= EXHAUSTIVE; k++)
		combos *= t->ncand[k];
	dp_status st = dpi_algo_poll(t->p, "tofu", "splitting", frac, err);
	if (st)
		return st;
	if (combos <= EXHAUSTIVE) {
		exhaustive(t);
		return DP_OK;
	}
	for (uint32_t k = 0; k < t->ng; k++) {
		int best = 0;
		for (int c = 1; c < t->ncand[k]; c++)
			if (t->unary[(size_t)k * MAXC + c] <
			    t->unary[(size_t)k * MAXC + best])
				best = c;
		t->a[k] = (uint8_t)best;
	}
	descend(t, t->a);
	double cost = total(t, t->a);
	for (int round = 0; round < 4; round++) {
		if ((st = dpi_algo_poll(t->p, "tofu", "splitting", frac, err)))
			return st;
		viterbi(t, t->a, t->b);
		descend(t, t->b);
		double c = total(t, t->b);
		if (!(c < cost - 1e-9 * cost))
			break;
		cost = c;
		memcpy(t->a, t->b, t->ng);
	}
	return DP_OK;
}

/* Writes level l's choices into s and the parts so far. */
static void apply(tofu *t, dp_strategy *s, int l)
{
	const dp_graph *g = t->g;
	for (uint32_t u = 0; u < g->nops; u++) {
		int i = choice(t, u, t->a);
		if (i == -2) {
			s->spmd.device[u] = g->ops[u].pin;
			continue;
		}
		if (i < 0)
			continue;
		s->spmd.axes[(size_t)u * DP_MAX_OP_DIMS + (uint32_t)i] |=
			(uint8_t)(1u << l);
		t->parts[(size_t)u * DP_MAX_OP_DIMS + (uint32_t)i] *= t->f;
	}
}

/* One whole search with penalty lambda into *s (allocated by caller). */
static dp_status search(tofu *t, dp_strategy *s, int round, int rounds,
			dp_err *err)
{
	const dp_graph *g = t->g;
	for (size_t i = 0; i < (size_t)g->nops * DP_MAX_OP_DIMS; i++)
		t->parts[i] = 1;
	for (int l = s->spmd.naxes - 1; l >= 0; l--) {
		t->f = t->lv.f = s->spmd.mesh[l];
		t->lv.groups = 1;
		for (int x = 0; x < l; x++)
			t->lv.groups *= s->spmd.mesh[x];
		if (t->f <= 1)
			continue;
		double frac = (round + (double)l / s->spmd.naxes) / rounds;
		dp_status st = level(t, frac, err);
		if (st)
			return st;
		apply(t, s, l);
	}
	return DP_OK;
}

static dp_status alloc_like(const dp_graph *g, const dp_strategy *tmpl,
			    dp_strategy *s, dp_err *err)
{
	dp_strategy_init(s);
	dp_status st = dp_strategy_alloc(s, DP_STRAT_SPMD, g, 0, err);
	if (st)
		return st;
	s->k = tmpl->k;
	s->spmd.naxes = tmpl->spmd.naxes;
	memcpy(s->spmd.mesh, tmpl->spmd.mesh, sizeof s->spmd.mesh);
	return DP_OK;
}

static dp_status tofu_run(const dp_graph *g, const dp_machine *m,
			  const dp_algo_opts *o, const dp_progress *p,
			  dp_strategy *out, dp_err *err)
{
	(void)o;
	static const double lambdas[] = {0, 1.0 / 16, 0.25, 1, 4, 16, 64};
	const int nl = (int)(sizeof lambdas / sizeof lambdas[0]);
	dp_status st = dpi_algo_poll(p, "tofu", "splitting", 0, err);
	if (!st)
		st = dp_algo_check_pins(g, m, err);
	if (st)
		return st;
	int64_t cap = DP_CAP_UNLIMITED;
	for (int d = 0; d < m->k; d++)
		cap = m->cap[d] < cap ? m->cap[d] : cap;
	tofu t;
	memset(&t, 0, sizeof t);
	t.g = g;
	t.p = p;
	t.lv.alpha = m->lat * m->bw;
	dp_strategy best, cur;
	dp_strategy_init(&best);
	dp_strategy_init(&cur);
	best.k = m->k;
	best.spmd.naxes = dpi_tofu_mesh(m->k, best.spmd.mesh);
	double best_mem = 0;
	bool have = false;
	if ((st = build(&t, err)))
		goto out;
	for (int r = 0; r < nl; r++) {
		t.lambda = lambdas[r];
		if ((st = alloc_like(g, &best, &cur, err)))
			break;
		int rounds = cap == DP_CAP_UNLIMITED ? 1 : nl;
		if ((st = search(&t, &cur, r, rounds, err)))
			break;
		double mem = dpi_tofu_estimate(g, &cur);
		if (!have || mem < best_mem) {
			dp_strategy tmp = best;
			best = cur;
			cur = tmp;
			best_mem = mem;
			have = true;
		}
		dp_strategy_free(&cur);
		if (cap == DP_CAP_UNLIMITED || best_mem <= (double)cap)
			break;
	}
out:
	dp_strategy_free(&cur);
	release(&t);
	if (st || !have) {
		dp_strategy_free(&best);
		return st;
	}
	int pos = snprintf(best.label, sizeof best.label, "tofu ");
	for (int a = 0; a < best.spmd.naxes; a++)
		pos += snprintf(best.label + pos,
				sizeof best.label - (size_t)pos, "%s%d",
				a ? "x" : "", best.spmd.mesh[a]);
	snprintf(best.algo, sizeof best.algo, "tofu");
	*out = best;
	return dpi_algo_poll(p, "tofu", "splitting", 1, err);
}

const dp_algo dpi_algo_tofu = {
	.name = "tofu",
	.summary = "Tofu: every op split recursively in two (or three...) "
		   "along the dim that minimises communication, per level",
	.source = "Wang et al., Supporting very large models using automatic "
		  "dataflow graph partitioning, EuroSys 2019",
	.run = NULL,
	.strategize = tofu_run,
};

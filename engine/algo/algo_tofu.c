/* algo_tofu.c - `tofu`: recursive partitioning of every op (Wang et al.,
 * "Supporting very large models using automatic dataflow graph
 * partitioning", EuroSys 2019), returning an spmd strategy.
 *
 * K is factored into primes (at most DP_MAX_MESH_AXES levels: the
 * smallest factors are merged when there are more); level l splits every
 * op into f_l parts along one of its dims whose remaining size f_l divides
 * (ours: or has at least one index per part, at a price for the uneven
 * blocks),
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
 * Message weights (ours): the model sums bytes and messages over all
 * devices, but the simulated step waits for every message of a dependent
 * chain, so a message is worth more than its latency x bandwidth in bytes
 * by a factor no one knows in advance. The search runs with the message
 * weight x 1, 4 and 16 (internal/tofu.h), each lowered and simulated, and
 * keeps the fastest plan.
 *
 * Memory caps (ours): when no plan of those fits the simulated peaks, the
 * search runs again with a penalty of lambda x the bytes each choice
 * leaves undivided (weights kept whole, outputs of reduction splits),
 * lambda = 1/16, 1/4, 1, 4, 16, 64, for each message weight until it has
 * fitted twice or its overflow stops falling, then once at half the
 * penalty where a weight first fitted, and keeps the fastest plan that
 * fits, else the one closest to fitting. Pinned ops stay whole on their
 * pin.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dnnpart/sim.h"
#include "dnnpart/strategy.h"
#include "internal/algo_int.h"
#include "internal/megatron.h"
#include "internal/spmd.h"
#include "internal/tofu_search.h"
#include "internal/tp_pairs.h"

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

static dp_status build(dpi_tofu_search *t, dp_err *err)
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
	t->cand = malloc((size_t)(n + 1) * DPI_TOFU_MAXC);
	t->ncand = malloc(n + 1);
	t->weights = calloc(n + 1, 1);
	t->unary = malloc((size_t)(n + 1) * DPI_TOFU_MAXC * sizeof *t->unary);
	t->a = malloc(n + 1);
	t->b = malloc(n + 1);
	t->dp = malloc((size_t)(n + 1) * DPI_TOFU_MAXC * sizeof *t->dp);
	t->bp = malloc((size_t)(n + 1) * DPI_TOFU_MAXC);
	t->tp = malloc(n + 1);
	if (!t->tp || dpi_tp_dims(g, t->tp) < 0 || !t->te || !t->grp ||
	    !t->rep || !t->order || !t->adj_off || !t->adj || !t->own ||
	    !t->parts || !t->cand || !t->ncand || !t->weights || !t->unary ||
	    !t->a || !t->b || !t->dp || !t->bp)
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
	for (uint32_t u = 0; u < n; u++)
		if (dpi_tofu_free_replica(g, u))
			t->weights[t->grp[u]] = 1;
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

static void release(dpi_tofu_search *t)
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
	free(t->tp);
}

/* Writes level l's choices into s and the parts so far. */
static void apply(dpi_tofu_search *t, dp_strategy *s, int l)
{
	const dp_graph *g = t->g;
	for (uint32_t u = 0; u < g->nops; u++) {
		int i = dpi_tofu_choice(t, u, t->a);
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

/* One whole search with penalty lambda into *s (allocated by caller),
 * the levels from the first down (down: each level priced exactly, the
 * levels before it known) or from the last up (the dearest level, with
 * the most groups, picks first; the parts of the levels not yet decided
 * are taken as dividing every tensor fully, as if each group held only
 * its own part). */
static dp_status search(dpi_tofu_search *t, dp_strategy *s, bool down,
			int round, int rounds, dp_err *err)
{
	const dp_graph *g = t->g;
	for (size_t i = 0; i < (size_t)g->nops * DP_MAX_OP_DIMS; i++)
		t->parts[i] = 1;
	for (uint32_t e = 0; e < g->nedges; e++)
		t->te[e].pdiv = t->te[e].cdiv = 1;
	int n = s->spmd.naxes;
	for (int x = 0; x < n; x++) {
		int l = down ? x : n - 1 - x;
		t->f = t->lv.f = s->spmd.mesh[l];
		t->lv.groups = 1;
		for (int y = 0; y < l; y++)
			t->lv.groups *= s->spmd.mesh[y];
		if (t->f <= 1)
			continue;
		for (uint32_t e = 0; !down && e < g->nedges; e++)
			t->te[e].pdiv = t->te[e].cdiv = t->lv.groups;
		double frac = (round + (down + (double)x / n) / 2) / rounds;
		dp_status st = dpi_tofu_solve_level(t, frac, err);
		if (st)
			return st;
		apply(t, s, l);
		for (uint32_t e = 0; down && e < g->nedges; e++)
			dpi_tofu_divide(&t->te[e],
					dpi_tofu_choice(t, t->te[e].from, t->a),
					dpi_tofu_choice(t, t->te[e].to, t->a),
					t->f);
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

#define TOFU_BUCKETS_MAX_K 64

/* A searched strategy as the simulator sees it. */
typedef struct tried {
	dp_strategy s;
	double ms;   /* the simulated step */
	double over; /* the largest peak / its device's cap; 0 uncapped */
} tried;

/* Lowers and simulates x->s on m (the memory pass only under caps). */
static dp_status simulate(const dp_graph *g, const dp_machine *m,
			  dp_contention cont, bool capped, tried *x,
			  dp_err *err)
{
	/* past TOFU_BUCKETS_MAX_K devices tofu's plans keep one reduce per
	 * gradient, as they are ranked: merging them into buckets
	 * (docs/spmd.md) sorts every collective's edges, which at K = 1024
	 * cost minutes over tofu's search (dp_plan_run keeps a strategy's
	 * bucket 0) */
	dp_lowered l;
	if (m->k > TOFU_BUCKETS_MAX_K)
		x->s.bucket = 0;
	dp_status st = dp_strategy_lower(g, m, &x->s, NULL, &l, err);
	if (st)
		return st;
	dp_sim *sim = dp_sim_new(l.g, m, err);
	if (!sim) {
		dp_lowered_free(&l);
		return DP_ENOMEM;
	}
	dp_sim_result r;
	memset(&r, 0, sizeof r);
	dp_sim_opts o = {.contention = cont, .skip_memory = !capped};
	st = dp_sim_run(sim, l.placement, &o, &r, err);
	if (!st) {
		x->ms = r.makespan;
		x->over = 0;
		for (int d = 0; capped && d < m->k; d++)
			if (m->cap[d] != DP_CAP_UNLIMITED && m->cap[d] > 0 &&
			    (double)r.dev[d].peak_bytes / (double)m->cap[d] >
				    x->over)
				x->over = (double)r.dev[d].peak_bytes /
					  (double)m->cap[d];
	}
	dp_sim_result_free(&r);
	dp_sim_free(sim);
	dp_lowered_free(&l);
	return st;
}

/* Is a better than b: fits when b does not, else (both fit) the shorter
 * step, else (neither fits) the smaller overflow. */
static bool better(const tried *a, const tried *b)
{
	bool fa = a->over <= 1, fb = b->over <= 1;
	if (fa != fb)
		return fa;
	return fa ? a->ms < b->ms : a->over < b->over;
}

/* The most edges tofu lets the lowered graph of its plans have (ours):
 * splitting every op K ways is linear in K, but resharding between ops
 * split on different dims connects each shard with many (all-to-all),
 * which at K = 1024 makes more edges than the simulator can price.
 * Two million edges simulate in about a second. */
#define MAX_EDGES 2e6

/* The smallest prime factor of k > 1. */
static int smallest_factor(int k)
{
	int p = 2;
	while (k % p)
		p++;
	return p;
}

/* The number of devices tofu splits over (ours): m->k, unless its plan
 * would lower to more than MAX_EDGES edges (estimated from the search
 * with the plain message weight, levels from the first): then the
 * largest divisor of m->k, by dropping prime factors from the smallest,
 * whose plan would not. A split that deep is too fine for the graph;
 * the devices left over stay idle (replicating the plan on them would
 * repeat the same work; fewer_devices() then picks among its divisors).
 * Searches only when the worst case, every edge connecting every pair of
 * shards, could pass the bound. */
static dp_status devices_to_use(dpi_tofu_search *t, const dp_machine *m, int *k,
				dp_err *err)
{
	const dp_graph *g = t->g;
	*k = m->k;
	while (*k > 1 && (double)g->nops * *k > MAX_EDGES)
		*k /= smallest_factor(*k);
	dp_status st = DP_OK;
	while (!st && *k > 1 && (double)g->nedges * *k * *k > MAX_EDGES) {
		dp_strategy s, tmpl;
		dp_strategy_init(&tmpl);
		tmpl.k = *k;
		tmpl.spmd.naxes = dpi_tofu_mesh(*k, tmpl.spmd.mesh);
		t->lv.alpha = m->lat * m->bw;
		t->lambda = 0;
		st = alloc_like(g, &tmpl, &s, err);
		if (!st)
			st = search(t, &s, true, 0, 1, err);
		bool fits = !st && dpi_tofu_lowered_edges(g, &s) <= MAX_EDGES;
		dp_strategy_free(&s);
		if (fits)
			break;
		if (!st)
			*k /= smallest_factor(*k);
	}
	return st;
}

/* Both orders' searches (search()), simulated; the better (better(),
 * ties to the first, the down) into *x. */
static dp_status search_both(dpi_tofu_search *t, const dp_machine *m,
			     const dp_strategy *tmpl, dp_contention cont,
			     bool capped, int round, int rounds, tried *x,
			     dp_err *err)
{
	tried o[2];
	dp_strategy_init(&o[0].s);
	dp_strategy_init(&o[1].s);
	dp_status st = DP_OK;
	for (int i = 0; !st && i < 2; i++) {
		st = alloc_like(t->g, tmpl, &o[i].s, err);
		if (!st)
			st = search(t, &o[i].s, i == 0, round, rounds, err);
		if (!st &&
		    dpi_tofu_lowered_edges(t->g, &o[i].s) > 2 * MAX_EDGES)
			o[i].ms = o[i].over = HUGE_VAL; /* not priced */
		else if (!st)
			st = simulate(t->g, m, cont, capped, &o[i], err);
	}
	if (st) {
		dp_strategy_free(&o[0].s);
		dp_strategy_free(&o[1].s);
		return st;
	}
	int b = better(&o[1], &o[0]);
	*x = o[b];
	dp_strategy_free(&o[1 - b].s);
	return DP_OK;
}

/* Where devices_to_use() left some idle (ours): among *k and its
 * divisors made by dropping prime factors from the smallest, the one
 * whose plan with the plain message weight simulates best (a graph too
 * small for K splits is often fastest on far fewer: gpt2-small, batch 8,
 * takes 3.8 s on 128 devices and 0.2 s on 8), into *k. */
static dp_status fewer_devices(dpi_tofu_search *t, const dp_machine *m,
			       dp_contention cont, bool capped, int *k,
			       dp_err *err)
{
	tried best, cur;
	int bk = *k;
	bool have = false;
	dp_status st = DP_OK;
	for (int kk = *k; !st && kk > 1; kk /= smallest_factor(kk)) {
		dp_strategy tmpl;
		dp_strategy_init(&tmpl);
		tmpl.k = kk;
		tmpl.spmd.naxes = dpi_tofu_mesh(kk, tmpl.spmd.mesh);
		t->lv.alpha = m->lat * m->bw;
		t->lambda = 0;
		st = search_both(t, m, &tmpl, cont, capped, 0, 1, &cur, err);
		if (st)
			break;
		if (!have || better(&cur, &best)) {
			if (have)
				dp_strategy_free(&best.s);
			best = cur;
			bk = kk;
			have = true;
		} else {
			dp_strategy_free(&cur.s);
		}
	}
	if (have)
		dp_strategy_free(&best.s);
	*k = bk;
	return st;
}

/* One candidate of the driver: a message weight (a scale of the link's
 * latency x bandwidth) and a memory penalty lambda; both orders are
 * searched and simulated (search_both), *best keeps the better plan and
 * *res gets the candidate's step and overflow. */
static dp_status candidate(dpi_tofu_search *t, const dp_machine *m,
			   const dp_strategy *tmpl, dp_contention cont,
			   bool capped, double scale, double lambda, int *round,
			   int rounds, tried *best, bool *have, tried *res,
			   dp_err *err)
{
	tried cur;
	t->lv.alpha = m->lat * m->bw * scale;
	t->lambda = lambda;
	dp_status st = search_both(t, m, tmpl, cont, capped, *round, rounds,
				   &cur, err);
	if (*round + 1 < rounds)
		(*round)++;
	if (st)
		return st;
	res->ms = cur.ms;
	res->over = cur.over;
	if (!*have || better(&cur, best)) {
		if (*have)
			dp_strategy_free(&best->s);
		*best = cur;
		*have = true;
	} else {
		dp_strategy_free(&cur.s);
	}
	return DP_OK;
}

/* The safeguard (ours): Megatron-LM's layout (internal/megatron.h) on
 * the same k devices, mesh [k/T, T] for every T > 1 dividing k, replaces
 * *best when it simulates better. A level-by-level search meets a
 * column/row pair one level at a time, and Megatron's pairs split over
 * all the devices at once (its vocab-parallel embedding with its tied
 * output layer) can beat every plan it finds. Sets *won when it did. */
static dp_status megatron_guard(const dp_graph *g, const dp_machine *m, int k,
				dp_contention cont, bool capped, tried *best,
				bool *have, bool *won, dp_err *err)
{
	dp_status st = DP_OK;
	for (int T = 2; !st && T <= k; T++) {
		if (k % T)
			continue;
		tried c;
		dp_strategy_init(&c.s);
		st = dp_strategy_alloc(&c.s, DP_STRAT_SPMD, g, 0, err);
		c.s.k = k;
		c.s.spmd.naxes = 2;
		c.s.spmd.mesh[0] = k / T;
		c.s.spmd.mesh[1] = T;
		if (!st)
			st = dpi_megatron_layout(g, &c.s, k / T, T, err);
		if (!st)
			st = simulate(g, m, cont, capped, &c, err);
		if (!st && (!*have || better(&c, best))) {
			if (*have)
				dp_strategy_free(&best->s);
			*best = c;
			*have = *won = true;
		} else {
			dp_strategy_free(&c.s);
		}
	}
	return st;
}

static dp_status tofu_run(const dp_graph *g, const dp_machine *m,
			  const dp_algo_opts *o, const dp_progress *p,
			  dp_strategy *out, dp_err *err)
{
	static const double lambdas[] = {1.0 / 16, 0.25, 1, 4, 16, 64};
	const int nl = (int)(sizeof lambdas / sizeof lambdas[0]);
	dp_status st = dpi_poll(p, "tofu", "splitting", 0, err);
	if (!st)
		st = dp_algo_check_pins(g, m, err);
	if (st)
		return st;
	bool capped = false;
	for (int d = 0; d < m->k; d++)
		capped = capped || m->cap[d] != DP_CAP_UNLIMITED;
	dp_algo_opts def;
	dp_contention cont = dpi_algo_opts_or_default(o, &def)->contention;
	dpi_tofu_search t;
	memset(&t, 0, sizeof t);
	t.g = g;
	t.p = p;
	t.bw = m->bw;
	tried best;
	dp_strategy_init(&best.s);
	bool have = false, guard = false;
	int round = 0, k = m->k;
	int rounds = DPI_TOFU_NSCALES * (capped ? 2 + nl : 1);
	if ((st = build(&t, err)) || (st = devices_to_use(&t, m, &k, err)) ||
	    (k < m->k && (st = fewer_devices(&t, m, cont, capped, &k, err))))
		goto out;
	best.s.k = k;
	best.s.spmd.naxes = dpi_tofu_mesh(k, best.s.spmd.mesh);
	dp_strategy tmpl = best.s;
	/* every message weight without a penalty; then, over a cap, the
	 * penalties in rising order for each weight, until it has fitted
	 * twice (the simulated step is not monotone in lambda: the next
	 * penalty may be faster, as it may be after one slower than a plan
	 * that fits) or its overflow has not fallen for two penalties; then,
	 * for a weight that first fitted at a penalty after one that did
	 * not, the penalty halfway between (geometrically), which may fit
	 * with less taken from its speed */
	bool done[DPI_TOFU_NSCALES] = {false};
	int nfit[DPI_TOFU_NSCALES] = {0}, flat[DPI_TOFU_NSCALES] = {0};
	int first[DPI_TOFU_NSCALES] = {0};
	double last[DPI_TOFU_NSCALES] = {0};
	for (int r = -1; !st && r < (capped ? nl : 0); r++)
		for (int i = 0; !st && i < DPI_TOFU_NSCALES; i++) {
			tried c = {.over = HUGE_VAL};
			if (done[i])
				continue;
			st = candidate(&t, m, &tmpl, cont, capped,
				       dpi_tofu_msg_scales[i],
				       r < 0 ? 0 : lambdas[r], &round, rounds,
				       &best, &have, &c, err);
			if (c.over <= 1 && nfit[i]++ == 0)
				first[i] = r;
			flat[i] = r >= 0 && c.over >= last[i] ? flat[i] + 1 : 0;
			done[i] = nfit[i] >= 2 || flat[i] >= 2;
			last[i] = c.over;
		}
	for (int i = 0; !st && capped && i < DPI_TOFU_NSCALES; i++)
		if (nfit[i] > 0 && first[i] > 0) {
			tried c;
			st = candidate(&t, m, &tmpl, cont, capped,
				       dpi_tofu_msg_scales[i],
				       lambdas[first[i]] / 2, &round, rounds,
				       &best, &have, &c, err);
		}
	if (!st)
		st = megatron_guard(g, m, k, cont, capped, &best, &have, &guard,
				    err);
out:
	release(&t);
	if (st || !have) {
		if (have)
			dp_strategy_free(&best.s);
		return st;
	}
	int pos = snprintf(best.s.label, sizeof best.s.label, "tofu %s",
			   guard ? "= megatron " : "");
	for (int a = 0; a < best.s.spmd.naxes; a++)
		pos += snprintf(best.s.label + pos,
				sizeof best.s.label - (size_t)pos, "%s%d",
				a ? "x" : "", best.s.spmd.mesh[a]);
	if (k < m->k) /* a coarser split than the machine allows */
		pos += snprintf(best.s.label + pos,
				sizeof best.s.label - (size_t)pos, " on %d of %d",
				k, m->k);
	if (guard)
		snprintf(best.s.label + pos, sizeof best.s.label - (size_t)pos,
			 " (safeguard)");
	snprintf(best.s.algo, sizeof best.s.algo, "tofu");
	*out = best.s;
	return dpi_poll(p, "tofu", "splitting", 1, err);
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

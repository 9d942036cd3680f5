/* algo_pardnn_layers.c - pardnn's seed of whole layers (ours, not in the
 * paper; docs/algorithms.md, "Other seeds").
 *
 * A layer unit is the set of ops with one layer name and one side of the
 * training step: the forward and backward ops of a layer (they share the
 * activations, the largest tensors of the step) on one side, its weight
 * gradients, optimizer step and weights (role grad, update or param: their
 * accumulation chain passes one weight-sized tensor along) on the other;
 * colocation groups join the units of their members. The seed starts from
 * the mapped placement with every unit moved whole to the device that holds
 * most of its work, then moves units one at a time, largest first, to the
 * least loaded devices, keeping a move when the simulator says the makespan
 * went down (the memory overflow not up), for at most layer_sims()
 * simulations.
 *
 * Why: on an unrolled recurrent network (lstm-lm) the paper's primaries
 * follow the critical path from one layer's forward chain to the other
 * layer's backward chain, so a layer's backward runs on another device than
 * its forward and every step sends its activations across; the weight
 * gradients land beside the chains. Whole layer units keep each chain with
 * its activations and put the gradient work on devices of its own.
 *
 * Made only when the graph has 2..PD_LAYERS_MAX_UNITS layer units (a
 * layer-level search; graphs with thousands of fine-grained layers are the
 * other seeds' ground) and ops x K is at most PD_LAYERS_MAX_WORK; ops
 * without a layer, and units holding a pinned op, stay where mapping put
 * them. Otherwise the maker fails, which only means no seed.
 */
#include <stdlib.h>
#include <string.h>

#include "internal/algo_int.h"
#include "internal/arrays.h"
#include "internal/pardnn.h"
#include "internal/sort_key.h"
#include "internal/unionfind.h"

#define PD_LAYERS_MAX_UNITS 128u
#define PD_LAYERS_MAX_WORK (1u << 18)
#define PD_LAYERS_TRY 4	    /* target devices tried per unit and pass */
#define PD_LAYERS_PASSES 3  /* passes over the units */
#define PD_LAYERS_WORK 16e6 /* simulation budget: this / (V + E) ... */
#define PD_LAYERS_MIN_SIMS 16u
#define PD_LAYERS_MAX_SIMS 512u

typedef struct lkey {
	uint32_t layer, side, op;
} lkey;

DPI_CMP_DEFINE(cmp_lkey, lkey, DPI_CMP(x->layer, y->layer),
	       DPI_CMP(x->side, y->side), DPI_CMP(x->op, y->op))

typedef struct lunits {
	uint32_t nu;	  /* layer units */
	uint32_t *parent; /* n: union-find over ops */
	uint32_t *unit;	  /* n: unit of each op (root's index) or PD_NONE */
	uint32_t *off;	  /* nu + 1 */
	uint32_t *ops;	  /* the ops by unit */
	double *work;	  /* nu: weight of each unit (c->w) */
	uint32_t *order;  /* nu: units by work, largest first */
	bool *fixed;	  /* nu: holds a pinned op */
	double *vote;	  /* nu x k scratch, then k loads */
	lkey *keys;	  /* n scratch */
	dpi_sort_key *sk; /* nu scratch */
} lunits;

static void lunits_free(lunits *s)
{
	DPI_FREE_ALL(s->parent, s->unit, s->off, s->ops, s->work, s->order,
		     s->fixed, s->vote, s->keys, s->sk);
}

static bool grad_side(const dp_graph *g, uint32_t u)
{
	dp_role r = dp_op_role(g, u);
	return r == DP_ROLE_GRAD || r == DP_ROLE_UPDATE || r == DP_ROLE_PARAM;
}

/* Labels the layer units; false when there are not 2..MAX of them. */
static bool label_units(const pd_ctx *c, lunits *s)
{
	const dp_graph *g = c->g;
	uint32_t nk = 0;
	for (uint32_t u = 0; u < c->n; u++) {
		s->parent[u] = u;
		if (g->ops[u].layer)
			s->keys[nk++] =
				(lkey){g->ops[u].layer, grad_side(g, u), u};
	}
	qsort(s->keys, nk, sizeof *s->keys, cmp_lkey);
	for (uint32_t i = 1; i < nk; i++)
		if (s->keys[i].layer == s->keys[i - 1].layer &&
		    s->keys[i].side == s->keys[i - 1].side)
			dpi_uf_union(s->parent, s->keys[i].op,
				     s->keys[i - 1].op);
	for (uint32_t u = 0; u < c->n; u++)
		dpi_uf_union(s->parent, u, dpi_pd_rep(g, u));
	/* a component is a layer unit when one of its ops has a layer */
	for (uint32_t u = 0; u < c->n; u++)
		s->unit[u] = PD_NONE;
	s->nu = 0;
	for (uint32_t i = 0; i < nk; i++) {
		uint32_t r = dpi_uf_find(s->parent, s->keys[i].op);
		if (s->unit[r] == PD_NONE) {
			if (s->nu == PD_LAYERS_MAX_UNITS)
				return false;
			s->unit[r] = s->nu++;
		}
	}
	return s->nu >= 2;
}

/* Fills the units' op lists, work, pins and order by work. */
static void fill_units(const pd_ctx *c, lunits *s)
{
	memset(s->off, 0, ((size_t)s->nu + 1) * sizeof *s->off);
	for (uint32_t u = 0; u < c->n; u++) {
		s->unit[u] = s->unit[dpi_uf_find(s->parent, u)];
		if (s->unit[u] != PD_NONE)
			s->off[s->unit[u] + 1]++;
	}
	for (uint32_t i = 0; i < s->nu; i++) {
		s->off[i + 1] += s->off[i];
		s->work[i] = 0;
		s->fixed[i] = false;
	}
	for (uint32_t i = 0; i < s->nu; i++)
		s->order[i] = s->off[i]; /* a cursor until sorted below */
	for (uint32_t u = 0; u < c->n; u++)
		if (s->unit[u] != PD_NONE)
			s->ops[s->order[s->unit[u]]++] = u;
	for (uint32_t i = 0; i < s->nu; i++) {
		s->work[i] = 0;
		for (uint32_t j = s->off[i]; j < s->off[i + 1]; j++) {
			s->work[i] += c->w[s->ops[j]];
			if (c->fix[s->ops[j]] >= 0)
				s->fixed[i] = true;
		}
	}
	for (uint32_t i = 0; i < s->nu; i++)
		s->sk[i] = (dpi_sort_key){s->work[i], i, i};
	qsort(s->sk, s->nu, sizeof *s->sk, dpi_sort_key_desc);
	for (uint32_t i = 0; i < s->nu; i++)
		s->order[i] = s->sk[i].op;
}

static void put_unit(pd_ctx *c, const lunits *s, uint32_t x, int32_t d)
{
	for (uint32_t j = s->off[x]; j < s->off[x + 1]; j++)
		c->place[s->ops[j]] = d;
}

/* Every free unit to the device holding most of its work (ties: the
 * device first in c->devorder). */
static void vote_units(pd_ctx *c, const lunits *s)
{
	int k = c->k;
	for (uint32_t x = 0; x < s->nu; x++) {
		if (s->fixed[x])
			continue;
		double *v = s->vote + (size_t)x * (size_t)k;
		for (int d = 0; d < k; d++)
			v[d] = 0;
		for (uint32_t j = s->off[x]; j < s->off[x + 1]; j++)
			v[c->place[s->ops[j]]] += c->w[s->ops[j]] + 1e-9;
		int32_t best = c->devorder[0];
		for (int i = 1; i < k; i++)
			if (v[c->devorder[i]] > v[best])
				best = c->devorder[i];
		put_unit(c, s, x, best);
	}
}

/* The work on each device, divided by its speed, into load (k). */
static void device_loads(const pd_ctx *c, double *load)
{
	for (int d = 0; d < c->k; d++)
		load[d] = 0;
	for (uint32_t u = 0; u < c->n; u++)
		load[c->place[u]] += c->w[u];
	for (int d = 0; d < c->k; d++)
		load[d] /= c->m->speed[d] > 0 ? c->m->speed[d] : 1;
}

/* The least loaded device not in tried[0..nt) and not d0; -1 if none. */
static int32_t least_loaded(const pd_ctx *c, const double *load, int32_t d0,
			    const int32_t *tried, int nt)
{
	int32_t best = -1;
	for (int i = 0; i < c->k; i++) {
		int32_t d = c->devorder[i];
		bool seen = d == d0;
		for (int t = 0; t < nt; t++)
			seen = seen || tried[t] == d;
		if (!seen && (best < 0 || load[d] < load[best]))
			best = d;
	}
	return best;
}

static uint32_t layer_sims(const pd_ctx *c)
{
	double b = PD_LAYERS_WORK / ((double)c->n + c->g->nedges + 1.0);
	return b < PD_LAYERS_MIN_SIMS	? PD_LAYERS_MIN_SIMS
	       : b > PD_LAYERS_MAX_SIMS ? PD_LAYERS_MAX_SIMS
					: (uint32_t)b;
}

/* Moves units to the least loaded devices while the simulator says the
 * plan gets faster, within layer_sims() simulations. */
static dp_status search_units(pd_ctx *c, const lunits *s)
{
	dp_status st;
	double *load = s->vote;
	uint32_t left = layer_sims(c);
	c->res_has = 0;
	if ((st = dpi_pd_simulate(c, PD_MEM, &c->cur)))
		return st;
	for (int pass = 0; pass < PD_LAYERS_PASSES && left > 0; pass++) {
		bool moved = false;
		for (uint32_t i = 0; i < s->nu && left > 0; i++) {
			uint32_t x = s->order[i];
			if (s->fixed[x] || s->off[x] == s->off[x + 1])
				continue;
			if ((st = dpi_pd_check_cancel(c)))
				return st;
			int32_t tried[PD_LAYERS_TRY], from;
			from = c->place[s->ops[s->off[x]]];
			device_loads(c, load);
			for (int t = 0; t < PD_LAYERS_TRY && left > 0; t++) {
				int32_t d =
					least_loaded(c, load, from, tried, t);
				if (d < 0)
					break;
				tried[t] = d;
				put_unit(c, s, x, d);
				bool kept = false;
				left--;
				if ((st = dpi_pd_try_current(c, &kept)))
					return st;
				if (kept) {
					moved = true;
					break;
				}
				put_unit(c, s, x, from);
			}
		}
		if (!moved)
			break;
	}
	return DP_OK;
}

dp_status dpi_pd_seed_layers(pd_ctx *c, int32_t *pl, dp_err *e)
{
	if (c->k < 2 || (uint64_t)c->n * (uint64_t)c->k > PD_LAYERS_MAX_WORK)
		return dp_err_set(e, DP_EINPUT, NULL, 0, 0, "no layer seed");
	lunits s = {0};
	size_t n = c->n;
	size_t maxu = PD_LAYERS_MAX_UNITS;
	const dpi_arr arrs[] = {
		DPI_ARR(s.parent, n),	  DPI_ARR(s.unit, n),
		DPI_ARR(s.off, maxu + 1), DPI_ARR(s.ops, n),
		DPI_ARR(s.work, maxu),	  DPI_ARR(s.order, maxu),
		DPI_ARR(s.fixed, maxu),	  DPI_ARR(s.vote, maxu * (size_t)c->k),
		DPI_ARR(s.keys, n),	  DPI_ARR(s.sk, maxu),
	};
	dp_status st = DP_OK;
	if (dpi_arrays_alloc(arrs, DPI_NARR(arrs)) != 0)
		st = dp_err_set(e, DP_ENOMEM, NULL, 0, 0,
				"out of memory in pardnn's layer seed");
	else if (!label_units(c, &s))
		st = dp_err_set(e, DP_EINPUT, NULL, 0, 0, "no layer seed");
	if (!st) {
		fill_units(c, &s);
		vote_units(c, &s);
		st = search_units(c, &s);
		if (st && e && c->err) /* the search reports into c->err */
			*e = *c->err;
		if (pl != c->place)
			memcpy(pl, c->place, n * sizeof *pl);
	}
	lunits_free(&s);
	return st;
}

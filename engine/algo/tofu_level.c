/* tofu_level.c - one level of the `tofu` search (internal/tofu_search.h):
 * every group's candidate dims, their costs in the model of
 * internal/tofu.h, and the choice minimising the level's cost. */
#include <stdlib.h>
#include <string.h>

#include "internal/algo_int.h"
#include "internal/spmd.h"
#include "internal/tofu_search.h"

#define EXHAUSTIVE 4096

/* The candidates of every group at a level of f parts. */
static void candidates(dpi_tofu_search *t)
{
	const dp_graph *g = t->g;
	for (uint32_t k = 0; k < t->ng; k++) {
		uint32_t r = t->rep[k];
		int8_t *c = &t->cand[(size_t)k * DPI_TOFU_MAXC];
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
			/* a dim the level divides; ours: or one with at
			 * least one index per part (gpt2-xl's 25 heads in
			 * 13 and 12), paying for its imbalance */
			for (uint32_t i = 0; i < d.n; i++)
				if (d.sizes[i] >= (int64_t)parts[i] * t->f)
					c[n++] = (int8_t)i;
		}
		/* last: any other op may stay whole, paying its compute */
		if (n == 0 || (!t->weights[k] && g->ops[r].pin < 0 &&
			       t->bw > 0 && n < DPI_TOFU_MAXC))
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
static void unary_costs(dpi_tofu_search *t)
{
	const dp_graph *g = t->g;
	size_t tot = (size_t)t->ng * DPI_TOFU_MAXC;
	memset(t->unary, 0, tot * sizeof *t->unary);
	double share = (double)(t->f - 1) / t->f;
	for (uint32_t u = 0; t->lambda > 0 && u < g->nops; u++) {
		uint32_t k = t->grp[u];
		for (int c = 0; c < t->ncand[k]; c++)
			t->unary[(size_t)k * DPI_TOFU_MAXC + c] +=
				t->lambda * share *
				kept(g, u,
				     dpi_tofu_dim_of(
					     t, u,
					     t->cand[(size_t)k * DPI_TOFU_MAXC +
						     c]));
	}
	for (uint32_t u = 0; t->bw > 0 && u < g->nops; u++) {
		uint32_t k = t->grp[u];
		double prev = 1;
		dp_dims d;
		bool hd = dp_op_dims(g, u, &d);
		const int32_t *parts = &t->parts[(size_t)u * DP_MAX_OP_DIMS];
		for (uint32_t i = 0; i < (hd ? d.n : 1); i++)
			prev *= parts[i];
		for (int c = 0; c < t->ncand[k]; c++) {
			int i = dpi_tofu_dim_of(
				t, u, t->cand[(size_t)k * DPI_TOFU_MAXC + c]);
			double *un = &t->unary[(size_t)k * DPI_TOFU_MAXC + c];
			if (i == -1)
				*un += dpi_tofu_replica_cost(g, u, prev, &t->lv,
							     t->bw);
			else if (i >= 0 && hd)
				*un += dpi_tofu_uneven_cost(g, u, d.sizes[i],
							    parts[i], prev,
							    &t->lv, t->bw);
		}
	}
	for (uint32_t e = 0; e < g->nedges; e++) {
		const dpi_tofu_edge *te = &t->te[e];
		uint32_t k = t->grp[te->from];
		if (k != t->grp[te->to] || te->bytes == 0)
			continue;
		for (int c = 0; c < t->ncand[k]; c++) {
			int cc = t->cand[(size_t)k * DPI_TOFU_MAXC + c];
			t->unary[(size_t)k * DPI_TOFU_MAXC + c] +=
				dpi_tofu_edge_cost(
					te, dpi_tofu_dim_of(t, te->from, cc),
					dpi_tofu_dim_of(t, te->to, cc), &t->lv);
		}
	}
}

/* Cost of edge e when group k takes candidate c, the others a[]. */
static double edge_with(const dpi_tofu_search *t, uint32_t e, uint32_t k, int c,
			const uint8_t *a)
{
	const dpi_tofu_edge *te = &t->te[e];
	int cc = t->cand[(size_t)k * DPI_TOFU_MAXC + c];
	int iu = t->grp[te->from] == k ? dpi_tofu_dim_of(t, te->from, cc)
				       : dpi_tofu_choice(t, te->from, a);
	int iv = t->grp[te->to] == k ? dpi_tofu_dim_of(t, te->to, cc)
				     : dpi_tofu_choice(t, te->to, a);
	return dpi_tofu_edge_cost(te, iu, iv, &t->lv);
}

static double total(const dpi_tofu_search *t, const uint8_t *a)
{
	double s = 0;
	for (uint32_t k = 0; k < t->ng; k++)
		s += t->unary[(size_t)k * DPI_TOFU_MAXC + a[k]];
	for (uint32_t e = 0; e < t->g->nedges; e++) {
		const dpi_tofu_edge *te = &t->te[e];
		if (t->grp[te->from] != t->grp[te->to])
			s += dpi_tofu_edge_cost(
				te, dpi_tofu_choice(t, te->from, a),
				dpi_tofu_choice(t, te->to, a), &t->lv);
	}
	return s;
}

/* Every combination, first minimum in odometer order. */
static void exhaustive(dpi_tofu_search *t)
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
static void descend(dpi_tofu_search *t, uint8_t *a)
{
	for (int sweep = 0; sweep < 100; sweep++) {
		bool changed = false;
		for (uint32_t k = 0; k < t->ng; k++) {
			double bestv = 0;
			int best = a[k];
			for (int c = 0; c < t->ncand[k]; c++) {
				double v =
					t->unary[(size_t)k * DPI_TOFU_MAXC + c];
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
				double now =
					t->unary[(size_t)k * DPI_TOFU_MAXC +
						 a[k]];
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
static void viterbi(dpi_tofu_search *t, const uint8_t *a, uint8_t *b)
{
	for (uint32_t k = 0; k < t->ng; k++) {
		for (int c = 0; c < t->ncand[k]; c++) {
			double loc = t->unary[(size_t)k * DPI_TOFU_MAXC + c];
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
				double v =
					t->dp[(size_t)(k - 1) * DPI_TOFU_MAXC +
					      c2];
				for (uint32_t j = t->adj_off[k];
				     j < t->adj_off[k + 1]; j++) {
					uint32_t e = t->adj[j];
					const dpi_tofu_edge *te = &t->te[e];
					bool fromk = t->grp[te->from] == k;
					uint32_t q = fromk ? t->grp[te->to]
							   : t->grp[te->from];
					if (q != k - 1)
						continue;
					int ck = t->cand[(size_t)k *
								 DPI_TOFU_MAXC +
							 c];
					int cq = t->cand[(size_t)q *
								 DPI_TOFU_MAXC +
							 c2];
					int iu =
						fromk ? dpi_tofu_dim_of(
								t, te->from, ck)
						      : dpi_tofu_dim_of(
								t, te->from,
								cq);
					int iv = fromk ? dpi_tofu_dim_of(
								 t, te->to, cq)
						       : dpi_tofu_dim_of(
								 t, te->to, ck);
					v += dpi_tofu_edge_cost(te, iu, iv,
								&t->lv);
				}
				if (c2 == 0 || v < best) {
					best = v;
					bi = c2;
				}
			}
			t->dp[(size_t)k * DPI_TOFU_MAXC + c] = loc + best;
			t->bp[(size_t)k * DPI_TOFU_MAXC + c] = (uint8_t)bi;
		}
	}
	if (t->ng == 0)
		return;
	uint32_t k = t->ng - 1;
	int bc = 0;
	for (int c = 1; c < t->ncand[k]; c++)
		if (t->dp[(size_t)k * DPI_TOFU_MAXC + c] <
		    t->dp[(size_t)k * DPI_TOFU_MAXC + bc])
			bc = c;
	for (;;) {
		b[k] = (uint8_t)bc;
		if (k == 0)
			break;
		bc = t->bp[(size_t)k * DPI_TOFU_MAXC + bc];
		k--;
	}
}

/* The second start of a level (ours): every group on Megatron's
 * tensor-parallel dim of its first op when it may split it, else on the
 * batch, else its cheapest alone. A column/row pair must change together
 * (its partial sums are only cheap when both ends split the width), which
 * one group at a time cannot find. */
static void megatron_start(dpi_tofu_search *t, uint8_t *b)
{
	const dp_graph *g = t->g;
	const char *bd = dp_graph_batch_dim(g);
	for (uint32_t k = 0; k < t->ng; k++) {
		uint32_t r = t->rep[k];
		int bi = bd[0] ? dp_op_find_dim(g, r, bd) : -1;
		int want = t->tp[r] >= 0 ? -1 : bi, best = 0, tp = -1;
		for (int c = 0; c < t->ncand[k]; c++) {
			int d = t->cand[(size_t)k * DPI_TOFU_MAXC + c];
			if (d >= 0 && d == t->tp[r])
				tp = c;
			if (t->unary[(size_t)k * DPI_TOFU_MAXC + c] <
			    t->unary[(size_t)k * DPI_TOFU_MAXC + best])
				best = c;
			if (d >= 0 && d == want && tp < 0)
				tp = c;
		}
		if (tp < 0)
			for (int c = 0; c < t->ncand[k]; c++)
				if (t->cand[(size_t)k * DPI_TOFU_MAXC + c] ==
					    bi &&
				    bi >= 0)
					tp = c;
		b[k] = (uint8_t)(tp >= 0 ? tp : best);
	}
}

/* One level: fills t->a with every group's choice. */
dp_status dpi_tofu_solve_level(dpi_tofu_search *t, double frac, dp_err *err)
{
	candidates(t);
	unary_costs(t);
	double combos = 1;
	for (uint32_t k = 0; k < t->ng && combos <= EXHAUSTIVE; k++)
		combos *= t->ncand[k];
	dp_status st = dpi_poll(t->p, "tofu", "splitting", frac, err);
	if (st)
		return st;
	if (combos <= EXHAUSTIVE) {
		exhaustive(t);
		return DP_OK;
	}
	for (uint32_t k = 0; k < t->ng; k++) {
		int best = 0;
		for (int c = 1; c < t->ncand[k]; c++)
			if (t->unary[(size_t)k * DPI_TOFU_MAXC + c] <
			    t->unary[(size_t)k * DPI_TOFU_MAXC + best])
				best = c;
		t->a[k] = (uint8_t)best;
	}
	descend(t, t->a);
	double cost = total(t, t->a);
	for (int round = 0; round < 4; round++) {
		if ((st = dpi_poll(t->p, "tofu", "splitting", frac, err)))
			return st;
		viterbi(t, t->a, t->b);
		descend(t, t->b);
		double c = total(t, t->b);
		if (!(c < cost - 1e-9 * cost))
			break;
		cost = c;
		memcpy(t->a, t->b, t->ng);
	}
	megatron_start(t, t->b);
	descend(t, t->b);
	if (total(t, t->b) < cost - 1e-9 * cost)
		memcpy(t->a, t->b, t->ng);
	return DP_OK;
}

/* algo_mincut_refine.c - mincut's refinement at every level (see
 * internal/mincut.h).
 *
 * Fiduccia-Mattheyses passes (Fiduccia and Mattheyses, DAC 1982) with the
 * moves that keep the quotient acyclic (Herrmann et al., Sec. 5; Moreira
 * et al.): a vertex may go to any part between the last part of its
 * predecessors and the first part of its successors, so every edge still
 * goes forward (soft edges and terminals aside). Gain: the communication
 * (µs) of the cut edges, soft edges and terminal edges the move saves. A
 * move must keep the target part's time within its bound and its bytes
 * within its budget. Each pass moves every vertex at most once, best gain
 * first (a heap with gains recomputed when an entry comes up), goes on
 * through moves that lose until 50 + n / 50 moves brought nothing better,
 * then rolls back to the best point. Up to 8 passes per level; then, while
 * a part is over its bound or budget (at most 4 passes), a rebalancing
 * pass moves vertices out of it, best gain first, into parts with room or
 * at least into parts that end less full than it was, so the fuller of
 * the two gets less full; then one more FM pass.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "internal/algo_int.h"
#include "internal/mincut.h"
#include "internal/minheap.h"

static inline int mc_gless(const mc_gent *a, const mc_gent *b)
{
	return a->gain > b->gain || (a->gain == b->gain && a->v < b->v);
}

DPI_HEAP_DEFINE(mc_gheap, mc_gent, mc_gless)

int dpi_mc_gainq_push(mc_gainq *q, double gain, uint32_t v)
{
	if (q->len == q->cap) {
		uint32_t nc = q->cap ? q->cap * 2 : 1024;
		mc_gent *h = realloc(q->h, (size_t)nc * sizeof *h);
		if (!h)
			return -1;
		q->h = h;
		q->cap = nc;
	}
	mc_gheap_push(q->h, &q->len, (mc_gent){gain, v});
	return 0;
}

mc_gent dpi_mc_gainq_pop(mc_gainq *q)
{
	return mc_gheap_pop(q->h, &q->len);
}

#define MC_PASSES 8
/* Neighbours of a moved vertex are re-evaluated only up to this degree
 * (a hub is still evaluated when its own entry comes up). */
#define MC_DEG_LIMIT 1024

dp_status dpi_mc_poll(mc_ctx *c, double fraction)
{
	return dpi_poll(c->p, "mincut", "mincut", fraction, c->err);
}

dp_status dpi_mc_nomem(mc_ctx *c)
{
	return dp_err_set(c->err, DP_ENOMEM, NULL, 0, 0,
			  "out of memory for mincut on %u ops", c->g->nops);
}

static double sum_speed(const dp_machine *m)
{
	return dp_machine_sum_speed(m);
}

void dpi_mc_loads(mc_ctx *c, int l)
{
	const mc_level *lv = &c->lv[l];
	double S = sum_speed(c->m), total = c->g->total_time_us;
	for (int p = 0; p < c->k; p++) {
		int32_t d = c->dev[p];
		c->of_dev[d] = p;
		c->load[p] = c->fixed_t[d];
		c->pmem[p] = c->fixed_m[d];
		c->bound[p] = MC_TOL * total * c->m->speed[d] / S;
		c->budget[p] = c->cap_m[d];
	}
	for (uint32_t v = 0; v < lv->nv; v++) {
		c->load[c->part[v]] += lv->time[v];
		c->pmem[c->part[v]] += lv->mem[v];
	}
}

double dpi_mc_cut(const mc_ctx *c, int l)
{
	const mc_level *lv = &c->lv[l];
	double cut = 0;
	for (uint32_t a = 0; a < lv->nv; a++) {
		for (uint32_t i = lv->out_off[a]; i < lv->out_off[a + 1]; i++)
			if (c->part[a] != c->part[lv->out_dst[i]])
				cut += lv->out_w[i];
		for (uint32_t i = lv->t_off[a]; i < lv->t_off[a + 1]; i++)
			if (c->part[a] != c->of_dev[lv->t_dev[i]])
				cut += lv->t_w[i];
		for (uint32_t i = lv->s_off[a]; i < lv->s_off[a + 1]; i++)
			if (c->part[a] != c->part[lv->s_nb[i]])
				cut += lv->s_w[i] / 2; /* stored both ways */
	}
	return cut;
}

static bool over(const mc_ctx *c, int32_t p)
{
	return c->load[p] > c->bound[p] * (1 + 1e-12) ||
	       c->pmem[p] > c->budget[p];
}

static bool has_room(const mc_ctx *c, const mc_level *lv, uint32_t v, int32_t q)
{
	double t = lv->time[v], b = lv->mem[v];
	return (t == 0 || c->load[q] + t <= c->bound[q] * (1 + 1e-12)) &&
	       (b == 0 || c->pmem[q] + b <= c->budget[q]);
}

/* Part p's time (what = 0) or bytes (what = 1), with x more, over its
 * bound or budget. */
static double ratio(const mc_ctx *c, int32_t p, int what, double x)
{
	double have = (what ? c->pmem[p] : c->load[p]) + x;
	double lim = what ? c->budget[p] : c->bound[p];
	if (isinf(lim))
		return 0;
	return lim > 0 ? have / lim : (have > 0 ? INFINITY : 0);
}

/* Whether v may go to q: it fits there, or, when rebalancing, q ends
 * less full than v's part is now (so the fuller of the two gets less
 * full). Memory comes first: out of a part over its byte budget a vertex
 * may go wherever the bytes fit or end less full, whatever the time; out
 * of a part over its time bound only, the bytes must fit. */
static bool may_go(const mc_ctx *c, const mc_level *lv, uint32_t v, int32_t q,
		   bool rebal)
{
	if (has_room(c, lv, v, q))
		return true;
	if (!rebal)
		return false;
	int32_t p = c->part[v];
	double t = lv->time[v], b = lv->mem[v];
	bool b_fits = b == 0 || c->pmem[q] + b <= c->budget[q];
	if (c->pmem[p] > c->budget[p])
		return b_fits || ratio(c, q, 1, b) < ratio(c, p, 1, 0);
	bool t_ok = t == 0 || c->load[q] + t <= c->bound[q] * (1 + 1e-12) ||
		    ratio(c, q, 0, t) < ratio(c, p, 0, 0);
	return t_ok && b_fits;
}

static void conn_add(mc_ctx *c, int32_t q, double w, int *nt)
{
	if (c->pmark[q] != c->pstamp) {
		c->pmark[q] = c->pstamp;
		c->conn[q] = 0;
		c->touched[(*nt)++] = q;
	}
	c->conn[q] += w;
}

/* The best move of v that keeps every edge forward and fits: its part in
 * *to and the communication it saves in *gain; false when none. */
static bool best_move(mc_ctx *c, const mc_level *lv, uint32_t v, bool rebal,
		      int32_t *to, double *gain)
{
	int32_t p = c->part[v], lo = 0, hi = c->k - 1;
	int nt = 0;
	if (++c->pstamp == 0) {
		memset(c->pmark, 0, (size_t)c->k * sizeof *c->pmark);
		c->pstamp = 1;
	}
	conn_add(c, p, 0, &nt);
	for (uint32_t i = lv->in_off[v]; i < lv->in_off[v + 1]; i++) {
		int32_t q = c->part[lv->in_src[i]];
		if (q > lo)
			lo = q;
		conn_add(c, q, lv->in_w[i], &nt);
	}
	for (uint32_t i = lv->out_off[v]; i < lv->out_off[v + 1]; i++) {
		int32_t q = c->part[lv->out_dst[i]];
		if (q < hi)
			hi = q;
		conn_add(c, q, lv->out_w[i], &nt);
	}
	for (uint32_t i = lv->t_off[v]; i < lv->t_off[v + 1]; i++)
		conn_add(c, c->of_dev[lv->t_dev[i]], lv->t_w[i], &nt);
	for (uint32_t i = lv->s_off[v]; i < lv->s_off[v + 1]; i++)
		conn_add(c, c->part[lv->s_nb[i]], lv->s_w[i], &nt);
	if (p - 1 >= lo)
		conn_add(c, p - 1, 0, &nt);
	if (p + 1 <= hi)
		conn_add(c, p + 1, 0, &nt);
	bool found = false;
	double bg = 0, bfill = 0;
	int32_t bq = -1;
	for (int i = 0; i < nt; i++) {
		int32_t q = c->touched[i];
		if (q == p || q < lo || q > hi || !may_go(c, lv, v, q, rebal))
			continue;
		double gq = c->conn[q] - c->conn[p];
		double fill = (c->load[q] + lv->time[v]) /
			      (c->bound[q] > 0 ? c->bound[q] : 1);
		if (!found || gq > bg || (gq == bg && fill < bfill) ||
		    (gq == bg && fill == bfill && q < bq)) {
			found = true;
			bg = gq;
			bfill = fill;
			bq = q;
		}
	}
	*to = bq;
	*gain = bg;
	return found;
}

static uint32_t degree(const mc_level *lv, uint32_t u)
{
	return lv->out_off[u + 1] - lv->out_off[u] + lv->in_off[u + 1] -
	       lv->in_off[u] + lv->s_off[u + 1] - lv->s_off[u];
}

static void move(mc_ctx *c, const mc_level *lv, uint32_t v, int32_t q)
{
	int32_t p = c->part[v];
	c->load[p] -= lv->time[v];
	c->pmem[p] -= lv->mem[v];
	c->load[q] += lv->time[v];
	c->pmem[q] += lv->mem[v];
	c->part[v] = q;
}

/* Pushes v's best move, if any (and, when rebalancing, if v's part is
 * over). */
static int consider(mc_ctx *c, const mc_level *lv, uint32_t v, bool rebal)
{
	int32_t q;
	double gain;
	if (c->stamp[v] == c->pass || (rebal && !over(c, c->part[v])))
		return 0;
	if (!best_move(c, lv, v, rebal, &q, &gain))
		return 0;
	return dpi_mc_gainq_push(&c->heap, gain, v);
}

/* One FM pass (or, with rebal, one rebalancing pass) on level l; *won is
 * the communication it saved. */
static dp_status fm_pass(mc_ctx *c, int l, bool rebal, double *won)
{
	const mc_level *lv = &c->lv[l];
	uint32_t nv = lv->nv, nlog = 0, best_len = 0, since = 0, pops = 0;
	uint32_t patience = 50 + nv / 50;
	double cum = 0, best = 0, eps = 1e-12 * (c->total_w + 1);
	if (++c->pass == 0) {
		memset(c->stamp, 0, (size_t)c->lv[0].nv * sizeof *c->stamp);
		c->pass = 1;
	}
	c->heap.len = 0;
	for (uint32_t v = 0; v < nv; v++)
		if (consider(c, lv, v, rebal))
			return dpi_mc_nomem(c);
	while (c->heap.len) {
		if ((++pops & 4095) == 0 && dp_progress_canceled(c->p))
			return dpi_canceled(c->err, "mincut");
		mc_gent e = dpi_mc_gainq_pop(&c->heap);
		uint32_t v = e.v;
		int32_t q;
		double gain;
		if (c->stamp[v] == c->pass || (rebal && !over(c, c->part[v])))
			continue;
		if (!best_move(c, lv, v, rebal, &q, &gain))
			continue;
		if (gain != e.gain) {
			if (dpi_mc_gainq_push(&c->heap, gain, v))
				return dpi_mc_nomem(c);
			continue;
		}
		c->log[nlog] = v;
		c->log_from[nlog++] = c->part[v];
		move(c, lv, v, q);
		c->stamp[v] = c->pass;
		cum += gain;
		if (cum > best + eps) {
			best = cum;
			best_len = nlog;
			since = 0;
		} else if (!rebal && ++since >= patience) {
			break;
		}
		for (int dir = 0; dir < 3; dir++) {
			const uint32_t *off = dir == 0	 ? lv->in_off
					      : dir == 1 ? lv->out_off
							 : lv->s_off;
			const uint32_t *nb = dir == 0	? lv->in_src
					     : dir == 1 ? lv->out_dst
							: lv->s_nb;
			for (uint32_t i = off[v]; i < off[v + 1]; i++) {
				uint32_t u = nb[i];
				if (degree(lv, u) > MC_DEG_LIMIT)
					continue;
				if (consider(c, lv, u, rebal))
					return dpi_mc_nomem(c);
			}
		}
	}
	if (rebal) {
		c->moved = nlog;
		*won = cum;
		return DP_OK;
	}
	while (nlog > best_len) {
		nlog--;
		move(c, lv, c->log[nlog], c->log_from[nlog]);
	}
	c->moved = nlog;
	*won = best;
	return DP_OK;
}

bool dpi_mc_any_over(const mc_ctx *c)
{
	for (int p = 0; p < c->k; p++)
		if (over(c, p))
			return true;
	return false;
}

dp_status dpi_mc_refine(mc_ctx *c, int l)
{
	double eps = 1e-9 * (c->total_w + 1), won;
	dp_status st;
	for (int pass = 0; pass < MC_PASSES; pass++) {
		if ((st = fm_pass(c, l, false, &won)))
			return st;
		if (won <= eps)
			break;
	}
	if (!dpi_mc_any_over(c))
		return DP_OK;
	for (int pass = 0; pass < 4 && dpi_mc_any_over(c); pass++) {
		if ((st = fm_pass(c, l, true, &won)))
			return st;
		if (c->moved == 0)
			break;
	}
	return fm_pass(c, l, false, &won);
}

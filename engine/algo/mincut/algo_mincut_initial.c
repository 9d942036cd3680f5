/* algo_mincut_initial.c - mincut's initial partition of the coarsest
 * level (see internal/mincut.h).
 *
 * Candidates, each refined (algo_mincut_refine.c) and the one with the
 * smallest cut within balance kept (Herrmann et al. also try several):
 *   - a topological order split into K consecutive parts by time (each
 *     part's share follows its device's speed, less the time of the ops
 *     pinned there), a part closing early when its bytes would pass the
 *     device's budget; three orders: Kahn's with a queue (breadth first),
 *     with a stack (depth first: follows one branch or tower to its end),
 *     and the stack order of the reversed graph;
 *   - greedy directed growing (Herrmann et al., Sec. 4.2): part 0 takes,
 *     among the vertices whose predecessors are all placed, the one most
 *     connected to it that still fits its share, until the share is
 *     reached; then part 1, ... A vertex too large for what is left of a
 *     share waits for the next part, so small vertices fill the gap that
 *     a consecutive split leaves.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "internal/algo_int.h"
#include "internal/arrays.h"
#include "internal/mincut.h"
#include "internal/sort_key.h"

/* A topological order of level l into order: breadth first (queue), depth
 * first (stack), or depth first on the reversed graph, reversed. */
static int topo_order(const mc_level *lv, int kind, uint32_t *order)
{
	uint32_t n = lv->nv, head = 0, len = 0;
	bool rev = kind == 2;
	const uint32_t *ioff = rev ? lv->out_off : lv->in_off;
	const uint32_t *ooff = rev ? lv->in_off : lv->out_off;
	const uint32_t *onb = rev ? lv->in_src : lv->out_dst;
	uint32_t *deg = malloc(((size_t)n + 1) * sizeof *deg);
	uint32_t *q = malloc(((size_t)n + 1) * sizeof *q);
	if (!deg || !q) {
		free(deg);
		free(q);
		return -1;
	}
	for (uint32_t v = n; v-- > 0;) {
		deg[v] = ioff[v + 1] - ioff[v];
		if (!deg[v])
			q[len++] = v; /* the stack pops the smallest first */
	}
	if (kind == 0) /* the queue takes them smallest first */
		for (uint32_t i = 0; i < len / 2; i++) {
			uint32_t t = q[i];
			q[i] = q[len - 1 - i];
			q[len - 1 - i] = t;
		}
	uint32_t out = 0;
	while (head < len) {
		uint32_t v = kind == 0 ? q[head++] : q[--len];
		order[out++] = v;
		for (uint32_t i = ooff[v + 1]; i-- > ooff[v];) {
			uint32_t w = onb[i];
			if (--deg[w] == 0)
				q[len++] = w;
		}
	}
	if (rev)
		for (uint32_t i = 0; i < out / 2; i++) {
			uint32_t t = order[i];
			order[i] = order[out - 1 - i];
			order[out - 1 - i] = t;
		}
	free(deg);
	free(q);
	return 0;
}

/* Consecutive parts of order by time (part p on device p). A part closes
 * when the next vertex would take it past its target time, unless the
 * vertices left would then not fit the budgets of the parts after it, or
 * when the vertex would take it past its own budget. first[i]: the first
 * part the vertices order[i..] need when packed from the back, each part
 * as full as its budget allows (-1: they do not fit at all); packing from
 * the back needs the fewest parts for a suffix, so closing before order[i]
 * keeps the bytes placeable exactly when first[i] > p. */
static void split(mc_ctx *c, const mc_level *lv, const uint32_t *order,
		  int32_t *first)
{
	int k = c->k;
	double S = dp_machine_sum_speed(c->m), total = c->g->total_time_us;
	double rem = 0, rem_share = 0;
	int32_t q = k - 1;
	double used = c->fixed_m[q];
	uint32_t nq = 0;
	for (uint32_t i = lv->nv; i-- > 0;) {
		double b = lv->mem[order[i]];
		while (q >= 0 && nq > 0 && used + b > c->cap_m[q]) {
			if (--q >= 0)
				used = c->fixed_m[q];
			nq = 0;
		}
		first[i] = q;
		used += b;
		nq++;
		rem += lv->time[order[i]];
	}
	for (int p = 0; p < k; p++) {
		double sh = total * c->m->speed[p] / S - c->fixed_t[p];
		c->conn[p] = sh > 0 ? sh : 0; /* the part's share */
		rem_share += c->conn[p];
	}
	int p = 0;
	uint32_t nin = 0;
	double cur = 0, curm = c->fixed_m[0];
	for (uint32_t i = 0; i < lv->nv; i++) {
		uint32_t v = order[i];
		double target = rem_share > 0 ? rem * c->conn[p] / rem_share
					      : rem / (k - p);
		bool by_time = cur + lv->time[v] / 2 > target && first[i] > p;
		bool by_mem = curm + lv->mem[v] > c->cap_m[p];
		if (p < k - 1 && nin > 0 && (by_time || by_mem)) {
			rem -= cur;
			rem_share -= c->conn[p];
			p++;
			nin = 0;
			cur = 0;
			curm = c->fixed_m[p];
		}
		c->part[v] = p;
		nin++;
		cur += lv->time[v];
		curm += lv->mem[v];
	}
}

/* Weight of v's edges from vertices of part p. */
static double pull(const mc_ctx *c, const mc_level *lv, uint32_t v, int32_t p)
{
	double w = 0;
	for (uint32_t i = lv->in_off[v]; i < lv->in_off[v + 1]; i++)
		if (c->part[lv->in_src[i]] == p)
			w += lv->in_w[i];
	for (uint32_t i = lv->s_off[v]; i < lv->s_off[v + 1]; i++)
		if (c->part[lv->s_nb[i]] == p)
			w += lv->s_w[i];
	return w;
}

/* Places v in part p and queues what that makes ready or more attracted
 * to p. */
static int grow_place(mc_ctx *c, const mc_level *lv, mc_gainq *q,
		      uint32_t *left, uint32_t v, int32_t p)
{
	c->part[v] = p;
	for (uint32_t i = lv->out_off[v]; i < lv->out_off[v + 1]; i++) {
		uint32_t w = lv->out_dst[i];
		if (--left[w] == 0 &&
		    dpi_mc_gainq_push(q, pull(c, lv, w, p), w))
			return -1;
	}
	for (uint32_t i = lv->s_off[v]; i < lv->s_off[v + 1]; i++) {
		uint32_t w = lv->s_nb[i];
		if (!left[w] && c->part[w] < 0 &&
		    dpi_mc_gainq_push(q, pull(c, lv, w, p), w))
			return -1;
	}
	return 0;
}

/* Greedy directed growing (see the header comment); part p on device p.
 * Returns -1 when out of memory. */
static int grow(mc_ctx *c, const mc_level *lv)
{
	uint32_t n = lv->nv, nwait = 0;
	int k = c->k, rc = -1;
	double S = dp_machine_sum_speed(c->m), total = c->g->total_time_us;
	double rem = 0, rem_share = 0, rem_mem = 0, room_after = 0;
	int inf_after = 0;
	mc_gainq q = {NULL, 0, 0};
	uint32_t *left = malloc(((size_t)n + 1) * sizeof *left);
	uint32_t *wait = malloc(((size_t)n + 1) * sizeof *wait);
	int32_t *waits = malloc(((size_t)n + 1) * sizeof *waits);
	if (!left || !wait || !waits)
		goto out;
	for (uint32_t v = 0; v < n; v++) {
		c->part[v] = -1;
		waits[v] = -1;
		rem += lv->time[v];
		rem_mem += lv->mem[v];
		left[v] = lv->in_off[v + 1] - lv->in_off[v];
		if (!left[v] && dpi_mc_gainq_push(&q, 0, v))
			goto out;
	}
	for (int p = 0; p < k; p++) {
		double s = total * c->m->speed[p] / S - c->fixed_t[p];
		c->conn[p] = s > 0 ? s : 0;
		rem_share += c->conn[p];
		if (p > 0 && isinf(c->cap_m[p]))
			inf_after++;
		else if (p > 0)
			room_after += c->cap_m[p] - c->fixed_m[p];
	}
	for (int p = 0; p < k; p++) {
		double target = rem_share > 0 ? rem * c->conn[p] / rem_share
					      : rem / (k - p);
		double load = 0, mem = c->fixed_m[p];
		if (p > 0 && isinf(c->cap_m[p]))
			inf_after--;
		else if (p > 0)
			room_after -= c->cap_m[p] - c->fixed_m[p];
		for (uint32_t i = 0; i < nwait; i++)
			if (dpi_mc_gainq_push(&q, pull(c, lv, wait[i], p),
					      wait[i]))
				goto out;
		nwait = 0;
		/* fill past the target while the parts after this one
		 * could not hold the bytes left */
		while (q.len && (p == k - 1 || load < target ||
				 (!inf_after && rem_mem > room_after))) {
			mc_gent e = dpi_mc_gainq_pop(&q);
			uint32_t v = e.v;
			if (c->part[v] >= 0 || waits[v] == p)
				continue;
			double gain = pull(c, lv, v, p);
			if (gain != e.gain) {
				if (dpi_mc_gainq_push(&q, gain, v))
					goto out;
				continue;
			}
			bool by_time = load + lv->time[v] > target * MC_TOL &&
				       (inf_after || rem_mem <= room_after);
			if (p < k - 1 && load > 0 &&
			    (by_time || mem + lv->mem[v] > c->cap_m[p])) {
				waits[v] = p;
				wait[nwait++] = v;
				continue;
			}
			load += lv->time[v];
			mem += lv->mem[v];
			rem_mem -= lv->mem[v];
			if (grow_place(c, lv, &q, left, v, p))
				goto out;
		}
		rem -= load;
		rem_share -= c->conn[p];
	}
	rc = 0;
out:
	DPI_FREE_ALL(q.h, left, wait, waits);
	return rc;
}

typedef struct pdw {
	int32_t p, d;
	double w;
} pdw;

DPI_CMP_DEFINE(pdw_by_pd, pdw, DPI_CMP(x->p, y->p), DPI_CMP(x->d, y->d))

/* heavier first */
DPI_CMP_DEFINE(pdw_by_w, pdw, DPI_CMP(y->w, x->w), pdw_by_pd(x, y))

/* Devices for the parts: a part joined to ops pinned on a device by the
 * heaviest terminal edges gets that device (greedy, heaviest first); the
 * other parts take the other devices in order. */
static int map_devices(mc_ctx *c, const mc_level *lv)
{
	int k = c->k;
	uint32_t nt = lv->t_off[lv->nv], n = 0;
	for (int p = 0; p < k; p++) {
		c->dev[p] = -1;
		c->of_dev[p] = -1;
	}
	if (nt) {
		pdw *t = malloc((size_t)nt * sizeof *t);
		if (!t)
			return -1;
		for (uint32_t v = 0; v < lv->nv; v++)
			for (uint32_t i = lv->t_off[v]; i < lv->t_off[v + 1];
			     i++)
				t[n++] =
					(pdw){c->part[v], (int32_t)lv->t_dev[i],
					      lv->t_w[i]};
		qsort(t, n, sizeof *t, pdw_by_pd);
		uint32_t m = 0;
		for (uint32_t i = 0; i < n; i++) {
			if (m && t[m - 1].p == t[i].p && t[m - 1].d == t[i].d)
				t[m - 1].w += t[i].w;
			else
				t[m++] = t[i];
		}
		qsort(t, m, sizeof *t, pdw_by_w);
		for (uint32_t i = 0; i < m; i++)
			if (c->dev[t[i].p] < 0 && c->of_dev[t[i].d] < 0) {
				c->dev[t[i].p] = t[i].d;
				c->of_dev[t[i].d] = t[i].p;
			}
		free(t);
	}
	int d = 0;
	for (int p = 0; p < k; p++) {
		if (c->dev[p] >= 0)
			continue;
		while (c->of_dev[d] >= 0)
			d++;
		c->dev[p] = d;
		c->of_dev[d] = p;
	}
	return 0;
}

/* A candidate's score: bytes over the budgets, time over the bounds (the
 * largest ratio past 1), cut. */
static void score(const mc_ctx *c, int l, double *sc)
{
	sc[0] = 0;
	sc[1] = 0;
	for (int p = 0; p < c->k; p++) {
		if (c->pmem[p] > c->budget[p])
			sc[0] += c->pmem[p] - c->budget[p];
		double r = c->bound[p] > 0 ? c->load[p] / c->bound[p] : 0;
		if (r - 1 > sc[1])
			sc[1] = r - 1;
	}
	sc[2] = dpi_mc_cut(c, l);
}

/* Lexicographic, each key with a tolerance against rounding. */
static bool better(const mc_ctx *c, const double *a, const double *b)
{
	double tol[3] = {1e-9 * (c->g->total_output_bytes + 1.0), 1e-9,
			 1e-9 * (c->total_w + 1)};
	for (int i = 0; i < 3; i++) {
		if (a[i] < b[i] - tol[i])
			return true;
		if (a[i] > b[i] + tol[i])
			return false;
	}
	return false;
}

dp_status dpi_mc_initial(mc_ctx *c)
{
	int l = c->nlv - 1, k = c->k;
	const mc_level *lv = &c->lv[l];
	uint32_t n = lv->nv;
	uint32_t *order = malloc(((size_t)n + 1) * sizeof *order);
	int32_t *best_part = malloc(((size_t)n + 1) * sizeof *best_part);
	int32_t *best_dev = malloc((size_t)k * sizeof *best_dev);
	int32_t *first = malloc(((size_t)n + 1) * sizeof *first);
	dp_status st = DP_OK;
	bool have = false;
	double best_sc[3] = {0, 0, 0};
	if (!order || !best_part || !best_dev || !first) {
		st = dpi_mc_nomem(c);
		goto out;
	}
	for (int kind = 0; kind < 4; kind++) {
		for (int p = 0; p < k; p++)
			c->dev[p] = p;
		if (kind < 3 && topo_order(lv, kind, order)) {
			st = dpi_mc_nomem(c);
			goto out;
		}
		if (kind < 3)
			split(c, lv, order, first);
		else if (grow(c, lv)) {
			st = dpi_mc_nomem(c);
			goto out;
		}
		if (map_devices(c, lv)) {
			st = dpi_mc_nomem(c);
			goto out;
		}
		dpi_mc_loads(c, l);
		if ((st = dpi_mc_refine(c, l)))
			goto out;
		double sc[3];
		score(c, l, sc);
		if (!have || better(c, sc, best_sc)) {
			have = true;
			memcpy(best_sc, sc, sizeof sc);
			memcpy(best_part, c->part, (size_t)n * sizeof *c->part);
			memcpy(best_dev, c->dev, (size_t)k * sizeof *c->dev);
		}
		if ((st = dpi_mc_poll(c, 0.3 + 0.05 * kind)))
			goto out;
	}
	memcpy(c->part, best_part, (size_t)n * sizeof *c->part);
	memcpy(c->dev, best_dev, (size_t)k * sizeof *c->dev);
	dpi_mc_loads(c, l);
out:
	DPI_FREE_ALL(order, best_part, best_dev, first);
	return st;
}

/* algo_mincut.c - multilevel acyclic balanced min-cut (see
 * internal/mincut.h and docs/algorithms.md).
 *
 * After Tavarageri et al., arXiv 1906.08168: price compute (time_us) and
 * communication (latency + bytes / bandwidth per cut edge, as the
 * simulator's link does), then partition the dataflow graph for the least
 * communication under a load balance; done here the multilevel acyclic way
 * (Herrmann et al., SISC 2019): coarsen (algo_mincut_coarsen.c), split the
 * coarsest graph, and refine while projecting back
 * (algo_mincut_refine.c). The parts are acyclic between each other, so a
 * part never waits for a later one (pinned ops aside). The simulator then
 * schedules the placement.
 *
 * Memory: each op counts param + output + temp bytes in its part for the
 * whole step (a conservative bound on what the simulator's peak can be).
 * When these bytes over all ops fit the caps (with 2 % to spare), a
 * device's byte budget is its cap, so the plan fits; when they do not,
 * the bound says nothing and no device has a budget at first. A device
 * without a cap never has one. With caps, the placement is then
 * simulated, and a device over its cap gets its budget (at first the
 * bytes its part holds) scaled by (cap / peak)^2 and level 0 refined
 * again (check_memory), up to MC_MEM_ROUNDS times, as m-ETF's verify
 * rounds do.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "internal/algo_int.h"
#include "internal/arrays.h"
#include "internal/mincut.h"

static void ctx_free(mc_ctx *c)
{
	dpi_ls_cons_free(&c->cons);
	for (int l = 0; l < c->nlv; l++)
		dpi_mc_level_free(&c->lv[l]);
	DPI_FREE_ALL(c->unit, c->part, c->load, c->pmem, c->bound, c->budget,
		     c->dev, c->of_dev, c->fixed_t, c->fixed_m, c->cap_m,
		     c->conn, c->touched, c->pmark, c->stamp, c->heap.h, c->log,
		     c->log_from);
}

/* Byte budgets per device (see the header comment). */
static void budgets(mc_ctx *c)
{
	const dp_graph *g = c->g;
	const dp_machine *m = c->m;
	double need = 0, caps = 0;
	bool unlimited = false;
	for (uint32_t u = 0; u < g->nops; u++)
		need += (double)g->ops[u].param_bytes +
			(double)g->ops[u].output_bytes +
			(double)g->ops[u].temp_bytes;
	for (int d = 0; d < c->k; d++) {
		if (m->cap[d] == DP_CAP_UNLIMITED)
			unlimited = true;
		else
			caps += (double)m->cap[d];
	}
	bool fits = unlimited || need * 1.02 <= caps;
	for (int d = 0; d < c->k; d++)
		c->cap_m[d] = !fits || m->cap[d] == DP_CAP_UNLIMITED
				      ? INFINITY
				      : (double)m->cap[d];
}

static dp_status ctx_alloc(mc_ctx *c)
{
	size_t n = (size_t)c->g->nops + 1, k = (size_t)c->k;
	dp_status st = dpi_ls_cons_init(&c->cons, c->g, c->err);
	if (st)
		return st;
	c->unit = malloc(n * sizeof *c->unit);
	c->load = malloc(k * sizeof *c->load);
	c->pmem = malloc(k * sizeof *c->pmem);
	c->bound = malloc(k * sizeof *c->bound);
	c->budget = malloc(k * sizeof *c->budget);
	c->dev = malloc(k * sizeof *c->dev);
	c->of_dev = malloc(k * sizeof *c->of_dev);
	c->fixed_t = calloc(k, sizeof *c->fixed_t);
	c->fixed_m = calloc(k, sizeof *c->fixed_m);
	c->cap_m = malloc(k * sizeof *c->cap_m);
	c->conn = malloc(k * sizeof *c->conn);
	c->touched = malloc(k * sizeof *c->touched);
	c->pmark = calloc(k, sizeof *c->pmark);
	if (!c->unit || !c->load || !c->pmem || !c->bound || !c->budget ||
	    !c->dev || !c->of_dev || !c->fixed_t || !c->fixed_m || !c->cap_m ||
	    !c->conn || !c->touched || !c->pmark)
		return dpi_mc_nomem(c);
	return DP_OK;
}

/* Per-vertex arrays of the partition, sized by level 0. */
static dp_status part_alloc(mc_ctx *c)
{
	size_t nv = (size_t)c->lv[0].nv + 1;
	const dpi_arr arrs[] = {
		DPI_ARR(c->part, nv),
		DPI_ARR0(c->stamp, nv),
		DPI_ARR(c->log, nv),
		DPI_ARR(c->log_from, nv),
	};
	if (dpi_arrays_alloc(arrs, DPI_NARR(arrs)))
		return dpi_mc_nomem(c);
	return DP_OK;
}

/* Partitions level 0 into c->part: coarsest first, then each finer level
 * takes its cluster's part (cmap[v] <= v, so walking down from the top
 * index projects in place) and is refined. */
static dp_status partition(mc_ctx *c)
{
	dp_status st = dpi_mc_coarsen(c);
	if (st || (st = dpi_mc_initial(c)))
		return st;
	for (int l = c->nlv - 2; l >= 0; l--) {
		const mc_level *lv = &c->lv[l];
		for (uint32_t v = lv->nv; v-- > 0;)
			c->part[v] = c->part[lv->cmap[v]];
		dpi_mc_loads(c, l);
		if ((st = dpi_mc_refine(c, l)))
			return st;
		if ((st = dpi_mc_poll(c, 0.4 + 0.6 * (c->nlv - 1 - l) /
							 (c->nlv - 1))))
			return st;
	}
	return DP_OK;
}

/* Writes the placement of c->part (level 0) and the pinned ops. */
static void place(const mc_ctx *c, int32_t *placement)
{
	for (uint32_t u = 0; u < c->g->nops; u++)
		placement[u] = c->unit[u] == MC_NONE
				       ? c->cons.forced[u]
				       : c->dev[c->part[c->unit[u]]];
}

/* The memory check (with caps): simulate the placement; while a device's
 * peak is over its cap (at most MC_MEM_ROUNDS rounds), scale that
 * device's byte budget by cap / peak and refine level 0 again (the
 * rebalancing pass moves vertices out). The placement with the least
 * total overflow is kept (the first on ties). */
#define MC_MEM_ROUNDS 6
static dp_status check_memory(mc_ctx *c, dp_contention cont, int32_t *placement)
{
	const dp_graph *g = c->g;
	const dp_machine *m = c->m;
	bool capped = false;
	for (int d = 0; d < c->k; d++)
		capped |= m->cap[d] != DP_CAP_UNLIMITED;
	place(c, placement);
	if (!capped)
		return DP_OK;
	dp_sim *sim = dp_sim_new(g, m, c->err);
	if (!sim)
		return dpi_mc_nomem(c);
	int32_t *best = malloc(((size_t)g->nops + 1) * sizeof *best);
	dp_sim_result r;
	memset(&r, 0, sizeof r);
	dp_sim_opts so;
	memset(&so, 0, sizeof so);
	so.contention = cont;
	double best_over = INFINITY;
	dp_status st = best ? DP_OK : dpi_mc_nomem(c);
	for (int round = 0; !st && round <= MC_MEM_ROUNDS; round++) {
		place(c, placement);
		if ((st = dp_sim_run(sim, placement, &so, &r, c->err)))
			break;
		double over = 0;
		for (int d = 0; d < c->k; d++)
			if (m->cap[d] != DP_CAP_UNLIMITED &&
			    r.dev[d].peak_bytes > m->cap[d])
				over += (double)(r.dev[d].peak_bytes -
						 m->cap[d]);
		if (over < best_over) {
			best_over = over;
			memcpy(best, placement, g->nops * sizeof *best);
		}
		if (over == 0 || round == MC_MEM_ROUNDS)
			break;
		for (int d = 0; d < c->k; d++)
			if (m->cap[d] != DP_CAP_UNLIMITED &&
			    r.dev[d].peak_bytes > m->cap[d]) {
				double f = (double)m->cap[d] /
					   (double)r.dev[d].peak_bytes;
				if (isinf(c->cap_m[d]))
					c->cap_m[d] = c->pmem[c->of_dev[d]];
				c->cap_m[d] *= f * f;
			}
		dpi_mc_loads(c, 0);
		if (!(st = dpi_mc_refine(c, 0)))
			st = dpi_mc_poll(c, 0.9 + 0.02 * round);
	}
	if (!st)
		memcpy(placement, best, g->nops * sizeof *best);
	free(best);
	dp_sim_result_free(&r);
	dp_sim_free(sim);
	return st;
}

static dp_status mincut_run(const dp_graph *g, const dp_machine *m,
			    const dp_algo_opts *o, const dp_progress *p,
			    int32_t *placement, dp_err *err)
{
	mc_ctx c = {.g = g, .m = m, .p = p, .err = err, .k = m->k};
	dp_status st = dpi_mc_poll(&c, 0.0);
	if (st)
		return st;
	if ((st = ctx_alloc(&c)))
		goto out;
	budgets(&c);
	/* a cluster may hold (MC_TOL - 1) of a device's share of the time, so
	 * that a split of the coarsest graph can be within balance */
	c.maxw = (MC_TOL - 1) * g->total_time_us / c.k;
	if ((st = dpi_mc_build(&c)) || (st = part_alloc(&c)))
		goto out;
	if (c.k == 1 || c.lv[0].nv == 0) {
		for (uint32_t v = 0; v < c.lv[0].nv; v++)
			c.part[v] = 0;
		for (int d = 0; d < c.k; d++)
			c.dev[d] = d;
	} else if ((st = partition(&c))) {
		goto out;
	}
	if (c.k == 1 || c.lv[0].nv == 0)
		place(&c, placement);
	else if ((st = check_memory(&c, o->contention, placement)))
		goto out;
	st = dpi_mc_poll(&c, 1.0);
out:
	ctx_free(&c);
	return st;
}

DPI_ALGO_DEFINE(mincut,
		"multilevel acyclic min-cut: least communication with "
		"balanced time, parts acyclic",
		"Tavarageri et al., arXiv 1906.08168; Herrmann et al., "
		"SISC 2019",
		mincut_run);

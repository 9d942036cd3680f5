/* algo_pardnn.c - the pardnn algorithm: entry point, phases, shared helpers.
 *
 * ParDNN after Qararyah et al., Parallel Computing 2021 (arXiv 2008.08636),
 * Sec. 4: slicing (algo_pardnn_slice.c), mapping (algo_pardnn_map.c),
 * refinement (algo_pardnn_refine.c) and the memory heuristic
 * (algo_pardnn_memory.c); then our polish (algo_pardnn_polish.c) and, last,
 * our safeguard below: the all-on-the-fastest-device placement is simulated
 * too and kept if it is better, so pardnn is never worse than one device
 * when one device fits. See docs/algorithms.md.
 *
 * Cost: slicing and mapping are O(K (V + E) + V log V). Everything after
 * mapping is driven by simulations, and their number is bounded by a budget
 * that shrinks with graph size (pd_budget), so the whole run stays close to
 * linear in V + E.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "internal/algo_int.h"
#include "internal/pardnn.h"

/* Simulations allowed in one run: PD_BUDGET_WORK / (V + E), clamped. The
 * work unit is an op or an edge visited by one simulation. */
#define PD_BUDGET_WORK 4e6
#define PD_BUDGET_MIN 8u
#define PD_BUDGET_MAX 300u

void dpi_pd_progress(const pd_ctx *c, const char *phase, double lo, double hi,
		     double f)
{
	if (f < 0)
		f = 0;
	if (f > 1)
		f = 1;
	dp_progress_report(c->p, phase, lo + (hi - lo) * f);
}

dp_status dpi_pd_check_cancel(pd_ctx *c)
{
	if (dp_progress_canceled(c->p))
		return dpi_canceled(c->err, "pardnn");
	return DP_OK;
}

bool dpi_pd_better(const pd_score *a, const pd_score *b)
{
	if (a->over != b->over)
		return a->over < b->over;
	return a->makespan < b->makespan - 1e-12 * fabs(b->makespan);
}

uint32_t dpi_pd_sims_left(const pd_ctx *c)
{
	return c->sims < c->sim_budget ? c->sim_budget - c->sims : 0;
}

/* The parts a simulation must compute for need: live tensors come with
 * peaks, and without caps peaks are not needed (the overflow is 0). */
static unsigned need_parts(const pd_ctx *c, unsigned need)
{
	need |= PD_SCHED;
	if (need & PD_LIVE)
		need |= PD_MEM;
	else if (!c->capped)
		need &= ~(unsigned)PD_MEM;
	return need;
}

/* Simulator options for the parts in need (memory curves are never read
 * here). */
static void set_opts(pd_ctx *c, unsigned need)
{
	c->so.detail = (need & (PD_PATH | PD_LIVE)) != 0;
	c->so.skip_memory = !(need & PD_MEM);
	c->so.skip_live = !(need & PD_LIVE);
	c->so.skip_curves = true;
}

/* What a run or finish with c->so gave: detail always brings the path. */
static unsigned parts_of_opts(const pd_ctx *c)
{
	unsigned has = PD_SCHED;
	if (!c->so.skip_memory)
		has |= PD_MEM;
	if (c->so.detail)
		has |= PD_PATH;
	if (c->so.detail && !c->so.skip_memory && !c->so.skip_live)
		has |= PD_LIVE;
	return has;
}

static void score_of(const pd_ctx *c, const dp_sim_result *r, pd_score *sc)
{
	if (!sc)
		return;
	sc->makespan = r->makespan;
	sc->over = 0;
	if (!r->has_memory)
		return;
	for (int d = 0; d < c->k; d++) {
		int64_t cap = c->m->cap[d], peak = r->dev[d].peak_bytes;
		if (peak > cap)
			sc->over += peak - cap;
	}
}

/* Runs the simulator on c->place into r with the parts in need; *has gets
 * the parts it has. Counts the run. */
static dp_status run_into(pd_ctx *c, dp_sim_result *r, unsigned need,
			  unsigned *has)
{
	dp_status st = dpi_pd_check_cancel(c);
	if (st)
		return st;
	set_opts(c, need_parts(c, need));
	c->res_last = false;
	st = dp_sim_run(c->sim, c->place, &c->so, r, c->err);
	if (st)
		return st;
	c->sims++;
	*has = parts_of_opts(c);
	return DP_OK;
}

/* Adds the parts in need to r, the simulator's last run; *has grows. */
static dp_status finish_into(pd_ctx *c, dp_sim_result *r, unsigned need,
			     unsigned *has)
{
	need = need_parts(c, need);
	if ((*has & need) == need)
		return DP_OK;
	set_opts(c, need | *has);
	dp_status st = dp_sim_finish(c->sim, c->place, &c->so, r, c->err);
	if (st)
		return st;
	*has |= parts_of_opts(c);
	return DP_OK;
}

dp_status dpi_pd_simulate(pd_ctx *c, unsigned need, pd_score *sc)
{
	c->res_has = 0;
	dp_status st = run_into(c, c->res, need, &c->res_has);
	if (st)
		return st;
	c->res_last = true;
	score_of(c, c->res, sc);
	return DP_OK;
}

dp_status dpi_pd_ensure(pd_ctx *c, unsigned need, pd_score *sc)
{
	need = need_parts(c, need);
	if (!c->res_has || ((c->res_has & need) != need && !c->res_last))
		return dpi_pd_simulate(c, need, sc);
	dp_status st = finish_into(c, c->res, need, &c->res_has);
	if (st)
		return st;
	score_of(c, c->res, sc);
	return DP_OK;
}

dp_status dpi_pd_try_current(pd_ctx *c, bool *kept)
{
	*kept = false;
	pd_score sc;
	unsigned has = 0;
	dp_status st = run_into(c, c->spare, PD_SCHED, &has);
	if (st)
		return st;
	score_of(c, c->spare, &sc);
	/* the makespan first: most candidates fail here, before any memory */
	pd_score faster = {c->cur.over, sc.makespan};
	if (!dpi_pd_better(&faster, &c->cur))
		return DP_OK;
	if (c->capped) {
		if ((st = finish_into(c, c->spare, PD_MEM, &has)))
			return st;
		score_of(c, c->spare, &sc);
		if (sc.over > c->cur.over)
			return DP_OK;
	}
	/* kept: add what the next round reads while the run is the last one */
	if ((st = finish_into(c, c->spare, PD_PATH | PD_MEM, &has)))
		return st;
	dp_sim_result *r = c->res;
	c->res = c->spare;
	c->spare = r;
	c->res_has = has;
	c->res_last = true;
	c->cur = sc;
	*kept = true;
	return DP_OK;
}

#define PD_COPY_SCAN 64

/* Whether producer p already has a data consumer on device e outside the
 * unit of grp (then a copy of p's output is on e anyway). High fan-out
 * producers are not scanned to the end: past PD_COPY_SCAN consumers the
 * answer is "no", which only overestimates what a move brings. */
static bool copy_already_on(const pd_ctx *c, uint32_t p, int32_t e, int32_t grp,
			    uint32_t self)
{
	const dp_graph *g = c->g;
	uint32_t lo = g->succ_off[p], hi = g->succ_off[p + 1];
	if (hi - lo > PD_COPY_SCAN)
		hi = lo + PD_COPY_SCAN;
	for (uint32_t i = lo; i < hi; i++) {
		const dp_edge *ed = &g->edges[g->succ_edge[i]];
		uint32_t y = ed->to;
		if (ed->control || y == self || c->place[y] != e ||
		    (grp >= 0 && g->ops[y].colocate == grp))
			continue;
		return true;
	}
	return false;
}

/* Bytes the unit of rep would add to device e at e's peak time in the last
 * simulation: its params, the temps and outputs of members live then, and
 * copies of inputs from other devices that e does not hold yet. */
int64_t dpi_pd_need_on(const pd_ctx *c, uint32_t rep, int32_t e)
{
	const dp_graph *g = c->g;
	const dp_sim_result *r = c->res;
	double t = r->dev[e].peak_time;
	int32_t grp = g->ops[rep].colocate;
	uint32_t len;
	const uint32_t *mem = dpi_pd_unit(g, &rep, &len);
	int64_t need = 0;
	for (uint32_t i = 0; i < len; i++) {
		uint32_t u = mem[i];
		const dp_op *op = &g->ops[u];
		need += op->param_bytes;
		if (r->start[u] <= t && t < r->end[u])
			need += op->temp_bytes;
		double last = r->end[u];
		for (uint32_t j = g->succ_off[u]; j < g->succ_off[u + 1]; j++) {
			uint32_t y = g->edges[g->succ_edge[j]].to;
			if (r->end[y] > last)
				last = r->end[y];
		}
		if (r->start[u] <= t && t < last)
			need += op->output_bytes;
		for (uint32_t j = g->pred_off[u]; j < g->pred_off[u + 1]; j++) {
			const dp_edge *ed = &g->edges[g->pred_edge[j]];
			uint32_t p = ed->from;
			if (ed->control || c->place[p] == e ||
			    (grp >= 0 && g->ops[p].colocate == grp))
				continue;
			if (r->end[p] <= t && t < r->end[u] &&
			    !copy_already_on(c, p, e, grp, u))
				need += ed->bytes;
		}
	}
	return need;
}

void dpi_pd_need_all(const pd_ctx *c, uint32_t rep, int64_t *need,
		     uint8_t *mark)
{
	const dp_graph *g = c->g;
	const dp_sim_result *r = c->res;
	int k = c->k;
	int32_t grp = g->ops[rep].colocate;
	uint32_t len;
	const uint32_t *mem = dpi_pd_unit(g, &rep, &len);
	for (int e = 0; e < k; e++) {
		need[e] = 0;
		mark[e] = 0;
	}
	for (uint32_t i = 0; i < len; i++) {
		uint32_t u = mem[i];
		const dp_op *op = &g->ops[u];
		double last = r->end[u];
		for (uint32_t j = g->succ_off[u]; j < g->succ_off[u + 1]; j++) {
			uint32_t y = g->edges[g->succ_edge[j]].to;
			if (r->end[y] > last)
				last = r->end[y];
		}
		for (int e = 0; e < k; e++) {
			double t = r->dev[e].peak_time;
			need[e] += op->param_bytes;
			if (r->start[u] <= t && t < r->end[u])
				need[e] += op->temp_bytes;
			if (r->start[u] <= t && t < last)
				need[e] += op->output_bytes;
		}
		for (uint32_t j = g->pred_off[u]; j < g->pred_off[u + 1]; j++) {
			const dp_edge *ed = &g->edges[g->pred_edge[j]];
			uint32_t p = ed->from;
			if (ed->control ||
			    (grp >= 0 && g->ops[p].colocate == grp))
				continue;
			/* devices that hold a copy of p anyway: p's own and
			 * those of its other consumers (the first
			 * PD_COPY_SCAN of them) */
			uint32_t lo = g->succ_off[p], hi = g->succ_off[p + 1];
			if (hi - lo > PD_COPY_SCAN)
				hi = lo + PD_COPY_SCAN;
			mark[c->place[p]] = 1;
			for (uint32_t x = lo; x < hi; x++) {
				const dp_edge *ey = &g->edges[g->succ_edge[x]];
				uint32_t y = ey->to;
				if (!ey->control && y != u &&
				    !(grp >= 0 && g->ops[y].colocate == grp))
					mark[c->place[y]] = 1;
			}
			for (int e = 0; e < k; e++) {
				double t = r->dev[e].peak_time;
				if (!mark[e] && r->end[p] <= t && t < r->end[u])
					need[e] += ed->bytes;
			}
			mark[c->place[p]] = 0;
			for (uint32_t x = lo; x < hi; x++)
				mark[c->place[g->edges[g->succ_edge[x]].to]] =
					0;
		}
	}
}

void dpi_pd_stamp_next(pd_ctx *c)
{
	if (++c->stamp_gen == 0) {
		memset(c->stamp, 0, (size_t)c->n * sizeof *c->stamp);
		c->stamp_gen = 1;
	}
}

bool dpi_pd_stamp_set(pd_ctx *c, uint32_t u)
{
	if (c->stamp[u] == c->stamp_gen)
		return true;
	c->stamp[u] = c->stamp_gen;
	return false;
}

dp_status dpi_pd_try_moves(pd_ctx *c, pd_move *mv, uint32_t nmv,
			   uint32_t max_sims, uint32_t *kept)
{
	*kept = 0;
	/* keep the first proposal per unit, drop fixed and no-op moves */
	uint32_t np = 0;
	dpi_pd_stamp_next(c);
	for (uint32_t i = 0; i < nmv; i++) {
		uint32_t rep = dpi_pd_rep(c->g, mv[i].rep);
		int32_t to = mv[i].to;
		if (c->fix[rep] >= 0 || to < 0 || to >= c->k ||
		    c->place[rep] == to || dpi_pd_stamp_set(c, rep))
			continue;
		mv[np++] = (pd_move){rep, to, -1};
	}
	uint32_t used = 0, chunk = np;
	while (chunk > 0 && np > 0 && used < max_sims) {
		uint32_t left = 0; /* moves not accepted yet, compacted */
		for (uint32_t s = 0; s < np && used < max_sims; s += chunk) {
			uint32_t e = s + chunk < np ? s + chunk : np, moved = 0;
			for (uint32_t i = s; i < e; i++) {
				mv[i].from = -1;
				if (c->place[mv[i].rep] == mv[i].to)
					continue;
				mv[i].from = dpi_pd_move_unit(c, mv[i].rep,
							      mv[i].to);
				moved++;
			}
			if (!moved)
				continue;
			bool ok;
			dp_status st = dpi_pd_try_current(c, &ok);
			if (st)
				return st;
			used++;
			if (ok) {
				*kept += moved;
				continue;
			}
			for (uint32_t i = e; i-- > s;)
				if (mv[i].from >= 0)
					dpi_pd_move_unit(c, mv[i].rep,
							 mv[i].from);
			for (uint32_t i = s; i < e; i++)
				mv[left++] = mv[i];
		}
		/* the budget ends the loop before unreached chunks matter */
		np = left;
		if (chunk == 1)
			break;
		chunk = (chunk + 1) / 2;
	}
	return DP_OK;
}

/* Simulates the placement fill() writes over c->place (with the parts in
 * need) and keeps it when it beats c->cur; else (also when fill() fails:
 * then there is no candidate, and no error) puts the old placement back
 * and, when resim, simulates it again so that c->res is its result (with
 * need) for the phase that follows. */
static dp_status try_whole(pd_ctx *c, dp_status (*fill)(pd_ctx *),
			   unsigned need, bool resim)
{
	int32_t *saved = malloc((size_t)c->n * sizeof *saved);
	if (!saved)
		return dp_err_set(c->err, DP_ENOMEM, NULL, 0, 0,
				  "out of memory in pardnn");
	memcpy(saved, c->place, (size_t)c->n * sizeof *saved);
	pd_score sc;
	bool have = fill(c) == DP_OK;
	dp_status st = have ? dpi_pd_simulate(c, need, &sc) : DP_OK;
	if (have && !st && dpi_pd_better(&sc, &c->cur)) {
		c->cur = sc;
	} else {
		memcpy(c->place, saved, (size_t)c->n * sizeof *saved);
		c->res_has = 0;
		if (!st && resim)
			st = dpi_pd_simulate(c, need, &c->cur);
	}
	free(saved);
	return st;
}

/* Ours (not in the paper): the all-on-one-device placement (the fastest
 * device; pins kept) is a candidate as well. One simulation, always run,
 * outside the budget. */
static dp_status fill_single(pd_ctx *c)
{
	for (uint32_t u = 0; u < c->n; u++)
		c->place[u] = c->fix[u] >= 0 ? c->fix[u] : c->devorder[0];
	return DP_OK;
}

dp_status dpi_pd_ctx_init(pd_ctx *c, const dp_graph *g, const dp_machine *m,
			  const dp_algo_opts *o, const dp_progress *p,
			  dp_err *err)
{
	memset(c, 0, sizeof *c);
	c->g = g;
	c->m = m;
	c->o = o;
	c->p = p;
	c->err = err;
	c->res = &c->rbuf[0];
	c->spare = &c->rbuf[1];
	c->n = g->nops;
	c->k = m->k;
	uint32_t n = c->n;
	c->w = malloc(((size_t)n + 1) * sizeof *c->w);
	c->c = malloc(((size_t)g->nedges + 1) * sizeof *c->c);
	c->fix = malloc(((size_t)n + 1) * sizeof *c->fix);
	c->place = malloc(((size_t)n + 1) * sizeof *c->place);
	c->stamp = calloc((size_t)n + 1, sizeof *c->stamp);
	c->devorder = malloc((size_t)c->k * sizeof *c->devorder);
	if (!c->w || !c->c || !c->fix || !c->place || !c->stamp || !c->devorder)
		return dp_err_set(c->err, DP_ENOMEM, NULL, 0, 0,
				  "out of memory for pardnn on %u ops", n);
	c->mean_speed = dp_machine_sum_speed(m) / m->k;
	if (!(c->mean_speed > 0))
		c->mean_speed = 1;
	for (uint32_t u = 0; u < n; u++) {
		c->w[u] = g->ops[u].time_us / c->mean_speed;
		c->fix[u] = g->ops[u].pin;
	}
	/* the pin of any member fixes the whole group */
	for (uint32_t grp = 0; grp < g->ngroups; grp++) {
		int32_t pin = dpi_algo_group_pin(g, grp);
		if (pin >= 0)
			for (uint32_t i = g->group_off[grp];
			     i < g->group_off[grp + 1]; i++)
				c->fix[g->group_ops[i]] = pin;
	}
	/* the uniform link: what a cut edge costs (control: latency only) */
	for (uint32_t e = 0; e < g->nedges; e++)
		c->c[e] = c->k > 1 ? dp_machine_comm(m, 0, 1, g->edges[e].bytes)
				   : 0.0;
	for (int d = 0; d < c->k; d++) {
		int i = d;
		while (i > 0 && m->speed[c->devorder[i - 1]] < m->speed[d]) {
			c->devorder[i] = c->devorder[i - 1];
			i--;
		}
		c->devorder[i] = d;
	}
	return DP_OK;
}

void dpi_pd_ctx_free(pd_ctx *c)
{
	free(c->w);
	free(c->c);
	free(c->fix);
	free(c->place);
	free(c->stamp);
	free(c->devorder);
	free(c->path_of);
	free(c->path_off);
	free(c->path_ops);
	free(c->tlev);
	free(c->blev);
	dp_sim_result_free(&c->rbuf[0]);
	dp_sim_result_free(&c->rbuf[1]);
	dp_sim_free(c->sim);
}

static uint32_t pd_budget(const dp_graph *g)
{
	double size = (double)g->nops + (double)g->nedges + 1.0;
	double b = PD_BUDGET_WORK / size;
	if (b < PD_BUDGET_MIN)
		return PD_BUDGET_MIN;
	if (b > PD_BUDGET_MAX)
		return PD_BUDGET_MAX;
	return (uint32_t)b;
}

/* Refinement, the memory phase and the polish, from c->place (c->res its
 * result with the critical path). */
static dp_status after_mapping(pd_ctx *c)
{
	dp_status st;
	if ((st = dpi_pd_refine(c)) || (st = dpi_pd_memory(c)))
		return st;
	return c->o->polish ? dpi_pd_polish(c) : DP_OK;
}

static dp_status pardnn_phases(pd_ctx *c, unsigned seeds)
{
	dp_status st;
	if ((st = dpi_pd_slice(c)) || (st = dpi_pd_map(c)))
		return st;
	if ((st = dpi_pd_check_cancel(c)))
		return st;
	dpi_pd_progress(c, "refinement", 0.35, 0.6, 0.0);
	c->sim = dp_sim_new(c->g, c->m, c->err);
	if (!c->sim)
		return c->err && c->err->code ? c->err->code : DP_ENOMEM;
	c->so.contention = c->o->contention;
	c->sim_budget = pd_budget(c->g);
	for (int d = 0; d < c->k; d++)
		if (c->m->cap[d] != DP_CAP_UNLIMITED)
			c->capped = true;
	if ((st = dpi_pd_simulate(c, PD_PATH | PD_MEM, &c->cur)) ||
	    (st = dpi_pd_seeds(c, seeds, after_mapping)))
		return st;
	return try_whole(c, fill_single, PD_MEM, false);
}

dp_status dpi_pardnn_place(const dp_graph *g, const dp_machine *m,
			   const dp_algo_opts *o, const dp_progress *p,
			   unsigned seeds, int32_t *placement, dp_err *err)
{
	dp_status st = DP_OK;
	dp_algo_opts defaults;
	if (!o) {
		dp_algo_opts_default(&defaults);
		o = &defaults;
	}
	pd_ctx c;
	st = dpi_pd_ctx_init(&c, g, m, o, p, err);
	if (!st && c.n > 0 && c.k == 1) {
		/* one device: nothing to partition */
		for (uint32_t u = 0; u < c.n; u++)
			c.place[u] = c.fix[u] >= 0 ? c.fix[u] : 0;
	} else if (!st && c.n > 0) {
		st = pardnn_phases(&c, seeds);
	}
	if (!st)
		dpi_pd_progress(&c, c.o->polish ? "polish" : "memory", 0, 1, 1);
	if (!st)
		memcpy(placement, c.place, (size_t)c.n * sizeof *placement);
	dpi_pd_ctx_free(&c);
	return st;
}

static dp_status pardnn_run(const dp_graph *g, const dp_machine *m,
			    const dp_algo_opts *o, const dp_progress *p,
			    int32_t *placement, dp_err *err)
{
	return dpi_pardnn_place(g, m, o, p, PD_SEED_ALL, placement, err);
}

DPI_ALGO_DEFINE(pardnn,
		"ParDNN: critical-path slicing, load/comm mapping, "
		"refinement, memory-overflow moves",
		"Qararyah et al., Parallel Computing 2021 (arXiv 2008.08636)",
		pardnn_run);

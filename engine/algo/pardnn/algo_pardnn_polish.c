/* algo_pardnn_polish.c - pardnn polish: memory-safe local moves (ours).
 *
 * Not in the paper. After the memory phase the placement respects the caps
 * (when it can), but the moves that got it there were chosen for bytes, not
 * time. Polish walks the schedule's critical path again and proposes local
 * moves of ops on device boundaries:
 *   - at a hop where the path crosses devices (a transfer), the later op to
 *     the earlier op's device, and the earlier op to the later op's device;
 *   - at a hop where an op waited for the previous op on its device, the op
 *     to the device where its inputs would arrive first (ties: the least
 *     busy device), among devices whose peak leaves room for it.
 * A move is kept only when the simulator says the makespan went down and
 * the memory overflow did not grow (so a feasible plan stays feasible).
 * Moves are tried together, then in halves (dpi_pd_try_moves), within the
 * simulation budget. `--no-polish` (dp_algo_opts.polish = false) skips it.
 */
#include <stdlib.h>
#include <string.h>

#include "internal/algo_int.h"
#include "internal/pardnn.h"
#include "internal/sort_key.h"

#define PD_POLISH_MAX_ROUNDS 16

/* Whether the unit of rep is expected to fit on e: what it brings at e's
 * peak is within e's headroom (anything fits where there is no cap). */
static bool fits_on(const pd_ctx *c, uint32_t rep, int32_t e)
{
	int64_t cap = c->m->cap[e];
	if (cap == DP_CAP_UNLIMITED)
		return true;
	int64_t head = cap - c->res->dev[e].peak_bytes;
	return head >= 0 && dpi_pd_need_on(c, rep, e) <= head;
}

/* The unit of v and the search's state, for dpi_earliest_input_device. */
typedef struct input_ud {
	const pd_ctx *c;
	uint32_t rep;
} input_ud;

static double input_comm(const void *ud, uint32_t edge, int32_t e)
{
	const pd_ctx *c = ((const input_ud *)ud)->c;
	return c->place[c->g->edges[edge].from] != e ? c->c[edge] : 0;
}

static bool input_fits(const void *ud, int32_t e)
{
	const input_ud *x = ud;
	return fits_on(x->c, x->rep, e);
}

/* Device other than v's where v's inputs would arrive first, among devices
 * with room for v's unit; -1 if none. */
static int32_t earliest_input_device(const pd_ctx *c, uint32_t v)
{
	input_ud x = {c, dpi_pd_rep(c->g, v)};
	dpi_input_cost cost = {input_comm, input_fits, &x};
	return dpi_earliest_input_device(c->g, c->res, c->k, c->place, v,
					 &cost);
}

/* A proposed move, sorted by dpi_sort_key_desc: largest gain first, ties
 * by the unit's representative. */
typedef struct scored_move {
	dpi_sort_key gain; /* first: qsort reads the key through it */
	pd_move mv;
} scored_move;

/* Proposals in the order they are tried: the critical path's hops first
 * (in path order), then units whose outside neighbours all sit on one other
 * device, most communication saved first. Moves that are not expected to
 * fit their target's memory are left out. */
static uint32_t polish_moves(pd_ctx *c, pd_move *mv, scored_move *sm)
{
	const dp_sim_result *r = c->res;
	uint32_t nm = 0, ns = 0;
	for (uint32_t i = 1; i < r->cp_len; i++) {
		uint32_t a = r->cp_ops[i - 1], b = r->cp_ops[i];
		if (r->cp_cause[i] == DP_HOP_TRANSFER &&
		    c->place[a] != c->place[b]) {
			if (fits_on(c, dpi_pd_rep(c->g, b), c->place[a]))
				mv[nm++] = (pd_move){b, c->place[a], -1};
			if (fits_on(c, dpi_pd_rep(c->g, a), c->place[b]))
				mv[nm++] = (pd_move){a, c->place[b], -1};
		} else if (r->cp_cause[i] == DP_HOP_DEVICE && c->fix[b] < 0) {
			int32_t e = earliest_input_device(c, b);
			if (e >= 0)
				mv[nm++] = (pd_move){b, e, -1};
		}
	}
	dpi_pd_stamp_next(c);
	for (uint32_t u = 0; u < c->n; u++) {
		uint32_t rep = dpi_pd_rep(c->g, u);
		if (c->fix[rep] >= 0 || dpi_pd_stamp_set(c, rep))
			continue;
		int32_t e = dpi_pd_sole_neighbour_device(c, rep, true);
		if (e < 0)
			e = dpi_pd_sole_neighbour_device(c, rep, false);
		if (e < 0 || !fits_on(c, rep, e))
			continue;
		double saved = -dpi_pd_comm_delta(c, rep, e);
		if (saved > 0)
			sm[ns++] =
				(scored_move){{saved, rep, rep}, {rep, e, -1}};
	}
	qsort(sm, ns, sizeof *sm, dpi_sort_key_desc);
	for (uint32_t i = 0; i < ns; i++)
		mv[nm++] = sm[i].mv;
	return nm;
}

/* Tries emptying whole devices: the least busy device first, all its free
 * units to the device it exchanges the most data with. When communication
 * costs more than the parallelism gains (port contention on a graph with
 * little parallelism), fewer devices run faster. Each device is tried at
 * most once (K - 1 simulations at most); a merge is kept only when
 * dpi_pd_try_current() agrees. */
static dp_status merge_devices(pd_ctx *c, int32_t *saved)
{
	const dp_graph *g = c->g;
	int k = c->k;
	double *busy = calloc((size_t)k * ((size_t)k + 1), sizeof *busy);
	if (!busy)
		return dp_err_set(c->err, DP_ENOMEM, NULL, 0, 0,
				  "out of memory in pardnn polish");
	double *xchg = busy + k; /* k x k: cut-edge cost between devices */
	dp_status st = DP_OK;
	uint8_t tried[DP_MAX_DEVICES] = {0};
	for (int tries = 0; tries < k - 1 && dpi_pd_sims_left(c) > 1; tries++) {
		memset(busy, 0, (size_t)k * ((size_t)k + 1) * sizeof *busy);
		uint32_t fixed_on[DP_MAX_DEVICES] = {0};
		for (uint32_t u = 0; u < c->n; u++) {
			busy[c->place[u]] += c->w[u] / c->m->speed[c->place[u]];
			if (c->fix[u] >= 0)
				fixed_on[c->place[u]]++;
		}
		for (uint32_t e = 0; e < g->nedges; e++) {
			int32_t a = c->place[g->edges[e].from];
			int32_t b = c->place[g->edges[e].to];
			if (a != b) {
				xchg[(size_t)a * k + b] += c->c[e];
				xchg[(size_t)b * k + a] += c->c[e];
			}
		}
		/* the least busy device that holds work and talks to another */
		int32_t d = -1, to = -1;
		for (int32_t x = 0; x < k; x++) {
			if (busy[x] <= 0 || fixed_on[x] > 0 || tried[x])
				continue;
			int32_t y = -1;
			for (int32_t z = 0; z < k; z++)
				if (z != x && xchg[(size_t)x * k + z] > 0 &&
				    (y < 0 || xchg[(size_t)x * k + z] >
						      xchg[(size_t)x * k + y]))
					y = z;
			if (y >= 0 && (d < 0 || busy[x] < busy[d])) {
				d = x;
				to = y;
			}
		}
		if (d < 0)
			break;
		memcpy(saved, c->place, (size_t)c->n * sizeof *saved);
		for (uint32_t u = 0; u < c->n; u++)
			if (c->place[u] == d)
				c->place[u] = to;
		bool kept;
		if ((st = dpi_pd_try_current(c, &kept)))
			break;
		if (!kept) { /* c->res is still the result of saved */
			memcpy(c->place, saved, (size_t)c->n * sizeof *saved);
			tried[d] = 1;
		}
	}
	free(busy);
	return st;
}

dp_status dpi_pd_polish(pd_ctx *c)
{
	dp_status st = DP_OK;
	pd_move *mv = NULL;
	scored_move *sm = malloc(((size_t)c->n + 1) * sizeof *sm);
	size_t mcap = 0;
	if (!sm)
		return dp_err_set(c->err, DP_ENOMEM, NULL, 0, 0,
				  "out of memory in pardnn polish");
	dpi_pd_progress(c, "polish", 0.85, 1.0, 0.0);
	int32_t *saved = malloc((size_t)c->n * sizeof *saved);
	if (!saved) {
		free(sm);
		return dp_err_set(c->err, DP_ENOMEM, NULL, 0, 0,
				  "out of memory in pardnn polish");
	}
	st = merge_devices(c, saved);
	free(saved);
	for (uint32_t round = 0; !st && round < PD_POLISH_MAX_ROUNDS; round++) {
		uint32_t left = dpi_pd_sims_left(c);
		if (left < 2)
			break;
		if ((st = dpi_pd_ensure(c, PD_PATH | PD_MEM, &c->cur)))
			break;
		size_t need = 2 * (size_t)c->res->cp_len + c->n + 1;
		if (need > mcap) {
			pd_move *nmv = realloc(mv, need * sizeof *mv);
			if (!nmv) {
				st = dp_err_set(
					c->err, DP_ENOMEM, NULL, 0, 0,
					"out of memory in pardnn polish");
				break;
			}
			mv = nmv;
			mcap = need;
		}
		uint32_t nm = polish_moves(c, mv, sm), kept = 0;
		if (nm == 0)
			break;
		if ((st = dpi_pd_try_moves(c, mv, nm, dpi_pd_sims_left(c),
					   &kept)))
			break;
		dpi_pd_progress(c, "polish", 0.85, 1.0,
				(double)(round + 1) / PD_POLISH_MAX_ROUNDS);
		if (kept == 0)
			break;
	}
	free(mv);
	free(sm);
	return st;
}

/* algo_pardnn_refine.c - pardnn step 3: refinement.
 *
 * Paper (arXiv 2008.08636, Sec. 4, refinement):
 * (a) switching: a single op whose children (or, failing that, parents) all
 *     sit on one other device moves there when that saves more
 *     communication than it adds load;
 * (b) critical-path iterations: simulate, walk the schedule's critical path,
 *     and at each hop where it changes device try moving the op across; keep
 *     moves that lower the makespan; at most K + 1 rounds.
 *
 * Ours: "adds load" is read as the growth of the larger of the two devices'
 * total loads (moving work onto a lighter device adds nothing); the whole
 * switching pass is kept only if the simulator says the makespan went down.
 * In (b) the later op of a transfer hop moves to the earlier op's device
 * (the earlier one moves when the later is pinned), the moves of one round
 * are tried together first and then in halves (dpi_pd_try_moves), within the
 * simulation budget, and a move that increases the memory overflow is not
 * kept. Colocation groups move whole.
 */
#include <stdlib.h>
#include <string.h>

#include "internal/pardnn.h"

static dp_status switch_ops(pd_ctx *c)
{
	const dp_graph *g = c->g;
	double *load = calloc((size_t)c->k, sizeof *load);
	int32_t *saved = malloc((size_t)c->n * sizeof *saved);
	if (!load || !saved) {
		free(load);
		free(saved);
		return dp_err_set(c->err, DP_ENOMEM, NULL, 0, 0,
				  "out of memory in pardnn refinement");
	}
	memcpy(saved, c->place, (size_t)c->n * sizeof *saved);
	for (uint32_t u = 0; u < c->n; u++)
		load[c->place[u]] += c->w[u] / c->m->speed[c->place[u]];
	uint32_t moved = 0;
	dp_status st = DP_OK;
	for (uint32_t k = 0; k < c->n; k++) {
		uint32_t u = g->topo[k];
		if ((k & 0xffff) == 0 && (st = dpi_pd_check_cancel(c)))
			goto out;
		if (c->fix[u] >= 0 || g->ops[u].colocate >= 0)
			continue;
		int32_t e = dpi_pd_sole_neighbour_device(c, u, true);
		if (e < 0)
			e = dpi_pd_sole_neighbour_device(c, u, false);
		if (e < 0)
			continue;
		int32_t d = c->place[u];
		double saved_comm = -dpi_pd_comm_delta(c, u, e);
		double wd = c->w[u] / c->m->speed[d],
		       we = c->w[u] / c->m->speed[e];
		double before = load[d] > load[e] ? load[d] : load[e];
		double after = load[d] - wd > load[e] + we ? load[d] - wd
							   : load[e] + we;
		if (saved_comm > 0 && saved_comm > after - before) {
			c->place[u] = e;
			load[d] -= wd;
			load[e] += we;
			moved++;
		}
	}
	if (moved) {
		bool kept;
		if ((st = dpi_pd_try_current(c, &kept)))
			goto out;
		if (!kept) /* c->res is still the result of saved */
			memcpy(c->place, saved, (size_t)c->n * sizeof *saved);
	}
out:
	free(load);
	free(saved);
	return st;
}

/* Moves proposed by the critical path of the current result (c->res). */
static uint32_t cp_moves(const pd_ctx *c, pd_move *mv)
{
	const dp_sim_result *r = c->res;
	uint32_t nm = 0;
	for (uint32_t i = 1; i < r->cp_len; i++) {
		if (r->cp_cause[i] != DP_HOP_TRANSFER)
			continue;
		uint32_t a = r->cp_ops[i - 1], b = r->cp_ops[i];
		if (c->place[a] == c->place[b])
			continue;
		if (c->fix[b] < 0)
			mv[nm++] = (pd_move){b, c->place[a], -1};
		else if (c->fix[a] < 0)
			mv[nm++] = (pd_move){a, c->place[b], -1};
	}
	return nm;
}

dp_status dpi_pd_refine(pd_ctx *c)
{
	dpi_pd_progress(c, "refinement", 0.35, 0.6, 0.0);
	dp_status st = switch_ops(c);
	if (st)
		return st;
	dpi_pd_progress(c, "refinement", 0.35, 0.6, 0.2);
	/* about a third of the budget; the memory phase and polish follow */
	uint32_t budget = c->sim_budget / 3;
	uint32_t start = c->sims, rounds = (uint32_t)c->k + 1;
	pd_move *mv = NULL;
	for (uint32_t r = 0; r < rounds; r++) {
		uint32_t spent = c->sims - start;
		if (spent + 2 > budget)
			break;
		if ((st = dpi_pd_ensure(c, PD_PATH | PD_MEM, &c->cur)))
			break;
		if (!mv) {
			mv = malloc(((size_t)c->res->cp_len + 1) * sizeof *mv);
			if (!mv) {
				st = dp_err_set(c->err, DP_ENOMEM, NULL, 0, 0,
						"out of memory in pardnn "
						"refinement");
				break;
			}
		} else {
			pd_move *nmv = realloc(
				mv, ((size_t)c->res->cp_len + 1) * sizeof *mv);
			if (!nmv) {
				st = dp_err_set(c->err, DP_ENOMEM, NULL, 0, 0,
						"out of memory in pardnn "
						"refinement");
				break;
			}
			mv = nmv;
		}
		uint32_t nm = cp_moves(c, mv), kept = 0;
		if (nm == 0)
			break;
		spent = c->sims - start;
		if ((st = dpi_pd_try_moves(c, mv, nm, budget - spent, &kept)))
			break;
		dpi_pd_progress(c, "refinement", 0.35, 0.6,
				0.2 + 0.8 * (r + 1) / rounds);
		if (kept == 0)
			break;
	}
	free(mv);
	dpi_pd_progress(c, "refinement", 0.35, 0.6, 1.0);
	return st;
}

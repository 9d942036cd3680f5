/* best_polish.c - best's shared local search on the simulator (ours).
 *
 * One local search for whichever algorithm a candidate came from, so every
 * candidate gets the same chance. Each round simulates the placement with
 * its schedule critical path and proposes, hop by hop along that path:
 *   - where the path crosses devices (a transfer), the later op to the
 *     earlier op's device, then the earlier op to the later op's device;
 *   - where an op waited for the previous op on its device, the op to the
 *     device where its inputs would arrive first (ties: the least busy).
 * A move takes the op's whole colocation group; pinned ops stay. The first
 * move that shortens the makespan without growing the memory overflow is
 * kept and the next round starts from it (first improvement); a round
 * without one ends the search, as does the simulation budget the caller
 * gives, so the cost is bounded and the result deterministic.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "internal/algo_int.h"
#include "internal/best.h"

#define BEST_POLISH_MAX_ROUNDS 64

dpi_best_score dpi_best_score_of(const dp_sim_result *r)
{
	dpi_best_score s = {r->feasible, 0, r->makespan};
	for (int d = 0; d < r->k; d++) {
		const dp_device_stats *ds = &r->dev[d];
		if (ds->cap_bytes != DP_CAP_UNLIMITED &&
		    ds->peak_bytes > ds->cap_bytes)
			s.overflow += ds->peak_bytes - ds->cap_bytes;
	}
	return s;
}

bool dpi_best_better(const dpi_best_score *a, const dpi_best_score *b)
{
	if (a->feasible != b->feasible)
		return a->feasible;
	if (!a->feasible && a->overflow != b->overflow)
		return a->overflow < b->overflow;
	return a->makespan < b->makespan;
}

/* A move of u (and its colocation group) to device to. */
typedef struct best_move {
	uint32_t u;
	int32_t to;
} best_move;

/* Whether u's unit may move: neither u nor a member of its group is
 * pinned (a finalized graph gives a whole group the pin of any member). */
static bool movable(const dp_graph *g, uint32_t u)
{
	if (g->ops[u].pin >= 0)
		return false;
	int32_t c = g->ops[u].colocate;
	return c < 0 || dpi_algo_group_pin(g, (uint32_t)c) < 0;
}

/* The graph and machine a round's placement is on. */
typedef struct input_ud {
	const dp_graph *g;
	const dp_machine *m;
	const int32_t *pl;
} input_ud;

static double input_comm(const void *ud, uint32_t edge, int32_t e)
{
	const input_ud *x = ud;
	const dp_edge *ed = &x->g->edges[edge];
	return dp_machine_comm(x->m, x->pl[ed->from], e,
			       ed->control ? 0 : ed->bytes);
}

/* The moves of one round, in the order they are tried. */
static uint32_t round_moves(const dp_graph *g, const dp_machine *m,
			    const dp_sim_result *r, const int32_t *pl,
			    best_move *mv)
{
	uint32_t n = 0;
	for (uint32_t i = 1; i < r->cp_len; i++) {
		uint32_t a = r->cp_ops[i - 1], b = r->cp_ops[i];
		if (r->cp_cause[i] == DP_HOP_TRANSFER && pl[a] != pl[b]) {
			mv[n++] = (best_move){b, pl[a]};
			mv[n++] = (best_move){a, pl[b]};
		} else if (r->cp_cause[i] == DP_HOP_DEVICE && m->k > 1) {
			input_ud x = {g, m, pl};
			dpi_input_cost cost = {input_comm, NULL, &x};
			mv[n++] = (best_move){
				b, dpi_earliest_input_device(g, r, m->k, pl, b,
							     &cost)};
		}
	}
	return n;
}

static bool has_caps(const dp_machine *m)
{
	for (int d = 0; d < m->k; d++)
		if (m->cap[d] != DP_CAP_UNLIMITED)
			return true;
	return false;
}

/* One move tried: the placement is simulated with u's unit on to; the move
 * is kept when the makespan goes down, the overflow does not grow and a
 * feasible plan stays feasible (the memory pass only then, and only with
 * caps), else undone. */
typedef struct best_try {
	dp_sim *s;
	const dp_graph *g;
	bool caps;
	dp_sim_opts oc, om; /* the schedule alone; with memory */
	dp_sim_result cand;
	int32_t *pl;
	dpi_best_score *score;
	uint32_t sims;
} best_try;

static void try_init(best_try *t, dp_sim *s, const dp_graph *g,
		     const dp_machine *m, dp_contention c, int32_t *pl,
		     dpi_best_score *score)
{
	memset(t, 0, sizeof *t);
	t->s = s;
	t->g = g;
	t->caps = has_caps(m);
	/* the schedule first, memory only when it matters (never without
	 * caps: every plan fits, and the score is the same) */
	t->oc = (dp_sim_opts){.contention = c, .skip_memory = true};
	t->om = (dp_sim_opts){.contention = c};
	t->pl = pl;
	t->score = score;
}

static dp_status try_move(best_try *t, uint32_t u, int32_t to, bool *kept,
			  dp_err *err)
{
	*kept = false;
	int32_t from = t->pl[u];
	if (to < 0 || to == from || !movable(t->g, u))
		return DP_OK;
	dpi_algo_unit_set(t->g, t->pl, u, to);
	dp_status st = dp_sim_run(t->s, t->pl, &t->oc, &t->cand, err);
	if (st)
		return st;
	t->sims++;
	if (t->cand.makespan < t->score->makespan &&
	    (!t->caps ||
	     !(st = dp_sim_finish(t->s, t->pl, &t->om, &t->cand, err)))) {
		dpi_best_score sc = dpi_best_score_of(&t->cand);
		if ((sc.feasible || !t->score->feasible) &&
		    sc.overflow <= t->score->overflow) {
			*t->score = sc;
			*kept = true;
		}
	}
	if (!*kept)
		dpi_algo_unit_set(t->g, t->pl, u, from);
	return st;
}

dp_status dpi_best_polish(dp_sim *s, const dp_graph *g, const dp_machine *m,
			  dp_contention c, uint32_t max_sims,
			  const dp_progress *p, int32_t *pl,
			  dpi_best_score *score, bool *improved, dp_err *err)
{
	*improved = false;
	if (m->k < 2 || g->nops == 0 || max_sims < 2)
		return DP_OK;
	dp_sim_result cur;
	memset(&cur, 0, sizeof cur);
	best_try t;
	try_init(&t, s, g, m, c, pl, score);
	/* the critical path, without the live tensors and curves */
	dp_sim_opts od = {.contention = c,
			  .detail = true,
			  .skip_memory = !t.caps,
			  .skip_live = true,
			  .skip_curves = true};
	/* a critical path has at most nops hops, each at most two moves */
	best_move *mv = malloc(2 * (size_t)g->nops * sizeof *mv);
	if (!mv)
		return dp_err_set(err, DP_ENOMEM, NULL, 0, 0,
				  "out of memory in best's local search");
	dp_status st = DP_OK;
	for (int round = 0; round < BEST_POLISH_MAX_ROUNDS && t.sims < max_sims;
	     round++) {
		if (dp_progress_canceled(p)) {
			st = dpi_canceled(err, "best");
			break;
		}
		if ((st = dp_sim_run(s, pl, &od, &cur, err)))
			break;
		t.sims++;
		*score = dpi_best_score_of(&cur);
		uint32_t nm = round_moves(g, m, &cur, pl, mv);
		bool kept = false;
		for (uint32_t i = 0; i < nm && t.sims < max_sims && !kept; i++)
			if ((st = try_move(&t, mv[i].u, mv[i].to, &kept, err)))
				break;
		*improved = *improved || kept;
		if (st || !kept)
			break;
	}
	dp_sim_result_free(&cur);
	dp_sim_result_free(&t.cand);
	free(mv);
	return st;
}

/* Passes of every movable unit to every other device on t's placement
 * until a pass keeps nothing or t has spent max_sims simulations. */
static dp_status descend(best_try *t, const dp_machine *m, uint32_t max_sims,
			 const dp_progress *p, bool *improved, dp_err *err)
{
	const dp_graph *g = t->g;
	dp_status st = DP_OK;
	bool any = m->k > 1;
	while (any && !st && t->sims < max_sims) {
		any = false;
		for (uint32_t u = 0; !st && u < g->nops && t->sims < max_sims;
		     u++) {
			int32_t grp = g->ops[u].colocate; /* a unit once */
			if (grp >= 0 && g->group_ops[g->group_off[grp]] != u)
				continue;
			if (dp_progress_canceled(p)) {
				st = dpi_canceled(err, "best");
				break;
			}
			bool kept = false;
			for (int32_t d = 0;
			     !st && !kept && d < m->k && t->sims < max_sims;
			     d++)
				st = try_move(t, u, d, &kept, err);
			any = any || kept;
		}
		*improved = *improved || any;
	}
	return st;
}

dp_status dpi_best_descend(dp_sim *s, const dp_graph *g, const dp_machine *m,
			   dp_contention c, uint32_t max_sims,
			   const dp_progress *p, int32_t *pl,
			   dpi_best_score *score, bool *improved, dp_err *err)
{
	*improved = false;
	best_try t;
	try_init(&t, s, g, m, c, pl, score);
	dp_status st = descend(&t, m, max_sims, p, improved, err);
	dp_sim_result_free(&t.cand);
	return st;
}

/* splitmix64: a fixed sequence from a seed, the same on every machine */
static uint64_t next_rand(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

dp_status dpi_best_restarts(dp_sim *s, const dp_graph *g, const dp_machine *m,
			    dp_contention c, uint32_t max_sims, uint64_t seed,
			    const dp_progress *p, int32_t *pl,
			    dpi_best_score *score, bool *improved, dp_err *err)
{
	*improved = false;
	int32_t *cur = malloc(((size_t)g->nops + 1) * sizeof *cur);
	if (!cur)
		return dp_err_set(err, DP_ENOMEM, NULL, 0, 0,
				  "out of memory in best's restarts");
	memcpy(cur, pl, (size_t)g->nops * sizeof *cur);
	dpi_best_score sc;
	best_try t;
	try_init(&t, s, g, m, c, cur, &sc);
	dp_sim_opts oc = {.contention = c, .skip_memory = !t.caps};
	dp_status st = DP_OK;
	while (!st && t.sims < max_sims && m->k > 1) {
		for (uint32_t u = 0; u < g->nops; u++) /* a random start */
			if (movable(g, u))
				dpi_algo_unit_set(g, cur, u,
						  (int32_t)(next_rand(&seed) %
							    (uint64_t)m->k));
		if ((st = dp_sim_run(s, cur, &oc, &t.cand, err)))
			break;
		t.sims++;
		sc = dpi_best_score_of(&t.cand);
		bool imp = false;
		if ((st = descend(&t, m, max_sims, p, &imp, err)))
			break;
		if (dpi_best_better(&sc, score)) {
			*score = sc;
			memcpy(pl, cur, (size_t)g->nops * sizeof *pl);
			*improved = true;
		}
	}
	dp_sim_result_free(&t.cand);
	free(cur);
	return st;
}

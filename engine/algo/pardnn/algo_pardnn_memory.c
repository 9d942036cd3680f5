/* algo_pardnn_memory.c - pardnn step 4: the memory-overflow heuristic.
 *
 * Paper (arXiv 2008.08636, Sec. 4, memory heuristic): while a device is
 * over its memory cap, take the ops that hold memory at its peak and move
 * them, cheapest first by (communication the move adds + 1) / (bytes it
 * frees), to the device with the most headroom on which they still fit.
 *
 * The memory model is the simulator's time-resolved one (docs/simulator.md):
 * each round simulates with detail, and the live tensors at each over-cap
 * device's peak say who holds memory there:
 *   - a param or temp entry is held by its op: moving the op frees it;
 *   - an output or a received copy that still has consumers to run on the
 *     device after the peak is held by those consumers: moving them away
 *     frees it (the producer's output then leaves by a transfer right after
 *     it ends), so each pending consumer is credited its share;
 *   - an output without pending local consumers (the op is running or a
 *     transfer out is in flight) is credited to its op.
 * Candidates are moved, cheapest ratio first, until the credited bytes
 * cover the device's overflow; the target's headroom is reduced by what
 * the move brings, so one round does not pile everything onto one device.
 *
 * Termination (unlike the reference, which can loop forever when its
 * detection and move thresholds differ): a unit never moves back to a device
 * it left in this phase, it moves at most PD_MEM_MAX_MOVES times, every round
 * moves at least one unit or the phase stops, and there are at most
 * PD_MEM_MAX_ROUNDS rounds: as many as the simulation budget allows (at
 * least PD_MEM_MIN_ROUNDS), and past that, while the least overflow seen
 * still fell in the last three rounds, up to twice as many (at least
 * PD_MEM_MIN_HARD). More rounds never make the result worse: the best placement
 * seen (least overflow, then makespan) is kept. When no move helps, that
 * best placement is returned and the plan layer reports it infeasible with
 * each device's peak and cap. Pinned units never move; colocation groups
 * move whole.
 */
#include <stdlib.h>
#include <string.h>

#include "internal/minheap.h"
#include "internal/pardnn.h"

#define PD_MEM_MAX_MOVES 4
#define PD_MEM_MAX_ROUNDS 64
#define PD_MEM_MIN_ROUNDS 6
#define PD_MEM_MIN_HARD 16
/* Holders weighed per device and round: the largest PD_MEM_MAX_CANDS, or
 * one in PD_MEM_CANDS_DIV of the ops on bigger graphs (keying a holder
 * costs a pass over its edges for every device, so this bounds a round;
 * with 4096 alone a 1M-op graph needed more rounds than it may run). */
#define PD_MEM_MAX_CANDS 4096u
#define PD_MEM_CANDS_DIV 32u
#define PD_MEM_NEIGHBOURS 64u

typedef struct mcand {
	double key;
	uint32_t rep;
	int64_t freed;
} mcand;

typedef struct mstate {
	int64_t *credit;   /* n: bytes credited to a unit (by rep) */
	uint32_t *touched; /* reps with credit, this device */
	uint32_t ntouched;
	int16_t *left;	 /* n * PD_MEM_MAX_MOVES: devices a unit left */
	uint8_t *nmoves; /* n */
	int64_t *head;	 /* k: headroom (cap - peak - planned) */
	double *cdelta;	 /* k: scratch for dpi_pd_comm_delta_all */
	int64_t *need;	 /* k: scratch for dpi_pd_need_all */
	uint8_t *mark;	 /* k: scratch for dpi_pd_need_all */
	mcand *cand;
	int32_t *best;	/* best placement seen */
	uint32_t *ybuf; /* largest out-degree: pending consumers of a tensor */
} mstate;

static void credit_add(mstate *s, uint32_t rep, int64_t bytes)
{
	if (bytes <= 0)
		return;
	if (s->credit[rep] == 0)
		s->touched[s->ntouched++] = rep;
	s->credit[rep] += bytes;
}

static bool has_left(const mstate *s, uint32_t rep, int32_t dev)
{
	for (uint32_t i = 0; i < s->nmoves[rep]; i++)
		if (s->left[(size_t)rep * PD_MEM_MAX_MOVES + i] == dev)
			return true;
	return false;
}

/* The device a unit on d should go to: among devices it has not left
 * before where what it brings fits (within the headroom, or nothing at all
 * on a device already over its cap), the one where the move adds the least
 * communication, ties: the most headroom left after the move, then the
 * smaller device. -1 if none; *need gets what it brings there and *comm
 * the communication it adds (>= 0). */
static int32_t best_target(const pd_ctx *c, const mstate *s, uint32_t rep,
			   int32_t d, int64_t *need, double *comm)
{
	int32_t best = -1;
	int64_t best_left = 0;
	double best_comm = 0;
	dpi_pd_comm_delta_all(c, rep, s->cdelta);
	dpi_pd_need_all(c, rep, s->need, s->mark);
	for (int32_t e = 0; e < c->k; e++) {
		if (e == d || has_left(s, rep, e))
			continue;
		int64_t nd = s->need[e];
		if (nd > (s->head[e] > 0 ? s->head[e] : 0))
			continue;
		int64_t left = s->head[e] - nd;
		double cm = s->cdelta[e] > 0 ? s->cdelta[e] : 0;
		if (best < 0 || cm < best_comm ||
		    (cm == best_comm && left > best_left)) {
			best = e;
			best_left = left;
			best_comm = cm;
			*need = nd;
		}
	}
	*comm = best_comm;
	return best;
}

/* Credits the holders of the memory live at device d's peak. */
static void credit_holders(const pd_ctx *c, mstate *s, int32_t d)
{
	const dp_graph *g = c->g;
	const dp_sim_result *r = c->res;
	double peak_t = r->dev[d].peak_time;
	for (uint32_t i = r->live_off[d]; i < r->live_off[d + 1]; i++) {
		const dp_live_tensor *lt = &r->live[i];
		uint32_t x = lt->op;
		if (lt->kind == DP_MEM_PARAM || lt->kind == DP_MEM_TEMP) {
			credit_add(s, dpi_pd_rep(g, x), lt->bytes);
			continue;
		}
		/* output or copy: pending consumers on d hold it */
		int32_t grp = g->ops[x].colocate;
		uint32_t np = 0;
		for (uint32_t j = g->succ_off[x]; j < g->succ_off[x + 1]; j++) {
			const dp_edge *e = &g->edges[g->succ_edge[j]];
			uint32_t y = e->to;
			if (e->control || c->place[y] != d ||
			    !(r->end[y] > peak_t))
				continue;
			int32_t gy = g->ops[y].colocate;
			if (grp >= 0 && gy == grp)
				continue;
			s->ybuf[np++] =
				gy >= 0 ? g->group_ops[g->group_off[gy]] : y;
		}
		for (uint32_t j = 0; j < np; j++)
			credit_add(s, s->ybuf[j], lt->bytes / (int64_t)np);
		if (np == 0 && lt->kind == DP_MEM_OUTPUT)
			credit_add(s, dpi_pd_rep(g, x), lt->bytes);
	}
}

/* The order of candidates, (key, rep), for the heap, the selection and
 * its final sort alike. */
static bool mc_less(const mcand *a, const mcand *b)
{
	return a->key < b->key || (a->key == b->key && a->rep < b->rep);
}

static int mcand_cmp(const void *a, const void *b)
{
	return mc_less(a, b) ? -1 : mc_less(b, a);
}

static void mc_swap(mcand *a, mcand *b)
{
	mcand t = *a;
	*a = *b;
	*b = t;
}

/* Puts the m smallest of a[0..n) by (key, rep) first, in no particular
 * order (the heap that takes them does not care). (key, rep) is a total
 * order, so the set chosen does not depend on how: quickselect with a
 * median-of-three pivot, and a range that does not shrink fast enough is
 * sorted instead, so the worst case stays O(n log n). A full sort of every
 * holder took a tenth of the phase at 1M ops. */
static void select_smallest(mcand *a, uint32_t n, uint32_t m)
{
	uint32_t lo = 0, hi = n; /* a[0..lo) < a[lo..hi) < a[hi..n) */
	int tries = 64;
	while (hi - lo > 32 && tries-- > 0) {
		uint32_t mid = lo + (hi - lo - 1) / 2;
		if (mc_less(&a[mid], &a[lo]))
			mc_swap(&a[mid], &a[lo]);
		if (mc_less(&a[hi - 1], &a[mid])) {
			mc_swap(&a[hi - 1], &a[mid]);
			if (mc_less(&a[mid], &a[lo]))
				mc_swap(&a[mid], &a[lo]);
		}
		/* Hoare's partition: [lo, j] <= p <= (j, hi) */
		mcand p = a[mid];
		uint32_t i = lo, j = hi - 1;
		for (;;) {
			while (mc_less(&a[i], &p))
				i++;
			while (mc_less(&p, &a[j]))
				j--;
			if (i >= j)
				break;
			mc_swap(&a[i], &a[j]);
			i++;
			j--;
		}
		uint32_t split = j + 1;
		if (split == m)
			return;
		if (m < split)
			hi = split;
		else
			lo = split;
	}
	qsort(a + lo, hi - lo, sizeof *a, mcand_cmp);
}

DPI_HEAP_DEFINE(mc_heap, mcand, mc_less)

/* (communication the move adds + 1) / bytes it frees, for the unit of rep
 * going to its best target now; -1 when it fits nowhere. */
static double move_key(const pd_ctx *c, const mstate *s, uint32_t rep,
		       int32_t d, int64_t freed, int32_t *to, int64_t *need)
{
	double comm;
	*to = best_target(c, s, rep, d, need, &comm);
	if (*to < 0)
		return -1;
	return (comm + 1.0) / (double)freed;
}

/* Plans the moves off device d for this round; returns how many. The
 * candidates are taken cheapest first; a candidate's key is computed again
 * when it comes up, with the moves made so far, so that a neighbour of an
 * op that just moved (whose edge to it no longer costs anything there)
 * follows it and chains move together instead of being cut at every op. */
static uint32_t relieve_device(pd_ctx *c, mstate *s, int32_t d)
{
	const dp_graph *g = c->g;
	const dp_sim_result *r = c->res;
	int64_t overflow = r->dev[d].peak_bytes - c->m->cap[d];
	s->ntouched = 0;
	credit_holders(c, s, d);
	uint32_t nc = 0;
	for (uint32_t i = 0; i < s->ntouched; i++) {
		uint32_t rep = s->touched[i];
		if (c->fix[rep] >= 0 || c->place[rep] != d ||
		    s->nmoves[rep] >= PD_MEM_MAX_MOVES ||
		    c->stamp[rep] == c->stamp_gen)
			continue;
		s->cand[nc++] =
			(mcand){-(double)s->credit[rep], rep, s->credit[rep]};
	}
	for (uint32_t i = 0; i < s->ntouched; i++)
		s->credit[s->touched[i]] = 0;
	/* on big graphs only the largest holders are weighed this round */
	uint32_t most = c->n / PD_MEM_CANDS_DIV > PD_MEM_MAX_CANDS
				? c->n / PD_MEM_CANDS_DIV
				: PD_MEM_MAX_CANDS;
	if (nc > most) {
		select_smallest(s->cand, nc, most);
		nc = most;
	}
	uint32_t kept = 0;
	for (uint32_t i = 0; i < nc; i++) {
		int64_t need;
		int32_t e;
		double key = move_key(c, s, s->cand[i].rep, d, s->cand[i].freed,
				      &e, &need);
		if (key >= 0) {
			s->cand[kept] = s->cand[i];
			s->cand[kept++].key = key;
			s->credit[s->cand[i].rep] = s->cand[i].freed;
		}
	}
	nc = kept;
	for (uint32_t i = nc / 2; i-- > 0;)
		mc_heap_down(s->cand, nc, i);
	int64_t got = 0;
	uint32_t moved = 0, rechecks = 4 * nc + 64;
	while (nc > 0 && got < overflow) {
		mcand m = mc_heap_pop(s->cand, &nc);
		if (c->stamp[m.rep] == c->stamp_gen)
			continue; /* moved already (a stale heap entry) */
		int64_t need = 0;
		int32_t e;
		double key = move_key(c, s, m.rep, d, m.freed, &e, &need);
		if (key < 0)
			continue;
		if (rechecks > 0 && nc > 0 && key > m.key &&
		    key > s->cand[0].key) {
			rechecks--;
			m.key = key;
			mc_heap_push(s->cand, &nc, m);
			continue;
		}
		s->left[(size_t)m.rep * PD_MEM_MAX_MOVES + s->nmoves[m.rep]++] =
			(int16_t)d;
		dpi_pd_stamp_set(c, m.rep); /* one move per unit and round */
		dpi_pd_move_unit(c, m.rep, e);
		s->head[e] -= need;
		s->head[d] += m.freed;
		got += m.freed;
		moved++;
		/* the unit's candidate neighbours are cheaper to move now
		 * (their edge to it is no longer cut there): key them again
		 * so that a chain follows its first op */
		uint32_t len, pushed = 0, rep = m.rep;
		const uint32_t *mem = dpi_pd_unit(g, &rep, &len);
		for (uint32_t i = 0; i < len && pushed < PD_MEM_NEIGHBOURS;
		     i++) {
			uint32_t u = mem[i];
			for (int dir = 0; dir < 2; dir++) {
				uint32_t lo =
					dir ? g->succ_off[u] : g->pred_off[u];
				uint32_t hi = dir ? g->succ_off[u + 1]
						  : g->pred_off[u + 1];
				for (uint32_t j = lo;
				     j < hi && pushed < PD_MEM_NEIGHBOURS &&
				     nc < c->n;
				     j++) {
					const dp_edge *ed =
						&g->edges[dir ? g->succ_edge[j]
							      : g->pred_edge
									  [j]];
					uint32_t v = dpi_pd_rep(
						g, dir ? ed->to : ed->from);
					if (s->credit[v] <= 0 ||
					    c->stamp[v] == c->stamp_gen ||
					    c->place[v] != d)
						continue;
					double k2 = move_key(c, s, v, d,
							     s->credit[v], &e,
							     &need);
					if (k2 < 0)
						continue;
					mc_heap_push(
						s->cand, &nc,
						(mcand){k2, v, s->credit[v]});
					pushed++;
				}
			}
		}
	}
	for (uint32_t i = 0; i < s->ntouched; i++)
		s->credit[s->touched[i]] = 0;
	return moved;
}

static void mstate_free(mstate *s)
{
	free(s->credit);
	free(s->touched);
	free(s->left);
	free(s->nmoves);
	free(s->head);
	free(s->cdelta);
	free(s->need);
	free(s->mark);
	free(s->cand);
	free(s->best);
	free(s->ybuf);
}

dp_status dpi_pd_memory(pd_ctx *c)
{
	dp_status st = DP_OK;
	dpi_pd_progress(c, "memory", 0.6, 0.85, 0.0);
	/* c->cur has the current overflow (0 without caps): a plan within
	 * its caps needs no memory pass here at all */
	if (c->cur.over == 0) {
		dpi_pd_progress(c, "memory", 0.6, 0.85, 1.0);
		return DP_OK;
	}
	if ((st = dpi_pd_ensure(c, PD_LIVE, &c->cur)))
		return st;
	size_t n = c->n;
	mstate s = {0};
	s.credit = calloc(n, sizeof *s.credit);
	s.touched = malloc(n * sizeof *s.touched);
	s.left = malloc(n * PD_MEM_MAX_MOVES * sizeof *s.left);
	s.nmoves = calloc(n, sizeof *s.nmoves);
	s.head = malloc((size_t)c->k * sizeof *s.head);
	s.cdelta = malloc((size_t)c->k * sizeof *s.cdelta);
	s.need = malloc((size_t)c->k * sizeof *s.need);
	s.mark = malloc((size_t)c->k * sizeof *s.mark);
	s.cand = malloc(n * sizeof *s.cand);
	s.best = malloc(n * sizeof *s.best);
	uint32_t maxdeg = 0;
	for (uint32_t u = 0; u < c->n; u++)
		if (c->g->succ_off[u + 1] - c->g->succ_off[u] > maxdeg)
			maxdeg = c->g->succ_off[u + 1] - c->g->succ_off[u];
	s.ybuf = malloc(((size_t)maxdeg + 1) * sizeof *s.ybuf);
	if (!s.credit || !s.touched || !s.left || !s.nmoves || !s.head ||
	    !s.cand || !s.best || !s.cdelta || !s.need || !s.mark || !s.ybuf) {
		mstate_free(&s);
		return dp_err_set(c->err, DP_ENOMEM, NULL, 0, 0,
				  "out of memory in the pardnn memory phase");
	}
	memcpy(s.best, c->place, n * sizeof *s.best);
	pd_score best = c->cur;
	/* most of what is left; polish gets the rest */
	uint32_t rounds = dpi_pd_sims_left(c) * 3 / 4;
	if (rounds < PD_MEM_MIN_ROUNDS)
		rounds = PD_MEM_MIN_ROUNDS;
	if (rounds > PD_MEM_MAX_ROUNDS)
		rounds = PD_MEM_MAX_ROUNDS;
	/* meeting the caps matters more than the budget: past it, rounds go
	 * on while the least overflow seen fell in the last three rounds, up
	 * to twice as many, and at least PD_MEM_MIN_HARD (the last few MB of
	 * a 1M-op graph's overflow took a 13th and 14th round) */
	uint32_t hard =
		2 * rounds > PD_MEM_MIN_HARD ? 2 * rounds : PD_MEM_MIN_HARD;
	if (hard > PD_MEM_MAX_ROUNDS)
		hard = PD_MEM_MAX_ROUNDS;
	uint32_t last_gain = 0;
	for (uint32_t round = 0; c->cur.over > 0 && round < hard &&
				 (round < rounds || round < last_gain + 3);
	     round++) {
		for (int e = 0; e < c->k; e++) {
			int64_t cap = c->m->cap[e],
				peak = c->res->dev[e].peak_bytes;
			s.head[e] = cap == DP_CAP_UNLIMITED ? INT64_MAX / 4
							    : cap - peak;
		}
		dpi_pd_stamp_next(c);
		uint32_t moved = 0;
		for (int d = 0; d < c->k; d++)
			if (c->res->dev[d].peak_bytes > c->m->cap[d])
				moved += relieve_device(c, &s, d);
		if (moved == 0)
			break; /* no unit can go anywhere it fits */
		if ((st = dpi_pd_simulate(c, PD_LIVE, &c->cur)))
			break;
		if (c->cur.over < best.over)
			last_gain = round + 1;
		if (dpi_pd_better(&c->cur, &best)) {
			best = c->cur;
			memcpy(s.best, c->place, n * sizeof *s.best);
		}
		dpi_pd_progress(c, "memory", 0.6, 0.85,
				(double)(round + 1) / hard);
	}
	if (!st && memcmp(s.best, c->place, n * sizeof *s.best) != 0) {
		memcpy(c->place, s.best, n * sizeof *s.best);
		c->cur = best;
		c->res_has = 0;
	}
	mstate_free(&s);
	dpi_pd_progress(c, "memory", 0.6, 0.85, 1.0);
	return st;
}

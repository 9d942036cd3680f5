/* best_exhaust.c - best's exhaustive search on tiny graphs (ours).
 *
 * Simulates every placement of the graph's movable units (colocation
 * groups, or ops without one; pinned ones stay) on the machine's devices
 * and keeps the best score: the simulator's optimum, which no heuristic
 * can beat. When all K^units placements are too many, the devices are
 * interchangeable (the same speed and cap, no pin anywhere) and the plan
 * has no port contention, only one placement per relabelling of the
 * devices is simulated: unit i goes to a device already used by units
 * 0..i-1 or to the lowest unused one (a restricted growth string), sum over
 * j <= K of S(units, j) placements (Stirling numbers of the second kind).
 * Without contention relabelled placements simulate the same; with port
 * contention they do not (an op's transfers leave in the order of their
 * target device, and half the placements of an 8-op graph on 4 devices
 * change their makespan when relabelled, by up to 30 %), so there every
 * placement is simulated or none.
 *
 * Runs only when the count times (ops + edges) is at most the caller's
 * work bound, decided before the first simulation: the result does not
 * depend on the clock. Candidates are simulated without the memory pass;
 * it runs only for one that may beat the best so far (dp_sim_finish).
 */
#include <stdlib.h>
#include <string.h>

#include "internal/algo_int.h"
#include "internal/best.h"

/* how often the search polls the cancel flag and reports progress */
#define EXHAUST_POLL 4096u

/* The movable units: a representative op of each (its group's first member,
 * or the op), in op order; pinned ones are left out. Returns how many. */
static uint32_t movable_units(const dp_graph *g, uint32_t *rep)
{
	uint32_t n = 0;
	for (uint32_t u = 0; u < g->nops; u++) {
		int32_t c = g->ops[u].colocate;
		if (g->ops[u].pin >= 0)
			continue;
		if (c >= 0 && (g->group_ops[g->group_off[c]] != u ||
			       dpi_algo_group_pin(g, (uint32_t)c) >= 0))
			continue;
		rep[n++] = u;
	}
	return n;
}

/* Whether relabelling the devices maps every placement to one of the same
 * score: no contention, equal speeds and caps, and no pinned op. */
static bool interchangeable(const dp_graph *g, const dp_machine *m,
			    dp_contention c)
{
	if (c != DP_CONT_NONE)
		return false;
	for (int d = 1; d < m->k; d++)
		if (m->speed[d] != m->speed[0] || m->cap[d] != m->cap[0])
			return false;
	for (uint32_t u = 0; u < g->nops; u++)
		if (g->ops[u].pin >= 0)
			return false;
	return true;
}

/* The number of placements of n units on k devices, all of them
 * (relabel false) or one per relabelling (sum_{j<=k} S(n, j)); stops
 * growing past limit (returns a value > limit). */
static double count_placements(uint32_t n, int k, bool relabel, double limit)
{
	double c = 1;
	if (!relabel) {
		for (uint32_t i = 0; i < n && c <= limit; i++)
			c *= k;
		return c;
	}
	/* s[j] = S(i, j) row by row, j <= k */
	double s[DP_MAX_DEVICES + 1];
	memset(s, 0, sizeof s);
	s[0] = 1;
	for (uint32_t i = 1; i <= n; i++) {
		c = 0;
		for (int j = k; j >= 1; j--) {
			s[j] = (double)j * s[j] + s[j - 1];
			c += s[j];
		}
		s[0] = 0;
		if (c > limit) /* S(i, j) never falls as i grows */
			return c;
	}
	return c;
}

double dpi_best_exhaust_count(const dp_graph *g, const dp_machine *m,
			      dp_contention cont, double max_work,
			      bool *relabel)
{
	double work = (double)g->nops + (double)g->nedges + 1;
	double limit = max_work / work;
	*relabel = false;
	uint32_t *rep = malloc(((size_t)g->nops + 1) * sizeof *rep);
	if (!rep)
		return 0;
	uint32_t n = movable_units(g, rep);
	free(rep);
	if (m->k < 2 || n == 0)
		return 0;
	double c = count_placements(n, m->k, false, limit);
	if (c <= limit)
		return c;
	if (!interchangeable(g, m, cont))
		return 0;
	c = count_placements(n, m->k, true, limit);
	*relabel = c <= limit;
	return c <= limit ? c : 0;
}

/* The next placement after dig (n digits, last one fastest), with each
 * digit below k, or below 1 + the largest digit before it when relabel;
 * false after the last. Changed units are written to pl. */
static bool next_placement(const dp_graph *g, const uint32_t *rep, int32_t *dig,
			   int32_t *pmax, uint32_t n, int k, bool relabel,
			   int32_t *pl)
{
	uint32_t i = n;
	if (n == 0)
		return false;
	while (i > 0) {
		i--;
		int32_t top = k - 1;
		if (relabel && i > 0 && pmax[i - 1] + 1 < top)
			top = pmax[i - 1] + 1;
		if (relabel && i == 0)
			top = 0;
		if (dig[i] < top) {
			dig[i]++;
			break;
		}
		if (i == 0)
			return false;
	}
	for (uint32_t j = i; j < n; j++) {
		if (j > i)
			dig[j] = 0;
		int32_t before = j > 0 ? pmax[j - 1] : -1;
		pmax[j] = dig[j] > before ? dig[j] : before;
		dpi_algo_unit_set(g, pl, rep[j], dig[j]);
	}
	return true;
}

dp_status dpi_best_exhaust(dp_sim *s, const dp_graph *g, const dp_machine *m,
			   dp_contention c, bool relabel, const dp_progress *p,
			   int32_t *pl, dpi_best_score *score, uint64_t *tried,
			   dp_err *err)
{
	*tried = 0;
	size_t n1 = (size_t)g->nops + 1;
	uint32_t *rep = malloc(n1 * sizeof *rep);
	int32_t *dig = malloc(n1 * sizeof *dig);
	int32_t *pmax = malloc(n1 * sizeof *pmax);
	int32_t *cur = malloc(n1 * sizeof *cur);
	dp_status st = DP_OK;
	if (!rep || !dig || !pmax || !cur) {
		st = dp_err_set(err, DP_ENOMEM, NULL, 0, 0,
				"out of memory in best's exhaustive search");
		goto out;
	}
	uint32_t n = movable_units(g, rep);
	double total = count_placements(n, m->k, relabel, 1e18);
	for (uint32_t u = 0; u < g->nops; u++) { /* pins stay */
		int32_t grp = g->ops[u].colocate;
		int32_t pin = g->ops[u].pin;
		if (pin < 0 && grp >= 0)
			pin = dpi_algo_group_pin(g, (uint32_t)grp);
		cur[u] = pin >= 0 ? pin : 0;
	}
	for (uint32_t i = 0; i < n; i++) { /* the first: all on device 0 */
		dig[i] = pmax[i] = 0;
		dpi_algo_unit_set(g, cur, rep[i], 0);
	}
	bool caps = false;
	for (int d = 0; d < m->k; d++)
		caps = caps || m->cap[d] != DP_CAP_UNLIMITED;
	dp_sim_opts oc = {.contention = c, .skip_memory = true};
	dp_sim_opts om = {.contention = c};
	dp_sim_result r;
	memset(&r, 0, sizeof r);
	bool have = false;
	do {
		if (*tried % EXHAUST_POLL == 0 &&
		    (st = dpi_poll(p, "best", "best: every placement",
					(double)*tried / total, err)))
			break;
		if ((st = dp_sim_run(s, cur, &oc, &r, err)))
			break;
		++*tried;
		if (have && score->feasible && r.makespan >= score->makespan)
			continue;
		if (caps && (st = dp_sim_finish(s, cur, &om, &r, err)))
			break;
		dpi_best_score sc = dpi_best_score_of(&r);
		if (!have || dpi_best_better(&sc, score)) {
			have = true;
			*score = sc;
			memcpy(pl, cur, (size_t)g->nops * sizeof *pl);
		}
	} while (next_placement(g, rep, dig, pmax, n, m->k, relabel, cur));
	dp_sim_result_free(&r);
out:
	free(rep);
	free(dig);
	free(pmax);
	free(cur);
	return st;
}

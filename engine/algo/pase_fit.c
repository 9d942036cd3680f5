/* pase_fit.c - per-device memory for the `pase` search (ours, not the
 * paper's; docs/algorithms.md#pase).
 *
 * In an spmd strategy every device holds one shard of every op, so what a
 * device keeps for the step adds up over the ops: each config's res (its
 * params shard, which counts weights, gradients and optimizer state, plus
 * its output shard when the backward pass reads it later). The search
 * minimises time + lambda x that sum (a Lagrangian relaxation of "the sum
 * fits the cap"): first at the largest lambda (memory outweighs time);
 * when even that does not fit, the fastest choice stays and the result is
 * infeasible; else HALVES bisections of log lambda find the smallest
 * lambda that still fits. The target is the cap
 * scaled by how far the simulator's peak was from the estimate for the
 * first choice, so the estimate's error (activations freed before the
 * peak, copies received) is calibrated on this graph; the simulator
 * checks the result (the safeguard).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "internal/algo_int.h"
#include "internal/pase.h"

int64_t dpi_pase_resident(const dpi_pase_model *pm, const uint32_t *choice)
{
	int64_t sum = 0;
	for (uint32_t u = 0; u < pm->g->nops; u++)
		sum += pm->res[choice[u]];
	return sum;
}

/* Searches again at lambda; *fit: the result's sum is within target. */
static dp_status try_lambda(dpi_pase_model *pm, const dp_progress *p,
			    double lambda, double target, uint32_t *alt,
			    bool *fit, dp_err *err)
{
	double cost;
	uint32_t fixed;
	bool solved = false;
	pm->lambda = lambda;
	/* elimination over every op alone (no coarsened retry): the
	 * multiplier is searched, so a second search per step costs more
	 * than it finds */
	dp_status st = dpi_pase_solve_elim(pm, p, 0, false, alt, &cost, &fixed,
					   &solved, err);
	if (!st && !solved)
		st = dpi_pase_solve_window(pm, p, 0, alt, &cost, &fixed, err);
	pm->lambda = 0;
	if (!st)
		*fit = (double)dpi_pase_resident(pm, alt) <= target;
	return st;
}

/* lambda's range above its scale (the step's time per byte kept): 4^8,
 * where memory outweighs time everywhere; and the bisections in it. */
#define SPAN 65536.0
#define HALVES 3

dp_status dpi_pase_fit(dpi_pase_model *pm, const dp_progress *p,
		       dp_contention cont, uint32_t *choice, int *tries,
		       dp_err *err)
{
	*tries = 0;
	if (!dpi_pase_capped(pm))
		return DP_OK;
	double ms, over;
	bool fits;
	dp_status st =
		dpi_pase_simulate(pm, choice, cont, &ms, &fits, &over, err);
	if (st || fits || over <= 0)
		return st;
	uint32_t n = pm->g->nops;
	double est0 = (double)dpi_pase_resident(pm, choice);
	double target = est0 / over * 0.98;
	double work = 0;
	for (uint32_t u = 0; u < n; u++)
		work += pm->node[choice[u]];
	uint32_t *alt = dpi_pase_choice_new(pm, err);
	uint32_t *best = alt ? dpi_pase_choice_new(pm, err) : NULL;
	if (!best) {
		free(alt);
		return DP_ENOMEM;
	}
	/* first the most memory can buy: when even that does not fit, the
	 * fastest choice stays (the result is honestly infeasible) */
	double lo = est0 > 0 ? work / est0 / 4 : 1, top = lo * SPAN;
	uint32_t *most = dpi_pase_choice_new(pm, err);
	if (!most) {
		free(alt);
		free(best);
		return DP_ENOMEM;
	}
	bool fit = false, found = false;
	st = try_lambda(pm, p, top, target, most, &found, err);
	(*tries)++;
	memcpy(best, found ? most : choice, n * sizeof *best);
	/* bisections of log lambda; when the simulator still finds the
	 * result over its cap, once more with the target recalibrated on
	 * that result, above its lambda */
	for (int round = 0; !st && found && round < 2; round++) {
		double hi = top;
		memcpy(best, most, n * sizeof *best);
		for (int i = 0; !st && i < HALVES; i++) {
			double mid = sqrt(lo * hi);
			st = try_lambda(pm, p, mid, target, alt, &fit, err);
			(*tries)++;
			if (!st && fit) {
				hi = mid;
				memcpy(best, alt, n * sizeof *alt);
			} else {
				lo = mid;
			}
		}
		if (st || round == 1 ||
		    (st = dpi_pase_simulate(pm, best, cont, &ms, &fits, &over,
					    err)) ||
		    fits || over <= 0)
			break;
		target = (double)dpi_pase_resident(pm, best) / over * 0.98;
		lo = hi;
		found = (double)dpi_pase_resident(pm, most) <= target;
		if (!found)
			memcpy(best, most, n * sizeof *best);
	}
	free(most);
	if (!st)
		memcpy(choice, best, n * sizeof *best);
	free(alt);
	free(best);
	return st;
}

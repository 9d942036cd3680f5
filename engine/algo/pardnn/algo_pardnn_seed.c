/* algo_pardnn_seed.c - pardnn's second seed (ours, not in the paper;
 * docs/algorithms.md, "Second seed").
 *
 * After mapping, a second placement: a METIS partition balanced in each of
 * PD_SEED_WINDOWS time windows (dpi_metis_windows), which keeps parallel
 * branches (towers, copies of a network) apart where the paper's
 * critical-path slicing mixes them. When the simulator scores it better than
 * the mapped placement, the phases after mapping run on both (each with the
 * whole simulation budget; the first without progress reports, so that the
 * phases are still reported once and in order), and the better result is
 * kept: pardnn with the second seed is never worse than without it. The
 * seed is not made under 8 ops per device (METIS would leave devices
 * empty), and a failing METIS (its own malloc) only means no second seed.
 */
#include <stdlib.h>
#include <string.h>

#include "internal/algo_int.h"
#include "internal/pardnn.h"

#define PD_SEED_WINDOWS 4

dp_status dpi_pd_seeds(pd_ctx *c, dp_status (*rest)(pd_ctx *))
{
	size_t bytes = ((size_t)c->n + 1) * sizeof(int32_t);
	int32_t *mapped = malloc(bytes), *first = malloc(bytes);
	dp_status st = DP_OK;
	if (!mapped || !first) {
		st = dp_err_set(c->err, DP_ENOMEM, NULL, 0, 0,
				"out of memory in pardnn");
		goto out;
	}
	memcpy(mapped, c->place, (size_t)c->n * sizeof *mapped);
	pd_score mapped_sc = c->cur, seed_sc;
	uint32_t sims = c->sims; /* each pipeline starts from this count */
	dp_err e;
	bool seed = c->n >= 8 * (uint32_t)c->k &&
		    dpi_metis_windows(c->g, c->m, PD_SEED_WINDOWS, c->place,
				      &e) == DP_OK;
	if (seed && !(st = dpi_pd_simulate(c, PD_PATH | PD_MEM, &seed_sc)))
		seed = dpi_pd_better(&seed_sc, &mapped_sc);
	if (st)
		goto out;
	if (seed) {
		/* the seed's phases first, quietly (cancel still works) */
		const dp_progress *outer = c->p;
		dp_progress quiet = {NULL, NULL, outer ? outer->cancel : NULL};
		c->sims = sims;
		c->p = &quiet;
		c->cur = seed_sc;
		st = rest(c);
		c->p = outer;
		if (st)
			goto out;
		memcpy(first, c->place, (size_t)c->n * sizeof *first);
		seed_sc = c->cur;
	}
	/* the paper's seed: the mapped placement */
	memcpy(c->place, mapped, (size_t)c->n * sizeof *mapped);
	c->res_has = 0;
	if ((st = dpi_pd_simulate(c, PD_PATH | PD_MEM, &c->cur)))
		goto out;
	c->sims = sims; /* the same run as without a second seed */
	if ((st = rest(c)))
		goto out;
	if (seed && dpi_pd_better(&seed_sc, &c->cur)) {
		memcpy(c->place, first, (size_t)c->n * sizeof *first);
		c->cur = seed_sc;
		c->res_has = 0;
	}
out:
	free(mapped);
	free(first);
	return st;
}

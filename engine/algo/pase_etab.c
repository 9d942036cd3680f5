/* pase_etab.c - every edge's cost over its two ends' configurations,
 * priced once per `pase` run (ours; internal/pase.h).
 *
 * One run searches up to ten times over the same model (elimination over
 * every op and over the coarsened graph, the breadth-first search, and
 * the memory multiplier's searches under caps), and each search priced
 * every edge under every pair of configurations again (a memo lookup by
 * the tensor's layout each): a third of gpt2-xl's planning time at K=32
 * under caps. The multiplier only changes node costs, so the edges are
 * priced here once, with the same function, and every search reads the
 * same doubles (the results are unchanged).
 */
#include <stdlib.h>

#include "internal/algo_int.h"
#include "internal/pase.h"

dp_status dpi_pase_etab_build(dpi_pase_model *pm, const dp_progress *p,
			      dp_err *err)
{
	const dp_graph *g = pm->g;
	uint32_t ne = g->nedges;
	dpi_pase_etab_free(pm);
	size_t *eoff = malloc(((size_t)ne + 1) * sizeof *eoff);
	if (!eoff)
		return dp_err_set(err, DP_ENOMEM, NULL, 0, 0,
				  "pase: out of memory");
	size_t tot = 0;
	for (uint32_t e = 0; e < ne; e++) {
		const dp_edge *ed = &g->edges[e];
		eoff[e] = tot;
		if (!ed->control && ed->bytes != 0)
			tot += (size_t)(pm->off[ed->from + 1] -
					pm->off[ed->from]) *
			       (pm->off[ed->to + 1] - pm->off[ed->to]);
	}
	eoff[ne] = tot;
	double *tab = malloc((tot ? tot : 1) * sizeof *tab);
	if (!tab) {
		free(eoff);
		return dp_err_set(err, DP_ENOMEM, NULL, 0, 0,
				  "pase: out of memory");
	}
	dp_status st = DP_OK;
	for (uint32_t e = 0; e < ne; e++) {
		if ((e & 4095) == 0 &&
		    (st = dpi_poll(p, "pase", "edge costs", 0.2, err)))
			break;
		if (eoff[e + 1] == eoff[e])
			continue;
		uint32_t a = g->edges[e].from, b = g->edges[e].to;
		double *t = tab + eoff[e];
		for (uint32_t cu = pm->off[a]; cu < pm->off[a + 1]; cu++)
			for (uint32_t cv = pm->off[b]; cv < pm->off[b + 1];
			     cv++)
				*t++ = dpi_pase_edge_cost(pm, e, cu, cv);
	}
	if (st) {
		free(eoff);
		free(tab);
		return st;
	}
	pm->eoff = eoff;
	pm->etab = tab;
	return DP_OK;
}

void dpi_pase_etab_free(dpi_pase_model *pm)
{
	free(pm->eoff);
	free(pm->etab);
	pm->eoff = NULL;
	pm->etab = NULL;
}

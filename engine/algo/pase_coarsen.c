/* pase_coarsen.c - chains of element-wise ops as one vertex of the `pase`
 * search (ours: the "coarsen chains of element-wise ops"; the
 * paper coarsens nothing). internal/pase.h, docs/algorithms.md#pase.
 *
 * An op v is element-wise over its producer u when every dim of v indexes
 * its output and the edge u -> v maps u's output dims one to one onto all
 * of v's dims, with equal sizes (a bias add, an activation, a residual
 * add, a dropout), so v can hold the same blocks as u. v then joins u's
 * group, and for every configuration of the group's first op (its leader)
 * v takes its cheapest configuration given u's: its shard time (plus its
 * memory price) plus the edge's resharding, ties by index. That is the
 * same layout as u's wherever v has it among its kept configurations
 * (another layout of the same parts costs a resharding). The search then
 * has one vertex per group: fewer and narrower tables. Within the model
 * the search is exact over the coarsened space (every member follows its
 * leader), not over every combination.
 */
#include <string.h>

#include "internal/pase.h"

#define CFGS DPI_PASE_MAX_CFGS

/* Is edge e's consumer element-wise over its producer? */
static bool elementwise(const dp_graph *g, uint32_t e)
{
	const dp_edge *ed = &g->edges[e];
	dp_dims pd, cd;
	if (ed->control || ed->bytes == 0 || !dp_op_dims(g, ed->from, &pd) ||
	    !dp_op_dims(g, ed->to, &cd) || cd.nout != (int32_t)cd.n)
		return false;
	const uint32_t *names;
	int ne = dp_edge_dims(g, e, &names);
	if (ne != (int)cd.n || pd.nout != ne)
		return false;
	uint32_t seen = 0;
	for (int j = 0; j < ne; j++) {
		int k = -1;
		for (uint32_t i = 0; i < cd.n; i++)
			if (cd.name_off[i] == names[j])
				k = (int)i;
		if (k < 0 || (seen & (1u << k)) ||
		    cd.sizes[k] != pd.sizes[pd.out[j]])
			return false;
		seen |= 1u << k;
	}
	return true;
}

uint32_t dpi_pase_coarsen(const dpi_pase_model *pm, uint32_t *lead,
			  uint8_t *map)
{
	const dp_graph *g = pm->g;
	uint32_t n = g->nops, merged = 0;
	for (uint32_t u = 0; u < n; u++) {
		lead[u] = u;
		for (uint32_t c = 0; c < CFGS; c++)
			map[(size_t)u * CFGS + c] = (uint8_t)c;
	}
	for (uint32_t i = 0; i < n; i++) {
		uint32_t v = g->topo[i];
		if (pm->off[v + 1] - pm->off[v] <= 1 || g->ops[v].pin >= 0)
			continue;
		for (uint32_t k = g->pred_off[v]; k < g->pred_off[v + 1]; k++) {
			uint32_t e = g->pred_edge[k], u = g->edges[e].from;
			uint32_t L = lead[u], dl = pm->off[L + 1] - pm->off[L];
			if (dl <= 1 || g->ops[u].pin >= 0 || !elementwise(g, e))
				continue;
			uint8_t m[CFGS];
			for (uint32_t c = 0; c < dl; c++) {
				uint32_t cu =
					pm->off[u] + map[(size_t)u * CFGS + c];
				double best = 0;
				for (uint32_t x = pm->off[v];
				     x < pm->off[v + 1]; x++) {
					double t = pm->node[x] +
						   pm->lambda *
							   (double)pm->res[x] +
						   dpi_pase_ecost(pm, e, cu, x);
					if (x == pm->off[v] || t < best) {
						best = t;
						m[c] = (uint8_t)(x -
								 pm->off[v]);
					}
				}
			}
			lead[v] = L;
			memcpy(map + (size_t)v * CFGS, m, dl);
			merged++;
			break;
		}
	}
	return merged;
}

/* export_coarsen_refine.c - a finer level for the largest layer groups.
 *
 * Layer paths are shortened a whole level at a time (export_coarsen.c), so
 * a graph whose next level has a few too many groups was drawn very coarse:
 * gpt2-xl's model/h0 ... model/h47 on 4 devices make 185 groups, more than
 * the 150 of the default picture, so it was drawn as 13 boxes, one of them
 * "model, 5726 ops". Here the groups of the level that fits are split into
 * their groups one level down, largest first, while the picture stays
 * within its bound (see coarsen.h).
 */
#include <stdlib.h>

#include "internal/coarsen.h"
#include "internal/sort_key.h"

typedef struct refine_rec {
	uint64_t coarse, fine; /* (prefix id + 1) << 32 | dev */
	uint32_t pair;
} refine_rec;

DPI_CMP_DEFINE(cmp_rec, refine_rec, DPI_CMP(x->coarse, y->coarse),
	       DPI_CMP(x->fine, y->fine), DPI_CMP(x->pair, y->pair))

typedef struct refine_group {
	uint64_t ops;
	uint32_t first, end; /* its records, [first, end) */
	uint32_t nfine;	     /* distinct finer groups inside */
} refine_group;

/* larger first; equal sizes in key order (first record) */
DPI_CMP_DEFINE(cmp_group, refine_group, DPI_CMP(y->ops, x->ops),
	       DPI_CMP(x->first, y->first))

uint32_t dpi_coarsen_refine(const uint64_t *pairs, uint32_t np,
			    const uint32_t *ids, const uint32_t *fids,
			    const uint32_t *pair_ops, uint32_t groups,
			    uint32_t budget, uint8_t *split)
{
	refine_rec *r = malloc(((size_t)np + 1) * sizeof *r);
	refine_group *gr = malloc(((size_t)np + 1) * sizeof *gr);
	if (!r || !gr) {
		free(r);
		free(gr);
		return UINT32_MAX;
	}
	for (uint32_t i = 0; i < np; i++) {
		uint32_t li = (uint32_t)(pairs[i] >> 32);
		uint64_t dev = (uint32_t)pairs[i];
		uint64_t c = li ? (uint64_t)ids[li - 1] + 1 : 0;
		uint64_t f = li ? (uint64_t)fids[li - 1] + 1 : 0;
		r[i] = (refine_rec){c << 32 | dev, f << 32 | dev, i};
		split[i] = 0;
	}
	qsort(r, np, sizeof *r, cmp_rec);
	uint32_t ng = 0;
	for (uint32_t i = 0; i < np;) {
		refine_group g = {0, i, i, 0};
		for (; g.end < np && r[g.end].coarse == r[i].coarse; g.end++) {
			g.ops += pair_ops[r[g.end].pair];
			g.nfine += g.end == i ||
				   r[g.end].fine != r[g.end - 1].fine;
		}
		gr[ng++] = g;
		i = g.end;
	}
	qsort(gr, ng, sizeof *gr, cmp_group);
	for (uint32_t k = 0; k < ng; k++) {
		if (gr[k].nfine < 2 || groups - 1 + gr[k].nfine > budget)
			continue;
		groups += gr[k].nfine - 1;
		for (uint32_t i = gr[k].first; i < gr[k].end; i++)
			split[r[i].pair] = 1;
	}
	free(r);
	free(gr);
	return groups;
}

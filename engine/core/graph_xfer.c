/* graph_xfer.c - optional per-edge transfer times given by the input
 * (msr-fiddle's edge `cost`; see dp_graph.xfer_us in dnnpart/graph.h). */
#include <math.h>
#include <stdlib.h>

#include "dnnpart/graph.h"

dp_status dp_graph_set_edge_xfer(dp_graph *g, uint32_t e, double us,
				 dp_err *err)
{
	if (e >= g->nedges)
		return dp_err_set(err, DP_EINTERNAL, NULL, 0, 0,
				  "edge %u out of range", e);
	if (!isfinite(us) || us < 0)
		return dp_err_set(err, DP_EINPUT, NULL, 0, 0,
				  "transfer time of edge %u must be a finite "
				  "number >= 0, got %g",
				  e, us);
	if (e >= g->xfer_cap) {
		uint32_t nc = g->xfer_cap ? g->xfer_cap : 64;
		while (nc <= e)
			nc = nc > UINT32_MAX / 2 ? UINT32_MAX : nc * 2;
		double *x = realloc(g->xfer_us, (size_t)nc * sizeof *x);
		if (!x)
			return dp_err_set(err, DP_ENOMEM, NULL, 0, 0,
					  "out of memory for transfer times");
		for (uint32_t i = g->xfer_cap; i < nc; i++)
			x[i] = NAN;
		g->xfer_us = x;
		g->xfer_cap = nc;
	}
	g->xfer_us[e] = us;
	return DP_OK;
}

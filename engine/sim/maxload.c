/* maxload.c - the throughput objective (see dnnpart/throughput.h). */
#include <math.h>
#include <stdlib.h>

#include "dnnpart/throughput.h"

double dp_op_xfer_us(const dp_graph *g, const dp_machine *m, uint32_t u)
{
	double best = 0.0;
	for (uint32_t j = g->succ_off[u]; j < g->succ_off[u + 1]; j++) {
		uint32_t e = g->succ_edge[j];
		const dp_edge *ed = &g->edges[e];
		if (ed->control)
			continue;
		double x = m->link_file ? dp_edge_xfer_us(g, e) : (double)NAN;
		if (isnan(x))
			x = m->lat + (double)ed->bytes / m->bw;
		if (x > best)
			best = x;
	}
	return best;
}

dp_status dp_max_load(const dp_graph *g, const dp_machine *m,
		      const int32_t *placement, double *load, double *max_load,
		      dp_err *err)
{
	int k = m->k;
	double *l = calloc((size_t)k, sizeof *l);
	uint32_t *stamp = calloc((size_t)k, sizeof *stamp);
	if (!l || !stamp) {
		free(l);
		free(stamp);
		return dp_err_set(err, DP_ENOMEM, NULL, 0, 0,
				  "out of memory for the max load");
	}
	dp_status st = DP_OK;
	for (uint32_t u = 0; u < g->nops && !st; u++)
		if (placement[u] < 0 || placement[u] >= k)
			st = dp_err_set(err, DP_EINPUT, NULL, 0, 0,
					"op '%s' is on device %d, expected 0 "
					"to %d",
					dp_graph_op_name(g, u), placement[u],
					k - 1);
	for (uint32_t u = 0; u < g->nops && !st; u++) {
		int d = placement[u];
		l[d] += g->ops[u].time_us / m->speed[d];
		double x = -1.0; /* xfer(u), computed when first needed */
		for (uint32_t j = g->succ_off[u]; j < g->succ_off[u + 1]; j++) {
			const dp_edge *ed = &g->edges[g->succ_edge[j]];
			int b = placement[ed->to];
			if (ed->control || b == d || stamp[b] == u + 1)
				continue;
			if (x < 0) {
				x = dp_op_xfer_us(g, m, u);
				l[d] += x; /* sent once */
			}
			stamp[b] = u + 1;
			l[b] += x; /* received once by each device */
		}
	}
	double best = 0.0;
	for (int d = 0; d < k && !st; d++) {
		if (l[d] > best)
			best = l[d];
		if (load)
			load[d] = l[d];
	}
	if (!st)
		*max_load = best;
	free(l);
	free(stamp);
	return st;
}

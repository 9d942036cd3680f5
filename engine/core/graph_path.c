/* graph_path.c - the graph's critical path (see dp_graph_critical_path in
 * dnnpart/graph.h): the longest path by time, before any placement. */
#include <stdlib.h>

#include "dnnpart/graph.h"

#define EMPTY UINT32_MAX

double dp_graph_critical_path(const dp_graph *g, double max_speed,
			      uint32_t *path, uint32_t *len)
{
	uint32_t n = g->nops;
	*len = 0;
	if (n == 0)
		return 0;
	if (!(max_speed > 0))
		max_speed = 1;
	/* longest path ending at u, inclusive */
	double *dist = malloc((size_t)n * sizeof *dist);
	uint32_t *from = malloc((size_t)n * sizeof *from);
	if (!dist || !from) {
		free(dist);
		free(from);
		return -1;
	}
	uint32_t best = g->topo[0];
	for (uint32_t k = 0; k < n; k++) {
		uint32_t u = g->topo[k];
		double d = -1;
		uint32_t f = EMPTY;
		for (uint32_t i = g->pred_off[u]; i < g->pred_off[u + 1]; i++) {
			uint32_t p = g->edges[g->pred_edge[i]].from;
			if (dist[p] > d || (dist[p] == d && p < f)) {
				d = dist[p];
				f = p;
			}
		}
		if (f == EMPTY)
			d = 0;
		dist[u] = d + g->ops[u].time_us / max_speed;
		from[u] = f;
		if (dist[u] > dist[best] || (dist[u] == dist[best] && u < best))
			best = u;
	}
	double total = dist[best];
	uint32_t cnt = 0;
	for (uint32_t u = best; u != EMPTY; u = from[u])
		cnt++;
	if (path) {
		uint32_t i = cnt;
		for (uint32_t u = best; u != EMPTY; u = from[u])
			path[--i] = u;
	}
	*len = cnt;
	free(dist);
	free(from);
	return total;
}

/* engine/algo/lanes.c - best's "lanes" candidate (ours; docs/algorithms.md,
 * "best", step 1): ops follow their data, in depth-first order, while a
 * device keeps its share of each time window.
 *
 * The ops are visited in a topological order that follows chains (Kahn's
 * algorithm with a stack instead of a queue: the last op made ready is
 * taken next, so one branch is walked far before the next starts). Each op
 * goes to the device of its predecessor with the largest edge (its main
 * input), unless that device already holds more than (1 + LANES_SLACK)
 * times its share (by speed) of the work of the op's time window (the
 * LANES_WINDOWS windows of the compute-only critical path, an op counting
 * in the window of the middle of its earliest interval); then to the
 * device with the least work in that window. Sources (weights, inputs) go
 * where their heaviest consumer went; pins and colocation groups are kept
 * (the first placed member fixes a group's device).
 *
 * On a graph of K parallel branches (the towers of `dnnpart gen` at K = 4,
 * 100k ops) the depth-first walk fills one device with one branch until its
 * share of each window is reached, and the next branch spills to the next
 * device: about one branch per device, where METIS (even balanced in time
 * windows) splits every branch across the devices. With more devices than
 * branches, or branches that do not divide evenly, it cuts chains at
 * every spill and loses badly; best keeps it only when it wins. O(V + E)
 * plus one window table of W x K.
 */
#include <stdlib.h>
#include <string.h>

#include "internal/algo_int.h"
#include "internal/best.h"
#include "internal/listsched.h"

#define LANES_WINDOWS 16
#define LANES_SLACK 0.3

/* A topological order that follows chains (Kahn's algorithm, LIFO); the
 * sources in op order first. order must hold g->nops entries. */
static int chain_order(const dp_graph *g, uint32_t *order)
{
	uint32_t n = g->nops, sp = 0, no = 0;
	/* in-degrees left, then the stack of ready ops */
	uint32_t *buf = malloc((2 * (size_t)n + 1) * sizeof *buf);
	if (!buf)
		return -1;
	uint32_t *indeg = buf, *stack = buf + n;
	for (uint32_t u = n; u-- > 0;) {
		indeg[u] = g->pred_off[u + 1] - g->pred_off[u];
		if (indeg[u] == 0)
			stack[sp++] = u;
	}
	while (sp > 0) {
		uint32_t u = stack[--sp];
		order[no++] = u;
		for (uint32_t j = g->succ_off[u]; j < g->succ_off[u + 1]; j++) {
			uint32_t v = g->edges[g->succ_edge[j]].to;
			if (--indeg[v] == 0)
				stack[sp++] = v;
		}
	}
	free(buf);
	return 0;
}

/* The time window of each op (see the top of the file) into win, and each
 * window's work into tot. */
static int windows(const dp_graph *g, const uint32_t *order, int *win,
		   double *tot)
{
	uint32_t n = g->nops;
	double *head = calloc((size_t)n + 1, sizeof *head);
	if (!head)
		return -1;
	double cp = 0;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t u = order[i];
		double end = head[u] + g->ops[u].time_us;
		if (end > cp)
			cp = end;
		for (uint32_t j = g->succ_off[u]; j < g->succ_off[u + 1]; j++) {
			uint32_t v = g->edges[g->succ_edge[j]].to;
			if (end > head[v])
				head[v] = end;
		}
	}
	for (uint32_t u = 0; u < n; u++) {
		double mid = head[u] + g->ops[u].time_us / 2;
		int w = cp > 0 ? (int)(mid / cp * LANES_WINDOWS) : 0;
		win[u] = w < LANES_WINDOWS ? w : LANES_WINDOWS - 1;
		tot[win[u]] += g->ops[u].time_us;
	}
	free(head);
	return 0;
}

/* The device of u's placed neighbour (predecessors with succ false, else
 * successors) with the largest edge, or -1. */
static int32_t heaviest_neighbour(const dp_graph *g, const int32_t *pl,
				  uint32_t u, bool succ)
{
	const uint32_t *off = succ ? g->succ_off : g->pred_off;
	const uint32_t *eid = succ ? g->succ_edge : g->pred_edge;
	int64_t most = -1;
	int32_t d = -1;
	for (uint32_t j = off[u]; j < off[u + 1]; j++) {
		const dp_edge *e = &g->edges[eid[j]];
		uint32_t v = succ ? e->to : e->from;
		if (pl[v] >= 0 && e->bytes > most) {
			most = e->bytes;
			d = pl[v];
		}
	}
	return d;
}

dp_status dpi_lanes(const dp_graph *g, const dp_machine *m, int32_t *pl,
			 dp_err *err)
{
	uint32_t n = g->nops;
	int k = m->k;
	ls_cons cons;
	dp_status st = dpi_ls_cons_init(&cons, g, err);
	if (st)
		return st;
	uint32_t *order = malloc(((size_t)n + 1) * sizeof *order);
	int *win = malloc(((size_t)n + 1) * sizeof *win);
	double *load = calloc((size_t)LANES_WINDOWS * (size_t)k, sizeof *load);
	double tot[LANES_WINDOWS] = {0}, speeds = 0;
	if (!order || !win || !load || chain_order(g, order) ||
	    windows(g, order, win, tot)) {
		st = dp_err_set(err, DP_ENOMEM, NULL, 0, 0,
				"out of memory in best (lanes)");
		goto out;
	}
	for (int d = 0; d < k; d++)
		speeds += m->speed[d];
	for (uint32_t u = 0; u < n; u++)
		pl[u] = -1;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t u = order[i];
		int32_t d = ls_cons_device(&cons, u);
		double t = g->ops[u].time_us, *lw = load + win[u] * k;
		if (d < 0 && g->pred_off[u + 1] == g->pred_off[u])
			continue; /* a source: after its consumers */
		if (d < 0) {
			d = heaviest_neighbour(g, pl, u, false);
			if (d < 0 || lw[d] + t > tot[win[u]] * m->speed[d] /
							 speeds *
							 (1 + LANES_SLACK)) {
				d = 0;
				for (int e = 1; e < k; e++)
					if (lw[e] / m->speed[e] <
					    lw[d] / m->speed[d])
						d = e;
			}
		}
		pl[u] = d;
		ls_cons_place(&cons, u, d);
		lw[d] += t;
	}
	for (uint32_t u = 0; u < n; u++) {
		if (pl[u] >= 0)
			continue;
		int32_t d = ls_cons_device(&cons, u);
		if (d < 0)
			d = heaviest_neighbour(g, pl, u, true);
		pl[u] = d < 0 ? 0 : d;
		ls_cons_place(&cons, u, pl[u]);
	}
out:
	free(order);
	free(win);
	free(load);
	dpi_ls_cons_free(&cons);
	return st;
}

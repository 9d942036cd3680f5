/* bench_bound.c - a tighter lower bound on the makespan than the one xLB
 * divides by (issue 15: is the bound reachable on the generated graphs?).
 *
 *   build/bench/bench_bound GRAPH K...
 *
 * xLB's bound is max(graph critical path, work / K). Both ignore where the
 * parallelism is: work / K is reachable only if K devices are busy from the
 * first op to the last, which a graph that starts and ends in a chain (a
 * stem, a loss) does not allow. The energy bound used here (after Fernandez
 * and Bussell, "Bounds on the number of processors and time for
 * multiprocessor optimal schedules", IEEE TC 1973) counts the work that must
 * run inside a window: with head(u) the longest compute path into op u (its
 * earliest start) and tail(u) the longest path out of it, no more than
 * max(0, t1 - head(u)) of u's time can run before t1 and no more than
 * max(0, t2 - tail(u)) after makespan - t2, so
 *
 *   makespan >= t1 + t2 + (sum over u of max(0, time(u) - max(0, t1 -
 *               head(u)) - max(0, t2 - tail(u)))) / K
 *
 * for every t1, t2 >= 0 (t1 = t2 = 0 gives work / K; the critical path is
 * the case of one op and t1 = head, t2 = tail). Communication, caps and
 * contention only add to any schedule, so this bounds every placement in
 * the simulator (identical devices; the machine's default speeds). For one
 * t1 the best t2 is found exactly by a sweep over the breakpoints (sorted);
 * t1 is tried at 64 evenly spaced points of [0, critical path] and at
 * the best one-sided point, so the value printed is a valid bound, not
 * necessarily the largest of this form.
 *
 * Printed per K (tab-separated): K, critical path, work / K, xLB's bound,
 * the energy bound, its t1 and t2 (µs), and the energy bound / xLB's bound.
 * A standalone tool (make bench builds it).
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dnnpart/graph.h"
#include "dnnpart/load.h"

#define T1_STEPS 64

typedef struct bp {
	double t;     /* where the slope changes */
	double slope; /* the change of d(sum)/dt2 there */
} bp;

static int cmp_bp(const void *a, const void *b)
{
	double x = ((const bp *)a)->t, y = ((const bp *)b)->t;
	return x < y ? -1 : x > y;
}

/* The longest compute path into each op (into = true: its head, over the
 * predecessors in topological order) or out of it (its tail, over the
 * successors in reverse order), into len. */
static void longest(const dp_graph *g, bool into, double *len)
{
	const uint32_t *off = into ? g->pred_off : g->succ_off;
	const uint32_t *eid = into ? g->pred_edge : g->succ_edge;
	for (uint32_t i = 0; i < g->nops; i++) {
		uint32_t u = g->topo[into ? i : g->nops - 1 - i];
		len[u] = 0;
		for (uint32_t e = off[u]; e < off[u + 1]; e++) {
			const dp_edge *ed = &g->edges[eid[e]];
			uint32_t v = into ? ed->from : ed->to;
			double h = len[v] + g->ops[v].time_us;
			if (h > len[u])
				len[u] = h;
		}
	}
}

/* For this t1: max over t2 >= 0 of t2 + sum max(0, r(u) - max(0, t2 -
 * tail(u))) / K, with r(u) = max(0, time(u) - max(0, t1 - head(u))); the
 * best t2 in *bt2. Each op's term is r(u) up to tail(u), then falls with
 * slope -1 until tail(u) + r(u): the sum is piecewise linear and its
 * maximum is at a breakpoint. */
static double best_t2(const dp_graph *g, const double *head, const double *tail,
		      double t1, int k, bp *pts, double *bt2)
{
	size_t n = 0;
	double sum = 0;
	for (uint32_t u = 0; u < g->nops; u++) {
		double late = t1 - head[u];
		double r = g->ops[u].time_us - (late > 0 ? late : 0);
		if (r <= 0)
			continue;
		sum += r;
		pts[n++] = (bp){tail[u], -1};
		pts[n++] = (bp){tail[u] + r, +1};
	}
	qsort(pts, n, sizeof *pts, cmp_bp);
	/* f(t2) = t2 + S(t2) / K; S' = -(ops falling at t2) */
	double best = sum / k, t = 0, s = sum, slope = 0;
	*bt2 = 0;
	for (size_t i = 0; i < n; i++) {
		s += slope * (pts[i].t - t);
		t = pts[i].t;
		slope += pts[i].slope;
		if (t + s / k > best) {
			best = t + s / k;
			*bt2 = t;
		}
	}
	return best;
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: bench_bound GRAPH K...\n");
		return 2;
	}
	dp_graph *g = NULL;
	dp_err err;
	dp_err_clear(&err);
	if (dp_graph_load(argv[1], DP_FMT_AUTO, &g, &err) != DP_OK) {
		char msg[1200];
		fprintf(stderr, "bench_bound: %s\n",
			dp_err_format(&err, msg, sizeof msg));
		return 2;
	}
	double *head = malloc((g->nops + 1) * sizeof *head);
	double *tail = malloc((g->nops + 1) * sizeof *tail);
	bp *pts = malloc((2 * (size_t)g->nops + 1) * sizeof *pts);
	if (!head || !tail || !pts) {
		fprintf(stderr, "bench_bound: out of memory\n");
		return 2;
	}
	longest(g, true, head);
	longest(g, false, tail);
	double cp = 0;
	for (uint32_t u = 0; u < g->nops; u++)
		if (head[u] + g->ops[u].time_us + tail[u] > cp)
			cp = head[u] + g->ops[u].time_us + tail[u];
	printf("K\tcritical_path_us\twork_per_k_us\txlb_bound_us\tenergy_"
	       "bound_us\tt1_us\tt2_us\tratio\n");
	for (int a = 2; a < argc; a++) {
		int k = atoi(argv[a]);
		if (k < 1) {
			fprintf(stderr, "bench_bound: K must be >= 1: '%s'\n",
				argv[a]);
			return 2;
		}
		double wk = g->total_time_us / k, lb = cp > wk ? cp : wk;
		double best = lb, bt1 = 0, bt2 = 0;
		for (int i = 0; i <= T1_STEPS; i++) {
			double t1 = cp * i / T1_STEPS, t2;
			double v = t1 + best_t2(g, head, tail, t1, k, pts, &t2);
			if (v > best) {
				best = v;
				bt1 = t1;
				bt2 = t2;
			}
		}
		printf("%d\t%.1f\t%.1f\t%.1f\t%.1f\t%.1f\t%.1f\t%.4f\n", k, cp,
		       wk, lb, best, bt1, bt2, best / lb);
	}
	free(head);
	free(tail);
	free(pts);
	dp_graph_free(g);
	return 0;
}

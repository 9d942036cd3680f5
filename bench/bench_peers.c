/* bench_peers.c - speed of the peer algorithms (metf, heft, metis, contig,
 * or any registered ones) vs graph size.
 *
 * Builds synthetic training graphs with include/dnnpart/gen.h, runs each algorithm
 * on each and prints one line per (size, algorithm): ops, edges, K, the
 * algorithm's wall time (best of --reps runs), the simulated makespan and
 * x lower bound, feasibility, and the process's peak resident memory.
 *
 *   cc -O2 -std=c11 -Iengine bench/bench_peers.c build/libdnnpart.a \
 *      $(pkg-config --libs libcgraph libgvc libcjson) -lmetis -lm -lpthread \
 *      -o build/bench_peers
 *   build/bench_peers [-k K] [--cap-frac F] [--algos a,b,...] [--reps R]
 *                     N [N ...]
 *
 * --cap-frac F sets every device's cap to F times the one-device peak
 * divided by K (default 0: unlimited). Timing is measured here, never
 * asserted in tests.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "dnnpart/algo.h"
#include "dnnpart/gen.h"
#include "dnnpart/graph.h"
#include "dnnpart/machine.h"
#include "dnnpart/plan.h"

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

static long peak_rss_kb(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_maxrss;
}

static int usage(void)
{
	fprintf(stderr, "usage: bench_peers [-k K] [--cap-frac F] "
			"[--algos a,b,...] [--reps R] N [N ...]\n");
	return 2;
}

/* One size: generate, set caps, run every algorithm. */
static int bench_size(uint32_t n, int k, double cap_frac,
		      const dp_algo *const *algos, size_t nalgos, int reps)
{
	dp_gen_opts go;
	dp_gen_opts_default(&go);
	go.ops = n;
	dp_graph *g = NULL;
	dp_err err;
	if (dp_gen_graph(&go, &g, &err)) {
		fprintf(stderr, "gen %u: %s\n", n, err.msg);
		return 1;
	}
	dp_machine m;
	if (dp_machine_init(&m, k, &err)) {
		fprintf(stderr, "machine: %s\n", err.msg);
		dp_graph_free(g);
		return 1;
	}
	int32_t *pl = calloc(g->nops, sizeof *pl);
	if (!pl) {
		dp_graph_free(g);
		dp_machine_free(&m);
		return 1;
	}
	if (cap_frac > 0) {
		dp_plan one;
		memset(&one, 0, sizeof one);
		if (dp_plan_evaluate(g, &m, pl, DP_CONT_PORT, &one, &err) == DP_OK)
			for (int d = 0; d < k; d++)
				m.cap[d] = (int64_t)((double)one.sim.dev[0]
							     .peak_bytes *
						     cap_frac / k);
		dp_plan_free(&one);
	}
	for (size_t ai = 0; ai < nalgos; ai++) {
		const dp_algo *al = algos[ai];
		const char *a = al->name;
		dp_algo_opts o;
		dp_algo_opts_default(&o);
		double best = -1;
		dp_status st = DP_OK;
		for (int r = 0; r < reps && !st; r++) {
			double t0 = now_ms();
			st = dp_algo_place(al, g, &m, &o, NULL, pl, &err);
			double t = now_ms() - t0;
			if (best < 0 || t < best)
				best = t;
		}
		if (st) {
			fprintf(stderr, "%s on %u ops: %s\n", a, n, err.msg);
			continue;
		}
		dp_plan p;
		memset(&p, 0, sizeof p);
		if (dp_plan_evaluate(g, &m, pl, o.contention, &p, &err)) {
			fprintf(stderr, "simulate: %s\n", err.msg);
			continue;
		}
		printf("%9u %9u %3d %-8s %10.1f %14.0f %6.3f %-3s %9ld\n",
		       g->nops, g->nedges, k, a, best, p.sim.makespan, p.xlb,
		       p.feasible ? "yes" : "no", peak_rss_kb());
		fflush(stdout);
		dp_plan_free(&p);
	}
	free(pl);
	dp_machine_free(&m);
	dp_graph_free(g);
	return 0;
}

int main(int argc, char **argv)
{
	int k = 4, reps = 3;
	double cap_frac = 0;
	const char *algos = "metf,heft,metis,contig";
	int i = 1;
	for (; i < argc && argv[i][0] == '-'; i++) {
		if (!strcmp(argv[i], "-k") && i + 1 < argc)
			k = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--cap-frac") && i + 1 < argc)
			cap_frac = atof(argv[++i]);
		else if (!strcmp(argv[i], "--algos") && i + 1 < argc)
			algos = argv[++i];
		else if (!strcmp(argv[i], "--reps") && i + 1 < argc)
			reps = atoi(argv[++i]);
		else
			return usage();
	}
	if (i == argc || k < 1 || reps < 1)
		return usage();
	const dp_algo *list[16];
	size_t nalgos;
	dp_err err;
	if (dp_algo_parse_list(algos, list, sizeof list / sizeof list[0],
			       &nalgos, &err)) {
		fprintf(stderr, "bench_peers: --algos: %s\n", err.msg);
		return 2;
	}
	printf("%9s %9s %3s %-8s %10s %14s %6s %-3s %9s\n", "ops", "edges",
	       "K", "algo", "algo_ms", "makespan_us", "xLB", "ok", "rss_kb");
	int rc = 0;
	for (; i < argc; i++)
		rc |= bench_size((uint32_t)strtoul(argv[i], NULL, 10), k,
				 cap_frac, list, nalgos, reps);
	return rc;
}

/* bench_pardnn.c - speed and memory of the pardnn algorithm vs graph size.
 *
 * Builds a synthetic training graph with include/dnnpart/gen.h (or, with --random, a
 * random layered DAG), runs pardnn on it and prints one line per size:
 * ops, edges, K, the wall time of the algorithm and of each phase (from its
 * progress reports), the number of simulations, makespan, feasibility and
 * the process's peak resident memory.
 *
 *   cc -O2 -std=c11 -Iengine bench/bench_pardnn.c build/libdnnpart.a \
 *      $(pkg-config --libs libcgraph libgvc libcjson) -lmetis -lm -lpthread \
 *      -o build/bench_pardnn
 *   build/bench_pardnn [--random] [-k K] [--cap-frac F] N [N ...]
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
#include "dnnpart/sim.h"
#include "phase_clock.h"

static uint64_t rng(uint64_t *s)
{
	*s = *s * 6364136223846793005ull + 1442695040888963407ull;
	return *s >> 33;
}

/* Random layered DAG: 1-3 inputs from the 64 ops before, times 1-200 µs. */
static dp_graph *random_dag(uint32_t n)
{
	dp_graph *g = dp_graph_new("random");
	uint64_t s = 12345;
	char nm[32];
	for (uint32_t i = 0; i < n && g; i++) {
		uint32_t id;
		snprintf(nm, sizeof nm, "op%u", i);
		if (dp_graph_add_op(g, nm, &id, NULL))
			return NULL;
		g->ops[id].time_us = 1 + (double)(rng(&s) % 200);
		g->ops[id].output_bytes =
			1024 + (int64_t)(rng(&s) % (4u << 20));
		if (rng(&s) % 4 == 0)
			g->ops[id].param_bytes =
				(int64_t)(rng(&s) % (8u << 20));
		uint32_t nin = i ? 1 + (uint32_t)(rng(&s) % 3) : 0;
		for (uint32_t j = 0; j < nin; j++)
			dp_graph_add_edge(
				g,
				id - 1 -
					(uint32_t)(rng(&s) % (i < 64 ? i : 64)),
				id, -1, false, NULL);
	}
	if (!g || dp_graph_finalize(g, NULL))
		return NULL;
	return g;
}

static int64_t one_device_peak(const dp_graph *g)
{
	dp_machine m;
	dp_machine_init(&m, 1, NULL);
	int32_t *pl = calloc(g->nops ? g->nops : 1, sizeof *pl);
	dp_sim *s = dp_sim_new(g, &m, NULL);
	dp_sim_result r;
	memset(&r, 0, sizeof r);
	dp_sim_opts so = {.contention = DP_CONT_PORT, .detail = false};
	int64_t peak = 0;
	if (s && !dp_sim_run(s, pl, &so, &r, NULL))
		peak = r.dev[0].peak_bytes;
	dp_sim_result_free(&r);
	dp_sim_free(s);
	free(pl);
	dp_machine_free(&m);
	return peak;
}

int main(int argc, char **argv)
{
	int k = 4;
	double cap_frac = 0;
	bool rnd = false;
	for (int a = 1; a < argc; a++) {
		if (strcmp(argv[a], "--random") == 0) {
			rnd = true;
		} else if (strcmp(argv[a], "-k") == 0 && a + 1 < argc) {
			k = atoi(argv[++a]);
		} else if (strcmp(argv[a], "--cap-frac") == 0 && a + 1 < argc) {
			cap_frac = atof(argv[++a]);
		} else {
			uint32_t n = (uint32_t)strtoul(argv[a], NULL, 10);
			dp_graph *g = NULL;
			dp_err err;
			if (rnd) {
				g = random_dag(n);
			} else {
				dp_gen_opts o;
				dp_gen_opts_default(&o);
				o.ops = n;
				if (dp_gen_graph(&o, &g, &err))
					fprintf(stderr, "gen: %s\n", err.msg);
			}
			if (!g)
				return 2;
			dp_machine m;
			dp_machine_init(&m, k, NULL);
			if (cap_frac > 0) {
				int64_t cap =
					(int64_t)(cap_frac *
						  (double)one_device_peak(g) /
						  k);
				for (int d = 0; d < k; d++)
					m.cap[d] = cap;
			}
			int32_t *pl = malloc(g->nops * sizeof *pl);
			phase_clock pc;
			dp_progress p = {phase_clock_report, &pc, NULL};
			dp_algo_opts ao;
			dp_algo_opts_default(&ao);
			double t0 = phase_clock_now();
			phase_clock_start(&pc, t0);
			dp_status st = dp_algo_place(dp_algo_find("pardnn"), g,
						     &m, &ao, &p, pl, &err);
			double t1 = phase_clock_now();
			phase_clock_stop(&pc);
			char line[256];
			size_t pos = 0;
			line[0] = '\0';
			for (int i = 0; i < pc.n && pos < sizeof line; i++)
				pos += (size_t)snprintf(line + pos,
							sizeof line - pos,
							" %s=%.3f", pc.names[i],
							pc.secs[i]);
			if (st) {
				fprintf(stderr, "pardnn: %s\n", err.msg);
				return 3;
			}
			dp_sim *s = dp_sim_new(g, &m, NULL);
			dp_sim_result r;
			memset(&r, 0, sizeof r);
			dp_sim_opts so = {.contention = DP_CONT_PORT, .detail = false};
			double ts = phase_clock_now();
			dp_sim_run(s, pl, &so, &r, NULL);
			double te = phase_clock_now();
			struct rusage ru;
			getrusage(RUSAGE_SELF, &ru);
			printf("ops=%u edges=%u k=%d time=%.3fs [%s ] "
			       "sim=%.3fs "
			       "makespan=%.0fus feasible=%d maxrss=%ldMiB\n",
			       g->nops, g->nedges, k, t1 - t0, line, te - ts,
			       r.makespan, r.feasible, ru.ru_maxrss / 1024);
			fflush(stdout);
			dp_sim_result_free(&r);
			dp_sim_free(s);
			free(pl);
			dp_machine_free(&m);
			dp_graph_free(g);
		}
	}
	return 0;
}

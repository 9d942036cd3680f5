/* bench_msrdp.c - msr-dp on the msr-fiddle graphs: its max load and its
 * speed and memory, beside the max load of contig and pardnn's plans
 * (which minimise one step, not the max load).
 *
 *   make build/bench/bench_msrdp
 *   build/bench/bench_msrdp [--reps R] [--step] FILE.json ...
 *
 * Each file runs in its own child process (fork), so the peak resident
 * memory printed is that graph's alone. The machine is the file's own
 * (maxFPGAs devices of maxSizePerFPGA bytes) with the link "file": every
 * edge costs the file's `cost`, so max loads are in the file's time unit
 * x 1000 (dnnpart reads its ms as µs: divide by 1000 to compare with the
 * authors' numbers). --step adds contig and pardnn. Timing is measured
 * here, never asserted in tests (docs/benchmarks.md has a run).
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "dnnpart/algo.h"
#include "dnnpart/load.h"
#include "dnnpart/machine.h"
#include "dnnpart/plan.h"
#include "dnnpart/throughput.h"

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

/* max load of algorithm name's placement; its best wall time in *ms */
static int run_algo(const dp_graph *g, const dp_machine *m, const char *name,
		    int reps, double *ms, double *load)
{
	int32_t *pl = malloc(((size_t)g->nops + 1) * sizeof *pl);
	dp_err err;
	if (!pl)
		return 1;
	*ms = -1;
	for (int r = 0; r < reps; r++) {
		double t0 = now_ms();
		if (dp_algo_place(dp_algo_find(name), g, m, NULL, NULL, pl,
				  &err)) {
			fprintf(stderr, "%s: %s\n", name, err.msg);
			free(pl);
			return 1;
		}
		double t = now_ms() - t0;
		if (*ms < 0 || t < *ms)
			*ms = t;
	}
	int rc = dp_max_load(g, m, pl, NULL, load, &err) ? 1 : 0;
	free(pl);
	return rc;
}

static int one(const char *path, int reps, bool step)
{
	dp_graph *g = NULL;
	dp_err err;
	if (dp_graph_load(path, DP_FMT_AUTO, &g, &err)) {
		fprintf(stderr, "%s: %s\n", path, err.msg);
		return 1;
	}
	dp_machine m;
	if (dp_machine_init_from_hint(&m, &g->hint, &err)) {
		dp_graph_free(g);
		return 1;
	}
	dp_machine_set_link_file(&m);
	double ms, load, cl = 0, pl = 0, t2;
	int rc = run_algo(g, &m, "msr-dp", reps, &ms, &load);
	if (!rc && step)
		rc = run_algo(g, &m, "contig", 1, &t2, &cl) ||
		     run_algo(g, &m, "pardnn", 1, &t2, &pl);
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	const char *b = strrchr(path, '/');
	if (!rc) {
		printf("%-28s %6u %3d %10.1f %8.1f %14.6f", b ? b + 1 : path,
		       g->nops, m.k, ms, (double)ru.ru_maxrss / 1024.0,
		       load / 1000.0);
		if (step)
			printf(" %12.6f %12.6f", cl / 1000.0, pl / 1000.0);
		printf("\n");
	}
	dp_machine_free(&m);
	dp_graph_free(g);
	return rc;
}

int main(int argc, char **argv)
{
	int reps = 3, i = 1, rc = 0;
	bool step = false;
	for (; i < argc && argv[i][0] == '-'; i++) {
		if (!strcmp(argv[i], "--reps") && i + 1 < argc)
			reps = atoi(argv[++i]) > 0 ? atoi(argv[i]) : 1;
		else if (!strcmp(argv[i], "--step"))
			step = true;
		else
			break;
	}
	if (i >= argc) {
		fprintf(stderr, "usage: bench_msrdp [--reps R] [--step] "
				"FILE.json ...\n");
		return 2;
	}
	printf("%-28s %6s %3s %10s %8s %14s", "graph", "ops", "K", "msr-dp ms",
	       "RSS MiB", "max load");
	if (step)
		printf(" %12s %12s", "contig", "pardnn");
	printf("\n");
	fflush(stdout);
	for (; i < argc; i++) {
		pid_t pid = fork();
		if (pid == 0) {
			int r = one(argv[i], reps, step);
			fflush(stdout);
			_exit(r);
		}
		int st = 0;
		if (pid < 0 || waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) ||
		    WEXITSTATUS(st))
			rc = 1;
	}
	return rc;
}

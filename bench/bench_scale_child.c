/* bench_scale_child.c - one measurement of the scale section, run in a
 * process of its own so that its peak RSS (wait4 in the parent) is the
 * measurement's alone.
 *
 *   dnnpart-bench --child load FILE R
 *       loads FILE (native JSON) R times: "graph OPS EDGES", "load S" x R
 *   dnnpart-bench --child peak FILE
 *       "peak BYTES": the one-device peak (the base of the tight caps)
 *   dnnpart-bench --child plan FILE ALGO K CAP_BYTES R
 *       loads FILE once ("load S"), runs ALGO R times on K devices with
 *       every cap CAP_BYTES (0 = none): "plan S CPU_S" x R (wall and
 *       process CPU time of the run), "phase NAME S" for
 *       the last run's progress phases, "rss_plan_kb N" (peak RSS of load +
 *       planning, before anything else), then simulates the placement with
 *       detail as `dnnpart plan` does: "result MAKESPAN_US XLB FEASIBLE S".
 * Errors: "error MESSAGE" and exit code 2 or 3.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "bench.h"
#include "dnnpart/load.h"
#include "dnnpart/machine.h"
#include "dnnpart/plan.h"
#include "phase_clock.h"

static int child_error(const dp_err *err)
{
	char msg[1200];
	printf("error %s\n", dp_err_format(err, msg, sizeof msg));
	return dp_status_exit_code(err->code) ? dp_status_exit_code(err->code)
					      : 3;
}

static int load_timed(const char *path, dp_graph **g, double *secs)
{
	dp_err err;
	dp_err_clear(&err);
	double t0 = bench_now();
	dp_status st = dp_graph_load(path, DP_FMT_AUTO, g, &err);
	*secs = bench_now() - t0;
	return st == DP_OK ? 0 : child_error(&err);
}

static int child_load(const char *path, int runs)
{
	for (int r = 0; r < runs; r++) {
		dp_graph *g;
		double t;
		int rc = load_timed(path, &g, &t);
		if (rc)
			return rc;
		if (r == 0)
			printf("graph %u %u\n", g->nops, g->nedges);
		printf("load %.6f\n", t);
		dp_graph_free(g);
	}
	return 0;
}

static int child_peak(const char *path)
{
	dp_graph *g;
	double t;
	int rc = load_timed(path, &g, &t);
	if (rc)
		return rc;
	int64_t peak = bench_one_device_peak(g);
	dp_graph_free(g);
	if (peak < 0) {
		printf("error one-device simulation failed\n");
		return 3;
	}
	printf("peak %lld\n", (long long)peak);
	return 0;
}

static int child_plan(const char *path, const char *algo_name, int k,
		      long long cap, int runs)
{
	const dp_algo *algo = dp_algo_find(algo_name);
	if (!algo) {
		printf("error unknown algorithm %s\n", algo_name);
		return 2;
	}
	dp_graph *g;
	double t;
	int rc = load_timed(path, &g, &t);
	if (rc)
		return rc;
	printf("load %.6f\n", t);
	dp_machine m;
	dp_err err;
	dp_err_clear(&err);
	if (dp_machine_init(&m, k, &err) != DP_OK) {
		dp_graph_free(g);
		return child_error(&err);
	}
	for (int d = 0; d < k && cap > 0; d++)
		m.cap[d] = cap;
	int32_t *pl = malloc((g->nops ? g->nops : 1) * sizeof *pl);
	if (!pl) {
		printf("error out of memory\n");
		return 2;
	}
	dp_algo_opts o;
	dp_algo_opts_default(&o);
	phase_clock pc;
	for (int r = 0; r < runs; r++) {
		dp_progress p = {phase_clock_report, &pc, NULL};
		double t0 = bench_now(), c0 = bench_cpu_now();
		phase_clock_start(&pc, t0);
		dp_status st = dp_algo_place(algo, g, &m, &o, &p, pl, &err);
		double t1 = bench_now(), c1 = bench_cpu_now();
		phase_clock_stop(&pc);
		if (st != DP_OK) {
			free(pl);
			dp_machine_free(&m);
			dp_graph_free(g);
			return child_error(&err);
		}
		printf("plan %.6f %.6f\n", t1 - t0, c1 - c0);
		fflush(stdout);
	}
	for (int i = 0; i < pc.n; i++)
		printf("phase %s %.6f\n", pc.names[i], pc.secs[i]);
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	printf("rss_plan_kb %ld\n", ru.ru_maxrss);
	dp_plan plan;
	memset(&plan, 0, sizeof plan);
	double t0 = bench_now();
	dp_status st = dp_plan_evaluate(g, &m, pl, o.contention, &plan, &err);
	double t1 = bench_now();
	if (st == DP_OK)
		printf("result %.3f %.6f %d %.6f\n", plan.sim.makespan,
		       plan.xlb, plan.feasible ? 1 : 0, t1 - t0);
	dp_plan_free(&plan);
	free(pl);
	dp_machine_free(&m);
	dp_graph_free(g);
	return st == DP_OK ? 0 : child_error(&err);
}

int bench_scale_child(int argc, char **argv)
{
	if (argc == 3 && strcmp(argv[0], "load") == 0)
		return child_load(argv[1], atoi(argv[2]));
	if (argc == 2 && strcmp(argv[0], "peak") == 0)
		return child_peak(argv[1]);
	if (argc == 6 && strcmp(argv[0], "plan") == 0)
		return child_plan(argv[1], argv[2], atoi(argv[3]),
				  atoll(argv[4]), atoi(argv[5]));
	fprintf(stderr, "bench: bad --child arguments\n");
	return 2;
}

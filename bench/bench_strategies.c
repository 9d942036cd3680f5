/* bench_strategies.c - the strategies section: how long a strategy
 * algorithm, the lowering of its strategy and the simulation of the lowered
 * graph take on a sample graph, and the peak RSS, each case in a process
 * of its own (issue 12's speed goals: lowering + simulation under 1 s and
 * 1 GiB; lowering no slower than the simulation).
 *
 *   dnnpart-bench --child strategy FILE ALGO K M R
 *       loads FILE, then R times: the algorithm's strategy with M
 *       micro-batches (0: its default) on K devices ("strategize S"), its
 *       lowering ("lower S OPS EDGES") and a simulation with detail, as a
 *       plan has ("sim S"); then "rss_kb N" and "result MAKESPAN PEAK0
 *       LABEL".
 *
 * Add a case to the table below to time another strategy. A graph called
 * gen-N-bB.json is generated (N ops, batch B, seed 1) into the graphs
 * folder the first time. A graph NAME@bB is NAME planned at batch size B
 * (dp_graph_with_batch, as --batch does): the samples' batch is 1, which
 * no M > 1 divides.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench.h"
#include "dnnpart/gen.h"
#include "dnnpart/load.h"
#include "dnnpart/machine.h"
#include "dnnpart/sim.h"
#include "dnnpart/strategy.h"

typedef struct strat_case {
	const char *graph; /* in the samples folder */
	const char *algo;
	int k, m;
} strat_case;

static const strat_case cases[] = {
	{"gpt2-xl.json@b32", "1f1b", 8, 32},
	{"gpt2-xl.json@b32", "gpipe", 8, 32},
	/* dp and zero need a batch that K divides: the samples' is 1 */
	{"gen-100000-b64.json", "dp", 16, 0},
	{"gen-100000-b64.json", "zero", 16, 0},
	/* pase: issue 13's goals (gpt2-xl at K=32 under 5 s; linear-ish
	 * growth with the ops). The 100,000-op case takes over a minute a
	 * run: measured by hand (docs/benchmarks.md, Results: pase). */
	{"gpt2-xl.json", "pase", 32, 0},
	{"gen-10000-b64.json", "pase", 16, 0},
};

#define NCASES (sizeof cases / sizeof cases[0])

static int child_fail(const dp_err *err)
{
	char msg[1200];
	printf("error %s\n", dp_err_format(err, msg, sizeof msg));
	return 3;
}

int bench_strategy_child(int argc, char **argv)
{
	if (argc != 6 || strcmp(argv[0], "strategy") != 0) {
		fprintf(stderr, "bench: bad --child strategy arguments\n");
		return 2;
	}
	const dp_algo *a = dp_algo_find(argv[2]);
	if (!a || !a->strategize) {
		printf("error %s is not a strategy algorithm\n", argv[2]);
		return 2;
	}
	int k = atoi(argv[3]), runs = atoi(argv[5]);
	dp_err err;
	dp_err_clear(&err);
	dp_graph *g = NULL;
	char path[1024];
	snprintf(path, sizeof path, "%s", argv[1]);
	char *at = strrchr(path, '@');
	long long batch = 0;
	if (at && sscanf(at, "@b%lld", &batch) == 1)
		*at = '\0';
	if (dp_graph_load(path, DP_FMT_AUTO, &g, &err))
		return child_fail(&err);
	if (batch > 0) {
		dp_graph *gb = NULL;
		dp_status bs = dp_graph_with_batch(g, batch, &gb, &err);
		dp_graph_free(g);
		if (bs)
			return child_fail(&err);
		g = gb;
	}
	dp_machine m;
	if (dp_machine_init(&m, k, &err)) {
		dp_graph_free(g);
		return child_fail(&err);
	}
	dp_algo_opts o;
	dp_algo_opts_default(&o);
	o.microbatches = atoi(argv[4]);
	int rc = 0;
	for (int r = 0; r < runs && !rc; r++) {
		dp_strategy s;
		dp_strategy_init(&s);
		dp_lowered l;
		memset(&l, 0, sizeof l);
		dp_sim_result res;
		memset(&res, 0, sizeof res);
		dp_sim *sim = NULL;
		double t0 = bench_now();
		dp_status st = a->strategize(g, &m, &o, NULL, &s, &err);
		double t1 = bench_now();
		if (!st)
			st = dp_strategy_lower(g, &m, &s, NULL, &l, &err);
		double t2 = bench_now();
		if (!st && !(sim = dp_sim_new(l.g, &m, &err)))
			st = err.code ? err.code : DP_ENOMEM;
		dp_sim_opts so = {.contention = DP_CONT_PORT, .detail = true};
		if (!st)
			st = dp_sim_run(sim, l.placement, &so, &res, &err);
		double t3 = bench_now();
		if (st) {
			rc = child_fail(&err);
		} else {
			printf("strategize %.6f\nlower %.6f %u %u\nsim %.6f\n",
			       t1 - t0, t2 - t1, l.g->nops, l.g->nedges,
			       t3 - t2);
			if (r == runs - 1)
				printf("result %.3f %lld %s\n", res.makespan,
				       (long long)res.dev[0].peak_bytes,
				       s.label);
			fflush(stdout);
		}
		dp_sim_free(sim);
		dp_sim_result_free(&res);
		dp_lowered_free(&l);
		dp_strategy_free(&s);
	}
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	printf("rss_kb %ld\n", ru.ru_maxrss);
	dp_machine_free(&m);
	dp_graph_free(g);
	return rc;
}

/* The smallest value after "KEY " at a line's start in the child's output
 * (over its runs); -1 when there is none. */
static double min_of(const char *out, const char *key)
{
	double best = -1;
	size_t n = strlen(key);
	for (const char *p = out; (p = strstr(p, key)); p += n) {
		if ((p != out && p[-1] != '\n') || p[n] != ' ')
			continue;
		double v = atof(p + n + 1);
		if (best < 0 || v < best)
			best = v;
	}
	return best;
}

/* The path of a case's graph: a sample, or gen-N-bB.json generated into
 * the graphs folder when it is not there yet. -1 on failure. */
static int graph_path(const bench_cfg *cfg, const char *name, char *path,
		      size_t n)
{
	unsigned ops, batch;
	if (sscanf(name, "gen-%u-b%u.json", &ops, &batch) != 2) {
		snprintf(path, n, "%s/%s", cfg->samples_dir, name);
		return 0;
	}
	snprintf(path, n, "%s/%s", cfg->graphs_dir, name);
	if (access(path, R_OK) == 0)
		return 0;
	mkdir(cfg->graphs_dir, 0777);
	dp_gen_opts o;
	bench_gen_opts(&o, ops);
	o.batch = batch;
	return bench_gen_write(&o, path);
}

int bench_strategies(const bench_cfg *cfg)
{
	int runs = cfg->quick ? 1 : 3, rc = 0;
	printf("\n== strategies: strategize, lower and simulate (best of %d), "
	       "peak RSS ==\n",
	       runs);
	printf("%-19s %-6s %3s %4s %10s %10s %10s %9s %8s  %s\n", "graph",
	       "algo", "K", "M", "strat ms", "lower ms", "sim ms", "ops",
	       "RSS MiB", "label");
	cJSON *root = bench_env_json(cfg, "strategies");
	cJSON *rows = cJSON_AddArrayToObject(root, "rows");
	for (size_t i = 0; i < NCASES; i++) {
		const strat_case *sc = &cases[i];
		char path[1024], ks[16], ms[16], rs[16];
		if (graph_path(cfg, sc->graph, path, sizeof path)) {
			rc = 1;
			continue;
		}
		snprintf(ks, sizeof ks, "%d", sc->k);
		snprintf(ms, sizeof ms, "%d", sc->m);
		snprintf(rs, sizeof rs, "%d", runs);
		char *argv[] = {(char *)cfg->self,
				"--child",
				"strategy",
				path,
				(char *)sc->algo,
				ks,
				ms,
				rs,
				NULL};
		bench_child c;
		if (bench_spawn(argv, 600, &c) != 0 || c.timed_out ||
		    c.exit_code != 0) {
			const char *e = strstr(c.out, "error ");
			fprintf(stderr, "bench: strategy %s %s: %s\n",
				sc->graph, sc->algo, e ? e : "failed");
			rc = 1;
			continue;
		}
		double st = min_of(c.out, "strategize");
		double lo = min_of(c.out, "lower");
		double si = min_of(c.out, "sim");
		const char *lw = strstr(c.out, "\nlower ");
		unsigned ops = 0, edges = 0;
		if (lw)
			sscanf(lw + 7, "%*f %u %u", &ops, &edges);
		double makespan = 0;
		long long peak0 = 0;
		char label[64] = "";
		const char *res = strstr(c.out, "\nresult ");
		if (res)
			sscanf(res + 8, "%lf %lld %63[^\n]", &makespan, &peak0,
			       label);
		printf("%-19s %-6s %3d %4d %10.1f %10.1f %10.1f %9u %8.0f  "
		       "%s\n",
		       sc->graph, sc->algo, sc->k, sc->m, st * 1e3, lo * 1e3,
		       si * 1e3, ops, c.maxrss_kb / 1024.0, label);
		cJSON *row = cJSON_CreateObject();
		cJSON_AddStringToObject(row, "graph", sc->graph);
		cJSON_AddStringToObject(row, "algo", sc->algo);
		cJSON_AddNumberToObject(row, "k", sc->k);
		cJSON_AddNumberToObject(row, "microbatches", sc->m);
		cJSON_AddStringToObject(row, "label", label);
		bench_json_round(row, "strategize_s", st, 1e-6);
		bench_json_round(row, "lower_s", lo, 1e-6);
		bench_json_round(row, "sim_s", si, 1e-6);
		cJSON_AddNumberToObject(row, "lowered_ops", ops);
		cJSON_AddNumberToObject(row, "lowered_edges", edges);
		cJSON_AddNumberToObject(row, "rss_kb", (double)c.maxrss_kb);
		bench_json_round(row, "makespan_us", makespan, 1e-3);
		cJSON_AddNumberToObject(row, "peak0_bytes", (double)peak0);
		cJSON_AddItemToArray(rows, row);
	}
	if (bench_write_json(cfg, "strategies.json", root, true))
		rc = 1;
	return rc;
}

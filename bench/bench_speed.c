/* bench_speed.c - the speed section: pardnn's and best's plan time on the
 * generated 100k and 1M-op graphs, beside earlier releases' (issue 25).
 *
 * Inputs: the scale section's generated graphs (build/bench/graphs/
 * gen-N.json, seed 1; written here when missing). For each size, K = 4 and
 * 16, caps none and tight (cfg->tight x one-device peak / K), pardnn and
 * best: one child process (bench_scale_child.c) that loads the file once
 * and plans R times, reporting each run's CPU time (user + system of the
 * process during the run: the machine is shared, so wall time says more
 * about the load than about the code) and the plan's makespan. Reported:
 * the median CPU time and the makespan, and beside them the CPU time and
 * makespan of each reference run of bench/results/speed_reference.tsv
 * (committed: the previous release's numbers, measured the same way, and
 * where known pardnn's before its lanes and METIS seeds), with now / then.
 * The reference file is read, never written: a new reference is a commit.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

#define REF_FILE "speed_reference.tsv"
#define MAX_REFS 256
#define MAX_RUNS 9

typedef struct speed_ref {
	char ref[64], caps[8], algo[16];
	unsigned ops;
	int k;
	double cpu_s, makespan_us;
} speed_ref;

/* Reads the reference runs: tab-separated ref, ops, k, caps, algo,
 * plan_cpu_s, makespan_us; '#' lines and the header are skipped. */
static int read_refs(const bench_cfg *cfg, speed_ref *refs, int *n)
{
	char path[1024], line[512];
	snprintf(path, sizeof path, "%s/%s", cfg->results_dir, REF_FILE);
	FILE *f = fopen(path, "r");
	*n = 0;
	if (!f) {
		fprintf(stderr, "bench: speed: cannot read %s\n", path);
		return -1;
	}
	int lineno = 0;
	while (fgets(line, sizeof line, f)) {
		lineno++;
		if (line[0] == '#' || line[0] == '\n' ||
		    strncmp(line, "ref\t", 4) == 0)
			continue;
		speed_ref r;
		if (sscanf(line, "%63[^\t]\t%u\t%d\t%7[^\t]\t%15[^\t]\t%lf\t%lf",
			   r.ref, &r.ops, &r.k, r.caps, r.algo, &r.cpu_s,
			   &r.makespan_us) != 7) {
			fprintf(stderr,
				"bench: speed: %s:%d: expected ref, ops, k, "
				"caps, algo, plan_cpu_s, makespan_us\n",
				path, lineno);
			fclose(f);
			return -1;
		}
		if (*n < MAX_REFS)
			refs[(*n)++] = r;
	}
	fclose(f);
	return 0;
}

/* The graph of n ops and its one-device peak (the base of tight caps). */
static int speed_graph(const bench_cfg *cfg, uint32_t n, char *path,
		       size_t size, long long *peak)
{
	snprintf(path, size, "%s/gen-%u.json", cfg->graphs_dir, n);
	FILE *f = fopen(path, "r");
	if (f) {
		fclose(f);
	} else {
		dp_gen_opts o;
		bench_gen_opts(&o, n);
		if (bench_gen_write(&o, path))
			return -1;
	}
	char *pa[] = {"peak", path, NULL};
	bench_child c;
	if (bench_run_child(cfg, pa, 1200, &c) != 0 ||
	    sscanf(c.out, "peak %lld", peak) != 1)
		return -1;
	return 0;
}

typedef struct speed_row {
	unsigned ops;
	int k;
	const char *caps, *algo;
	int runs;
	double cpu[MAX_RUNS], cpu_med, makespan;
} speed_row;

static int measure(const bench_cfg *cfg, const char *path, long long cap,
		   int runs, speed_row *r)
{
	char kb[16], cb[32], rb[16];
	snprintf(kb, sizeof kb, "%d", r->k);
	snprintf(cb, sizeof cb, "%lld", cap);
	snprintf(rb, sizeof rb, "%d", runs);
	char *pa[] = {"plan", (char *)path, (char *)r->algo, kb, cb, rb, NULL};
	bench_child c;
	if (bench_run_child(cfg, pa, 3600, &c) != 0)
		return -1;
	r->runs = 0;
	r->makespan = NAN;
	for (char *l = strtok(c.out, "\n"); l; l = strtok(NULL, "\n")) {
		double w, u, x, f;
		if (sscanf(l, "plan %lf %lf", &w, &u) == 2 &&
		    r->runs < MAX_RUNS)
			r->cpu[r->runs++] = u;
		else if (sscanf(l, "result %lf %lf %lf", &u, &x, &f) == 3)
			r->makespan = u;
	}
	if (r->runs == 0)
		return -1;
	double v[MAX_RUNS];
	memcpy(v, r->cpu, sizeof v);
	r->cpu_med = bench_median(v, r->runs);
	return 0;
}

/* Prints r and the reference runs of its configuration; adds both to
 * rows. */
static void report(const speed_row *r, const speed_ref *refs, int nrefs,
		   cJSON *rows)
{
	printf("%8u %3d %-5s %-6s %7.3f s (%d) %12.1f", r->ops, r->k, r->caps,
	       r->algo, r->cpu_med, r->runs, r->makespan / 1000);
	cJSON *o = cJSON_CreateObject();
	cJSON_AddNumberToObject(o, "ops", r->ops);
	cJSON_AddNumberToObject(o, "k", r->k);
	cJSON_AddStringToObject(o, "caps", r->caps);
	cJSON_AddStringToObject(o, "algo", r->algo);
	cJSON_AddItemToObject(o, "plan_cpu_s",
			      cJSON_CreateDoubleArray(r->cpu, r->runs));
	bench_json_num(o, "plan_cpu_median_s", r->cpu_med);
	bench_json_num(o, "makespan_us", r->makespan);
	cJSON *jr = cJSON_AddArrayToObject(o, "references");
	for (int i = 0; i < nrefs; i++) {
		const speed_ref *f = &refs[i];
		if (f->ops != r->ops || f->k != r->k ||
		    strcmp(f->caps, r->caps) || strcmp(f->algo, r->algo))
			continue;
		printf("   %s: %.3f s, %.1f ms (now %.2fx)", f->ref, f->cpu_s,
		       f->makespan_us / 1000, r->cpu_med / f->cpu_s);
		cJSON *x = cJSON_CreateObject();
		cJSON_AddStringToObject(x, "ref", f->ref);
		bench_json_num(x, "plan_cpu_s", f->cpu_s);
		bench_json_num(x, "makespan_us", f->makespan_us);
		cJSON_AddItemToArray(jr, x);
	}
	printf("\n");
	fflush(stdout);
	cJSON_AddItemToArray(rows, o);
}

int bench_speed(const bench_cfg *cfg)
{
	static const uint32_t sizes[] = {100000, 1000000};
	static const int ks[] = {4, 16};
	static const char *const algos[] = {"pardnn", "best"};
	int nsizes = cfg->quick ? 1 : 2, nks = cfg->quick ? 1 : 2;
	int ncaps = cfg->quick ? 1 : 2;
	printf("== speed: pardnn's and best's plan CPU time beside earlier "
	       "releases' ==\n");
	printf("inputs: dnnpart gen --seed 1; caps none or tight = %.2f x "
	       "one-device peak / K; CPU = user + system\nof the planning run "
	       "alone (median of (R) runs; the machine is shared), makespan "
	       "in ms;\nreferences: %s/%s\n\n",
	       cfg->tight, cfg->results_dir, REF_FILE);
	speed_ref *refs = calloc(MAX_REFS, sizeof *refs);
	int nrefs = 0, rc = 0;
	if (!refs || read_refs(cfg, refs, &nrefs) != 0) {
		free(refs);
		return 1;
	}
	cJSON *root = bench_env_json(cfg, "speed");
	cJSON *rows = cJSON_AddArrayToObject(root, "rows");
	printf("%8s %3s %-5s %-6s %13s %12s   references\n", "ops", "K",
	       "caps", "algo", "plan CPU", "makespan");
	for (int s = 0; s < nsizes; s++) {
		char path[1024];
		long long peak;
		if (speed_graph(cfg, sizes[s], path, sizeof path, &peak) != 0) {
			fprintf(stderr, "bench: speed: no graph of %u ops\n",
				sizes[s]);
			rc = 1;
			continue;
		}
		for (int ki = 0; ki < nks; ki++)
			for (int t = 0; t < ncaps; t++)
				for (int a = 0; a < 2; a++) {
					speed_row r = {sizes[s], ks[ki],
						       t ? "tight" : "none",
						       algos[a], 0, {0}, 0, 0};
					long long cap =
						t ? (long long)(cfg->tight *
								(double)peak /
								ks[ki])
						  : 0;
					/* best at 1M ops: one run (about
					 * 20-40 s of CPU) */
					int runs = a == 0 && s == 0 ? 3 : 1;
					if (measure(cfg, path, cap, runs,
						    &r) != 0) {
						rc = 1;
						continue;
					}
					report(&r, refs, nrefs, rows);
				}
	}
	printf("\n");
	if (bench_write_json(cfg, "speed.json", root, true) != 0)
		rc = 1;
	free(refs);
	return rc;
}

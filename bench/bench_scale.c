/* bench_scale.c - speed and memory against graph size.
 *
 * Inputs: synthetic training graphs of 10k, 100k and 1M ops (include/dnnpart/gen.h,
 * seed 1, so the same bytes on every machine), written as native JSON under
 * build/bench/graphs. For each size: loading the file (the floor any
 * partitioner pays), the one-device peak (the base of the tight caps), and
 * every algorithm at K = 4 and 16, without caps and with tight caps
 * (cfg->tight x one-device peak / K), each measurement in a child process
 * (bench_scale_child.c) that loads the file once and plans R times. Reported:
 * median planning time, planning / load time, the growth exponent from the
 * previous size, peak RSS (load + planning, and with the detailed
 * simulation `dnnpart plan` adds), makespan, xLB and feasibility.
 *
 * An algorithm is skipped at a size when its time at the previous size,
 * grown at least linearly, predicts more than cfg->limit_s per run; the
 * reason is printed. A run past the limit is killed and reported as such.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "bench.h"
#include "dnnpart/gen.h"

#define MAX_RUNS 9
#define MAX_ROWS 256

typedef struct size_info {
	uint32_t ops, edges;
	double file_mb, gen_s;
	double load_med, load_min, load_max;
	long load_rss_kb;
	int64_t peak1;
	bool ok;
} size_info;

typedef struct scale_row {
	uint32_t ops, edges;
	int k;
	bool tight;
	int64_t cap;
	const char *algo;
	int runs;
	double plan[MAX_RUNS];
	double plan_med, plan_min, plan_max;
	double load_s; /* the load inside this child */
	double ratio;  /* plan_med / the size's median load */
	double growth; /* from the previous size, same config */
	long rss_plan_kb, rss_total_kb;
	double makespan, xlb, eval_s;
	int feasible; /* -1 unknown */
	char phases[256];
	char skip[256]; /* why it was not measured, "" when it was */
} scale_row;

static const char *caps_label(bool tight)
{
	return tight ? "tight" : "none";
}

/* Writes the generated graph of n ops (seed 1) to path. */
static int make_graph(uint32_t n, const char *path, double *secs)
{
	double t0 = bench_now();
	dp_gen_opts o;
	bench_gen_opts(&o, n);
	if (bench_gen_write(&o, path))
		return -1;
	*secs = bench_now() - t0;
	return 0;
}

int bench_run_child(const bench_cfg *cfg, char **args, double timeout_s,
		     bench_child *c)
{
	char *argv[12];
	int n = 0;
	argv[n++] = (char *)cfg->self;
	argv[n++] = "--child";
	for (int i = 0; args[i] && n < 11; i++)
		argv[n++] = args[i];
	argv[n] = NULL;
	if (bench_spawn(argv, timeout_s, c) != 0)
		return -1;
	if (c->timed_out || c->exit_code != 0) {
		const char *e = strstr(c->out, "error ");
		fprintf(stderr, "bench: child %s %s: %s\n", args[0], args[1],
			c->timed_out ? "killed at the time limit"
			: e	     ? e
				     : "failed");
		return -1;
	}
	return 0;
}

static int measure_size(const bench_cfg *cfg, uint32_t n, int runs,
			const char *path, size_info *si)
{
	memset(si, 0, sizeof *si);
	si->ops = n;
	printf("generating %u ops -> %s ... ", n, path);
	fflush(stdout);
	if (make_graph(n, path, &si->gen_s) != 0)
		return -1;
	struct stat sb;
	si->file_mb = stat(path, &sb) == 0 ? (double)sb.st_size / 1e6 : NAN;
	printf("%.1f MB in %.2f s\n", si->file_mb, si->gen_s);
	char rbuf[16];
	snprintf(rbuf, sizeof rbuf, "%d", runs);
	char *la[] = {"load", (char *)path, rbuf, NULL};
	bench_child c;
	if (bench_run_child(cfg, la, 600, &c) != 0)
		return -1;
	double loads[MAX_RUNS];
	int nl = 0;
	for (char *l = strtok(c.out, "\n"); l; l = strtok(NULL, "\n")) {
		double t;
		if (sscanf(l, "graph %u %u", &si->ops, &si->edges) == 2)
			continue;
		if (sscanf(l, "load %lf", &t) == 1 && nl < MAX_RUNS)
			loads[nl++] = t;
	}
	if (nl == 0)
		return -1;
	si->load_rss_kb = c.maxrss_kb;
	bench_median(loads, nl);
	si->load_min = loads[0];
	si->load_max = loads[nl - 1];
	si->load_med = bench_median(loads, nl);
	char *pa[] = {"peak", (char *)path, NULL};
	if (bench_run_child(cfg, pa, 600, &c) != 0)
		return -1;
	long long peak = -1;
	if (sscanf(c.out, "peak %lld", &peak) != 1 || peak < 0)
		return -1;
	si->peak1 = peak;
	si->ok = true;
	printf("load %u ops, %u edges: median %.3f s (%d runs, %.3f-%.3f), "
	       "peak RSS %.0f MiB; one-device peak %.2f GiB\n",
	       si->ops, si->edges, si->load_med, nl, si->load_min, si->load_max,
	       (double)si->load_rss_kb / 1024,
	       (double)si->peak1 / (1024.0 * 1024 * 1024));
	return 0;
}

/* The same configuration at the previous size, or NULL. */
static const scale_row *previous(const scale_row *rows, int nrows,
				 const scale_row *r)
{
	const scale_row *best = NULL;
	for (int i = 0; i < nrows; i++) {
		const scale_row *p = &rows[i];
		if (p->k == r->k && p->tight == r->tight &&
		    strcmp(p->algo, r->algo) == 0 && p->ops < r->ops &&
		    (!best || p->ops > best->ops))
			best = p;
	}
	return best;
}

/* Fills r->skip when the previous size predicts a run past the limit. */
static void check_skip(const bench_cfg *cfg, const scale_row *rows, int nrows,
		       scale_row *r)
{
	const scale_row *p = previous(rows, nrows, r);
	if (!p)
		return;
	if (p->skip[0]) {
		snprintf(r->skip, sizeof r->skip, "skipped at %u ops already",
			 p->ops);
		return;
	}
	double g = isfinite(p->growth) && p->growth > 1 ? p->growth : 1;
	double pred = p->plan_med * pow((double)r->ops / p->ops, g);
	if (pred > cfg->limit_s)
		snprintf(r->skip, sizeof r->skip,
			 "%.3g s at %u ops grown with exponent %.2f predicts "
			 "%.3g s per run, over the %.3g s limit",
			 p->plan_med, p->ops, g, pred, cfg->limit_s);
}

static void parse_plan(scale_row *r, const bench_child *c)
{
	char buf[sizeof c->out];
	memcpy(buf, c->out, sizeof buf);
	size_t pos = 0;
	r->feasible = -1;
	for (char *l = strtok(buf, "\n"); l; l = strtok(NULL, "\n")) {
		double t, a, b;
		int f;
		char name[32];
		if (sscanf(l, "plan %lf", &t) == 1 && r->runs < MAX_RUNS)
			r->plan[r->runs++] = t;
		else if (sscanf(l, "load %lf", &t) == 1)
			r->load_s = t;
		else if (sscanf(l, "phase %31s %lf", name, &t) == 2 &&
			 pos < sizeof r->phases)
			pos += (size_t)snprintf(
				r->phases + pos, sizeof r->phases - pos,
				"%s%s=%.3f", pos ? " " : "", name, t);
		else if (sscanf(l, "rss_plan_kb %ld", &r->rss_plan_kb) == 1)
			continue;
		else if (sscanf(l, "result %lf %lf %d %lf", &a, &b, &f, &t) ==
			 4) {
			r->makespan = a;
			r->xlb = b;
			r->feasible = f;
			r->eval_s = t;
		}
	}
	double v[MAX_RUNS];
	memcpy(v, r->plan, sizeof v);
	r->plan_med = bench_median(v, r->runs);
	r->plan_min = r->runs ? v[0] : NAN;
	r->plan_max = r->runs ? v[r->runs - 1] : NAN;
	r->rss_total_kb = c->maxrss_kb;
}

/* "1.23 s", "45.6 ms" or "78 us": short times stay readable. */
static const char *fmt_secs(double t, char *buf, size_t size)
{
	if (!isfinite(t))
		snprintf(buf, size, "-");
	else if (t >= 1)
		snprintf(buf, size, "%.2f s", t);
	else if (t >= 1e-3)
		snprintf(buf, size, "%.1f ms", t * 1e3);
	else
		snprintf(buf, size, "%.0f us", t * 1e6);
	return buf;
}

static void print_header(void)
{
	printf("%8s %3s %-5s %-7s %9s %19s %9s %6s %8s %8s %12s %6s %-4s\n",
	       "ops", "K", "caps", "algo", "plan", "min - max", "plan/load",
	       "growth", "RSS MiB", "+sim MiB", "makespan ms", "xLB", "fits");
}

static void print_row(const scale_row *r)
{
	if (r->skip[0]) {
		printf("%8u %3d %-5s %-7s skipped: %s\n", r->ops, r->k,
		       caps_label(r->tight), r->algo, r->skip);
		return;
	}
	char med[16], lo[16], hi[16], mm[40], gr[16];
	snprintf(mm, sizeof mm, "%s - %s", fmt_secs(r->plan_min, lo, sizeof lo),
		 fmt_secs(r->plan_max, hi, sizeof hi));
	if (isfinite(r->growth))
		snprintf(gr, sizeof gr, "%.2f", r->growth);
	else
		snprintf(gr, sizeof gr, "-");
	printf("%8u %3d %-5s %-7s %9s %19s %9.3f %6s %8.0f %8.0f %12.1f "
	       "%6.3f %-4s\n",
	       r->ops, r->k, caps_label(r->tight), r->algo,
	       fmt_secs(r->plan_med, med, sizeof med), mm, r->ratio, gr,
	       (double)r->rss_plan_kb / 1024, (double)r->rss_total_kb / 1024,
	       r->makespan / 1000, r->xlb,
	       r->feasible > 0	  ? "yes"
	       : r->feasible == 0 ? "NO"
				  : "?");
	fflush(stdout);
}

static cJSON *row_json(const scale_row *r)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddNumberToObject(o, "ops", r->ops);
	cJSON_AddNumberToObject(o, "edges", r->edges);
	cJSON_AddNumberToObject(o, "k", r->k);
	cJSON_AddStringToObject(o, "caps", caps_label(r->tight));
	bench_json_cap(o, r->cap);
	cJSON_AddStringToObject(o, "algo", r->algo);
	if (r->skip[0]) {
		cJSON_AddStringToObject(o, "skipped", r->skip);
		return o;
	}
	cJSON_AddItemToObject(o, "plan_s",
			      cJSON_CreateDoubleArray(r->plan, r->runs));
	bench_json_num(o, "plan_median_s", r->plan_med);
	bench_json_num(o, "load_s", r->load_s);
	bench_json_num(o, "plan_over_load", r->ratio);
	bench_json_num(o, "growth", r->growth);
	cJSON_AddNumberToObject(o, "rss_plan_mib",
				(double)r->rss_plan_kb / 1024);
	cJSON_AddNumberToObject(o, "rss_with_sim_mib",
				(double)r->rss_total_kb / 1024);
	bench_json_num(o, "makespan_us", r->makespan);
	bench_json_num(o, "xlb", r->xlb);
	cJSON_AddBoolToObject(o, "feasible", r->feasible > 0);
	bench_json_num(o, "sim_detail_s", r->eval_s);
	cJSON_AddStringToObject(o, "phases", r->phases);
	return o;
}

/* The plot data: one block per (algo, K, caps) series, gnuplot's index
 * blocks (two blank lines apart), the first line a column header. The
 * load time is the first series; then every algorithm at the first K
 * without caps, and pardnn in the other configurations. */
static int write_plot_data(const bench_cfg *cfg, const size_info *si,
			   int nsizes, const scale_row *rows, int nrows)
{
	dp_afile af;
	if (bench_open_result(cfg, "scale_plot.tsv", &af) != 0)
		return -1;
	fprintf(af.f, "ops\t\"load (native JSON)\"\n");
	for (int s = 0; s < nsizes; s++)
		if (si[s].ok)
			fprintf(af.f, "%u\t%.6f\n", si[s].ops, si[s].load_med);
	for (int i = 0; i < nrows; i++) {
		const scale_row *r = &rows[i];
		if (previous(rows, nrows, r))
			continue; /* each series starts at its smallest size */
		/* every algorithm at the first K without caps; pardnn in
		 * every configuration */
		if ((r->k != rows[0].k || r->tight) &&
		    strcmp(r->algo, "pardnn") != 0)
			continue;
		fprintf(af.f, "\n\nops\t\"%s K=%d%s\"\n", r->algo, r->k,
			r->tight ? " tight" : "");
		for (int j = 0; j < nrows; j++) {
			const scale_row *q = &rows[j];
			if (q->k == r->k && q->tight == r->tight &&
			    strcmp(q->algo, r->algo) == 0 && !q->skip[0] &&
			    q->runs > 0)
				fprintf(af.f, "%u\t%.6f\n", q->ops,
					q->plan_med);
		}
	}
	return bench_commit_result(&af);
}

/* The issue-3 goals for pardnn, checked on every configuration. */
static void print_goals(const scale_row *rows, int nrows, cJSON *root)
{
	cJSON *goals = cJSON_AddArrayToObject(root, "pardnn_goals");
	printf("\npardnn against its goals (100k ops < 1 s; 1M ops < 15 s "
	       "and peak RSS < 2 GiB; near-linear growth):\n");
	for (int i = 0; i < nrows; i++) {
		const scale_row *r = &rows[i];
		if (strcmp(r->algo, "pardnn") != 0 || r->skip[0] ||
		    (r->ops != 100000 && r->ops != 1000000))
			continue;
		double lim = r->ops == 100000 ? 1.0 : 15.0;
		bool t_ok = r->plan_med < lim;
		bool m_ok = r->ops != 1000000 ||
			    (double)r->rss_plan_kb < 2.0 * 1024 * 1024;
		bool g_ok = !isfinite(r->growth) || r->growth < 1.25;
		printf("  %7u ops K=%-2d caps %-5s: %.3f s (goal < %.0f s), "
		       "RSS %.0f MiB%s, growth %.2f (goal <= 1.25): %s\n",
		       r->ops, r->k, caps_label(r->tight), r->plan_med, lim,
		       (double)r->rss_plan_kb / 1024,
		       r->ops == 1000000 ? " (goal < 2048)" : "", r->growth,
		       t_ok && m_ok && g_ok ? "met" : "MISSED");
		cJSON *o = cJSON_CreateObject();
		cJSON_AddNumberToObject(o, "ops", r->ops);
		cJSON_AddNumberToObject(o, "k", r->k);
		cJSON_AddStringToObject(o, "caps", caps_label(r->tight));
		cJSON_AddBoolToObject(o, "time_ok", t_ok);
		cJSON_AddBoolToObject(o, "rss_ok", m_ok);
		cJSON_AddBoolToObject(o, "growth_ok", g_ok);
		cJSON_AddItemToArray(goals, o);
	}
}

/* Measures one (size, K, caps, algorithm) row in a child process, unless
 * the previous size says it would run past the limit. */
static int measure_row(const bench_cfg *cfg, const scale_row *rows, int nrows,
		       scale_row *r, const char *path, int runs,
		       const size_info *si)
{
	r->ops = si->ops;
	r->edges = si->edges;
	r->cap =
		r->tight ? (int64_t)(cfg->tight * (double)si->peak1 / r->k) : 0;
	r->growth = NAN;
	check_skip(cfg, rows, nrows, r);
	if (r->skip[0])
		return 0;
	char kb[16], cb[32], rb[16];
	snprintf(kb, sizeof kb, "%d", r->k);
	snprintf(cb, sizeof cb, "%lld", (long long)r->cap);
	snprintf(rb, sizeof rb, "%d", runs);
	char *pa[] = {"plan", (char *)path, (char *)r->algo, kb, cb, rb, NULL};
	bench_child c;
	/* the limit per run, plus loading and the detailed simulation */
	double lim = cfg->limit_s * runs + 60 + 10 * si->load_med;
	if (bench_run_child(cfg, pa, lim, &c) != 0) {
		snprintf(r->skip, sizeof r->skip, "%s",
			 c.timed_out ? "killed at the time limit" : "failed");
		return -1;
	}
	parse_plan(r, &c);
	if (r->runs == 0) {
		snprintf(r->skip, sizeof r->skip, "no timing in its output");
		return -1;
	}
	r->ratio = r->plan_med / si->load_med;
	const scale_row *p = previous(rows, nrows, r);
	if (p && !p->skip[0])
		r->growth =
			bench_growth(p->ops, p->plan_med, r->ops, r->plan_med);
	return 0;
}

int bench_scale(const bench_cfg *cfg)
{
	static const uint32_t sizes_full[] = {10000, 100000, 1000000};
	static const int runs_full[] = {5, 3, 3};
	static const uint32_t sizes_quick[] = {10000, 100000};
	static const int runs_quick[] = {3, 1};
	static const int ks_full[] = {4, 16}, ks_quick[] = {4};
	const uint32_t *sizes = cfg->quick ? sizes_quick : sizes_full;
	const int *runs = cfg->quick ? runs_quick : runs_full;
	int nsizes = cfg->quick ? 2 : 3;
	const int *ks = cfg->quick ? ks_quick : ks_full;
	int nks = cfg->quick ? 1 : 2;

	printf("== scale: load and planning time, peak RSS, against graph "
	       "size ==\n");
	printf("inputs: dnnpart gen --seed 1 (native JSON); caps none or "
	       "tight = %.2f x one-device peak / K;\nlink pardnn, port "
	       "contention; each row one process: the file loaded once, the "
	       "algorithm run R times (median);\nRSS MiB = peak of load + "
	       "planning, +sim MiB = with the detailed simulation `dnnpart "
	       "plan` adds\n\n",
	       cfg->tight);
	mkdir("build", 0777);
	mkdir(cfg->graphs_dir, 0777);
	scale_row *rows = calloc(MAX_ROWS, sizeof *rows);
	size_info si[3];
	cJSON *root = bench_env_json(cfg, "scale");
	cJSON_AddNumberToObject(root, "tight_factor", cfg->tight);
	cJSON_AddNumberToObject(root, "limit_s", cfg->limit_s);
	cJSON *jsizes = cJSON_AddArrayToObject(root, "sizes");
	cJSON *jrows = cJSON_AddArrayToObject(root, "rows");
	int nrows = 0, rc = 0;
	for (int s = 0; s < nsizes && rows; s++) {
		char path[1024];
		snprintf(path, sizeof path, "%s/gen-%u.json", cfg->graphs_dir,
			 sizes[s]);
		if (measure_size(cfg, sizes[s], runs[s], path, &si[s]) != 0) {
			rc = 1;
			continue;
		}
		cJSON *js = cJSON_CreateObject();
		cJSON_AddNumberToObject(js, "ops", si[s].ops);
		cJSON_AddNumberToObject(js, "edges", si[s].edges);
		cJSON_AddNumberToObject(js, "file_mb", si[s].file_mb);
		cJSON_AddNumberToObject(js, "load_median_s", si[s].load_med);
		cJSON_AddNumberToObject(js, "load_rss_mib",
					(double)si[s].load_rss_kb / 1024);
		cJSON_AddNumberToObject(js, "one_device_peak_bytes",
					(double)si[s].peak1);
		cJSON_AddItemToArray(jsizes, js);
		print_header();
		for (int ki = 0; ki < nks; ki++)
			for (int t = 0; t < 2; t++)
				for (size_t a = 0; a < dp_algo_count(); a++) {
					if (nrows == MAX_ROWS)
						break;
					/* ilp refuses graphs this large */
					if (dp_algo_at(a)->on_request)
						continue;
					scale_row *r = &rows[nrows++];
					r->k = ks[ki];
					r->tight = t;
					r->algo = dp_algo_at(a)->name;
					if (measure_row(cfg, rows, nrows - 1, r,
							path, runs[s],
							&si[s]) != 0)
						rc = 1;
					print_row(r);
					cJSON_AddItemToArray(jrows,
							     row_json(r));
				}
		printf("\n");
	}
	if (!rows) {
		cJSON_Delete(root);
		return 1;
	}
	print_goals(rows, nrows, root);
	printf("\n");
	if (bench_write_json(cfg, "scale.json", root, true) != 0 ||
	    write_plot_data(cfg, si, nsizes, rows, nrows) != 0)
		rc = 1;
	free(rows);
	printf("\n");
	return rc;
}

/* bench_quality.c - quality against lower bounds and peers.
 *
 * Every real graph the loaders read in tests/data (msr-fiddle JSONs,
 * PipeDream graph.txt files), the ParDNN authors' pardnn-resnet folder where
 * present (--shared; it is not in the repository) and sample_graphs/,
 * for several K and cap levels (none; loose and tight = F x one-device
 * peak / K), planned by every registered algorithm and priced by the one
 * simulator (link pardnn, port contention). Per case: makespan, xLB,
 * speedup vs one device, feasibility; then per algorithm the geometric
 * mean xLB (over all cases, and over the cases where every algorithm is
 * feasible), how often it is feasible and how often it is best (shortest
 * feasible makespan; ties count for each), and the cases where pardnn
 * loses most. The ParDNN reference placements follow (bench_reference.c).
 */
#include <dirent.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "bench.h"
#include "dnnpart/load.h"
#include "dnnpart/machine.h"
#include "dnnpart/plan.h"

#define MAX_ALGOS 16
#define MAX_GRAPHS 128

/* The algorithms compared: every one but those run only on request (ilp
 * takes seconds per case by design; its own numbers are in
 * docs/algorithms.md), or with --placement only the placement algorithms
 * (those with a run function: no strategy), then best, which runs the
 * others (issue 15: best is best or tied in every case). */
static const dp_algo *q_list[MAX_ALGOS];
static size_t q_n;

static void q_fill(bool placement)
{
	if (q_n)
		return;
	size_t n;
	const dp_algo *const *c = dp_algo_compared(&n);
	for (size_t i = 0; i < n && q_n < MAX_ALGOS - 1; i++)
		if (c[i]->run || !placement)
			q_list[q_n++] = c[i];
	q_list[q_n++] = dp_algo_find("best");
}

static const dp_algo *q_at(size_t i)
{
	return i < q_n ? q_list[i] : NULL;
}

typedef bench_plan_row algo_res;

typedef struct qcase {
	const char *graph; /* display name */
	uint32_t ops;
	int k;
	const char *caps;
	int64_t cap;
	double lb, one_device;
	algo_res r[MAX_ALGOS];
	bool best[MAX_ALGOS]; /* r[a] has the shortest feasible makespan */
	bool any_feasible;
	dp_algo_origin origin; /* best's */
} qcase;

typedef struct cap_level {
	const char *name;
	double factor; /* x one-device peak / K; 0 = no cap */
} cap_level;

/* ---- finding the graphs ---- */

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool is_file(const char *p)
{
	struct stat sb;
	return stat(p, &sb) == 0 && S_ISREG(sb.st_mode);
}

static bool is_dir(const char *p)
{
	struct stat sb;
	return stat(p, &sb) == 0 && S_ISDIR(sb.st_mode);
}

/* Appends dir/NAME for each entry whose name ends in suffix (a file), or,
 * with sub, dir/NAME/sub; sorted by name. */
static void add_entries(const char *dir, const char *suffix, const char *sub,
			char **paths, int *n)
{
	DIR *d = opendir(dir);
	if (!d)
		return;
	char *found[MAX_GRAPHS];
	int nf = 0;
	struct dirent *e;
	while ((e = readdir(d)) && nf < MAX_GRAPHS) {
		if (e->d_name[0] == '.')
			continue;
		size_t ln = strlen(e->d_name), ls = strlen(suffix);
		if (ln < ls || strcmp(e->d_name + ln - ls, suffix) != 0)
			continue;
		char p[1024];
		snprintf(p, sizeof p, "%s/%s%s%s", dir, e->d_name,
			 sub ? "/" : "", sub ? sub : "");
		if (is_file(p))
			found[nf++] = strdup(p);
	}
	closedir(d);
	qsort(found, (size_t)nf, sizeof *found, cmp_str);
	for (int i = 0; i < nf; i++) {
		if (*n < MAX_GRAPHS && found[i])
			paths[(*n)++] = found[i];
		else
			free(found[i]);
	}
}

/* Every input of the quality section, in a fixed order. */
static int find_graphs(const bench_cfg *cfg, char **paths)
{
	int n = 0;
	char p[1024];
	add_entries(cfg->samples_dir, ".json", NULL, paths, &n);
	snprintf(p, sizeof p, "%s/msr-fiddle/throughput-inputs/LayerGraphs",
		 cfg->data_dir);
	add_entries(p, ".json", NULL, paths, &n);
	snprintf(p, sizeof p, "%s/msr-fiddle/throughput-inputs/OperatorGraphs",
		 cfg->data_dir);
	add_entries(p, ".json", NULL, paths, &n);
	snprintf(p, sizeof p, "%s/pipedream", cfg->data_dir);
	add_entries(p, "", "graph.txt", paths, &n);
	snprintf(p, sizeof p, "%s/pardnn-resnet", cfg->shared_dir);
	if (is_dir(p) && n < MAX_GRAPHS)
		paths[n++] = strdup(p);
	return n;
}

/* A short display name: "samples/gpt2-small", "fiddle/op/bert_l-3_training",
 * "pipedream/vgg16", "pardnn-resnet". */
static char *display_name(const char *path)
{
	char buf[256];
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	if (strstr(path, "/pipedream/")) {
		const char *m = strstr(path, "/pipedream/") + 11;
		snprintf(buf, sizeof buf, "pipedream/%.*s",
			 (int)strcspn(m, "/"), m);
	} else if (strstr(path, "LayerGraphs/")) {
		snprintf(buf, sizeof buf, "fiddle/layer/%.*s",
			 (int)(strlen(base) - 5), base);
	} else if (strstr(path, "OperatorGraphs/")) {
		snprintf(buf, sizeof buf, "fiddle/op/%.*s",
			 (int)(strlen(base) - 5), base);
	} else if (strstr(path, "pardnn-resnet")) {
		snprintf(buf, sizeof buf, "pardnn-resnet");
	} else {
		size_t l = strlen(base);
		snprintf(buf, sizeof buf, "samples/%.*s",
			 (int)(l > 5 && !strcmp(base + l - 5, ".json") ? l - 5
								       : l),
			 base);
	}
	return strdup(buf);
}

/* ---- running the cases ---- */

/* dp_plan_run_all's after hook: one algorithm's numbers into the case. */
static void keep_result(void *ud, size_t a, dp_run_result *rr)
{
	qcase *c = ud;
	if (rr->status != DP_OK) {
		fprintf(stderr, "bench: %s on %s: %s\n", rr->algo->name,
			c->graph, rr->msg);
		return;
	}
	const dp_plan *p = &rr->plan;
	bench_plan_row_fill(&c->r[a], p);
	if (p->origin.has_origin)
		c->origin = p->origin;
	c->any_feasible |= p->feasible;
	dp_plan_free(&rr->plan);
}

static void run_case(const dp_graph *g, int64_t peak1, const cap_level *cl,
		     qcase *c)
{
	dp_machine m;
	dp_err err;
	if (dp_machine_init(&m, c->k, &err) != DP_OK)
		return;
	c->cap = 0;
	if (cl->factor > 0) {
		c->cap = (int64_t)(cl->factor * (double)peak1 / c->k);
		if (c->cap < 1)
			c->cap = 1;
		for (int d = 0; d < c->k; d++)
			m.cap[d] = c->cap;
	}
	dp_bounds b;
	dp_sim_bounds(g, &m, &b);
	c->lb = b.lb_us;
	c->one_device = b.one_device_us;
	size_t na = q_n; /* at most MAX_ALGOS (q_fill) */
	dp_run_hooks hooks = {NULL, keep_result, c};
	dp_plan_run_all(g, &m, q_list, na, NULL, NULL, &hooks);
	dp_machine_free(&m);
	/* best: the shortest feasible makespan; ties (within 1e-9) all count */
	double best = INFINITY;
	for (size_t a = 0; a < q_n; a++)
		if (c->r[a].ok && c->r[a].feasible && c->r[a].makespan < best)
			best = c->r[a].makespan;
	for (size_t a = 0; a < q_n; a++)
		c->best[a] = c->r[a].ok && c->r[a].feasible &&
			     c->r[a].makespan <= best * (1 + 1e-9);
}

static void print_case_header(void)
{
	printf("%-34s %6s %3s %-5s %9s", "graph", "ops", "K", "caps", "LB ms");
	for (size_t a = 0; a < q_n; a++)
		printf(" %7s", q_at(a)->name);
	printf("\n");
}

static void print_case(const qcase *c)
{
	printf("%-34.34s %6u %3d %-5s %9.1f", c->graph, c->ops, c->k, c->caps,
	       c->lb / 1000);
	for (size_t a = 0; a < q_n; a++) {
		const algo_res *r = &c->r[a];
		if (!r->ok)
			printf(" %7s", "error");
		else
			printf(" %6.3f%c", r->xlb,
			       c->best[a]     ? '*'
			       : !r->feasible ? '!'
					      : ' ');
	}
	printf("\n");
	fflush(stdout);
}

static cJSON *case_json(const qcase *c)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "graph", c->graph);
	cJSON_AddNumberToObject(o, "ops", c->ops);
	cJSON_AddNumberToObject(o, "k", c->k);
	cJSON_AddStringToObject(o, "caps", c->caps);
	bench_json_cap(o, c->cap);
	bench_json_round(o, "lb_us", c->lb, 1e-3);
	bench_json_round(o, "one_device_us", c->one_device, 1e-3);
	cJSON *rs = cJSON_AddArrayToObject(o, "results");
	for (size_t a = 0; a < q_n; a++) {
		const algo_res *r = &c->r[a];
		cJSON *j = cJSON_CreateObject();
		cJSON_AddStringToObject(j, "algo", q_at(a)->name);
		cJSON_AddBoolToObject(j, "ok", r->ok);
		if (r->ok) {
			bench_json_round(j, "makespan_us", r->makespan, 1e-3);
			bench_json_round(j, "xlb", r->xlb, 1e-6);
			bench_json_round(j, "speedup", r->speedup, 1e-6);
			cJSON_AddBoolToObject(j, "feasible", r->feasible);
			cJSON_AddBoolToObject(j, "best", c->best[a]);
			bench_json_round(j, "plan_ms", r->plan_ms, 1e-3);
		}
		cJSON_AddItemToArray(rs, j);
	}
	return o;
}

/* ---- the summary ---- */

typedef struct algo_sum {
	int cases, feasible, best, common;
	double gm_xlb, gm_feasible, gm_common, gm_speedup, worst_xlb;
} algo_sum;

/* Geometric means over the cases selected by caps (NULL = all). */
static void summarize(const qcase *cs, int nc, const char *caps, algo_sum *sum)
{
	size_t na = q_n; /* at most MAX_ALGOS (q_fill) */
	double *x = malloc((size_t)(nc ? nc : 1) * sizeof *x);
	double *y = malloc((size_t)(nc ? nc : 1) * sizeof *y);
	double *z = malloc((size_t)(nc ? nc : 1) * sizeof *z);
	double *f = malloc((size_t)(nc ? nc : 1) * sizeof *f);
	for (size_t a = 0; a < na && x && y && z && f; a++) {
		algo_sum *s = &sum[a];
		memset(s, 0, sizeof *s);
		int nx = 0, nz = 0, nf = 0;
		for (int i = 0; i < nc; i++) {
			const qcase *c = &cs[i];
			if (caps && strcmp(c->caps, caps) != 0)
				continue;
			const algo_res *r = &c->r[a];
			if (!r->ok || !(r->xlb > 0))
				continue;
			s->cases++;
			s->feasible += r->feasible;
			s->best += c->best[a];
			if (r->feasible)
				f[nf++] = r->xlb;
			x[nx] = r->xlb;
			y[nx++] = r->speedup > 0 ? r->speedup : 1e-9;
			if (r->xlb > s->worst_xlb)
				s->worst_xlb = r->xlb;
			/* common: every placement algorithm and best
			 * feasible (the strategies left out: dp and zero
			 * fit in few cases) */
			bool all = true;
			for (size_t b = 0; b < na; b++)
				all &= !q_at(b)->run ||
				       (c->r[b].ok && c->r[b].feasible);
			if (all)
				z[nz++] = r->xlb;
		}
		s->common = nz;
		s->gm_xlb = bench_geomean(x, nx);
		s->gm_feasible = bench_geomean(f, nf);
		s->gm_speedup = bench_geomean(y, nx);
		s->gm_common = bench_geomean(z, nz);
	}
	free(x);
	free(y);
	free(z);
	free(f);
}

/* %.4f, or "-" when there is nothing to average. */
static const char *fmt4(double v, char buf[16])
{
	if (isfinite(v))
		snprintf(buf, 16, "%.4f", v);
	else
		snprintf(buf, 16, "-");
	return buf;
}

static void print_summary(const char *title, const algo_sum *sum)
{
	printf("\n%s\n", title);
	printf("%-8s %6s %9s %6s %10s %10s %10s %8s %9s\n", "algo", "cases",
	       "feasible", "best", "gmean xLB", "feasible", "common pl.",
	       "(cases)", "gmean spd");
	for (size_t a = 0; a < q_n; a++) {
		const algo_sum *s = &sum[a];
		char g1[16], g2[16], g3[16];
		printf("%-8s %6d %9d %6d %10s %10s %10s %8d %9.3f\n",
		       q_at(a)->name, s->cases, s->feasible, s->best,
		       fmt4(s->gm_xlb, g1), fmt4(s->gm_feasible, g2),
		       fmt4(s->gm_common, g3), s->common, s->gm_speedup);
	}
}

static cJSON *summary_json(const char *caps, const algo_sum *sum)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "caps", caps ? caps : "all");
	cJSON *arr = cJSON_AddArrayToObject(o, "algorithms");
	for (size_t a = 0; a < q_n; a++) {
		const algo_sum *s = &sum[a];
		cJSON *j = cJSON_CreateObject();
		cJSON_AddStringToObject(j, "algo", q_at(a)->name);
		cJSON_AddNumberToObject(j, "cases", s->cases);
		cJSON_AddNumberToObject(j, "feasible", s->feasible);
		cJSON_AddNumberToObject(j, "best", s->best);
		bench_json_num(j, "geomean_xlb", s->gm_xlb);
		bench_json_num(j, "geomean_xlb_own_feasible_cases",
			       s->gm_feasible);
		bench_json_num(j, "geomean_xlb_all_feasible_cases",
			       s->gm_common);
		cJSON_AddNumberToObject(j, "all_feasible_cases", s->common);
		bench_json_num(j, "geomean_speedup", s->gm_speedup);
		bench_json_num(j, "worst_xlb", s->worst_xlb);
		cJSON_AddItemToArray(arr, j);
	}
	return o;
}

/* Where pardnn (registry entry 0 when it is the default) loses: its
 * makespan against the best feasible one, the largest gaps first. */
static void print_losses(const qcase *cs, int nc, cJSON *root)
{
	const dp_algo *pd = dp_algo_find("pardnn");
	if (!pd)
		return;
	size_t ia = 0;
	while (q_at(ia) != pd)
		ia++;
	typedef struct loss {
		int i;
		double gap;
	} loss;
	loss *ls = malloc((size_t)(nc ? nc : 1) * sizeof *ls);
	if (!ls)
		return;
	int nl = 0, infeas = 0;
	for (int i = 0; i < nc; i++) {
		const qcase *c = &cs[i];
		const algo_res *r = &c->r[ia];
		if (!c->any_feasible || !r->ok || c->best[ia])
			continue;
		if (!r->feasible) {
			infeas++;
			ls[nl].gap = INFINITY;
		} else {
			double best = INFINITY;
			for (size_t a = 0; a < q_n; a++)
				if (c->best[a])
					best = c->r[a].makespan;
			ls[nl].gap = r->makespan / best - 1;
		}
		ls[nl++].i = i;
	}
	/* largest gap first (insertion sort: a few hundred cases at most) */
	for (int i = 1; i < nl; i++)
		for (int j = i; j > 0 && ls[j].gap > ls[j - 1].gap; j--) {
			loss t = ls[j];
			ls[j] = ls[j - 1];
			ls[j - 1] = t;
		}
	printf("\nwhere pardnn loses: %d of %d cases with a feasible plan "
	       "(%d of them infeasible for pardnn only); the largest gaps:\n",
	       nl, nc, infeas);
	cJSON *arr = cJSON_AddArrayToObject(root, "pardnn_losses");
	for (int j = 0; j < nl; j++) {
		const qcase *c = &cs[ls[j].i];
		char winners[128] = "";
		size_t pos = 0;
		for (size_t a = 0; a < q_n; a++)
			if (c->best[a] && pos < sizeof winners)
				pos += (size_t)snprintf(
					winners + pos, sizeof winners - pos,
					"%s%s", pos ? "," : "", q_at(a)->name);
		cJSON *o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "graph", c->graph);
		cJSON_AddNumberToObject(o, "k", c->k);
		cJSON_AddStringToObject(o, "caps", c->caps);
		bench_json_num(o, "gap", ls[j].gap);
		cJSON_AddStringToObject(o, "best", winners);
		cJSON_AddItemToArray(arr, o);
		if (j >= 12)
			continue;
		if (isfinite(ls[j].gap))
			printf("  %-34s K=%-2d caps %-5s pardnn %+6.1f %% "
			       "slower than %s\n",
			       c->graph, c->k, c->caps, 100 * ls[j].gap,
			       winners);
		else
			printf("  %-34s K=%-2d caps %-5s pardnn over a cap; "
			       "feasible: %s best\n",
			       c->graph, c->k, c->caps, winners);
	}
	free(ls);
}

/* The placement algorithms ahead of best in case c (feasible, and faster or
 * best over a cap) into buf, "name (+gap %)" each; how many. */
static int peers_ahead(const qcase *c, char *buf, size_t size)
{
	size_t ib = q_n - 1, pos = 0;
	const algo_res *rb = &c->r[ib];
	int n = 0;
	buf[0] = '\0';
	for (size_t a = 0; a < ib && pos < size; a++) {
		const algo_res *r = &c->r[a];
		if (!q_at(a)->run || !r->ok || !r->feasible ||
		    (rb->ok && rb->feasible &&
		     rb->makespan <= r->makespan * (1 + 1e-9)))
			continue;
		n++;
		if (rb->ok && rb->feasible)
			pos += (size_t)snprintf(
				buf + pos, size - pos, "%s%s (best %+.2f %%)",
				pos ? ", " : "", q_at(a)->name,
				100 * (rb->makespan / r->makespan - 1));
		else
			pos += (size_t)snprintf(buf + pos, size - pos,
						"%s%s (fits)", pos ? ", " : "",
						q_at(a)->name);
	}
	return n;
}

/* best against the placement algorithms (a strategy splits ops or
 * micro-batches, which best does not): in how many of the cases where one
 * of them is feasible it is best or tied, and every case where it is not,
 * with the algorithms ahead and the runs best made and skipped. */
static void print_best_losses(const qcase *cs, int nc, cJSON *root)
{
	size_t ib = q_n - 1, best_ok = 0, best_cases = 0;
	cJSON *arr = cJSON_AddArrayToObject(root, "best_losses");
	char ahead[512];
	for (int i = 0; i < nc; i++) {
		const qcase *c = &cs[i];
		bool any = false;
		for (size_t a = 0; a < ib; a++)
			any |= q_at(a)->run && c->r[a].ok && c->r[a].feasible;
		if (!any)
			continue;
		best_cases++;
		if (peers_ahead(c, ahead, sizeof ahead) == 0) {
			best_ok++;
			continue;
		}
		printf("  best behind: %-34s K=%-2d caps %-5s %s; best made %u "
		       "runs, skipped %u\n",
		       c->graph, c->k, c->caps, ahead, c->origin.ran,
		       c->origin.skipped);
		cJSON *o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "graph", c->graph);
		cJSON_AddNumberToObject(o, "k", c->k);
		cJSON_AddStringToObject(o, "caps", c->caps);
		cJSON_AddStringToObject(o, "ahead", ahead);
		cJSON_AddNumberToObject(o, "best_runs", c->origin.ran);
		cJSON_AddNumberToObject(o, "best_skipped", c->origin.skipped);
		cJSON_AddItemToArray(arr, o);
	}
	printf("\nbest is best or tied among the placement algorithms in "
	       "%zu of the %zu cases\nwhere one of them is feasible\n",
	       best_ok, best_cases);
	cJSON_AddNumberToObject(root, "best_best_or_tied", (double)best_ok);
	cJSON_AddNumberToObject(root, "best_cases", (double)best_cases);
}

/* Plot data: geometric mean xLB per algorithm (rows) for each K without
 * caps (columns), and the share of feasible plans under each cap level. */
static int write_plot_data(const bench_cfg *cfg, const qcase *cs, int nc,
			   const int *ks, int nks, const cap_level *cl, int ncl)
{
	dp_afile af;
	if (bench_open_result(cfg,
			      cfg->placement ? "quality-placement_plot.tsv"
					     : "quality_plot.tsv",
			      &af) != 0)
		return -1;
	fprintf(af.f, "algo");
	for (int k = 0; k < nks; k++)
		fprintf(af.f, "\t\"K=%d\"", ks[k]);
	fprintf(af.f, "\n");
	size_t na = q_n; /* at most MAX_ALGOS (q_fill) */
	double *x = malloc((size_t)(nc ? nc : 1) * sizeof *x);
	for (size_t a = 0; a < na && x; a++) {
		fprintf(af.f, "%s", q_at(a)->name);
		for (int k = 0; k < nks; k++) {
			int n = 0;
			for (int i = 0; i < nc; i++)
				if (cs[i].k == ks[k] && cs[i].cap == 0 &&
				    cs[i].r[a].ok && cs[i].r[a].xlb > 0)
					x[n++] = cs[i].r[a].xlb;
			fprintf(af.f, "\t%.6f", bench_geomean(x, n));
		}
		fprintf(af.f, "\n");
	}
	/* second block: percent feasible per cap level */
	fprintf(af.f, "\n\nalgo");
	for (int l = 0; l < ncl; l++)
		fprintf(af.f, "\t\"caps %s\"", cl[l].name);
	fprintf(af.f, "\n");
	for (size_t a = 0; a < na; a++) {
		fprintf(af.f, "%s", q_at(a)->name);
		for (int l = 0; l < ncl; l++) {
			int n = 0, f = 0;
			for (int i = 0; i < nc; i++)
				if (strcmp(cs[i].caps, cl[l].name) == 0) {
					n++;
					f += cs[i].r[a].ok &&
					     cs[i].r[a].feasible;
				}
			fprintf(af.f, "\t%.2f", n ? 100.0 * f / n : 0.0);
		}
		fprintf(af.f, "\n");
	}
	free(x);
	return bench_commit_result(&af);
}

int bench_quality(const bench_cfg *cfg)
{
	q_fill(cfg->placement);
	static const int ks_full[] = {2, 4, 8, 16}, ks_quick[] = {4, 8};
	const int *ks = cfg->quick ? ks_quick : ks_full;
	int nks = cfg->quick ? 2 : 4;
	cap_level cl[3] = {{"none", 0}, {"loose", 1.5}, {"tight", cfg->tight}};
	const cap_level *caps = cl;
	int ncaps = 3;

	char *paths[MAX_GRAPHS];
	int np = find_graphs(cfg, paths);
	if (np == 0) {
		fprintf(stderr, "bench: quality: no graphs found in %s or %s\n",
			cfg->samples_dir, cfg->data_dir);
		return 1;
	}
	char resnet[1024];
	snprintf(resnet, sizeof resnet, "%s/pardnn-resnet", cfg->shared_dir);
	if (!is_dir(resnet))
		printf("(%s not present: without the ParDNN ResNet)\n", resnet);
	printf("== quality: makespan against the lower bound and the peers "
	       "==\n");
	printf("%d graphs (sample_graphs/ and %s); K in {", np,
	       cfg->data_dir);
	for (int k = 0; k < nks; k++)
		printf("%s%d", k ? ", " : "", ks[k]);
	printf("}; caps: none");
	for (int l = 1; l < ncaps; l++)
		printf(", %s = %.2f x one-device peak / K", caps[l].name,
		       caps[l].factor);
	printf(";\nlink pardnn, port contention. Cells: xLB = makespan / "
	       "max(critical path, work / K);\n* best feasible makespan, ! "
	       "over a cap\n\n");
	int maxc = np * nks * ncaps;
	qcase *cs = calloc((size_t)(maxc ? maxc : 1), sizeof *cs);
	cJSON *root = bench_env_json(cfg, "quality");
	cJSON_AddBoolToObject(root, "placement_only", cfg->placement);
	cJSON *jcases = cJSON_AddArrayToObject(root, "cases");
	int nc = 0, rc = 0;
	double t0 = bench_now();
	print_case_header();
	for (int i = 0; i < np && cs; i++) {
		dp_graph *g = NULL;
		dp_err err;
		dp_err_clear(&err);
		char *name = display_name(paths[i]);
		if (dp_graph_load(paths[i], DP_FMT_AUTO, &g, &err) != DP_OK) {
			char msg[1200];
			fprintf(stderr, "bench: %s\n",
				dp_err_format(&err, msg, sizeof msg));
			free(name);
			rc = 1;
			continue;
		}
		int64_t peak1 = bench_one_device_peak(g);
		for (int k = 0; k < nks; k++)
			for (int l = 0; l < ncaps; l++) {
				if (caps[l].factor > 0 && peak1 <= 0)
					continue;
				qcase *c = &cs[nc++];
				c->graph = name;
				c->ops = g->nops;
				c->k = ks[k];
				c->caps = caps[l].name;
				run_case(g, peak1, &caps[l], c);
				print_case(c);
				cJSON_AddItemToArray(jcases, case_json(c));
			}
		dp_graph_free(g);
	}
	printf("(%d cases in %.0f s)\n", nc, bench_now() - t0);
	algo_sum sum[MAX_ALGOS];
	cJSON *jsum = cJSON_AddArrayToObject(root, "summary");
	summarize(cs, nc, NULL, sum);
	print_summary("per algorithm, all cases; geometric mean xLB over all "
		      "its cases, over the ones where it\nis feasible, and "
		      "over the common ones where every placement algorithm "
		      "and best are\nfeasible (\"common pl.\"; the "
		      "strategies are left out of that set); speedup vs one "
		      "device:",
		      sum);
	cJSON_AddItemToArray(jsum, summary_json(NULL, sum));
	for (int l = 0; l < ncaps; l++) {
		char title[128];
		snprintf(title, sizeof title,
			 "per algorithm, caps %s:", caps[l].name);
		summarize(cs, nc, caps[l].name, sum);
		print_summary(title, sum);
		cJSON_AddItemToArray(jsum, summary_json(caps[l].name, sum));
	}
	print_losses(cs, nc, root);
	print_best_losses(cs, nc, root);
	printf("\n");
	rc |= bench_reference(cfg, root);
	if (bench_write_json(cfg,
			     cfg->placement ? "quality-placement.json"
					    : "quality.json",
			     root, false) != 0 ||
	    write_plot_data(cfg, cs, nc, ks, nks, caps, ncaps) != 0)
		rc = 1;
	printf("\n");
	for (int i = 0, last = -1; i < nc; i++)
		if (i == 0 || cs[i].graph != cs[last].graph) {
			free((char *)cs[i].graph);
			last = i;
		}
	free(cs);
	for (int i = 0; i < np; i++)
		free(paths[i]);
	return rc;
}

/* bench_reference.c - the ParDNN authors' placements beside ours.
 *
 * The .place files in ../shared/benchmarks/pardnn-resnet/reference (the
 * folder --shared names; it states no licence, so it is not in the
 * repository, and the section says "none found: skipped" without it) are
 * the placements the reference implementations (C++ and Python) made for
 * the ResNet graph of that folder at K = 4. They are priced by our simulator (dp_plan_evaluate;
 * ops a file leaves out go to their heaviest placed neighbour's device, as
 * `dnnpart eval` does) beside our pardnn (with and without its polish
 * phase) and the one-device plan, at K = 4, link pardnn (the reference's
 * 130 GB/s, 25 us), no cap, in both contention models: `none` is the
 * reference's own assumption, `port` is our default.
 */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "dnnpart/load.h"
#include "dnnpart/machine.h"
#include "dnnpart/placement.h"
#include "dnnpart/plan.h"

#define MAX_REFS 8

typedef struct ref_row {
	char name[64];
	bench_plan_row p;
	uint32_t omitted;
} ref_row;

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The .place files of dir/reference, sorted. */
static int find_refs(const char *dir, char **names)
{
	char p[1100];
	snprintf(p, sizeof p, "%s/reference", dir);
	DIR *d = opendir(p);
	if (!d)
		return 0;
	int n = 0;
	struct dirent *e;
	while ((e = readdir(d)) && n < MAX_REFS) {
		size_t l = strlen(e->d_name);
		if (l > 6 && strcmp(e->d_name + l - 6, ".place") == 0)
			names[n++] = strdup(e->d_name);
	}
	closedir(d);
	qsort(names, (size_t)n, sizeof *names, cmp_str);
	return n;
}

/* Our pardnn with contention c (and polish on or off) into r. */
static void run_ours(const dp_graph *g, const dp_machine *m, dp_contention c,
		     bool polish, ref_row *r)
{
	dp_algo_opts o;
	dp_algo_opts_default(&o);
	o.contention = c;
	o.polish = polish;
	snprintf(r->name, sizeof r->name, "pardnn%s (dnnpart)",
		 polish ? "" : " --no-polish");
	dp_plan p;
	memset(&p, 0, sizeof p);
	dp_err err;
	if (dp_plan_run(g, m, dp_algo_find("pardnn"), &o, NULL, &p, &err) ==
	    DP_OK)
		bench_plan_row_fill(&r->p, &p);
	dp_plan_free(&p);
}

static void run_eval(const dp_graph *g, const dp_machine *m, dp_contention c,
		     const char *dir, const char *file, ref_row *r)
{
	snprintf(r->name, sizeof r->name, "reference %.50s", file);
	char path[1200];
	snprintf(path, sizeof path, "%s/reference/%s", dir, file);
	int32_t *pl = calloc(g->nops ? g->nops : 1, sizeof *pl);
	dp_placement_info info;
	memset(&info, 0, sizeof info);
	dp_err err;
	dp_plan p;
	memset(&p, 0, sizeof p);
	char msg[1200];
	if (!pl) {
		fprintf(stderr, "bench: out of memory\n");
	} else if (dp_placement_read(path, g, pl, &info, &err) != DP_OK ||
		   dp_plan_evaluate(g, m, pl, c, &p, &err) != DP_OK) {
		fprintf(stderr, "bench: %s\n",
			dp_err_format(&err, msg, sizeof msg));
	} else {
		bench_plan_row_fill(&r->p, &p);
		r->omitted = info.omitted + info.cpu_pinned;
	}
	dp_plan_free(&p);
	free(pl);
}

static void run_single(const dp_graph *g, const dp_machine *m, dp_contention c,
		       ref_row *r)
{
	snprintf(r->name, sizeof r->name, "one device");
	int32_t *pl = calloc(g->nops ? g->nops : 1, sizeof *pl);
	dp_plan p;
	memset(&p, 0, sizeof p);
	dp_err err;
	if (pl && dp_plan_evaluate(g, m, pl, c, &p, &err) == DP_OK)
		bench_plan_row_fill(&r->p, &p);
	dp_plan_free(&p);
	free(pl);
}

int bench_reference(const bench_cfg *cfg, cJSON *root)
{
	char dir[1024];
	snprintf(dir, sizeof dir, "%s/pardnn-resnet", cfg->shared_dir);
	char *refs[MAX_REFS];
	int nrefs = find_refs(dir, refs);
	printf("ParDNN reference placements (%s/reference) at K=4, link "
	       "pardnn, no cap:\n",
	       dir);
	if (nrefs == 0) {
		printf("  none found: skipped\n");
		return 0;
	}
	dp_graph *g = NULL;
	dp_err err;
	dp_machine m;
	if (dp_graph_load(dir, DP_FMT_AUTO, &g, &err) != DP_OK ||
	    dp_machine_init(&m, 4, &err) != DP_OK) {
		char msg[1200];
		fprintf(stderr, "bench: %s\n",
			dp_err_format(&err, msg, sizeof msg));
		dp_graph_free(g);
		for (int i = 0; i < nrefs; i++)
			free(refs[i]);
		return 1;
	}
	dp_machine_set_link(&m, "pardnn", &err);
	cJSON *arr = cJSON_AddArrayToObject(root, "reference");
	printf("  %-10s %-34s %12s %7s %8s %9s\n", "contention", "placement",
	       "makespan ms", "xLB", "speedup", "plan ms");
	static const dp_contention cs[] = {DP_CONT_NONE, DP_CONT_PORT};
	int rc = 0;
	for (int ci = 0; ci < 2; ci++) {
		ref_row rows[MAX_REFS + 3];
		memset(rows, 0, sizeof rows);
		int n = 0;
		run_ours(g, &m, cs[ci], true, &rows[n++]);
		run_ours(g, &m, cs[ci], false, &rows[n++]);
		for (int i = 0; i < nrefs; i++)
			run_eval(g, &m, cs[ci], dir, refs[i], &rows[n++]);
		run_single(g, &m, cs[ci], &rows[n++]);
		for (int i = 0; i < n; i++) {
			const ref_row *r = &rows[i];
			cJSON *o = cJSON_CreateObject();
			cJSON_AddStringToObject(o, "contention",
						dp_sim_contention_name(cs[ci]));
			cJSON_AddStringToObject(o, "placement", r->name);
			cJSON_AddBoolToObject(o, "ok", r->p.ok);
			if (!r->p.ok) {
				rc = 1;
				printf("  %-10s %-34s failed\n",
				       dp_sim_contention_name(cs[ci]), r->name);
				cJSON_AddItemToArray(arr, o);
				continue;
			}
			bench_json_num(o, "makespan_us", r->p.makespan);
			bench_json_num(o, "xlb", r->p.xlb);
			bench_json_num(o, "speedup", r->p.speedup);
			cJSON_AddBoolToObject(o, "feasible", r->p.feasible);
			bench_json_num(o, "plan_ms", r->p.plan_ms);
			cJSON_AddNumberToObject(o, "omitted_ops", r->omitted);
			cJSON_AddItemToArray(arr, o);
			printf("  %-10s %-34s %12.3f %7.4f %8.3f %9.1f",
			       dp_sim_contention_name(cs[ci]), r->name,
			       r->p.makespan / 1000, r->p.xlb, r->p.speedup,
			       r->p.plan_ms);
			if (r->omitted)
				printf("  (%u ops not in the file: placed by "
				       "their neighbours)",
				       r->omitted);
			printf("\n");
		}
	}
	dp_machine_free(&m);
	dp_graph_free(g);
	for (int i = 0; i < nrefs; i++)
		free(refs[i]);
	return rc;
}

/* cmd_fit_levers.c - `dnnpart fit GRAPH --levers SETS`: the K search of
 * fit (dp_fit_run) once per lever set (docs/memory.md), a table of the
 * candidates and the answer: the smallest K, then the shortest step, over
 * the sets; -o writes that plan (the sets' graph at that K, rerun). */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_progress.h"
#include "dnnpart/fit.h"
#include "dnnpart/json.h"
#include "dnnpart/placement.h"
#include "dnnpart/units.h"

#define MAX_SETS 32

typedef struct fit_cand {
	char name[64];
	dp_levers lv;
	bool found;
	int k;
	double makespan;
	size_t probes;
} fit_cand;

/* o with the levers of lv, as the command line would give them. */
static cli_opts with_levers(const cli_opts *o, const dp_levers *lv)
{
	cli_opts one = *o;
	one.precision = dp_precision_name(lv->precision);
	one.recompute = dp_recompute_name(lv->recompute);
	one.fuse = dp_fuse_name(lv->fuse);
	one.offload = dp_offload_name(lv->offload);
	return one;
}

/* The K search of fo on g and m into c. */
static dp_status fit_search(const dp_graph *g, const dp_machine *m,
			    const dp_algo *algo, const dp_fit_opts *fo,
			    cli_run *run, fit_cand *c)
{
	dp_fit_result r;
	dp_status st = dp_fit_run(g, m, algo, &run->ao, fo, &run->cp.p, &r,
				  &run->err);
	if (!st) {
		c->found = r.found;
		c->k = r.found ? r.k : 0;
		c->makespan = r.found ? r.makespan : 0;
		c->probes = r.nprobes;
		dp_fit_result_free(&r);
	}
	return st;
}

/* The plan of algo on g and m, written to path. */
static dp_status plan_save(const dp_graph *g, const dp_machine *m,
			   const dp_algo *algo, cli_run *run, const char *path,
			   bool force)
{
	dp_plan plan;
	dp_status st =
		dp_plan_run(g, m, algo, &run->ao, &run->cp.p, &plan, &run->err);
	if (st)
		return st;
	st = plan.strat ? dp_strategy_write(path, g, plan.strat, force,
					    &run->err)
			: dp_placement_write_json(path, g, &plan, &run->err);
	dp_plan_free(&plan);
	return st;
}

/* One lever set c: the K search of fo, or without fo the plan at c's K
 * written to o->out. */
static int run_set(const cli_opts *o, const dp_algo *algo,
		   const dp_fit_opts *fo, fit_cand *c)
{
	cli_opts one = with_levers(o, &c->lv);
	if (!fo)
		one.k = c->k;
	dp_graph *g;
	dp_machine m;
	int rc = cli_load_graph_machine(&one, &g, &m);
	if (rc)
		return rc;
	cli_run run;
	cli_run_begin(&run, &one, fo ? "fitting" : "planning");
	rc = cli_run_end(&run, fo ? fit_search(g, &m, algo, fo, &run, c)
				  : plan_save(g, &m, algo, &run, o->out,
					      o->force));
	dp_machine_free(&m);
	dp_graph_free(g);
	return rc;
}

static void print_table(const cli_opts *o, const fit_cand *c, int n,
			int best)
{
	char t[32];
	printf("fit          smallest K for each lever set, then the "
	       "shortest step\ngraph        %s\n\n",
	       o->graph_path);
	printf("  levers                        K     makespan  probes\n");
	for (int i = 0; i < n; i++) {
		if (c[i].found)
			printf("%c %-28s %3d  %11s  %6zu\n",
			       i == best ? '*' : ' ', c[i].name, c[i].k,
			       dp_units_fmt_time(c[i].makespan, t, sizeof t),
			       c[i].probes);
		else
			printf("  %-28s   -  %11s  %6zu  no K tried fits\n",
			       c[i].name, "-", c[i].probes);
	}
	printf("\n");
	if (best < 0) {
		printf("answer       no lever set fits with any K tried\n");
		return;
	}
	printf("answer       %s fits with %d device%s (makespan %s)\n",
	       c[best].name, c[best].k, c[best].k == 1 ? "" : "s",
	       dp_units_fmt_time(c[best].makespan, t, sizeof t));
}

static void print_json(const cli_opts *o, const dp_algo *algo,
		       const fit_cand *c, int n, int best)
{
	dp_json w;
	dp_json_init(&w, stdout);
	dp_json_begin_object(&w, NULL);
	dp_json_str(&w, "source", o->graph_path);
	dp_json_str(&w, "algorithm", algo->name);
	dp_json_str(&w, "search", "k");
	dp_json_begin_array(&w, "candidates");
	for (int i = 0; i < n; i++) {
		dp_json_begin_line(&w, NULL);
		dp_json_str(&w, "levers", c[i].name);
		dp_json_bool(&w, "found", c[i].found);
		if (c[i].found) {
			dp_json_int(&w, "k", c[i].k);
			dp_json_num(&w, "makespan_us", c[i].makespan);
		} else {
			dp_json_null(&w, "k");
		}
		dp_json_end_object(&w);
	}
	dp_json_end_array(&w);
	dp_json_bool(&w, "found", best >= 0);
	if (best >= 0) {
		dp_json_int(&w, "k", c[best].k);
		dp_json_str(&w, "levers", c[best].name);
		dp_json_num(&w, "makespan_us", c[best].makespan);
	} else {
		dp_json_null(&w, "k");
	}
	dp_json_end_object(&w);
	fputc('\n', stdout);
}

int cli_fit_levers(const cli_opts *o, const dp_algo *algo,
		   const dp_fit_opts *fo)
{
	fit_cand c[MAX_SETS];
	char sets[1024];
	int n = 0, best = -1, rc = 0;
	if (o->out) {
		cli_out_rule rule = {{o->graph_path, NULL}, o->force};
		if ((rc = cli_check_output(o->out, &rule)))
			return rc;
	}
	snprintf(sets, sizeof sets, "%s", o->levers);
	for (char *save = NULL, *t = strtok_r(sets, ",", &save);
	     t && n < MAX_SETS; t = strtok_r(NULL, ",", &save), n++) {
		dp_err err;
		memset(&c[n], 0, sizeof c[n]);
		dp_levers_parse_set(t, &c[n].lv, &err); /* checked */
		dp_levers_set_name(&c[n].lv, c[n].name, sizeof c[n].name);
		if ((rc = run_set(o, algo, fo, &c[n])))
			return rc;
		if (c[n].found &&
		    (best < 0 || c[n].k < c[best].k ||
		     (c[n].k == c[best].k && c[n].makespan < c[best].makespan)))
			best = n;
	}
	if (o->json)
		print_json(o, algo, c, n, best);
	else
		print_table(o, c, n, best);
	if (best >= 0 && o->out && (rc = run_set(o, algo, NULL, &c[best])))
		return rc;
	if (best >= 0 && o->out && !o->json)
		printf("\n%s written to %s; check it with\n  dnnpart eval "
		       "--strict %s %s --precision %s --recompute %s "
		       "--fuse %s\n",
		       "plan", o->out, o->graph_path, o->out,
		       dp_precision_name(c[best].lv.precision),
		       dp_recompute_name(c[best].lv.recompute),
		       dp_fuse_name(c[best].lv.fuse));
	return o->strict && best < 0 ? 1 : 0;
}

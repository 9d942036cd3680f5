/* cmd_compare.c - `dnnpart compare GRAPH`: every algorithm (or those given
 * with --algos) on the same graph, machine and simulator, one row each:
 * makespan, x lower bound, speedup vs one device, feasibility, the largest
 * peak / cap, cross-device bytes, cut edges and planning time. The best
 * feasible row (shortest makespan, first on ties) is marked with '*'.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_progress.h"
#include "dnnpart/units.h"

void cmd_compare_help(FILE *out)
{
	fprintf(out,
		"usage: dnnpart compare GRAPH [-k K] [--mem CAPS] "
		"[--algos A,B,...] [--json]\n"
		"                       [--link PRESET | --bw BW --lat LAT] "
		"[--contention port|none]\n"
		"                       [--no-polish] [--time-limit S] "
		"[--budget S] [--check-k] [--strict]\n"
		"\n"
		"Runs every registered algorithm (or the ones listed) on GRAPH "
		"and one machine,\n"
		"simulates each placement with the same cost model and prints "
		"one row per\n"
		"algorithm:\n"
		"  makespan   simulated time of one training step\n"
		"  xLB        makespan / lower bound (max of the graph's "
		"critical path and\n"
		"             total work / sum of device speeds)\n"
		"  speedup    time on one device / makespan\n"
		"  feasible   every device's memory peak within its cap\n"
		"  peak/cap   the largest peak / cap over the devices "
		"(- when uncapped)\n"
		"  cross-dev  bytes sent between devices; cut edges: edges "
		"whose ends are on\n"
		"             different devices\n"
		"  plan time  wall time the algorithm took\n"
		"The best feasible row (shortest makespan) is marked '*'. With "
		"--objective\n"
		"throughput a column \"max load\" (time per sample in a "
		"steady pipelined\n"
		"stream) follows the makespan and ranks the rows instead.\n"
		"\n"
		"algorithms:\n"
		"  --algos LIST       comma list, in the order to show "
		"(default: "
		"all):\n"
		"                    ");
	/* "all": every algorithm but those run only when listed */
	size_t n;
	const dp_algo *const *every = dp_algo_compared(&n);
	for (size_t i = 0; i < n; i++)
		fprintf(out, "%s%s", i ? ", " : " ", every[i]->name);
	fprintf(out, "\n                     and, only when listed:");
	for (size_t i = 0, j = 0; i < dp_algo_count(); i++)
		if (dp_algo_at(i)->on_request)
			fprintf(out, "%s%s", j++ ? ", " : " ",
				dp_algo_at(i)->name);
	fprintf(out,
		"\n"
		"  --no-polish        pardnn: skip the polish phase\n"
		"  --time-limit S     ilp: the solver's time limit in seconds "
		"(default 10)\n"
		"  --budget S         best: start no further algorithm after "
		"S seconds\n"
		"  --levers SETS      one table per lever set, comma-separated; "
		"a set joins\n"
		"                     levers with '+' (none, bf16, "
		"bf16+full, fp16+attention,\n"
		"                     bf16+auto+elementwise+offload-optimizer; "
		"docs/memory.md);\n"
		"                     replaces --precision, --recompute, --fuse "
		"and --offload\n"
		"  --check-k          also run each placement algorithm for "
		"K-1 devices and\n"
		"                     note where its plan for K is slower than "
		"that plan\n"
		"                     (run on the K devices, one left "
		"empty)\n");
	cli_help_machine_opts(out);
	fprintf(out,
		"output:\n"
		"  --json             one JSON object: the graph, the machine, "
		"the bounds and\n"
		"                     an \"algorithms\" array with the same "
		"numbers unrounded\n"
		"  --strict           exit 1 when no algorithm met the caps\n"
		"  -h, --help         this text\n");
}

/* The reason a strategy does not apply, as the table's note shows it. */
enum { WHY_LEN = sizeof(((dp_run_result *)0)->msg) };

/* What the run keeps: each algorithm's plan, whether it ran, the worst
 * exit code of those that failed, the cancel message. */
typedef struct compare_run {
	cli_progress cp;
	dp_plan *plans;
	bool *ok;
	bool *na; /* a strategy that does not apply to this graph/machine */
	char (*why)[WHY_LEN]; /* why, for each na */
	const char *source;   /* the graph's file, left out of the why */
	int failed;
	char canceled[1200];
} compare_run;

static void before_algo(void *ud, size_t i, const dp_algo *algo)
{
	compare_run *t = ud;
	char label[80];
	(void)i;
	snprintf(label, sizeof label, "comparing %s", algo->name);
	cli_progress_label(&t->cp, label);
}

/* s without a leading "PREFIX: " (the file and the algorithm that every
 * reason starts with, which the note already says). */
static const char *skip_prefix(const char *s, const char *prefix)
{
	size_t n = prefix ? strlen(prefix) : 0;
	if (n && !strncmp(s, prefix, n) && !strncmp(s + n, ": ", 2))
		return s + n + 2;
	return s;
}

static void after_algo(void *ud, size_t i, dp_run_result *r)
{
	compare_run *t = ud;
	cli_progress_clear(&t->cp);
	if (r->status == DP_OK) {
		t->plans[i] = r->plan; /* kept for the table */
		memset(&r->plan, 0, sizeof r->plan);
		t->ok[i] = true;
	} else if (r->status == DP_ECANCELED) {
		snprintf(t->canceled, sizeof t->canceled, "%s", r->msg);
	} else if (r->status == DP_EINPUT && r->algo->strategize) {
		/* a strategy whose conditions this graph or machine does not
		 * meet (a batch that K does not divide, no roles, ...): the
		 * row says n/a, the note under the table why; the others
		 * still count */
		t->na[i] = true;
		snprintf(t->why[i], WHY_LEN, "%s",
			 skip_prefix(skip_prefix(r->msg, t->source),
				     r->algo->name));
	} else {
		/* keep comparing the others; the row says error */
		fprintf(stderr, "dnnpart: %s: %s\n", r->algo->name, r->msg);
		int code = dp_status_exit_code(r->status);
		if (code > t->failed)
			t->failed = code;
	}
}

static int own_opt(const char *cmd, int argc, char **argv, int *i, cli_opts *o,
		   void *ctx)
{
	(void)ctx;
	if (!strcmp(argv[*i], "--check-k")) {
		o->check_k = true;
		return 1;
	}
	int r = cli_parse_plan_flags(cmd, argc, argv, i, o);
	if (!r && (r = cli_opt_value(cmd, argc, argv, i, "--levers",
				     &o->levers)) > 0)
		return cli_check_lever_sets(cmd, o->levers) ? -1 : 1;
	return r ? r : cli_opt_value(cmd, argc, argv, i, "--algos", &o->algos);
}

static int parse(int argc, char **argv, cli_opts *o)
{
	return cli_parse_graph_cmd("compare", argc, argv, o, own_opt, NULL);
}

/* Index of the best feasible plan (shortest makespan, first on ties), or
 * -1 when none is feasible. ok[i] says whether plan i exists. */
static double score(const dp_plan *p, dp_objective obj)
{
	/* an asynchronous pipeline streams without a flush: its time per
	 * step (one run of the user's graph, as max load's) is its steady
	 * step */
	if (obj == DP_OBJ_THROUGHPUT)
		return p->steady_us > 0 ? p->steady_us : p->max_load;
	return p->sim.makespan;
}

static int best_plan(const dp_plan *plans, const bool *ok, size_t n,
		     dp_objective obj)
{
	int best = -1;
	for (size_t i = 0; i < n; i++)
		if (ok[i] && plans[i].feasible &&
		    (best < 0 ||
		     score(&plans[i], obj) < score(&plans[best], obj)))
			best = (int)i;
	return best;
}

/* --check-k: runs each placement algorithm that planned for K again for the
 * first K-1 devices and prices that plan on all K (the last one empty):
 * fewer[i] is its makespan when it beats plan i (a feasible plan only
 * replaces a feasible one), else NAN. More devices should never hurt
 * (issue 15); best guarantees it on small graphs (docs/algorithms.md), the
 * others are only reported. A pin on device K-1 skips the check. */
static void check_fewer(const dp_graph *g, const dp_machine *m,
			const dp_algo **algos, const dp_plan *plans,
			const bool *ok, size_t n, const dp_algo_opts *ao,
			cli_progress *cp, double *fewer)
{
	for (size_t i = 0; i < n; i++)
		fewer[i] = NAN;
	dp_machine mf;
	dp_err err;
	if (m->k < 2 || dp_machine_copy(&mf, m, &err))
		return;
	if (dp_machine_resize(&mf, m->k - 1, &err) ||
	    dp_algo_check_pins(g, &mf, &err)) {
		dp_machine_free(&mf);
		return;
	}
	for (size_t i = 0; i < n; i++) {
		if (!ok[i] || !algos[i]->run || dp_progress_canceled(&cp->p))
			continue;
		char label[80];
		snprintf(label, sizeof label, "checking %s for K=%d",
			 algos[i]->name, mf.k);
		cli_progress_label(cp, label);
		dp_plan pf, pe;
		if (dp_plan_run(g, &mf, algos[i], ao, &cp->p, &pf, &err))
			continue;
		if (!dp_plan_evaluate(g, m, pf.placement, ao->contention, &pe,
				      &err)) {
			bool better = (pe.feasible || !plans[i].feasible) &&
				      pe.sim.makespan < plans[i].sim.makespan *
								(1 - 1e-9);
			if (better)
				fewer[i] = pe.sim.makespan;
			dp_plan_free(&pe);
		}
		dp_plan_free(&pf);
	}
	cli_progress_clear(cp);
	dp_machine_free(&mf);
}

static void print_fewer(const dp_algo **algos, const dp_plan *plans, size_t n,
			int k, const double *fewer)
{
	for (size_t i = 0; i < n; i++) {
		char a[32], b[32];
		if (isnan(fewer[i]))
			continue;
		printf("note: more devices hurt %s: its plan for K=%d (%s) is "
		       "slower than its plan for K=%d run here (%s)\n",
		       algos[i]->name, k,
		       dp_units_fmt_time(plans[i].sim.makespan, a, sizeof a),
		       k - 1, dp_units_fmt_time(fewer[i], b, sizeof b));
	}
}

static void print_header(const dp_graph *g, const dp_machine *m,
			 const dp_contention c, const dp_bounds *b)
{
	char x[32], y[32], z[32];
	printf("graph        %s", g->name);
	if (g->source && g->source[0])
		printf("  (%s)", g->source);
	printf("\nsize         %u ops, %u edges\n", g->nops, g->nedges);
	printf("machine      %d device%s, ", m->k, m->k == 1 ? "" : "s");
	bool uniform = true;
	for (int d = 1; d < m->k; d++)
		uniform = uniform && m->cap[d] == m->cap[0];
	if (uniform && m->cap[0] == DP_CAP_UNLIMITED) {
		printf("no memory cap");
	} else if (uniform) {
		printf("%s each", dp_units_fmt_bytes(m->cap[0], x, sizeof x));
	} else {
		printf("caps ");
		for (int d = 0; d < m->k; d++)
			printf("%s%s", d ? "," : "",
			       m->cap[d] == DP_CAP_UNLIMITED
				       ? "inf"
				       : dp_units_fmt_bytes(m->cap[d], x,
							    sizeof x));
	}
	printf("\nlink         %s (%s, %s), contention %s\n", m->link_name,
	       dp_units_fmt_bandwidth(m->bw, x, sizeof x),
	       dp_units_fmt_time(m->lat, y, sizeof y),
	       dp_sim_contention_name(c));
	printf("lower bound  %s = max(graph critical path %s, work / speeds "
	       "%s) for whole ops;\n             a strategy that splits ops "
	       "or micro-batches has its own (xLB)\n",
	       dp_units_fmt_time(b->lb_us, x, sizeof x),
	       dp_units_fmt_time(b->graph_cp_us, y, sizeof y),
	       dp_units_fmt_time(b->work_bound_us, z, sizeof z));
	printf("one device   %s with every op on device 0\n\n",
	       dp_units_fmt_time(b->one_device_us, x, sizeof x));
}

/* Under the table: why each n/a row does not apply. */
static void print_why(const dp_algo **algos, const bool *na,
		      char (*why)[WHY_LEN], size_t n)
{
	bool first = true;
	for (size_t i = 0; i < n; i++)
		if (na[i]) {
			printf("%s%-13s%s: %s\n", first ? "\n" : "",
			       first ? "n/a" : "", algos[i]->name, why[i]);
			first = false;
		}
}

static void print_table(const dp_algo **algos, const dp_plan *plans,
			const bool *ok, const bool *na, char (*why)[WHY_LEN],
			size_t n, dp_objective obj)
{
	int best = best_plan(plans, ok, n, obj);
	bool tp = obj == DP_OBJ_THROUGHPUT;
	printf("  %-10s %10s ", "algorithm", "makespan");
	if (tp)
		printf("%10s ", "max load");
	printf("%7s %8s %8s %8s %11s %9s %10s\n", "xLB", "speedup", "feasible",
	       "peak/cap", "cross-dev", "cut edges", "plan time");
	for (size_t i = 0; i < n; i++) {
		char t[32], b[32], pt[32], ratio[32];
		if (!ok[i]) {
			printf("  %-10s %10s\n", algos[i]->name,
			       na[i] ? "n/a" : "error");
			continue;
		}
		const dp_plan *p = &plans[i];
		double r = dp_plan_max_peak_ratio(p);
		if (r < 0)
			snprintf(ratio, sizeof ratio, "-");
		else if (isinf(r)) /* some memory on a device capped at 0 */
			snprintf(ratio, sizeof ratio, "cap 0");
		else if (r < 10)
			snprintf(ratio, sizeof ratio, "%.0f%%", r * 100.0);
		else /* a tiny cap: a factor reads better than 409600% */
			snprintf(ratio, sizeof ratio, "%.0fx", r);
		printf("%c %-10s %10s ", (int)i == best ? '*' : ' ',
		       algos[i]->name,
		       dp_units_fmt_time(p->sim.makespan, t, sizeof t));
		if (tp)
			printf("%10s ",
			       dp_units_fmt_time(score(p, obj), t, sizeof t));
		printf("%7.2f %8.2f %8s %8s %11s %9u %10s", p->xlb, p->speedup,
		       p->feasible ? "yes" : "NO", ratio,
		       dp_units_fmt_bytes(p->sim.cut_bytes, b, sizeof b),
		       p->sim.cut_edges,
		       dp_units_fmt_time(p->plan_ms * 1000.0, pt, sizeof pt));
		/* a strategy says what it made: "1f1b S=4 M=16", and an
		 * asynchronous pipeline its steady step */
		printf(p->strategy[0] ? "  %s" : "%s", p->strategy);
		if (p->steady_us > 0)
			printf(" (steady step %s)",
			       dp_units_fmt_time(p->steady_us, t, sizeof t));
		printf("\n");
	}
	print_why(algos, na, why, n);
	bool any = false;
	for (size_t i = 0; i < n; i++)
		any = any || ok[i];
	if (best >= 0)
		printf("\nbest: %s (*: the %s among the feasible plans)\n",
		       algos[best]->name,
		       tp ? "smallest max load (time per sample; an "
			    "asynchronous pipeline's: its steady step)"
			  : "shortest makespan");
	else if (any)
		printf("\nno algorithm met the memory caps\n");
	else
		printf("\nno algorithm made a plan\n");
}

static void compare_json(FILE *out, const dp_graph *g, const dp_machine *m,
			 dp_contention c, dp_objective obj, const dp_bounds *b,
			 const dp_algo **algos, const dp_plan *plans,
			 const bool *ok, const bool *na, char (*why)[WHY_LEN],
			 size_t n)
{
	int best = best_plan(plans, ok, n, obj);
	dp_json w;
	cli_json_head(&w, out, g, m);
	cli_json_caps(&w, "caps_bytes", m->cap, m->k);
	dp_json_str(&w, "contention", dp_sim_contention_name(c));
	dp_json_str(&w, "objective",
		    obj == DP_OBJ_THROUGHPUT ? "throughput" : "step");
	dp_json_num(&w, "lower_bound_us", b->lb_us);
	dp_json_num(&w, "graph_critical_path_us", b->graph_cp_us);
	dp_json_num(&w, "work_bound_us", b->work_bound_us);
	dp_json_num(&w, "one_device_us", b->one_device_us);
	dp_json_str(&w, "best", best >= 0 ? algos[best]->name : NULL);
	dp_json_begin_array(&w, "algorithms");
	for (size_t i = 0; i < n; i++) {
		dp_json_begin_object(&w, NULL);
		dp_json_str(&w, "name", algos[i]->name);
		dp_json_bool(&w, "ok", ok[i]);
		if (na[i]) {
			dp_json_bool(&w, "applies", false);
			dp_json_str(&w, "reason", why[i]);
		}
		dp_json_bool(&w, "best", (int)i == best);
		if (ok[i]) {
			dp_json_num(&w, "plan_ms", plans[i].plan_ms);
			dp_plan_write_metrics(&w, g, &plans[i]);
		}
		dp_json_end_object(&w);
	}
	dp_json_end_array(&w);
	dp_json_end_object(&w);
}

/* One comparison: every algorithm on the graph and machine of o. */
static int compare_once(cli_opts o)
{
	int rc = 0;
	/* every algorithm, or those of --algos in their order */
	size_t n = dp_algo_count();
	const dp_algo **algos = calloc(n, sizeof *algos);
	dp_plan *plans = calloc(n, sizeof *plans);
	/* ok[i]: a plan; ok[n + i]: a strategy that does not apply */
	bool *ok = calloc(2 * n, sizeof *ok);
	char(*why)[WHY_LEN] = calloc(n, sizeof *why);
	if (!algos || !plans || !ok || !why) {
		free(algos);
		free(plans);
		free(ok);
		free(why);
		fprintf(stderr, "dnnpart: out of memory\n");
		return 2;
	}
	if (o.algos) {
		rc = cli_algo_list("compare", "--algos", o.algos, algos, n, &n);
	} else {
		/* every algorithm but those run only on request (ilp) */
		const dp_algo *const *every = dp_algo_compared(&n);
		memcpy(algos, every, n * sizeof *algos);
	}
	dp_graph *g = NULL;
	dp_machine m;
	memset(&m, 0, sizeof m);
	if (rc || (rc = cli_load_graph_machine(&o, &g, &m)))
		goto out;
	dp_err err;
	dp_err_clear(&err);
	/* a bad pin is the input's fault, not any one algorithm's */
	if (dp_algo_check_pins(g, &m, &err)) {
		rc = cli_error(&err);
		goto out;
	}
	if ((rc = cli_check_tp(&o, &m, algos, n)))
		goto out;
	dp_algo_opts ao;
	cli_algo_opts(&o, &ao);
	/* Ctrl-C cancels the algorithm that is running; a second one kills */
	compare_run tp = {.plans = plans,
			  .ok = ok,
			  .na = ok + n,
			  .why = why,
			  .source = g->source};
	cli_progress_begin(&tp.cp, CLI_CANCEL_SIGINT_ONCE, "comparing");
	dp_run_hooks hooks = {before_algo, after_algo, &tp};
	dp_status st = dp_plan_run_all(g, &m, algos, n, &ao, &tp.cp.p, &hooks);
	double *fewer = NULL;
	if (!st && o.check_k && !o.json && (fewer = malloc(n * sizeof *fewer)))
		check_fewer(g, &m, algos, plans, ok, n, &ao, &tp.cp, fewer);
	cli_progress_end(&tp.cp);
	if (st == DP_ECANCELED) {
		free(fewer);
		fprintf(stderr, "dnnpart: %s\n",
			tp.canceled[0] ? tp.canceled : "canceled");
		rc = dp_status_exit_code(DP_ECANCELED);
		goto out;
	}
	int failed = tp.failed;
	dp_bounds b;
	dp_sim_bounds(g, &m, &b);
	if (o.json) {
		compare_json(stdout, g, &m, o.contention, o.objective, &b,
			     algos, plans, ok, ok + n, tp.why, n);
	} else {
		print_header(g, &m, o.contention, &b);
		if (o.objective == DP_OBJ_THROUGHPUT)
			printf("objective    throughput: max load = time per "
			       "sample in a steady pipelined stream\n\n");
		print_table(algos, plans, ok, ok + n, tp.why, n, o.objective);
		if (fewer)
			print_fewer(algos, plans, n, m.k, fewer);
	}
	free(fewer);
	if (failed)
		rc = failed;
	else if (o.strict && best_plan(plans, ok, n, o.objective) < 0)
		rc = 1;
out:
	for (size_t i = 0; i < n; i++)
		if (ok[i])
			dp_plan_free(&plans[i]);
	free(algos);
	free(plans);
	free(ok);
	free(why);
	dp_machine_free(&m);
	dp_graph_free(g);
	return rc;
}

/* --levers: one comparison per lever set, each a table under its set (a
 * JSON array of comparisons); the exit code is the worst. */
static int compare_levers(cli_opts *o)
{
	char sets[1024], name[8192], rbuf[8192];
	snprintf(sets, sizeof sets, "%s", o->levers);
	int worst = 0, n = 0;
	if (o->json)
		printf("[\n");
	for (char *save = NULL, *t = strtok_r(sets, ",", &save); t;
	     t = strtok_r(NULL, ",", &save)) {
		dp_levers lv;
		dp_err err;
		dp_levers_parse_set(t, &lv, &err); /* checked when parsed */
		cli_opts one = *o;
		one.precision = dp_precision_name(lv.precision);
		one.recompute = dp_levers_recompute_str(&lv, rbuf, sizeof rbuf);
		one.fuse = dp_fuse_name(lv.fuse);
		one.offload = dp_offload_name(lv.offload);
		if (o->json)
			printf("%s", n ? ",\n" : "");
		else
			printf("%slevers %s\n", n ? "\n" : "",
			       dp_levers_set_name(&lv, name, sizeof name));
		fflush(stdout);
		n++;
		int rc = compare_once(one);
		if (rc > worst)
			worst = rc;
		if (rc >= 2)
			break;
	}
	if (o->json)
		printf("]\n");
	return worst;
}

int cmd_compare_run(int argc, char **argv)
{
	cli_opts o;
	cli_opts_init(&o);
	int rc = parse(argc, argv, &o);
	return rc ? rc : o.levers ? compare_levers(&o) : compare_once(o);
}

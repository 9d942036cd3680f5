/* cmd_plan.c - `dnnpart plan GRAPH`: partition a graph with an algorithm
 * from the registry, simulate the result, print it and optionally save the
 * placement (-o) and exports (--dot, --svg, ...).
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_progress.h"
#include "dnnpart/placement.h"
#include "dnnpart/units.h"

/* "    name     summary" with the summary wrapped at 79 columns. */
static void print_wrapped(FILE *out, const char *name, const char *text)
{
	enum { INDENT = 20, WIDTH = 79 };
	int col = fprintf(out, "    %-16s", name);
	const char *p = text;
	while (*p) {
		while (*p == ' ')
			p++;
		size_t w = strcspn(p, " ");
		if (!w)
			break;
		if (col > INDENT && col + 1 + (int)w > WIDTH) {
			fprintf(out, "\n%*s", INDENT, "");
			col = INDENT;
		}
		col += fprintf(out, "%s%.*s", col > INDENT ? " " : "", (int)w,
			       p);
		p += w;
	}
	fprintf(out, "\n");
}

void cmd_plan_help(FILE *out)
{
	fprintf(out,
		"usage: dnnpart plan GRAPH [-k K] [--mem CAPS] [--algo NAME] "
		"[--no-polish]\n"
		"                    [--time-limit S] [--budget S]\n"
		"                    [--link PRESET | --bw BW --lat LAT] "
		"[--contention port|none]\n"
		"                    [-o placement.json|.place] [--json] "
		"[--strict] [--force]\n"
		"                    [--dot F] [--svg F] [--png F] [--pdf F] "
		"[--trace F]\n"
		"                    [--csv F] [--device-map F] [--tf-map F]\n"
		"\n"
		"Partitions GRAPH onto K devices with an algorithm, simulates "
		"the placement\n"
		"and prints makespan, lower bound, speedup, per-device load, "
		"memory peak\n"
		"against the cap, communication and the schedule's critical "
		"path. A plan that\n"
		"cannot meet the caps is still printed, marked INFEASIBLE.\n"
		"\n"
		"algorithm:\n"
		"  --algo NAME        one of (default: best):\n");
	for (size_t i = 0; i < dp_algo_count(); i++)
		print_wrapped(out, dp_algo_at(i)->name, dp_algo_at(i)->summary);
	fprintf(out, "  --no-polish        pardnn: skip the polish phase\n"
		     "  --time-limit S     ilp: the solver's time limit in "
		     "seconds (default 10;\n"
		     "                     30, 2.5, 500ms, 2min)\n"
		     "  --algos LIST       best: the algorithms it runs (default: "
		     "its placement\n"
		     "                     search, named best, and every "
		     "strategy)\n"
		     "  --budget S         best: start no further algorithm "
		     "after S seconds\n"
		     "                     (default: none; a cut-off is "
		     "reported)\n");
	cli_help_machine_opts(out);
	fprintf(out,
		"output:\n"
		"  -o FILE            save the placement: .json (dnnpart, with "
		"metrics) or\n"
		"                     .place (ParDNN 'name device' lines)\n"
		"  --dot/--svg/--png/--pdf F, --trace F (Perfetto), --csv F,\n"
		"  --device-map F, --tf-map F\n"
		"                     exports of the plan (see "
		"docs/export.md)\n"
		"  --force            replace output files that exist (never "
		"GRAPH)\n"
		"  --json             print one JSON object instead of the "
		"table\n"
		"  --strict           exit 1 when the plan is infeasible\n"
		"  --explain          why: what bounds the step, what holds "
		"each device's peak,\n"
		"                     and changes (one more device, caps, "
		"other strategies),\n"
		"                     each rerun (with --json: \"explain\")\n"
		"  -h, --help         this text\n"
		"\n"
		"Output files are written to a temporary name and renamed "
		"into place.\n");
}

static bool has_suffix(const char *s, const char *suf)
{
	size_t n = strlen(s), m = strlen(suf);
	return n >= m && !strcmp(s + n - m, suf);
}

static int own_opt(const char *cmd, int argc, char **argv, int *i, cli_opts *o,
		   void *ctx)
{
	(void)ctx;
	int r;
	if (!strcmp(argv[*i], "--explain")) {
		o->explain = true;
		return 1;
	}
	if ((r = cli_parse_plan_flags(cmd, argc, argv, i, o)) ||
	    (r = cli_parse_candidates(cmd, argc, argv, i, o)) ||
	    (r = cli_parse_algo(cmd, argc, argv, i, &o->algo)) ||
	    (r = cli_opt_value(cmd, argc, argv, i, "-o", &o->out)))
		return r;
	return cli_parse_export_opt(cmd, argc, argv, i, o);
}

static int parse(int argc, char **argv, cli_opts *o)
{
	if (cli_parse_graph_cmd("plan", argc, argv, o, own_opt, NULL))
		return 2;
	if (cli_candidates_clash("plan", o))
		return 2;
	if (o->out && !has_suffix(o->out, ".json") &&
	    !has_suffix(o->out, ".place"))
		return cli_usage_error("plan",
				       "-o %s: expected a file name ending in "
				       ".json (dnnpart placement) or .place "
				       "(ParDNN)",
				       o->out);
	/* before planning, which can take minutes */
	const char *outs[] = {o->out,	o->dot, o->svg,	       o->png,	 o->pdf,
			      o->trace, o->csv, o->device_map, o->tf_map};
	cli_out_rule rule = {{o->graph_path, NULL}, o->force};
	return cli_check_outputs(outs, sizeof outs / sizeof outs[0], &rule);
}

static int save_placement(const cli_opts *o, const dp_graph *g,
			  const dp_plan *plan)
{
	cli_out_rule rule = {{o->graph_path, NULL}, o->force};
	int rc = cli_check_output(o->out, &rule);
	if (rc)
		return rc;
	dp_err err;
	dp_err_clear(&err);
	dp_status st;
	if (plan->strat && has_suffix(o->out, ".place"))
		return cli_usage_error("plan",
				       "-o %s: '%s' makes the strategy '%s', "
				       "which a .place file cannot hold; "
				       "write it as .json (a dnnpart "
				       "strategy file)",
				       o->out, plan->algo, plan->strategy);
	if (plan->strat)
		st = dp_strategy_write(o->out, g, plan->strat, o->force, &err);
	else if (has_suffix(o->out, ".place"))
		st = dp_placement_write_place(o->out, g, plan->placement, &err);
	else
		st = dp_placement_write_json(o->out, g, plan, &err);
	return st ? cli_error(&err) : 0;
}

/* hybrid's own search splits attention by whole heads, as Megatron-LM
 * does; a --tp that does not divide an op's heads splits them unevenly (as
 * megatron does), which Megatron-LM and so `export --megatron` refuse. */
static void note_uneven_heads(const dp_graph *g, const dp_plan *plan, int tp)
{
	if (plan->kind != DP_STRAT_PIPELINE)
		return;
	/* without --tp, the T hybrid chose (its stages' mesh [D, T]): when
	 * nothing with whole heads fits, it takes uneven heads */
	if (tp <= 0 && plan->strat && plan->strat->spmd.naxes == 2)
		tp = plan->strat->spmd.mesh[1];
	if (tp < 2)
		return;
	for (uint32_t u = 0; u < g->nops; u++) {
		dp_dims d;
		int i = dp_op_find_dim(g, u, "heads");
		if (i >= 0 && dp_op_dims(g, u, &d) && d.sizes[i] % tp) {
			fprintf(stderr,
				"dnnpart: note: T = %d splits op '%s''s %lld "
				"heads unevenly, as megatron does; Megatron-LM "
				"needs T to divide the heads, so export "
				"--megatron refuses this plan\n",
				tp, dp_graph_op_name(g, u),
				(long long)d.sizes[i]);
			return;
		}
	}
}

/* hybrid and pipedream make data-parallel stages only where dp would
 * apply (dp_strategy_check_data_parallel): say why they did not. */
static void note_no_data_parallel(const dp_graph *g, const dp_machine *m,
				  const dp_algo *algo)
{
	dp_err err;
	if (m->k < 2 ||
	    (strcmp(algo->name, "hybrid") && strcmp(algo->name, "pipedream")) ||
	    !dp_strategy_check_data_parallel(g, "data parallelism", &err))
		return;
	fprintf(stderr,
		"dnnpart: note: %s made no data-parallel stages (D = 1): %s\n",
		algo->name, err.msg);
}

int cmd_plan_run(int argc, char **argv)
{
	cli_opts o;
	cli_opts_init(&o);
	int rc = parse(argc, argv, &o);
	if (rc)
		return rc;
	const dp_algo *algo = o.algo ? o.algo : dp_algo_default();
	if (!o.algo && o.objective == DP_OBJ_THROUGHPUT)
		algo = dp_algo_find("msr-dp");
	dp_graph *g;
	dp_machine m;
	if ((rc = cli_load_graph_machine(&o, &g, &m)))
		return rc;
	if ((rc = cli_check_tp(&o, &m, &algo, 1)))
		goto out;
	cli_run run;
	cli_run_begin(&run, &o, "planning");
	/* a .place file holds a placement: best of everything keeps to its
	 * placement search, unless --algos names what to run */
	if (o.out && has_suffix(o.out, ".place") && !o.ncands)
		run.ao.placements_only = true;
	dp_plan plan;
	dp_explain x, *xp = NULL;
	rc = cli_run_end(&run, dp_plan_run(g, &m, algo, &run.ao, &run.cp.p,
					   &plan, &run.err));
	if (rc)
		goto out;
	if (o.schedule >= 0 && plan.kind != DP_STRAT_PIPELINE)
		fprintf(stderr,
			"dnnpart: note: --schedule applies to pipelines; %s "
			"made a%s %s\n",
			algo->name, plan.kind == DP_STRAT_PLACEMENT ? "" : "n",
			plan.kind == DP_STRAT_PLACEMENT
				? "placement"
				: dp_strategy_kind_name(plan.kind));
	if (o.tp > 0 && !cli_algo_takes_tp(algo))
		fprintf(stderr,
			"dnnpart: note: --tp applies to megatron and hybrid; "
			"%s ignores it\n",
			algo->name);
	else
		note_uneven_heads(g, &plan, o.tp);
	note_no_data_parallel(g, &m, algo);
	/* dp_plan_run simulates under the model the algorithm optimised for,
	 * which is the one the user chose */
	if (o.out && (rc = save_placement(&o, g, &plan)))
		goto out_plan;
	if (o.explain) {
		dp_explain_opts eo = {.changes = true};
		cli_run_begin(&run, &o, "explaining");
		rc = cli_run_end(&run, dp_explain_plan(g, &m, algo, &run.ao,
						       &plan, &eo, &run.cp.p,
						       &x, &run.err));
		if (rc)
			goto out_plan;
		xp = &x;
	}
	if (o.json) {
		cli_print_plan_json(stdout, g, &m, &plan, xp);
	} else {
		cli_print_plan(stdout, g, &m, &plan);
		if (xp)
			cli_print_explain(stdout, g, &plan, xp);
		if (o.objective == DP_OBJ_THROUGHPUT)
			cli_print_max_load(stdout, &plan);
		if (o.out)
			printf("\n%s written to %s\n",
			       plan.strat ? "strategy" : "placement", o.out);
	}
	/* exports after the report: a layout over its time limit still
	 * leaves the plan on screen */
	if ((rc = cli_write_exports(&o, g, &m, &plan)))
		goto out_plan;
	rc = o.strict && !plan.feasible ? 1 : 0;
out_plan:
	if (xp)
		dp_explain_free(xp);
	dp_plan_free(&plan);
out:
	dp_machine_free(&m);
	dp_graph_free(g);
	return rc;
}

/* cmd_fit.c - `dnnpart fit GRAPH`: the smallest K, or the smallest cap, with
 * which an algorithm finds a feasible plan, by search over real reruns
 * (the engine's dp_fit_run, include/dnnpart/fit.h). Prints every probe and
 * the answer; --json gives "k" and "caps_bytes" of the answer.
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_progress.h"
#include "dnnpart/fit.h"
#include "dnnpart/json.h"
#include "dnnpart/units.h"
#include "fmt.h"

void cmd_fit_help(FILE *out)
{
	fprintf(out,
		"usage: dnnpart fit GRAPH [-k K] [--mem CAPS] [--algo NAME] "
		"[--max-k N]\n"
		"                   [--cap | --device D] [--tp T] [-M M] [--json] "
		"[--strict]\n"
		"                   [--link PRESET | --bw BW --lat LAT] "
		"[--contention port|none]\n"
		"\n"
		"Finds what fits by rerunning, never by estimate alone:\n"
		"  (default)          the smallest K (1..--max-k) at which a "
		"combination of a\n"
		"                     strategy (dp, zero stage 1-3, megatron, "
		"1f1b, hybrid;\n"
		"                     --algo: that one) and a lever set "
		"(precision x recompute\n"
		"                     x fusion) fits the caps of --mem, and "
		"the fastest there:\n"
		"                     K doubles until one fits, then every K "
		"between is tried;\n"
		"                     per K the heaviest and lightest sets "
		"first, the rest by\n"
		"                     estimate (work / speeds), pruned when "
		"no faster than the\n"
		"                     fastest fit or a set saving as much did "
		"not fit\n"
		"                     (docs/memory.md). On a graph that takes "
		"no lever, or with\n"
		"                     --precision/--recompute/--fuse: the "
		"plain search below\n"
		"  --levers SETS      the lever sets to search (none,bf16,"
		"bf16+full,...);\n"
		"                     --levers none: the plain search of K "
		"(fp32, no levers)\n"
		"                     with --algo (default best)\n"
		"  -o FILE            the answer's plan, rerun at its K "
		"(eval --strict\n"
		"                     checks it with the levers fit prints)\n"
		"  --cap              the smallest cap, the same on every "
		"device, for K devices:\n"
		"                     bisection between the largest single-op "
		"footprint and\n"
		"                     the one-device peak, to 1 MiB or 1 %% "
		"(the larger)\n"
		"  --device D         the smallest cap of device D, the others "
		"as --mem gives\n"
		"  --max-k N          the largest K to try (default 64)\n"
		"The algorithms are heuristics: a plan may fit at K and not at "
		"K+1. What is\n"
		"guaranteed is what was tried: the answer fits, and every "
		"probe "
		"below it did\n"
		"not; the probes are listed. With --tp T (megatron, hybrid) "
		"only K that T\n"
		"divides are tried: T, 2T, 4T, ... and those between.\n"
		"\n"
		"algorithm:\n"
		"  --algo NAME        %s (default: best)\n"
		"  --algos LIST       best: the algorithms it runs (default: "
		"all)\n"
		"  --no-polish        pardnn: skip the polish phase\n",
		dp_algo_names());
	cli_help_machine_opts(out);
	fprintf(out,
		"output:\n"
		"  --json             one JSON object: k and caps_bytes of the "
		"answer, the probes\n"
		"  --strict           exit 1 when nothing tried fits\n"
		"  -h, --help         this text\n");
}

typedef struct fit_args {
	dp_fit_opts fo;
	bool device_given;
} fit_args;

static int own_opt(const char *cmd, int argc, char **argv, int *i, cli_opts *o,
		   void *ctx)
{
	fit_args *fa = ctx;
	const char *a = argv[*i], *v = NULL;
	int r;
	long n;
	if (!strcmp(a, "--strict")) {
		o->strict = true;
	} else if (!strcmp(a, "--no-polish")) {
		o->no_polish = true;
	} else if (!strcmp(a, "--cap")) {
		fa->fo.kind = DP_FIT_CAP;
	} else if ((r = cli_opt_value(cmd, argc, argv, i, "--max-k", &v))) {
		if (r < 0 ||
		    cli_parse_int(cmd, "--max-k", v, 1, DP_MAX_DEVICES, &n))
			return -1;
		fa->fo.max_k = (int)n;
	} else if ((r = cli_opt_value(cmd, argc, argv, i, "--device", &v))) {
		if (r < 0 || cli_parse_int(cmd, "--device", v, 0,
					   DP_MAX_DEVICES - 1, &n))
			return -1;
		fa->fo.device = (int)n;
		fa->device_given = true;
	} else if ((r = cli_opt_value(cmd, argc, argv, i, "--levers",
				      &o->levers))) {
		if (r < 0 || cli_check_lever_sets(cmd, o->levers))
			return -1;
	} else if ((r = cli_opt_value(cmd, argc, argv, i, "-o", &o->out))) {
		if (r < 0)
			return -1;
	} else if ((r = cli_parse_candidates(cmd, argc, argv, i, o))) {
		return r;
	} else {
		return cli_parse_algo(cmd, argc, argv, i, &o->algo);
	}
	return 1;
}

static int parse(int argc, char **argv, cli_opts *o, fit_args *fa)
{
	if (cli_parse_graph_cmd("fit", argc, argv, o, own_opt, fa) ||
	    cli_candidates_clash("fit", o))
		return 2;
	if (fa->device_given && fa->fo.kind == DP_FIT_CAP)
		return cli_usage_error("fit", "--cap and --device: give one "
					      "(--cap: every device's cap, "
					      "--device D: one device's)");
	if (fa->device_given)
		fa->fo.kind = DP_FIT_DEVICE_CAP;
	if ((o->levers || o->out) && fa->fo.kind != DP_FIT_K)
		return cli_usage_error("fit", "--levers and -o go with the "
					      "search of K, not --cap or "
					      "--device");
	if (o->out && o->levers && !strcmp(o->levers, "none"))
		return cli_usage_error("fit", "-o writes the plan of the lever "
					      "search; --levers none is the "
					      "plain search of K");
	if (o->out && (o->precision || o->recompute || o->fuse || o->offload))
		return cli_usage_error("fit", "-o writes the plan of the lever "
					      "search; --precision, --recompute, "
					      "--fuse and --offload fix the "
					      "levers (use --levers SET)");
	return 0;
}

static const char *what_name(dp_fit_kind k)
{
	return k == DP_FIT_K ? "k" : k == DP_FIT_CAP ? "cap" : "device_cap";
}

/* A pipeline answer with M > 1 micro-batches fits partly because of
 * gradient accumulation: say so, with what it means for the step. */
void cli_fit_print_accumulation(FILE *out, const dp_fit_probe *p)
{
	if (p->microbatches <= 1)
		return;
	int M = p->microbatches, S = p->stages;
	fprintf(out,
		"pipeline     %s: gradient accumulation over %d "
		"micro-batches (each 1/%d of the batch)\n"
		"             every device adds up their gradients before one "
		"update: the same step\n",
		p->strategy, M, M);
	int V = p->virtual_stages, w = 2 * (S - 1) + (V - 1) * S + 1;
	if (!strncmp(p->strategy, "gpipe", 5))
		fprintf(out, "             as the whole batch; gpipe keeps the "
			     "activations of all %d until their backward\n",
			M);
	else if (V > 1) /* Megatron-LM's warm-up on the first device */
		fprintf(out,
			"             as the whole batch; interleaved, device 0 "
			"keeps the activations of\n             %d chunks of "
			"micro-batches live (each 1/%d of its layers)\n",
			w < M * V ? w : M * V, V);
	else
		fprintf(out,
			"             as the whole batch, with the activations "
			"of at most %d micro-batch%s live\n",
			S < M ? S : M, (S < M ? S : M) == 1 ? "" : "es");
}

static void print_human(FILE *out, const dp_graph *g, const dp_machine *m,
			const dp_algo *algo, const dp_fit_result *r)
{
	char a[32], b[32], c[48];
	if (r->kind == DP_FIT_K)
		fprintf(out,
			"fit          smallest K for caps %s (device 0's)\n",
			fmt_cap(m->cap[0], a, sizeof a));
	else if (r->kind == DP_FIT_CAP)
		fprintf(out,
			"fit          smallest cap of every device, K=%d\n",
			m->k);
	else
		fprintf(out,
			"fit          smallest cap of device %d, K=%d, the "
			"others as given\n",
			r->device, m->k);
	fprintf(out, "graph        %s, %u ops\nalgorithm    %s\n", g->name,
		g->nops, algo->name);
	if (r->k_step > 1)
		fprintf(out,
			"K            multiples of %d only (%s runs on K that "
			"its --tp %d divides)\n",
			r->k_step, algo->name, r->k_step);
	if (r->kind != DP_FIT_K)
		fprintf(out,
			"bounds       %s (largest single-op footprint) .. "
			"one-device peak\n",
			dp_units_fmt_bytes(r->lower, a, sizeof a));
	/* a strategy's probes say what it made ("1f1b S=1 M=8") */
	bool plans = false;
	for (size_t i = 0; i < r->nprobes; i++)
		plans |= r->probes[i].strategy[0] != '\0';
	fprintf(out, "\nprobe     K  cap           makespan  %sresult\n",
		plans ? "plan                  " : "");
	for (size_t i = 0; i < r->nprobes; i++) {
		const dp_fit_probe *p = &r->probes[i];
		fprintf(out, "%5zu  %4d  %-10s  %11s  ", i + 1, p->k,
			fmt_cap(p->cap, a, sizeof a),
			dp_units_fmt_time(p->makespan, b, sizeof b));
		if (plans)
			fprintf(out, "%-20s  ", p->strategy);
		if (p->feasible)
			fprintf(out, "fits\n");
		else
			fprintf(out, "device %d over by %s\n", p->worst,
				dp_units_fmt_bytes(p->over, c, sizeof c));
	}
	fprintf(out, "\n");
	if (!r->found) {
		if (r->kind == DP_FIT_K)
			fprintf(out, "answer       no K tried fits\n");
		else
			fprintf(out, "answer       no cap tried fits\n");
		return;
	}
	const char *ms = dp_units_fmt_time(r->makespan, b, sizeof b);
	if (r->kind == DP_FIT_K)
		fprintf(out,
			"answer       fits with %d device%s (makespan %s)\n",
			r->k, r->k == 1 ? "" : "s", ms);
	else if (r->kind == DP_FIT_CAP)
		fprintf(out,
			"answer       fits with %s per device (%s bytes; "
			"makespan %s)\n",
			dp_units_fmt_bytes(r->caps[0], a, sizeof a),
			dp_units_fmt_c(c, sizeof c, "%lld",
				       (long long)r->caps[0]),
			ms);
	else
		fprintf(out,
			"answer       device %d fits with %s (%s bytes; "
			"makespan %s)\n",
			r->device,
			dp_units_fmt_bytes(r->caps[r->device], a, sizeof a),
			dp_units_fmt_c(c, sizeof c, "%lld",
				       (long long)r->caps[r->device]),
			ms);
	if (r->kind != DP_FIT_K)
		fprintf(out, "resolution   %s\n",
			dp_units_fmt_bytes(r->resolution, a, sizeof a));
	cli_fit_print_accumulation(out, &r->answer);
}

static void print_json(FILE *out, const dp_graph *g, const dp_algo *algo,
		       const dp_fit_result *r)
{
	dp_json w;
	cli_json_begin(&w, out, g, g->source ? g->source : "");
	dp_json_int(&w, "ops", g->nops);
	dp_json_str(&w, "algorithm", algo->name);
	dp_json_str(&w, "search", what_name(r->kind));
	if (r->kind == DP_FIT_K)
		dp_json_int(&w, "k_step", r->k_step);
	if (r->kind == DP_FIT_DEVICE_CAP)
		dp_json_int(&w, "device", r->device);
	dp_json_bool(&w, "found", r->found);
	if (r->found) {
		dp_json_int(&w, "k", r->k);
		cli_json_caps(&w, "caps_bytes", r->caps, r->k);
		dp_json_num(&w, "makespan_us", r->makespan);
		if (r->answer.strategy[0])
			dp_json_str(&w, "strategy", r->answer.strategy);
		if (r->answer.microbatches > 0) {
			dp_json_int(&w, "stages", r->answer.stages);
			dp_json_int(&w, "microbatches",
				    r->answer.microbatches);
			dp_json_bool(&w, "gradient_accumulation",
				     r->answer.microbatches > 1);
		}
	} else {
		dp_json_null(&w, "k");
		dp_json_null(&w, "caps_bytes");
	}
	if (r->kind != DP_FIT_K) {
		dp_json_int(&w, "lower_bound_bytes", r->lower);
		dp_json_int(&w, "resolution_bytes", r->resolution);
	}
	dp_json_begin_array(&w, "probes");
	for (size_t i = 0; i < r->nprobes; i++) {
		const dp_fit_probe *p = &r->probes[i];
		dp_json_begin_line(&w, NULL);
		dp_json_int(&w, "k", p->k);
		cli_json_cap(&w, "cap_bytes", p->cap);
		dp_json_num(&w, "makespan_us", p->makespan);
		dp_json_bool(&w, "feasible", p->feasible);
		if (p->strategy[0])
			dp_json_str(&w, "strategy", p->strategy);
		if (!p->feasible) {
			dp_json_int(&w, "worst_device", p->worst);
			dp_json_int(&w, "over_bytes", p->over);
		}
		dp_json_end_object(&w);
	}
	dp_json_end_array(&w);
	dp_json_end_object(&w);
	fputc('\n', out);
}

int cmd_fit_run(int argc, char **argv)
{
	cli_opts o;
	cli_opts_init(&o);
	fit_args fa;
	memset(&fa, 0, sizeof fa);
	int rc = parse(argc, argv, &o, &fa);
	if (rc)
		return rc;
	/* the lever search, unless the levers are fixed (--precision,
	 * --recompute, --fuse, --offload), none (--levers none) or a cap is
	 * searched */
	if (fa.fo.kind == DP_FIT_K && !o.precision && !o.recompute &&
	    !o.fuse && !o.offload && !(o.levers && !strcmp(o.levers, "none"))) {
		bool plain = false;
		rc = cli_fit_levers(&o, o.algo, &fa.fo, &plain);
		if (!plain)
			return rc;
	}
	const dp_algo *algo = o.algo ? o.algo : dp_algo_default();
	dp_graph *g;
	dp_machine m;
	if ((rc = cli_load_graph_machine(&o, &g, &m)))
		return rc;
	if (fa.fo.kind == DP_FIT_DEVICE_CAP && fa.fo.device >= m.k) {
		rc = cli_usage_error("fit",
				     "--device %d: the machine has %d device%s "
				     "(0 to %d); -k sets K",
				     fa.fo.device, m.k, m.k == 1 ? "" : "s",
				     m.k - 1);
		goto out;
	}
	/* a cap search keeps K: a --tp that does not divide it is refused
	 * now; a K search probes only the K that it divides */
	if (fa.fo.kind != DP_FIT_K && (rc = cli_check_tp(&o, &m, &algo, 1)))
		goto out;
	cli_run run;
	cli_run_begin(&run, &o, "fitting");
	dp_fit_result r;
	rc = cli_run_end(&run, dp_fit_run(g, &m, algo, &run.ao, &fa.fo,
					  &run.cp.p, &r, &run.err));
	if (rc)
		goto out;
	if (o.json)
		print_json(stdout, g, algo, &r);
	else
		print_human(stdout, g, &m, algo, &r);
	rc = o.strict && !r.found ? 1 : 0;
	/* -o here: a graph that takes no lever (the others were refused) */
	if (o.out && r.found &&
	    !(rc = cli_fit_write_plan(&o, algo, r.k, o.zero_stage, "none")) &&
	    !o.json)
		printf("\nplan written to %s\n", o.out);
	dp_fit_result_free(&r);
out:
	dp_machine_free(&m);
	dp_graph_free(g);
	return rc;
}

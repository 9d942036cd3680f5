/* cmd_export.c - `dnnpart export GRAPH PLACEMENT --svg F ...`: simulate a
 * saved placement and write it for reports (DOT, SVG) and for the
 * frameworks that run it (CSV schedule, PyTorch device map, TensorFlow
 * device strings, dnnpart JSON, ParDNN .place). docs/export.md.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_exports.h"
#include "dnnpart/placement.h"

void cmd_export_help(FILE *out)
{
	fprintf(out,
		"usage: dnnpart export GRAPH PLACEMENT [--svg F] [--png F] "
		"[--pdf F] [--dot F]\n"
		"                      [--trace F] [--csv F]\n"
		"                      [--device-map F] [--tf-map F]\n"
		"                      [--pippy F] [--megatron F] "
		"[--deepspeed F]\n"
		"                      [--torch F]\n"
		"                      [-o F]... [--json]\n"
		"                      [--coarsen auto|never|always] "
		"[--max-nodes N]\n"
		"                      [--layout ENGINE] [--timeout SECONDS] "
		"[machine options]\n"
		"\n"
		"Simulates PLACEMENT (a dnnpart placement .json, a ParDNN "
		".place file or a\n"
		"strategy .json) on the machine the options describe and "
		"writes it out:\n"
		"  --dot F            Graphviz DOT: one cluster per device, "
		"critical path red\n"
		"  --svg F            the same laid out by Graphviz (in a "
		"child process)\n"
		"  --png F, --pdf F   the same picture as PNG or PDF "
		"(Graphviz's "
		"cairo)\n"
		"  --trace F          Chrome / Perfetto trace (JSON): a "
		"process per device\n"
		"                     with compute, send and receive tracks, "
		"transfer arrows\n"
		"                     and a memory counter against the cap\n"
		"  --csv F            op,device,start_us,end_us per op\n"
		"  --device-map F     PyTorch / Accelerate device_map: "
		"{\"layer\": \"cuda:N\"}\n"
		"  --tf-map F         TensorFlow device strings: 'op "
		"/device:GPU:N' lines\n"
		"  --pippy F          a pipeline's split points and schedule "
		"for PyTorch's\n"
		"                     torch.distributed.pipelining (a Python "
		"file)\n"
		"  --megatron F       a pipeline's (or dp, zero, megatron's) "
		"pp/tp/dp sizes,\n"
		"                     batch sizes, layers per stage and levers "
		"as Megatron-LM\n"
		"                     arguments (a bash array)\n"
		"  --deepspeed F      a DeepSpeed config (JSON) of a dp, zero "
		"or pipeline plan:\n"
		"                     batch sizes, ZeRO stage, bf16/fp16, "
		"activation checkpointing\n"
		"  --torch F          a dp or zero plan as PyTorch wrapping "
		"(a Python file):\n"
		"                     DDP, ZeroRedundancyOptimizer, FSDP, "
		"checkpoint_wrapper\n"
		"  -o F               kind from the name: .dot .gv .svg .png "
		".pdf .json .place\n"
		"                     .csv .devmap.json (PyTorch map) .tf.txt "
		"(TensorFlow)\n"
		"                     .trace.json (trace) .pippy.py "
		".megatron.sh\n"
		"                     .deepspeed.json .torch.py; repeatable\n"
		"picture (DOT, SVG, PNG, PDF; a trace coarsens above %u "
		"events):\n"
		"  --coarsen MODE     auto (default: SVG above --max-nodes "
		"ops, DOT above\n"
		"                     %u ops), never, or always: draw groups "
		"of ops, by layer\n"
		"                     and device, else runs of one device's "
		"schedule\n"
		"  --max-nodes N      most nodes of a coarsened picture "
		"(default %u)\n"
		"  --layout ENGINE    SVG layout: timeline (devices as "
		"columns in start order),\n"
		"                     dot, sfdp, neato, ... (default: dot for "
		"small pictures\n"
		"                     with short edges, else timeline)\n"
		"  --timeout S        stop an SVG layout after S seconds "
		"(default %g)\n"
		"\n",
		DP_EXPORT_TRACE_MAX_EVENTS, DP_EXPORT_DOT_FULL_MAX,
		DP_EXPORT_MAX_NODES, DP_EXPORT_TIMEOUT_S);
	cli_help_machine_opts(out);
	fprintf(out,
		"output:\n"
		"  --json             print one JSON object listing the files "
		"written\n"
		"  --force            replace files that exist (never GRAPH or "
		"PLACEMENT)\n"
		"  -h, --help         this text\n"
		"\n"
		"An existing file is replaced only with --force. Every file is "
		"written to a\ntemporary name and renamed into place; Ctrl-C,\n"
		"an error or a layout over the time limit leaves no partial "
		"file and an\n"
		"existing file as it was. See docs/export.md.\n");
}

typedef struct export_args {
	cli_opts o;
	const char *place_path;
	cli_export_job jobs[CLI_MAX_EXPORTS];
	int njobs;
	dp_export_opts eo;
} export_args;

static int add_job(export_args *x, const char *path, dp_export_kind kind)
{
	if (x->njobs == CLI_MAX_EXPORTS)
		return cli_usage_error("export", "at most %d files at once",
				       CLI_MAX_EXPORTS);
	if (!path[0])
		return cli_usage_error("export", "empty file name");
	x->jobs[x->njobs++] = (cli_export_job){path, kind};
	return 0;
}

static int parse_number(const char *opt, const char *v, double lo, double hi,
			double *out)
{
	char *end;
	errno = 0;
	double d = strtod(v, &end);
	if (!v[0] || *end || errno || !(d >= lo && d <= hi))
		return cli_usage_error("export",
				       "bad %s '%s': expected a number from "
				       "%g to %g",
				       opt, v, lo, hi);
	*out = d;
	return 0;
}

/* The export-only options; 1 when argv[*i] was one, -1 on error. */
static int export_opt(int argc, char **argv, int *i, export_args *x)
{
	static const struct {
		const char *name;
		dp_export_kind kind;
	} kinds[] = {
		{"--dot", DP_EXPORT_DOT},
		{"--svg", DP_EXPORT_SVG},
		{"--png", DP_EXPORT_PNG},
		{"--pdf", DP_EXPORT_PDF},
		{"--trace", DP_EXPORT_TRACE},
		{"--csv", DP_EXPORT_CSV},
		{"--device-map", DP_EXPORT_DEVMAP_TORCH},
		{"--tf-map", DP_EXPORT_DEVMAP_TF},
		{"--pippy", DP_EXPORT_PIPPY},
		{"--megatron", DP_EXPORT_MEGATRON},
		{"--deepspeed", DP_EXPORT_DEEPSPEED},
		{"--torch", DP_EXPORT_TORCHWRAP},
	};
	const char *v;
	int r;
	for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++)
		if ((r = cli_opt_value("export", argc, argv, i, kinds[k].name,
				       &v)))
			return r < 0 || add_job(x, v, kinds[k].kind) ? -1 : 1;
	if ((r = cli_opt_value("export", argc, argv, i, "-o", &v))) {
		dp_export_kind kind;
		dp_err err;
		if (r < 0)
			return -1;
		if (dp_export_kind_from_path(v, &kind, &err)) {
			cli_usage_error("export", "-o %s: %s", v, err.msg);
			return -1;
		}
		return add_job(x, v, kind) ? -1 : 1;
	}
	if ((r = cli_opt_value("export", argc, argv, i, "--coarsen", &v))) {
		dp_err err;
		if (r < 0)
			return -1;
		if (dp_export_coarsen_parse(v, &x->eo.coarsen, &err)) {
			cli_usage_error("export", "%s", err.msg);
			return -1;
		}
		return 1;
	}
	if ((r = cli_opt_value("export", argc, argv, i, "--max-nodes", &v))) {
		long n;
		if (r < 0 ||
		    cli_parse_int("export", "--max-nodes", v, 16, 1000000, &n))
			return -1;
		x->eo.max_nodes = (uint32_t)n;
		return 1;
	}
	if ((r = cli_opt_value("export", argc, argv, i, "--timeout", &v))) {
		if (r < 0 ||
		    parse_number("--timeout", v, 0.1, 86400, &x->eo.timeout_s))
			return -1;
		return 1;
	}
	if ((r = cli_opt_value("export", argc, argv, i, "--layout", &v))) {
		if (r < 0)
			return -1;
		x->eo.layout = v;
		return 1;
	}
	return 0;
}

static int parse(int argc, char **argv, export_args *x)
{
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		int r = export_opt(argc, argv, &i, x);
		if (r < 0)
			return 2;
		if (r > 0)
			continue;
		r = cli_parse_common("export", argc, argv, &i, &x->o);
		if (r < 0)
			return 2;
		if (r > 0)
			continue;
		if (cli_take_graph_placement("export", a, &x->o,
					     &x->place_path))
			return 2;
	}
	if (cli_require_graph_placement("export", &x->o, x->place_path) ||
	    cli_refuse_planning_opts("export", &x->o, false))
		return 2;
	if (x->njobs == 0)
		return cli_usage_error("export",
				       "nothing to write: give --svg F, --png "
				       "F, --pdf F, --dot F, --trace F, --csv "
				       "F, --device-map F, --tf-map F or -o F");
	return 0;
}

int cmd_export_run(int argc, char **argv)
{
	export_args x;
	memset(&x, 0, sizeof x);
	cli_opts_init(&x.o);
	dp_export_opts_default(&x.eo);
	int rc = parse(argc, argv, &x);
	if (rc)
		return rc;
	cli_out_rule rule = {{x.o.graph_path, x.place_path}, x.o.force};
	const char *outs[CLI_MAX_EXPORTS];
	for (int i = 0; i < x.njobs; i++)
		outs[i] = x.jobs[i].path;
	if ((rc = cli_check_outputs(outs, (size_t)x.njobs, &rule)))
		return rc;
	dp_graph *g;
	if ((rc = cli_load_graph(&x.o, &g)))
		return rc;
	dp_machine m;
	dp_plan plan;
	char made_by[sizeof plan.algo];
	if ((rc = cli_eval_placement(&x.o, g, x.place_path, &m, &plan,
				     made_by))) {
		dp_graph_free(g);
		return rc;
	}
	/* titles name what made the placement, not "eval" */
	if (made_by[0])
		snprintf(plan.algo, sizeof plan.algo, "%s", made_by);
	rc = cli_run_exports(x.jobs, x.njobs, g, &m, &plan, &x.eo, &rule,
			     stdout, x.o.json);
	dp_plan_free(&plan);
	dp_machine_free(&m);
	dp_graph_free(g);
	return rc;
}

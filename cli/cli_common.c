/* cli_common.c - option parsing and set-up shared by the subcommands (see
 * cli.h), so that -k, --mem, --link, ... mean the same everywhere and bad
 * values are caught before a large graph is loaded.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "dnnpart/strategy.h"
#include "dnnpart/units.h"

void cli_opts_init(cli_opts *o)
{
	memset(o, 0, sizeof *o);
	o->format = DP_FMT_AUTO;
	o->contention = DP_CONT_PORT;
	o->schedule = -1;
	o->bucket = -1;
}

int cli_error(const dp_err *err)
{
	char buf[2048];
	fprintf(stderr, "dnnpart: %s\n", dp_err_format(err, buf, sizeof buf));
	return dp_status_exit_code(err->code);
}

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "dnnpart %s: ", cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry 'dnnpart %s --help'.\n", cmd);
	return 2;
}

/* Matches argv[*i] against an option that takes a value, in the forms
 * "NAME VALUE" and "NAME=VALUE" (and "-kVALUE" for a one-letter short
 * name). Returns 1 with *val set, 0 when it is not this option, -1 when the
 * value is missing (error printed). */
static int opt_value(const char *cmd, int argc, char **argv, int *i,
		     const char *name, const char *alias, const char **val)
{
	const char *a = argv[*i];
	const char *names[2] = {name, alias};
	for (int n = 0; n < 2; n++) {
		const char *nm = names[n];
		if (!nm)
			continue;
		size_t l = strlen(nm);
		if (strncmp(a, nm, l) != 0)
			continue;
		if (a[l] == '=') {
			*val = a + l + 1;
			return 1;
		}
		if (a[l] == '\0') {
			if (*i + 1 >= argc) {
				cli_usage_error(cmd, "option %s needs a value",
						nm);
				return -1;
			}
			*val = argv[++*i];
			return 1;
		}
		if (l == 2 && nm[0] == '-' && nm[1] != '-') {
			*val = a + l; /* -k4 */
			return 1;
		}
	}
	return 0;
}

int cli_opt_value(const char *cmd, int argc, char **argv, int *i,
		  const char *name, const char **val)
{
	return opt_value(cmd, argc, argv, i, name, NULL, val);
}

const dp_algo *cli_find_algo(const char *cmd, const char *opt, const char *name)
{
	const dp_algo *a = NULL;
	dp_err err;
	if (dp_algo_lookup(name, &a, &err))
		cli_usage_error(cmd, "%s: %s", opt, err.msg);
	return a;
}

int cli_parse_algo(const char *cmd, int argc, char **argv, int *i,
		   const dp_algo **algo)
{
	const char *v;
	int r = opt_value(cmd, argc, argv, i, "--algo", NULL, &v);
	if (r <= 0)
		return r;
	*algo = cli_find_algo(cmd, "--algo", v);
	return *algo ? 1 : -1;
}

int cli_parse_candidates(const char *cmd, int argc, char **argv, int *i,
			 cli_opts *o)
{
	const char *v;
	int r = opt_value(cmd, argc, argv, i, "--algos", NULL, &v);
	if (r <= 0)
		return r;
	if (cli_algo_list(cmd, "--algos", v, o->cands, 64, &o->ncands))
		return -1;
	return 1;
}

int cli_candidates_clash(const char *cmd, const cli_opts *o)
{
	if (!o->ncands || !o->algo || o->algo == dp_algo_find("best"))
		return 0;
	return cli_usage_error(cmd,
			       "--algos names what best (the default) runs; "
			       "--algo %s runs %s alone: give one",
			       o->algo->name, o->algo->name);
}

int cli_algo_list(const char *cmd, const char *opt, const char *spec,
		  const dp_algo **out, size_t cap, size_t *n)
{
	dp_err err;
	if (dp_algo_parse_list(spec, out, cap, n, &err))
		return cli_usage_error(cmd, "%s: %s", opt, err.msg);
	return 0;
}

int cli_parse_int(const char *cmd, const char *opt, const char *s, long lo,
		  long hi, long *v)
{
	char *end;
	errno = 0;
	long x = strtol(s, &end, 10);
	if (!s[0] || *end || errno == ERANGE || x < lo || x > hi)
		return cli_usage_error(cmd,
				       "bad %s '%s': expected a whole number "
				       "from %ld to %ld",
				       opt, s, lo, hi);
	*v = x;
	return 0;
}

/* Checks the value v of the shared option name: 0, or -1 after the usage
 * error. Stores the values that are not kept as text (the objective, the
 * contention, the format). */
static int check_value(const char *cmd, const char *name, const char *v,
		       cli_opts *o)
{
	double x;
	dp_err err;
	dp_err_clear(&err);
	if (!strcmp(name, "--mem")) {
		/* each cap as the explorer's prompts check it */
		if (dp_machine_check_caps(v, &err))
			return cli_usage_error(cmd, "--mem %s: %s", v, err.msg);
		return 0;
	}
	if (!strcmp(name, "--link")) {
		if (strcmp(v, "file") != 0 && !dp_machine_find_link(v))
			return cli_usage_error(
				cmd,
				"unknown link preset '%s' (known: %s, file)", v,
				dp_machine_link_names());
		return 0;
	}
	if (!strcmp(name, "--precision") || !strcmp(name, "--recompute") ||
	    !strcmp(name, "--fuse") || !strcmp(name, "--gpu") ||
	    !strcmp(name, "--offload") || !strcmp(name, "--host-mem"))
		return cli_check_lever(cmd, name, v) ? -1 : 0;
	if (!strcmp(name, "--schedule")) {
		dp_schedule sch;
		if (dp_schedule_parse(v, &sch, &err))
			return cli_usage_error(cmd, "--schedule: %s", err.msg);
		o->schedule = (int)sch;
		return 0;
	}
	if (!strcmp(name, "--bucket")) {
		int64_t b;
		if (dp_units_parse_bytes(v, &b, &err))
			return cli_usage_error(cmd,
					       "--bucket: %s; expected a size "
					       "such as 25MiB, or 0 for one "
					       "collective per gradient",
					       err.msg);
		o->bucket = b;
		return 0;
	}
	if (!strcmp(name, "--objective")) {
		if (strcmp(v, "step") && strcmp(v, "throughput"))
			return cli_usage_error(cmd,
					       "--objective: expected step or "
					       "throughput, got '%s'",
					       v);
		o->objective = v[0] == 's' ? DP_OBJ_STEP : DP_OBJ_THROUGHPUT;
		return 0;
	}
	dp_status st =
		!strcmp(name, "--bw") ? dp_units_parse_bandwidth(v, &x, &err)
		: !strcmp(name, "--lat") || !strcmp(name, "--kernel-overhead")
			? dp_units_parse_time(v, &x, &err)
		: !strcmp(name, "--contention")
			? dp_sim_contention_parse(v, &o->contention, &err)
			: dp_load_format_parse(v, &o->format, &err);
	return st ? cli_usage_error(cmd, "%s: %s", name, err.msg) : 0;
}

/* The options with a value that every command shares: where the value goes
 * (type 's': the text, 'i' an int, 'l' a long long, from 1 to hi; 0:
 * check_value stores it) and whether check_value checks it. */
static const struct common_opt {
	const char *name, *alias;
	char type;
	long hi;
	size_t off;
	bool check;
} common_opts[] = {
	{"-k", "--devices", 'i', DP_MAX_DEVICES, offsetof(cli_opts, k), false},
	{"--mem", NULL, 's', 0, offsetof(cli_opts, mem), true},
	{"--reserve", NULL, 's', 0, offsetof(cli_opts, reserve), false},
	{"--speed", NULL, 's', 0, offsetof(cli_opts, speeds), false},
	{"--link", NULL, 's', 0, offsetof(cli_opts, link), true},
	{"--bw", NULL, 's', 0, offsetof(cli_opts, bw), true},
	{"--lat", NULL, 's', 0, offsetof(cli_opts, lat), true},
	{"--kernel-overhead", NULL, 's', 0, offsetof(cli_opts, kernel), true},
	{"--objective", NULL, 0, 0, 0, true},
	{"--schedule", NULL, 0, 0, 0, true},
	{"--contention", NULL, 0, 0, 0, true},
	{"--microbatches", "-M", 'i', DP_MAX_MICROBATCHES,
	 offsetof(cli_opts, microbatches), false},
	{"--tp", NULL, 'i', DP_MAX_DEVICES, offsetof(cli_opts, tp), false},
	{"--virtual-stages", NULL, 'i', DP_MAX_VIRTUAL_STAGES,
	 offsetof(cli_opts, virtual_stages), false},
	{"--zero-stage", NULL, 'i', 3, offsetof(cli_opts, zero_stage), false},
	{"--bucket", NULL, 0, 0, 0, true},
	{"--batch", NULL, 'l', 1L << 30, offsetof(cli_opts, batch), false},
	{"--format", NULL, 0, 0, 0, true},
	{"--precision", NULL, 's', 0, offsetof(cli_opts, precision), true},
	{"--recompute", NULL, 's', 0, offsetof(cli_opts, recompute), true},
	{"--fuse", NULL, 's', 0, offsetof(cli_opts, fuse), true},
	{"--gpu", NULL, 's', 0, offsetof(cli_opts, gpu), true},
	{"--offload", NULL, 's', 0, offsetof(cli_opts, offload), true},
	{"--host-mem", NULL, 's', 0, offsetof(cli_opts, host_mem), true}};

int cli_parse_common(const char *cmd, int argc, char **argv, int *i,
		     cli_opts *o)
{
	const char *a = argv[*i], *v;
	if (!strcmp(a, "--json")) {
		o->json = true;
		return 1;
	}
	if (!strcmp(a, "--force")) {
		o->force = true;
		return 1;
	}
	if (!strcmp(a, "--sp")) {
		o->sp = true;
		return 1;
	}
	for (size_t j = 0; j < sizeof common_opts / sizeof *common_opts; j++) {
		const struct common_opt *c = &common_opts[j];
		int r = opt_value(cmd, argc, argv, i, c->name, c->alias, &v);
		if (r == 0)
			continue;
		long n = 0;
		if (r < 0 || (c->check && check_value(cmd, c->name, v, o)) ||
		    (c->hi && cli_parse_int(cmd, c->name, v, 1, c->hi, &n)))
			return -1;
		char *field = (char *)o + c->off;
		if (c->type == 's')
			memcpy(field, &v, sizeof v);
		else if (c->type == 'i')
			*(int *)(void *)field = (int)n;
		else if (c->type == 'l')
			*(long long *)(void *)field = n;
		return 1;
	}
	return 0;
}

void cli_help_machine_opts(FILE *out)
{
	fprintf(out,
		"machine (defaults: the graph file's \"machine\" block, else 1 "
		"device, no cap):\n"
		"  -k, --devices K    number of devices, 1..%d\n"
		"  --mem CAPS         memory cap per device: one size for all "
		"(16GiB, 512MB,\n"
		"                     16g) or a comma list with one per device "
		"(16g,16g,8g);\n"
		"                     inf or none = unlimited\n"
		"  --reserve R        memory the framework takes on each "
		"device (CUDA context,\n"
		"                     fragmentation), counted against its cap: "
		"a size (1GiB)\n"
		"                     or a percent of each cap (5%%)\n"
		"  --speed S          speed factor per device: one for all or "
		"a "
		"comma list\n"
		"                     (op time = time_us / speed; default 1)\n"
		"  --link PRESET      link preset: %s\n"
		"                     (default pardnn: 130 GB/s, 25 us), or "
		"file: the\n"
		"                     graph's own transfer times (msr-fiddle "
		"cost)\n"
		"  --bw BW            link bandwidth (130GB/s, 900GiB/s); "
		"overrides --link\n"
		"  --lat LAT          link latency (25us, 2ms); overrides "
		"--link\n"
		"  --contention M     port (default: one send and one receive "
		"at a time per\n"
		"                     device) or none (transfers never wait)\n"
		"  --kernel-overhead T  a kernel's cost however small its "
		"work (default 5us;\n                     0: work divides "
		"perfectly; docs/simulator.md)\n"
		"  --objective O      step (default: the makespan of one step) "
		"or throughput:\n"
		"                     the max load over devices, time per "
		"sample in a steady\n"
		"                     pipelined stream (plan's default "
		"algorithm is then\n"
		"                     msr-dp; compare ranks by it; eval "
		"prints it)\n"
		"strategies (dp, zero, gpipe, 1f1b, ...; docs/algorithms.md):\n"
		"  -M, --microbatches M  micro-batches of a pipeline, 1..%d "
		"(not eval, export)\n"
		"  --schedule S       a pipeline's schedule: gpipe (all "
		"forwards, then all\n"
		"                     backwards), 1f1b, zb-h1 (1F1B with "
		"the weight\n"
		"                     gradients deferred), stash or 2bw "
		"(asynchronous:\n"
		"                     PipeDream, PipeDream-2BW); default: "
		"the algorithm's own\n"
		"  --tp T             tensor-parallel size (default: the "
		"algorithm's choice;\n"
		"                     not eval, export)\n"
		"  --virtual-stages V interleaved 1F1B (1f1b, hybrid): V chunks "
		"per device,\n"
		"                     1..%d (default: searched)\n"
		"  --zero-stage Z     zero's ZeRO stage: 1 optimizer state, 2 "
		"also gradients\n"
		"                     (default), 3 also weights (FSDP full "
		"shard); not eval\n"
		"  --bucket SIZE      gradient buckets of the all-reduces, as "
		"DDP's (default\n"
		"                     25MiB; 0 = one collective per "
		"gradient); not eval\n"
		"  --sp               sequence parallelism with --tp T > 1 "
		"(megatron, hybrid):\n"
		"                     the ops tensor parallelism replicates "
		"split along s\n"
		"  --batch B          the step at batch size B: what the "
		"graph's "
		"dims index by\n"
		"                     its batch_dim scales (docs/formats.md)\n"
		"input:\n"
		"  --format F         force the graph format: json, dot, "
		"pardnn, fiddle,\n"
		"                     pipedream (default: detected from the "
		"content)\n",
		DP_MAX_DEVICES, dp_machine_link_names(), DP_MAX_MICROBATCHES,
		DP_MAX_VIRTUAL_STAGES);
	cli_help_levers(out);
}

/* The graph with --batch, without the levers. */
static int load_graph_batch(const cli_opts *o, dp_graph **g)
{
	dp_err err;
	dp_err_clear(&err);
	dp_status st = dp_graph_load(o->graph_path, o->format, g, &err);
	int rc = cli_graph_loaded(o, st, st ? NULL : *g, &err);
	return rc ? rc : cli_apply_batch(o, g);
}

int cli_load_graph(const cli_opts *o, dp_graph **g)
{
	int rc = load_graph_batch(o, g);
	return rc ? rc : cli_apply_levers(o, g);
}

int cli_apply_batch(const cli_opts *o, dp_graph **g)
{
	if (!o->batch)
		return 0;
	dp_err err;
	dp_err_clear(&err);
	dp_graph *b = NULL;
	if (dp_graph_with_batch(*g, o->batch, &b, &err)) {
		dp_graph_free(*g);
		*g = NULL;
		char buf[2048];
		fprintf(stderr, "dnnpart: --batch %lld: %s\n", o->batch,
			dp_err_format(&err, buf, sizeof buf));
		return dp_status_exit_code(err.code);
	}
	dp_graph_free(*g);
	*g = b;
	return 0;
}

int cli_graph_loaded(const cli_opts *o, dp_status st, const dp_graph *g,
		     const dp_err *err)
{
	if (st)
		return cli_error(err);
	/* loader notes: the user should know what was left out */
	if (g->cpu_pinned)
		fprintf(stderr,
			"dnnpart: warning: %s: %u op%s pinned to the host CPU "
			"%s kept out of the graph (dependencies through them "
			"became control edges)\n",
			o->graph_path, g->cpu_pinned,
			g->cpu_pinned == 1 ? "" : "s",
			g->cpu_pinned == 1 ? "is" : "are");
	if (g->unknown_names)
		fprintf(stderr,
			"dnnpart: warning: %s: %u side-file entr%s named no op "
			"of the graph and %s skipped\n",
			o->graph_path, g->unknown_names,
			g->unknown_names == 1 ? "y" : "ies",
			g->unknown_names == 1 ? "was" : "were");
	return 0;
}

/* Entries in a comma list (0 for NULL). */
static int list_len(const char *s)
{
	if (!s)
		return 0;
	int n = 1;
	for (; *s; s++)
		n += *s == ',';
	return n;
}

/* Prints a machine set-up error as coming from the option. */
static int machine_error(const char *opt, const dp_err *err)
{
	fprintf(stderr, "dnnpart: %s: %s\n", opt, err->msg);
	return dp_status_exit_code(err->code);
}

int cli_make_machine(const cli_opts *o, const dp_graph *g, dp_machine *m)
{
	dp_err err;
	dp_err_clear(&err);
	if (dp_machine_init_from_hint(m, &g->hint, &err)) {
		/* the hint came from the graph file */
		if (!err.file[0])
			snprintf(err.file, sizeof err.file, "%s",
				 o->graph_path ? o->graph_path : "");
		return cli_error(&err);
	}
	/* without -k or a machine block, a list of caps or speeds says how
	 * many devices there are */
	int k = o->k;
	if (!k && g->hint.devices <= 0) {
		int n = list_len(o->mem);
		if (list_len(o->speeds) > n)
			n = list_len(o->speeds);
		if (n > 1)
			k = n;
	}
	const char *bad = NULL; /* the option whose value is refused */
	if (k && k != m->k && dp_machine_resize(m, k, &err)) {
		dp_machine_free(m);
		return machine_error("-k", &err);
	}
	int rc = cli_apply_gpu(o, m);
	if (rc) {
		dp_machine_free(m);
		return rc;
	}
	bool link_file = o->link && strcmp(o->link, "file") == 0;
	if (o->mem && dp_machine_set_caps(m, o->mem, &err))
		bad = "--mem";
	else if (o->speeds && dp_machine_set_speeds(m, o->speeds, &err))
		bad = "--speed";
	else if (o->link && !link_file && dp_machine_set_link(m, o->link, &err))
		bad = "--link";
	if (!bad && link_file && !g->xfer_us) {
		dp_machine_free(m);
		fprintf(stderr,
			"dnnpart: --link file: %s gives no transfer "
			"times of its own (msr-fiddle files do: their "
			"edges' cost)\n",
			o->graph_path ? o->graph_path : "the graph");
		return 2;
	}
	if (!bad && link_file)
		dp_machine_set_link_file(m);
	if (!bad && o->bw && dp_units_parse_bandwidth(o->bw, &m->bw, &err))
		bad = "--bw";
	else if (!bad && o->lat && dp_units_parse_time(o->lat, &m->lat, &err))
		bad = "--lat";
	else if (!bad && o->reserve &&
		 dp_machine_set_reserve(m, o->reserve, &err))
		bad = "--reserve";
	else if (!bad && o->kernel &&
		 dp_units_parse_time(o->kernel, &m->kernel_us, &err))
		bad = "--kernel-overhead";
	if (bad) {
		dp_machine_free(m);
		return machine_error(bad, &err);
	}
	if ((o->bw || o->lat) && !m->link_file)
		snprintf(m->link_name, sizeof m->link_name, "custom");
	return 0;
}

/* A duration option at argv[*i] named opt, in seconds (a plain number or a
 * time with its unit), from 0.001 s to a day, into *dst. */
static int parse_seconds(const char *cmd, int argc, char **argv, int *i,
			 const char *opt, double *dst)
{
	const char *v;
	int r = opt_value(cmd, argc, argv, i, opt, NULL, &v);
	if (r <= 0)
		return r;
	double x, us;
	size_t n = dp_units_scan_number(v, &x);
	dp_err err;
	if (n && v[n] == '\0') {
		us = x * 1e6; /* a plain number: seconds */
	} else if (dp_units_parse_time(v, &us, &err)) {
		cli_usage_error(cmd, "%s: %s", opt, err.msg);
		return -1;
	}
	/* a day is far beyond what either is useful for */
	if (!(us >= 1e3 && us <= 86400e6)) {
		cli_usage_error(cmd,
				"bad %s '%s': expected seconds from "
				"0.001 to 86400 (e.g. 30, 2.5, 500ms)",
				opt, v);
		return -1;
	}
	*dst = us / 1e6;
	return 1;
}

int cli_parse_time_limit(const char *cmd, int argc, char **argv, int *i,
			 cli_opts *o)
{
	int r = parse_seconds(cmd, argc, argv, i, "--time-limit",
			      &o->time_limit_s);
	if (r == 0)
		r = parse_seconds(cmd, argc, argv, i, "--budget", &o->budget_s);
	return r;
}

int cli_parse_plan_flags(const char *cmd, int argc, char **argv, int *i,
			 cli_opts *o)
{
	if (!strcmp(argv[*i], "--strict")) {
		o->strict = true;
		return 1;
	}
	if (!strcmp(argv[*i], "--no-polish")) {
		o->no_polish = true;
		return 1;
	}
	return cli_parse_time_limit(cmd, argc, argv, i, o);
}

int cli_refuse_planning_opts(const char *cmd, const cli_opts *o, bool objective)
{
	const char *opt = o->tp		    ? "--tp"
			  : o->zero_stage   ? "--zero-stage"
			  : o->bucket >= 0  ? "--bucket"
			  : o->sp	    ? "--sp"
			  : o->microbatches ? "-M"
			  : !objective && o->objective != DP_OBJ_STEP
				  ? "--objective"
				  : NULL;
	if (!opt)
		return 0;
	return cli_usage_error(cmd,
			       "%s chooses how an algorithm plans (plan, "
			       "compare, fit and show take it); %s takes "
			       "PLACEMENT as it was saved: plan again with "
			       "%s to change it",
			       opt, cmd, opt);
}

bool cli_algo_takes_tp(const dp_algo *a)
{
	return a->takes_tp;
}

int cli_check_tp(const cli_opts *o, const dp_machine *m,
		 const dp_algo *const *algos, size_t n)
{
	int rc = cli_check_async(o, algos, n);
	if (rc)
		return rc;
	if (o->sp && o->tp < 2) {
		fprintf(stderr,
			"dnnpart: --sp needs --tp T > 1: sequence parallelism "
			"splits along the sequence the ops that T-way tensor "
			"parallelism replicates (%s)\n",
			o->tp ? "--tp 1 has none" : "give --tp");
		return 2;
	}
	const dp_algo *a = NULL;
	for (size_t i = 0; !a && i < n; i++)
		a = cli_algo_takes_tp(algos[i]) ? algos[i] : NULL;
	if (!a || o->tp <= 0 || m->k % o->tp == 0)
		return 0;
	/* the T that do: "1, 2, 4 or 8" */
	char ts[400];
	size_t len = 0;
	for (int t = 1; t <= m->k && len < sizeof ts; t++)
		if (m->k % t == 0)
			len += (size_t)snprintf(
				ts + len, sizeof ts - len, "%s%d",
				len ? (t == m->k ? " or " : ", ") : "", t);
	fprintf(stderr,
		"dnnpart: --tp %d does not divide the %d devices: %s needs "
		"a tensor-parallel size T that divides K (here %s)\n",
		o->tp, m->k, a->name, ts);
	return 2;
}

void cli_algo_opts(const cli_opts *o, dp_algo_opts *ao)
{
	dp_algo_opts_default(ao);
	ao->contention = o->contention;
	ao->objective = o->objective;
	ao->polish = !o->no_polish;
	ao->microbatches = o->microbatches;
	ao->tp = o->tp;
	ao->virtual_stages = o->virtual_stages;
	ao->zero_stage = o->zero_stage;
	if (o->bucket >= 0)
		ao->bucket = o->bucket;
	ao->sp = o->sp;
	ao->schedule = o->schedule;
	if (o->time_limit_s > 0)
		ao->time_limit_s = o->time_limit_s;
	ao->budget_s = o->budget_s;
	if (o->ncands) {
		ao->candidates = o->cands;
		ao->ncandidates = o->ncands;
	}
}

int cli_load_graph_machine(const cli_opts *o, dp_graph **g, dp_machine *m)
{
	bool autorc = cli_wants_auto(o);
	int rc = autorc ? load_graph_batch(o, g) : cli_load_graph(o, g);
	if (rc)
		return rc;
	if ((rc = cli_make_machine(o, *g, m))) {
		dp_graph_free(*g);
		*g = NULL;
	} else if (autorc && (rc = cli_apply_auto(o, g, m)))
		dp_machine_free(m);
	return rc;
}

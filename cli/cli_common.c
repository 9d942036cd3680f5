/* cli_common.c - option parsing and set-up shared by the subcommands (see
 * cli.h), so that -k, --mem, --link, ... mean the same everywhere and bad
 * values are caught before a large graph is loaded.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
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

/* Checks a comma list of caps ("16GiB" or "16GiB,8GiB,inf") as the
 * explorer's prompts do (dp_machine_check_caps). */
static int check_caps(const char *cmd, const char *spec)
{
	dp_err err;
	dp_err_clear(&err);
	if (dp_machine_check_caps(spec, &err))
		return cli_usage_error(cmd, "--mem %s: %s", spec, err.msg);
	return 0;
}

int cli_parse_common(const char *cmd, int argc, char **argv, int *i,
		     cli_opts *o)
{
	const char *a = argv[*i], *v;
	dp_err err;
	int r;
	if (!strcmp(a, "--json")) {
		o->json = true;
		return 1;
	}
	if (!strcmp(a, "--force")) {
		o->force = true;
		return 1;
	}
	if ((r = opt_value(cmd, argc, argv, i, "-k", "--devices", &v))) {
		long k;
		if (r < 0 || cli_parse_int(cmd, "-k", v, 1, DP_MAX_DEVICES, &k))
			return -1;
		o->k = (int)k;
		return 1;
	}
	if ((r = opt_value(cmd, argc, argv, i, "--mem", NULL, &v))) {
		if (r < 0 || check_caps(cmd, v))
			return -1;
		o->mem = v;
		return 1;
	}
	if ((r = opt_value(cmd, argc, argv, i, "--reserve", NULL, &v))) {
		if (r < 0)
			return -1;
		o->reserve = v;
		return 1;
	}
	if ((r = opt_value(cmd, argc, argv, i, "--speed", NULL, &v))) {
		if (r < 0)
			return -1;
		o->speeds = v;
		return 1;
	}
	if ((r = opt_value(cmd, argc, argv, i, "--link", NULL, &v))) {
		if (r < 0)
			return -1;
		if (strcmp(v, "file") != 0 && !dp_machine_find_link(v)) {
			cli_usage_error(cmd,
					"unknown link preset '%s' (known: %s, "
					"file)",
					v, dp_machine_link_names());
			return -1;
		}
		o->link = v;
		return 1;
	}
	if ((r = opt_value(cmd, argc, argv, i, "--bw", NULL, &v))) {
		double bw;
		if (r < 0)
			return -1;
		if (dp_units_parse_bandwidth(v, &bw, &err)) {
			cli_usage_error(cmd, "--bw: %s", err.msg);
			return -1;
		}
		o->bw = v;
		return 1;
	}
	if ((r = opt_value(cmd, argc, argv, i, "--lat", NULL, &v))) {
		double lat;
		if (r < 0)
			return -1;
		if (dp_units_parse_time(v, &lat, &err)) {
			cli_usage_error(cmd, "--lat: %s", err.msg);
			return -1;
		}
		o->lat = v;
		return 1;
	}
	if ((r = opt_value(cmd, argc, argv, i, "--objective", NULL, &v))) {
		if (r < 0)
			return -1;
		if (!strcmp(v, "step")) {
			o->objective = DP_OBJ_STEP;
		} else if (!strcmp(v, "throughput")) {
			o->objective = DP_OBJ_THROUGHPUT;
		} else {
			cli_usage_error(cmd,
					"--objective: expected step or "
					"throughput, got '%s'",
					v);
			return -1;
		}
		return 1;
	}
	if ((r = opt_value(cmd, argc, argv, i, "--contention", NULL, &v))) {
		if (r < 0)
			return -1;
		if (dp_sim_contention_parse(v, &o->contention, &err)) {
			cli_usage_error(cmd, "--contention: %s", err.msg);
			return -1;
		}
		return 1;
	}
	if ((r = opt_value(cmd, argc, argv, i, "--microbatches", "-M", &v))) {
		long n;
		if (r < 0 || cli_parse_int(cmd, "--microbatches", v, 1,
					   DP_MAX_MICROBATCHES, &n))
			return -1;
		o->microbatches = (int)n;
		return 1;
	}
	if ((r = opt_value(cmd, argc, argv, i, "--schedule", NULL, &v))) {
		dp_schedule sch;
		if (r > 0 && dp_schedule_parse(v, &sch, &err) == DP_OK) {
			o->schedule = (int)sch;
			return 1;
		}
		if (r > 0)
			cli_usage_error(cmd, "--schedule: %s", err.msg);
		return -1;
	}
	if ((r = opt_value(cmd, argc, argv, i, "--tp", NULL, &v))) {
		long n;
		if (r < 0 ||
		    cli_parse_int(cmd, "--tp", v, 1, DP_MAX_DEVICES, &n))
			return -1;
		o->tp = (int)n;
		return 1;
	}
	if ((r = opt_value(cmd, argc, argv, i, "--batch", NULL, &v))) {
		long n;
		if (r < 0 || cli_parse_int(cmd, "--batch", v, 1, 1L << 30, &n))
			return -1;
		o->batch = n;
		return 1;
	}
	if ((r = opt_value(cmd, argc, argv, i, "--format", NULL, &v))) {
		if (r < 0)
			return -1;
		if (dp_load_format_parse(v, &o->format, &err)) {
			cli_usage_error(cmd, "--format: %s", err.msg);
			return -1;
		}
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
		"  --objective O      step (default: the makespan of one step) "
		"or throughput:\n"
		"                     the max load over devices, time per "
		"sample in a steady\n"
		"                     pipelined stream (plan's default "
		"algorithm is then\n"
		"                     msr-dp; compare ranks by it)\n"
		"strategies (dp, zero, gpipe, 1f1b, ...; docs/algorithms.md):\n"
		"  -M, --microbatches M  micro-batches of a pipeline, 1..%d\n"
		"  --schedule S       a pipeline's schedule: gpipe (all "
		"forwards, then all\n"
		"                     backwards) or 1f1b (default: the "
		"algorithm's own)\n"
		"  --tp T             tensor-parallel size (default: the "
		"algorithm's choice)\n"
		"  --batch B          the step at batch size B: what the "
		"graph's "
		"dims index by\n"
		"                     its batch_dim scales (docs/formats.md)\n"
		"input:\n"
		"  --format F         force the graph format: json, dot, "
		"pardnn, fiddle,\n"
		"                     pipedream (default: detected from the "
		"content)\n",
		DP_MAX_DEVICES, dp_machine_link_names(), DP_MAX_MICROBATCHES);
}

int cli_load_graph(const cli_opts *o, dp_graph **g)
{
	dp_err err;
	dp_err_clear(&err);
	dp_status st = dp_graph_load(o->graph_path, o->format, g, &err);
	int rc = cli_graph_loaded(o, st, st ? NULL : *g, &err);
	return rc ? rc : cli_apply_batch(o, g);
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
	if (k && k != m->k && dp_machine_resize(m, k, &err))
		goto fail_k;
	if (o->mem && dp_machine_set_caps(m, o->mem, &err))
		goto fail_mem;
	if (o->speeds && dp_machine_set_speeds(m, o->speeds, &err)) {
		dp_machine_free(m);
		return machine_error("--speed", &err);
	}
	if (o->link && strcmp(o->link, "file") == 0) {
		if (!g->xfer_us) {
			dp_machine_free(m);
			fprintf(stderr,
				"dnnpart: --link file: %s gives no transfer "
				"times of its own (msr-fiddle files do: their "
				"edges' cost)\n",
				o->graph_path ? o->graph_path : "the graph");
			return 2;
		}
		dp_machine_set_link_file(m);
	} else if (o->link && dp_machine_set_link(m, o->link, &err)) {
		dp_machine_free(m);
		return machine_error("--link", &err);
	}
	if (o->bw) {
		if (dp_units_parse_bandwidth(o->bw, &m->bw, &err)) {
			dp_machine_free(m);
			return machine_error("--bw", &err);
		}
		if (!m->link_file)
			snprintf(m->link_name, sizeof m->link_name, "custom");
	}
	if (o->lat) {
		if (dp_units_parse_time(o->lat, &m->lat, &err)) {
			dp_machine_free(m);
			return machine_error("--lat", &err);
		}
		if (!m->link_file)
			snprintf(m->link_name, sizeof m->link_name, "custom");
	}
	if (o->reserve && dp_machine_set_reserve(m, o->reserve, &err)) {
		dp_machine_free(m);
		return machine_error("--reserve", &err);
	}
	return 0;
fail_k:
	dp_machine_free(m);
	return machine_error("-k", &err);
fail_mem:
	dp_machine_free(m);
	return machine_error("--mem", &err);
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

void cli_algo_opts(const cli_opts *o, dp_algo_opts *ao)
{
	dp_algo_opts_default(ao);
	ao->contention = o->contention;
	ao->objective = o->objective;
	ao->polish = !o->no_polish;
	ao->microbatches = o->microbatches;
	ao->tp = o->tp;
	ao->schedule = o->schedule;
	if (o->time_limit_s > 0)
		ao->time_limit_s = o->time_limit_s;
	ao->budget_s = o->budget_s;
}

int cli_load_graph_machine(const cli_opts *o, dp_graph **g, dp_machine *m)
{
	int rc = cli_load_graph(o, g);
	if (rc)
		return rc;
	if ((rc = cli_make_machine(o, *g, m))) {
		dp_graph_free(*g);
		*g = NULL;
	}
	return rc;
}

char *cli_fmt_us(double us, char *buf, size_t size)
{
	/* sums of many op times carry float noise (1375689.5849999979):
	 * nanoseconds are as exact as any input is */
	double r = isfinite(us) && fabs(us) < 1e15 ? round(us * 1000.0) / 1000.0
						   : us;
	return dp_units_fmt_num(r, buf, size);
}

bool cli_wants_help(int argc, char **argv)
{
	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))
			return true;
	return false;
}

int cli_parse_common_or_graph(const char *cmd, int argc, char **argv, int *i,
			      cli_opts *o)
{
	int r = cli_parse_common(cmd, argc, argv, i, o);
	if (r < 0)
		return 2;
	if (r > 0)
		return 0;
	return cli_take_graph_arg(cmd, argv[*i], o);
}

int cli_take_graph_arg(const char *cmd, const char *a, cli_opts *o)
{
	if (a[0] == '-' && a[1])
		return cli_usage_error(cmd, "unknown option '%s'", a);
	if (o->graph_path)
		return cli_usage_error(cmd,
				       "one graph at a time: got '%s' after "
				       "'%s'",
				       a, o->graph_path);
	o->graph_path = a;
	return 0;
}

int cli_require_graph(const char *cmd, const cli_opts *o)
{
	if (o->graph_path)
		return 0;
	return cli_usage_error(cmd, "missing GRAPH (a graph file or ParDNN "
				    "folder)");
}

int cli_take_graph_placement(const char *cmd, const char *a, cli_opts *o,
			     const char **place)
{
	if (a[0] == '-' && a[1])
		return cli_usage_error(cmd, "unknown option '%s'", a);
	if (!o->graph_path)
		o->graph_path = a;
	else if (!*place)
		*place = a;
	else
		return cli_usage_error(cmd,
				       "unexpected argument '%s' (expected "
				       "GRAPH PLACEMENT)",
				       a);
	return 0;
}

int cli_require_graph_placement(const char *cmd, const cli_opts *o,
				const char *place)
{
	if (!o->graph_path || !place)
		return cli_usage_error(cmd,
				       "missing %s (expected GRAPH PLACEMENT)",
				       o->graph_path ? "PLACEMENT" : "GRAPH");
	return 0;
}

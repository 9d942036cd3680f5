/* cmd_info.c - `dnnpart info GRAPH`: what a graph holds, before any
 * placement: size, total work, the graph critical path (no communication),
 * parallelism, memory totals, colocation, pins, op types and the machine
 * block of the file.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "dnnpart/units.h"
#include "fmt.h"

/* Op types shown, most frequent first. */
#define TYPES_SHOWN 6

typedef struct type_count {
	uint32_t type; /* string offset; 0 = no type */
	uint32_t count;
} type_count;

typedef struct graph_facts {
	uint32_t control_edges, grouped_ops, pinned_ops, path_len;
	double cp_us, parallelism;
	int64_t param, output, temp, total, largest;
	/* parameters: the elements of the param tensors the ops name
	 * (param dims); param_ops hold param bytes, counted_ops of them name
	 * their param dims */
	int64_t nparams;
	uint32_t param_ops, counted_ops;
	uint32_t largest_op;
	type_count *types; /* distinct types, most frequent first */
	uint32_t ntypes;
} graph_facts;

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return (x > y) - (x < y);
}

static const dp_graph *sort_graph; /* for cmp_types (qsort has no context) */

static int cmp_types(const void *a, const void *b)
{
	const type_count *x = a, *y = b;
	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	return strcmp(dp_graph_str(sort_graph, x->type),
		      dp_graph_str(sort_graph, y->type));
}

/* Adds op u's parameters to f: the product of its param dims. param_bytes
 * counts bytes, which may hold the gradients and the optimizer state too
 * (Adam's two moments: 3x the weights), so the count comes from the dims,
 * never from the bytes. */
static void count_params(const dp_graph *g, uint32_t u, graph_facts *f)
{
	if (g->ops[u].param_bytes <= 0)
		return;
	f->param_ops++;
	dp_dims d;
	if (!dp_op_dims(g, u, &d) || d.nparam < 0)
		return;
	int64_t n = 1;
	for (int32_t i = 0; i < d.nparam; i++)
		n *= d.sizes[d.param[i]];
	f->nparams += n;
	f->counted_ops++;
}

/* Fills f; returns 0, or an exit code after printing the error. */
static int gather(const dp_graph *g, graph_facts *f)
{
	memset(f, 0, sizeof *f);
	for (uint32_t e = 0; e < g->nedges; e++)
		f->control_edges += g->edges[e].control;
	f->largest = -1;
	for (uint32_t u = 0; u < g->nops; u++) {
		const dp_op *op = &g->ops[u];
		int64_t mem =
			op->param_bytes + op->output_bytes + op->temp_bytes;
		f->param += op->param_bytes;
		f->output += op->output_bytes;
		f->temp += op->temp_bytes;
		f->total += mem;
		if (mem > f->largest) {
			f->largest = mem;
			f->largest_op = u;
		}
		f->grouped_ops += op->colocate >= 0;
		f->pinned_ops += op->pin >= 0;
		count_params(g, u, f);
	}
	f->cp_us = dp_graph_critical_path(g, 1.0, NULL, &f->path_len);
	uint32_t *t = malloc(((size_t)g->nops + 1) * sizeof *t);
	f->types = malloc(((size_t)g->nops + 1) * sizeof *f->types);
	if (f->cp_us < 0 || !t || !f->types) {
		free(t);
		free(f->types);
		fprintf(stderr, "dnnpart: out of memory summarising %s\n",
			g->name);
		return 2;
	}
	f->parallelism = f->cp_us > 0 ? g->total_time_us / f->cp_us : 0;
	for (uint32_t u = 0; u < g->nops; u++)
		t[u] = g->ops[u].type;
	qsort(t, g->nops, sizeof *t, cmp_u32);
	for (uint32_t i = 0; i < g->nops; i++) {
		if (i == 0 || t[i] != t[i - 1])
			f->types[f->ntypes++] = (type_count){t[i], 0};
		f->types[f->ntypes - 1].count++;
	}
	free(t);
	sort_graph = g;
	qsort(f->types, f->ntypes, sizeof *f->types, cmp_types);
	return 0;
}

/* Warns when some ops have dims and some compute ops (any role but input
 * and param) have none: --batch leaves those as they are and strategies
 * cannot split them. */
static void warn_dimless(const dp_graph *g)
{
	uint32_t with = 0, without = 0, first = 0;
	for (uint32_t u = 0; u < g->nops; u++) {
		dp_dims d;
		dp_role r = dp_op_role(g, u);
		if (dp_op_dims(g, u, &d))
			with++;
		else if (r != DP_ROLE_INPUT && r != DP_ROLE_PARAM && !without++)
			first = u;
	}
	if (with && without)
		fprintf(stderr,
			"dnnpart: warning: %s: %u compute op%s without dims "
			"(first: %s): --batch leaves %s as %s, and no "
			"strategy splits %s\n",
			g->source, without, without == 1 ? "" : "s",
			dp_graph_op_name(g, first), without == 1 ? "it" : "them",
			without == 1 ? "it is" : "they are",
			without == 1 ? "it" : "them");
}

static const char *type_name(const dp_graph *g, uint32_t off)
{
	return off ? dp_graph_str(g, off) : "(none)";
}

/* "parameters  124,439,808 (124.4 M) ...": the count the param dims give,
 * and what it leaves out. */
static void print_params(FILE *out, const graph_facts *f)
{
	char a[48];
	if (!f->param_ops) {
		fprintf(out, "parameters     0 (no op holds param bytes)\n");
		return;
	}
	if (!f->counted_ops) {
		fprintf(out,
			"parameters     unknown: no op with params names its "
			"param dims (params above are bytes)\n");
		return;
	}
	char m[32] = "";
	if (f->nparams >= 1000000)
		snprintf(m, sizeof m, " (%.1f M)", (double)f->nparams / 1e6);
	fprintf(out, "parameters     %s%s%s in the param dims of %u op%s",
		f->counted_ops < f->param_ops ? "at least " : "",
		fmt_count((uint64_t)f->nparams, a, sizeof a), m,
		f->counted_ops, f->counted_ops == 1 ? "" : "s");
	uint32_t more = f->param_ops - f->counted_ops;
	if (more)
		fprintf(out, "; %u more hold%s param bytes without dims",
			more, more == 1 ? "s" : "");
	fputc('\n', out);
}

static void print_human(FILE *out, const dp_graph *g, dp_format fmt,
			const graph_facts *f)
{
	char a[32], b[32], c[32], x[40];
	fprintf(out, "graph          %s  (%s)\n", g->name, g->source);
	if (fmt != DP_FMT_AUTO)
		fprintf(out, "format         %s\n", dp_load_format_name(fmt));
	fprintf(out, "ops            %u\n", g->nops);
	fprintf(out, "edges          %u (%u control)\n", g->nedges,
		f->control_edges);
	fprintf(out, "total work     %s  (%s us)\n",
		dp_units_fmt_time(g->total_time_us, a, sizeof a),
		cli_fmt_us(g->total_time_us, x, sizeof x));
	fprintf(out,
		"critical path  %s over %u ops  (%s us; compute only, no "
		"communication)\n",
		dp_units_fmt_time(f->cp_us, a, sizeof a), f->path_len,
		cli_fmt_us(f->cp_us, x, sizeof x));
	fprintf(out, "parallelism    %.2f  (total work / critical path)\n",
		f->parallelism);
	fprintf(out,
		"memory         params %s, outputs %s, temp %s (largest "
		"%s)\n",
		dp_units_fmt_bytes(f->param, a, sizeof a),
		dp_units_fmt_bytes(f->output, b, sizeof b),
		dp_units_fmt_bytes(f->temp, c, sizeof c),
		dp_units_fmt_bytes(g->max_temp_bytes, x, sizeof x));
	fprintf(out,
		"               %s in all (param + output + temp of every "
		"op)\n",
		dp_units_fmt_bytes(f->total, a, sizeof a));
	print_params(out, f);
	if (g->nops)
		fprintf(out, "largest op     %s  (%s)\n",
			dp_graph_op_name(g, f->largest_op),
			dp_units_fmt_bytes(f->largest, a, sizeof a));
	fprintf(out, "colocation     %u group%s, %u ops in them\n", g->ngroups,
		g->ngroups == 1 ? "" : "s", f->grouped_ops);
	fprintf(out, "pinned         %u op%s\n", f->pinned_ops,
		f->pinned_ops == 1 ? "" : "s");
	/* "Type count" items, wrapped at 79 columns under the value column */
	int col = fprintf(out, "op types       %u:", f->ntypes);
	for (uint32_t i = 0; i < f->ntypes && i < TYPES_SHOWN; i++) {
		char item[160];
		int n = snprintf(item, sizeof item, " %s %u%s",
				 type_name(g, f->types[i].type),
				 f->types[i].count,
				 i + 1 < f->ntypes ? "," : "");
		if (col + n > 79) {
			fprintf(out, "\n              ");
			col = 14;
		}
		col += fprintf(out, "%s", item);
	}
	fprintf(out, "%s\n", f->ntypes > TYPES_SHOWN ? " ..." : "");
	const dp_machine_hint *h = &g->hint;
	if (h->devices <= 0 && h->memory_bytes <= 0 &&
	    h->bw_bytes_per_us <= 0 && h->lat_us < 0) {
		fprintf(out, "machine        none in the file (default: 1 "
			     "device, no cap)\n");
		return;
	}
	const char *sep = " ";
	fprintf(out, "machine        from the file:");
	if (h->devices > 0) {
		fprintf(out, "%s%d device%s", sep, h->devices,
			h->devices == 1 ? "" : "s");
		sep = ", ";
	}
	if (h->memory_bytes > 0) {
		fprintf(out, "%s%s each", sep,
			dp_units_fmt_bytes(h->memory_bytes, a, sizeof a));
		sep = ", ";
	}
	if (h->bw_bytes_per_us > 0) {
		fprintf(out, "%sbandwidth %s", sep,
			dp_units_fmt_bandwidth(h->bw_bytes_per_us, a,
					       sizeof a));
		sep = ", ";
	}
	if (h->lat_us >= 0)
		fprintf(out, "%slatency %s", sep,
			dp_units_fmt_time(h->lat_us, a, sizeof a));
	fprintf(out, "\n");
}

static void info_json(FILE *out, const dp_graph *g, dp_format fmt,
		      const graph_facts *f)
{
	dp_json w;
	cli_json_begin(&w, out, g, g->source);
	dp_json_str(&w, "format", dp_load_format_name(fmt));
	dp_json_int(&w, "ops", g->nops);
	dp_json_int(&w, "edges", g->nedges);
	dp_json_int(&w, "control_edges", f->control_edges);
	dp_json_num(&w, "total_time_us", g->total_time_us);
	dp_json_num(&w, "critical_path_us", f->cp_us);
	dp_json_int(&w, "critical_path_ops", f->path_len);
	dp_json_num(&w, "parallelism", f->parallelism);
	dp_json_int(&w, "param_bytes", f->param);
	if (f->counted_ops)
		dp_json_int(&w, "parameters", f->nparams);
	else
		dp_json_null(&w, "parameters");
	dp_json_int(&w, "param_ops", f->param_ops);
	dp_json_int(&w, "param_ops_with_dims", f->counted_ops);
	dp_json_int(&w, "output_bytes", f->output);
	dp_json_int(&w, "temp_bytes", f->temp);
	dp_json_int(&w, "max_temp_bytes", g->max_temp_bytes);
	dp_json_int(&w, "total_memory_bytes", f->total);
	if (g->nops) {
		dp_json_begin_line(&w, "largest_op");
		dp_json_str(&w, "name", dp_graph_op_name(g, f->largest_op));
		dp_json_int(&w, "bytes", f->largest);
		dp_json_end_object(&w);
	} else {
		dp_json_null(&w, "largest_op");
	}
	dp_json_int(&w, "colocation_groups", g->ngroups);
	dp_json_int(&w, "grouped_ops", f->grouped_ops);
	dp_json_int(&w, "pinned_ops", f->pinned_ops);
	dp_json_int(&w, "cpu_pinned_left_out", g->cpu_pinned);
	dp_json_begin_array(&w, "op_types");
	for (uint32_t i = 0; i < f->ntypes; i++) {
		dp_json_begin_line(&w, NULL);
		dp_json_str(&w, "type", dp_graph_str(g, f->types[i].type));
		dp_json_int(&w, "count", f->types[i].count);
		dp_json_end_object(&w);
	}
	dp_json_end_array(&w);
	const dp_machine_hint *h = &g->hint;
	if (h->devices <= 0 && h->memory_bytes <= 0 &&
	    h->bw_bytes_per_us <= 0 && h->lat_us < 0) {
		dp_json_null(&w, "machine");
	} else {
		dp_json_begin_object(&w, "machine");
		if (h->devices > 0)
			dp_json_int(&w, "devices", h->devices);
		if (h->memory_bytes > 0)
			dp_json_int(&w, "memory_bytes", h->memory_bytes);
		if (h->bw_bytes_per_us > 0)
			dp_json_num(&w, "bandwidth_bytes_per_s",
				    h->bw_bytes_per_us * 1e6);
		if (h->lat_us >= 0)
			dp_json_num(&w, "latency_us", h->lat_us);
		dp_json_end_object(&w);
	}
	dp_json_end_object(&w);
}

void cmd_info_help(FILE *out)
{
	fprintf(out,
		"usage: dnnpart info GRAPH [--json] [--format F]\n"
		"\n"
		"Summarises a graph without placing it: ops and edges, total "
		"work (sum of\n"
		"time_us), the graph critical path (longest compute path, no "
		"communication),\n"
		"parallelism (work / critical path), memory totals, the "
		"largest op,\n"
		"colocation groups, pins, op types and the file's machine "
		"block.\n"
		"\n"
		"options:\n"
		"  --json             print one JSON object instead of the "
		"table\n"
		"  --format F         force the graph format: json, dot, "
		"pardnn, fiddle,\n"
		"                     pipedream (default: detected from the "
		"content)\n"
		"  -h, --help         this text\n");
}

int cmd_info_run(int argc, char **argv)
{
	cli_opts o;
	cli_opts_init(&o);
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--json")) {
			o.json = true;
			continue;
		}
		if (!strncmp(a, "--format", 8)) {
			int r = cli_parse_common("info", argc, argv, &i, &o);
			if (r < 0)
				return 2;
			if (r > 0)
				continue;
		}
		if (cli_take_graph_arg("info", a, &o))
			return 2;
	}
	if (cli_require_graph("info", &o))
		return 2;
	dp_format fmt = o.format;
	dp_err err;
	/* detection reads the file, which a pipe cannot give twice: there
	 * the format line is left out rather than the graph lost */
	struct stat st;
	if (fmt == DP_FMT_AUTO && stat(o.graph_path, &st) == 0 &&
	    (S_ISREG(st.st_mode) || S_ISDIR(st.st_mode)) &&
	    dp_load_detect(o.graph_path, &fmt, &err))
		fmt = DP_FMT_AUTO; /* dp_graph_load reports the problem below */
	dp_graph *g;
	int rc = cli_load_graph(&o, &g);
	if (rc)
		return rc;
	graph_facts f;
	rc = gather(g, &f);
	if (!rc) {
		warn_dimless(g);
		if (o.json)
			info_json(stdout, g, fmt, &f);
		else
			print_human(stdout, g, fmt, &f);
		free(f.types);
	}
	dp_graph_free(g);
	return rc;
}

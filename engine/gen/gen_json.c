/* gen_json.c - the native JSON writer of gen.h (dp_gen_write_json).
 *
 * It streams ops and edges with fputs/fprintf through a 1 MiB buffer, so that
 * a 1,000,000-op graph is written in about a second; the file goes through
 * afile (temporary name, renamed on success), so a failure leaves nothing.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include <string.h>

#include "dnnpart/afile.h"
#include "dnnpart/gen.h"
#include "dnnpart/json.h"
#include "dnnpart/units.h"

/* A size exactly: a unit string ("16GiB", "512MiB"), else a JSON number
 * of bytes (1000; a string would need a unit). */
static void put_size(FILE *f, int64_t b)
{
	char t[40];
	dp_units_fmt_bytes_exact(b, t, sizeof t);
	if (t[0] && t[strlen(t) - 1] == 'B')
		fprintf(f, "\"%s\"", t);
	else
		fputs(t, f);
}

static void put_machine(FILE *f, const dp_machine_hint *h)
{
	const char *sep = "";
	fputs("\"machine\":{", f);
	if (h->devices > 0) {
		fprintf(f, "\"devices\":%d", h->devices);
		sep = ",";
	}
	if (h->memory_bytes > 0) {
		fprintf(f, "%s\"memory\":", sep);
		put_size(f, h->memory_bytes);
		sep = ",";
	}
	if (h->bw_bytes_per_us > 0) {
		char b[40];
		/* bytes per second, a plain number: exact for any value */
		fprintf(f, "%s\"bandwidth\":\"%sB/s\"", sep,
			dp_units_fmt_num(h->bw_bytes_per_us * 1e6, b,
					 sizeof b));
		sep = ",";
	}
	if (h->lat_us >= 0) {
		char b[40];
		fprintf(f, "%s\"latency\":\"%sus\"", sep,
			dp_units_fmt_num(h->lat_us, b, sizeof b));
	}
	fputs("},\n", f);
}

/* ,"KEY":["b","s"] for the dims idx[0..n) of d (n < 0: nothing) */
static void put_dim_list(FILE *f, const dp_graph *g, const char *key,
			 const dp_dims *d, const uint8_t *idx, int n)
{
	if (n < 0)
		return;
	fprintf(f, ",\"%s\":[", key);
	for (int i = 0; i < n; i++) {
		if (i)
			putc(',', f);
		dp_json_put_string(f, dp_graph_str(g, d->name_off[idx[i]]));
	}
	putc(']', f);
}

/* The op's iteration space (docs/formats.md), when it has one. */
static void put_dims(FILE *f, const dp_graph *g, uint32_t u)
{
	dp_dims d;
	if (!dp_op_dims(g, u, &d))
		return;
	fputs(",\"dims\":{", f);
	for (uint32_t i = 0; i < d.n; i++) {
		if (i)
			putc(',', f);
		dp_json_put_string(f, dp_graph_str(g, d.name_off[i]));
		fprintf(f, ":%" PRId64, d.sizes[i]);
	}
	putc('}', f);
	put_dim_list(f, g, "out", &d, d.out, d.nout);
	put_dim_list(f, g, "param", &d, d.param, d.nparam);
	if (d.elem_bytes != DP_DEFAULT_ELEM_BYTES)
		fprintf(f, ",\"elem_bytes\":%" PRId64, d.elem_bytes);
}

static void put_op(FILE *f, const dp_graph *g, uint32_t u)
{
	const dp_op *op = &g->ops[u];
	fputs("{\"name\":", f);
	dp_json_put_string(f, dp_graph_op_name(g, u));
	if (op->type) {
		fputs(",\"type\":", f);
		dp_json_put_string(f, dp_graph_str(g, op->type));
	}
	if (op->layer) {
		fputs(",\"layer\":", f);
		dp_json_put_string(f, dp_graph_str(g, op->layer));
	}
	fputs(",\"time_us\":", f);
	dp_json_put_num(f, op->time_us);
	fprintf(f, ",\"output_bytes\":%" PRId64, op->output_bytes);
	if (op->param_bytes)
		fprintf(f, ",\"param_bytes\":%" PRId64, op->param_bytes);
	if (op->temp_bytes)
		fprintf(f, ",\"temp_bytes\":%" PRId64, op->temp_bytes);
	if (op->colocate >= 0) {
		fputs(",\"colocate\":", f);
		dp_json_put_string(
			f, dp_graph_str(g, g->group_label[op->colocate]));
	}
	if (op->pin >= 0)
		fprintf(f, ",\"pin\":%d", (int)op->pin);
	if (dp_op_role(g, u) != DP_ROLE_NONE) {
		fputs(",\"role\":", f);
		dp_json_put_string(f, dp_role_name(dp_op_role(g, u)));
	}
	put_dims(f, g, u);
	putc('}', f);
}

static void put_edge(FILE *f, const dp_graph *g, uint32_t id)
{
	const dp_edge *e = &g->edges[id];
	fputs("{\"from\":", f);
	dp_json_put_string(f, dp_graph_op_name(g, e->from));
	fputs(",\"to\":", f);
	dp_json_put_string(f, dp_graph_op_name(g, e->to));
	if (e->control)
		fputs(",\"control\":true", f);
	else if (e->bytes >= 0 && e->bytes != g->ops[e->from].output_bytes)
		fprintf(f, ",\"bytes\":%" PRId64, e->bytes);
	const uint32_t *dims;
	int n = dp_edge_dims(g, id, &dims);
	if (n >= 0) {
		fputs(",\"dims\":[", f);
		for (int i = 0; i < n; i++) {
			if (i)
				putc(',', f);
			dp_json_put_string(f, dp_graph_str(g, dims[i]));
		}
		putc(']', f);
	}
	putc('}', f);
}

dp_status dp_gen_write_json(const char *path, const dp_graph *g, dp_err *err)
{
	dp_afile af;
	dp_status st = dp_afile_open(&af, path, err);
	if (st)
		return st;
	FILE *f = af.f;
	/* a large buffer: the writer is a long run of small writes */
	char *vbuf = malloc(1 << 20);
	if (vbuf)
		setvbuf(f, vbuf, _IOFBF, 1 << 20);
	fputs("{\"format\":\"dnnpart-graph\",\"version\":1,\"name\":", f);
	dp_json_put_string(f, g->name ? g->name : "");
	if (g->batch_dim) {
		fputs(",\"batch_dim\":", f);
		dp_json_put_string(f, dp_graph_batch_dim(g));
	}
	fputs(",\n", f);
	const dp_machine_hint *h = &g->hint;
	if (h->devices > 0 || h->memory_bytes > 0 || h->bw_bytes_per_us > 0 ||
	    h->lat_us >= 0)
		put_machine(f, h);
	fputs("\"ops\":[\n", f);
	for (uint32_t u = 0; u < g->nops; u++) {
		put_op(f, g, u);
		fputs(u + 1 < g->nops ? ",\n" : "\n", f);
	}
	fputs("],\n\"edges\":[\n", f);
	for (uint32_t e = 0; e < g->nedges; e++) {
		put_edge(f, g, e);
		fputs(e + 1 < g->nedges ? ",\n" : "\n", f);
	}
	fputs("]}\n", f);
	st = dp_afile_commit(&af, err);
	free(vbuf); /* only now: the stream used it until it was closed */
	return st;
}

/* strategy_write.c - writing strategy files and telling them by content
 * (strategy.h, docs/formats.md).
 *
 * The writer lists splits with their mesh axes ("split": {"b": [0]}), so
 * that reading the file back gives the same strategy whatever the mesh;
 * replicated ops are left out (an op a file does not list is replicated),
 * and so is a pipeline's inner spmd when it has none.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dnnpart/afile.h"
#include "dnnpart/json.h"
#include "internal/json_file.h"
#include "internal/strategy_file.h"

/* "ops": the split or device of every op that is not replicated. */
static void write_spmd_ops(dp_json *w, const dp_graph *g, const dp_spmd *sp)
{
	dp_json_begin_object(w, "ops");
	for (uint32_t u = 0; u < g->nops; u++) {
		const char *nm = dp_graph_op_name(g, u);
		int32_t dev = sp->device ? sp->device[u] : -1;
		if (dev >= 0) {
			dp_json_begin_line(w, nm);
			dp_json_int(w, "device", dev);
			dp_json_end_object(w);
			continue;
		}
		dp_dims d;
		bool has = dp_op_dims(g, u, &d);
		uint32_t n = has ? d.n : 1;
		bool any = false;
		for (uint32_t i = 0; sp->axes && i < n; i++) {
			uint8_t mask = sp->axes[(size_t)u * DP_MAX_OP_DIMS + i];
			if (!mask)
				continue;
			if (!any) {
				dp_json_begin_line(w, nm);
				dp_json_begin_object(w, "split");
				any = true;
			}
			dp_json_begin_array(w,
					    has ? dp_graph_str(g, d.name_off[i])
						: dpi_strategy_batch_key(g));
			for (int a = 0; a < sp->naxes; a++)
				if (mask & (1u << a))
					dp_json_int(w, NULL, a);
			dp_json_end_array(w);
		}
		if (any) {
			dp_json_end_object(w);
			dp_json_end_object(w);
		}
	}
	dp_json_end_object(w);
}

static void write_mesh(dp_json *w, const dp_spmd *sp)
{
	dp_json_begin_array(w, "mesh");
	for (int a = 0; a < sp->naxes; a++)
		dp_json_int(w, NULL, sp->mesh[a]);
	dp_json_end_array(w);
}

static void write_pipeline(dp_json *w, const dp_graph *g, const dp_strategy *s)
{
	const dp_pipeline *pp = &s->pipe;
	dp_json_int(w, "stages", pp->nstages);
	dp_json_int(w, "microbatches", pp->microbatches);
	dp_json_str(w, "schedule", dp_schedule_name(pp->schedule));
	dp_json_begin_object(w, "stage");
	for (uint32_t u = 0; u < g->nops; u++)
		dp_json_int(w, dp_graph_op_name(g, u), pp->stage[u]);
	dp_json_end_object(w);
	dp_json_begin_array(w, "groups");
	for (int st = 0; st < pp->nstages; st++) {
		dp_json_begin_array(w, NULL);
		for (int32_t i = pp->group_off[st]; i < pp->group_off[st + 1];
		     i++)
			dp_json_int(w, NULL, pp->group[i]);
		dp_json_end_array(w);
	}
	dp_json_end_array(w);
	if (s->spmd.naxes > 0) {
		dp_json_begin_object(w, "spmd");
		write_mesh(w, &s->spmd);
		write_spmd_ops(w, g, &s->spmd);
		dp_json_end_object(w);
	}
}

dp_status dp_strategy_write(const char *path, const dp_graph *g,
			    const dp_strategy *s, bool overwrite, dp_err *err)
{
	if (s->nops != g->nops)
		return dp_err_set(err, DP_EINPUT, path, 0, 0,
				  "the strategy was made for a graph of %u "
				  "ops, but '%s' has %u",
				  s->nops, g->name, g->nops);
	if (!overwrite && access(path, F_OK) == 0)
		return dp_err_set(err, DP_EINPUT, path, 0, 0,
				  "the file exists; it is replaced only when "
				  "you say so");
	dp_afile af;
	dp_json w;
	dp_status st = dpi_json_file_begin(&af, &w, path, "dnnpart-strategy",
					   g->name, err);
	if (st)
		return st;
	dp_json_str(&w, "kind", dp_strategy_kind_name(s->kind));
	dp_json_int(&w, "devices", s->k);
	dp_json_str(&w, "label", s->label);
	dp_json_str(&w, "algorithm", s->algo);
	if (s->sp)
		dp_json_bool(&w, "sequence_parallel", true);
	switch (s->kind) {
	case DP_STRAT_PLACEMENT:
		dp_json_begin_object(&w, "placement");
		for (uint32_t u = 0; u < g->nops; u++)
			dp_json_int(&w, dp_graph_op_name(g, u),
				    s->placement[u]);
		dp_json_end_object(&w);
		break;
	case DP_STRAT_SPMD:
		write_mesh(&w, &s->spmd);
		write_spmd_ops(&w, g, &s->spmd);
		break;
	case DP_STRAT_PIPELINE:
		write_pipeline(&w, g, s);
		break;
	}
	dp_json_end_object(&w);
	return dp_afile_commit(&af, err);
}

bool dp_strategy_is_file(const char *path)
{
	enum { PREFIX = 1 << 16 };
	FILE *f = fopen(path, "rb");
	if (!f)
		return false;
	char *buf = malloc(PREFIX + 1);
	size_t n = buf ? fread(buf, 1, PREFIX, f) : 0;
	fclose(f);
	if (!buf)
		return false;
	buf[n] = '\0';
	dp_err e;
	jscan js;
	dpi_jscan_init(&js, NULL, buf, n, &e);
	jscan_iter it;
	bool has, yes = false;
	if (!dpi_jscan_object_begin(&js, &it, "the top-level object")) {
		while (!dpi_jscan_object_next(&js, &it, &has, NULL) && has) {
			if (strcmp(js.sbuf, "format") == 0 &&
			    dpi_jscan_peek(&js) == '"') {
				yes = !dpi_jscan_string(&js) &&
				      strcmp(js.sbuf, "dnnpart-strategy") == 0;
				break;
			}
			if (dpi_jscan_value(&js, NULL, NULL))
				break;
		}
	}
	dpi_jscan_free(&js);
	free(buf);
	return yes;
}

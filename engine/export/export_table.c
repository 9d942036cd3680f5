/* export_table.c - placement exports for the frameworks that run a plan:
 * the schedule as CSV, a PyTorch / Hugging Face Accelerate-style device map
 * keyed by layer, and TensorFlow device strings per op. docs/export.md
 * shows how each is used. (Native JSON and .place are placement.c's.) */
#include <stdlib.h>
#include <string.h>

#include "dnnpart/afile.h"
#include "internal/export_impl.h"
#include "internal/placement_lines.h"
#include "internal/sort_key.h"

/* ---- CSV: op,device,start_us,end_us (RFC 4180 quoting) ---- */

static void csv_put_field(FILE *f, const char *s)
{
	size_t n = strlen(s);
	bool quote = n == 0 || s[0] == ' ' || s[n - 1] == ' ' ||
		     strpbrk(s, ",\"\r\n") != NULL;
	if (!quote) {
		fputs(s, f);
		return;
	}
	putc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			putc('"', f);
		putc(*s, f);
	}
	putc('"', f);
}

dp_status dpi_export_csv_write(const char *path, const dp_graph *g,
			       const dp_plan *plan, dp_export_report *rep,
			       dp_err *err)
{
	dp_afile af;
	dp_status st = dp_afile_open(&af, path, err);
	if (st)
		return st;
	char a[64], b[64];
	fputs("op,device,start_us,end_us\n", af.f);
	for (uint32_t u = 0; u < g->nops; u++) {
		csv_put_field(af.f, dp_graph_op_name(g, u));
		fprintf(af.f, ",%d,%s,%s\n", plan->placement[u],
			dp_units_fmt_num(plan->sim.start[u], a, sizeof a),
			dp_units_fmt_num(plan->sim.end[u], b, sizeof b));
	}
	st = dp_afile_commit(&af, err);
	if (!st)
		rep->entries = g->nops;
	return st;
}

/* ---- PyTorch device map: {"layer": "cuda:N"} ---- */

/* An op's key in the map: its layer, or its own name when it has none. */
static const char *map_key(const dp_graph *g, uint32_t u)
{
	uint32_t l = g->ops[u].layer;
	return l ? dp_graph_str(g, l) : dp_graph_op_name(g, u);
}

typedef struct keyed_op {
	const char *key;
	int32_t dev;
	uint32_t op;
} keyed_op;

DPI_CMP_DEFINE(cmp_keyed, keyed_op, strcmp(x->key, y->key),
	       DPI_CMP(x->dev, y->dev), DPI_CMP(x->op, y->op))

typedef struct map_entry {
	const char *key;
	uint32_t first_op; /* smallest op id: the map lists keys in input
			      order */
	int32_t dev;
	bool split;
} map_entry;

static int cmp_entry(const void *a, const void *b)
{
	const map_entry *x = a, *y = b;
	return (x->first_op > y->first_op) - (x->first_op < y->first_op);
}

/* Device share of one key, for choosing its device and for the note. */
typedef struct share {
	int32_t dev;
	uint32_t ops;
	int64_t params;
	double time_us;
} share;

/* True when a is a better home for the layer than b: more of its compute
 * (the scheduled time of its ops there), so that a framework that runs each
 * layer where the map says runs most of the simulated work where the plan
 * put it; then more of its parameters, more ops, the lower device. (By
 * parameters first, gpt2-small's map gave GPU 0 only `input` and `head`
 * while the plan ran 74 % of the work there.) */
static bool share_better(const share *a, const share *b)
{
	if (a->time_us != b->time_us)
		return a->time_us > b->time_us;
	if (a->params != b->params)
		return a->params > b->params;
	if (a->ops != b->ops)
		return a->ops > b->ops;
	return a->dev < b->dev;
}

static void note_split(dp_export_report *rep, const char *key, const share *sh,
		       int nsh)
{
	size_t len = strlen(rep->note);
	if (len >= sizeof rep->note - 64)
		return;
	if (rep->split_layers > 4) { /* the first four are examples enough */
		if (!strstr(rep->note, ", ..."))
			snprintf(rep->note + len, sizeof rep->note - len,
				 ", ...");
		return;
	}
	len += (size_t)snprintf(rep->note + len, sizeof rep->note - len,
				"%s%.60s (", rep->split_layers > 1 ? ", " : "",
				key);
	double total = 0;
	for (int i = 0; i < nsh; i++)
		total += sh[i].time_us;
	for (int i = 0; i < nsh && len < sizeof rep->note; i++) {
		char pct[32];
		dp_units_fmt_c(pct, sizeof pct, "%.0f",
			       total > 0 ? 100.0 * sh[i].time_us / total : 0.0);
		len += (size_t)snprintf(rep->note + len, sizeof rep->note - len,
					"%scuda:%d %u op%s %s%%", i ? ", " : "",
					sh[i].dev, sh[i].ops,
					sh[i].ops == 1 ? "" : "s", pct);
	}
	if (len < sizeof rep->note)
		snprintf(rep->note + len, sizeof rep->note - len, ")");
}

dp_status dpi_export_torch_write(const char *path, const dp_graph *g,
				 const dp_plan *plan, dp_export_report *rep,
				 dp_err *err)
{
	uint32_t n = g->nops;
	keyed_op *ko = malloc(((size_t)n + 1) * sizeof *ko);
	map_entry *ent = malloc(((size_t)n + 1) * sizeof *ent);
	share *sh = malloc(((size_t)plan->k + 1) * sizeof *sh);
	if (!ko || !ent || !sh) {
		free(ko);
		free(ent);
		free(sh);
		return dp_err_set(err, DP_ENOMEM, path, 0, 0,
				  "out of memory while building the device "
				  "map");
	}
	for (uint32_t u = 0; u < n; u++)
		ko[u] = (keyed_op){map_key(g, u), plan->placement[u], u};
	qsort(ko, n, sizeof *ko, cmp_keyed);

	/* "split" notes are collected first, then prefixed with a count */
	char examples[sizeof rep->note];
	rep->note[0] = '\0';
	uint32_t nent = 0;
	double all_us = 0,
	       kept_us = 0; /* compute, and where the map keeps it */
	for (uint32_t i = 0; i < n;) {
		uint32_t j = i, first = ko[i].op;
		int nsh = 0;
		while (j < n && strcmp(ko[j].key, ko[i].key) == 0) {
			const dp_op *op = &g->ops[ko[j].op];
			if (nsh == 0 || sh[nsh - 1].dev != ko[j].dev)
				sh[nsh++] = (share){ko[j].dev, 0, 0, 0.0};
			sh[nsh - 1].ops++;
			sh[nsh - 1].params += op->param_bytes;
			sh[nsh - 1].time_us += plan->sim.end[ko[j].op] -
					       plan->sim.start[ko[j].op];
			if (ko[j].op < first)
				first = ko[j].op;
			j++;
		}
		int best = 0;
		for (int s = 1; s < nsh; s++)
			if (share_better(&sh[s], &sh[best]))
				best = s;
		for (int s = 0; s < nsh; s++)
			all_us += sh[s].time_us;
		kept_us += sh[best].time_us;
		ent[nent++] =
			(map_entry){ko[i].key, first, sh[best].dev, nsh > 1};
		if (nsh > 1) {
			rep->split_layers++;
			note_split(rep, ko[i].key, sh, nsh);
		}
		i = j;
	}
	qsort(ent, nent, sizeof *ent, cmp_entry);
	memcpy(examples, rep->note, sizeof examples);
	if (rep->split_layers) {
		char pct[32];
		dp_units_fmt_c(pct, sizeof pct, "%.0f",
			       all_us > 0 ? 100.0 * kept_us / all_us : 100.0);
		snprintf(rep->note, sizeof rep->note,
			 "%u layer%s split across devices; the map lists "
			 "each under the device that runs most of its "
			 "compute, so it runs %s%% of the compute where the "
			 "plan put it (a framework that places ops, as the "
			 "TensorFlow map does, runs all of it): %.200s",
			 rep->split_layers,
			 rep->split_layers == 1 ? " is" : "s are", pct,
			 examples);
	}

	dp_afile af;
	dp_status st = dp_afile_open(&af, path, err);
	if (!st) {
		dp_json w;
		dp_json_init(&w, af.f);
		dp_json_begin_object(&w, NULL);
		for (uint32_t i = 0; i < nent; i++) {
			char dev[32];
			snprintf(dev, sizeof dev, "cuda:%d", ent[i].dev);
			dp_json_str(&w, ent[i].key, dev);
		}
		dp_json_end_object(&w);
		st = dp_afile_commit(&af, err);
	}
	if (!st)
		rep->entries = nent;
	else
		rep->note[0] = '\0';
	free(ko);
	free(ent);
	free(sh);
	return st;
}

/* ---- TensorFlow device strings: "name /device:GPU:N" lines ---- */

dp_status dpi_export_tf_write(const char *path, const dp_graph *g,
			      const dp_plan *plan, dp_export_report *rep,
			      dp_err *err)
{
	dp_status st = dpi_placement_write_lines(
		path, g, plan->placement,
		" /device:GPU:", "a line of TensorFlow device strings", err);
	if (!st)
		rep->entries = g->nops;
	return st;
}

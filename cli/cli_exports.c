/* cli_exports.c - exports from the batch commands (see cli_exports.h). */
#include "cli_exports.h"

#include <stddef.h>
#include <stdio.h>

#include "cli_progress.h"

static void print_line(FILE *out, const cli_export_job *j,
		       const dp_export_report *r, const dp_graph *g)
{
	fprintf(out, "wrote %s (%s", j->path, dp_export_kind_name(j->kind));
	switch (j->kind) {
	case DP_EXPORT_DOT:
	case DP_EXPORT_SVG:
	case DP_EXPORT_PNG:
	case DP_EXPORT_PDF:
		fprintf(out, ", %u node%s", r->nodes, r->nodes == 1 ? "" : "s");
		if (r->coarsened)
			fprintf(out, " for %u ops", g->nops);
		if (r->layout[0])
			fprintf(out, ", layout %s in %.1f s", r->layout,
				r->layout_s);
		break;
	case DP_EXPORT_DEVMAP_TORCH:
	case DP_EXPORT_TORCHWRAP:
		fprintf(out, ", %u layer%s", r->entries,
			r->entries == 1 ? "" : "s");
		break;
	case DP_EXPORT_TRACE:
		fprintf(out, ", %u events%s", r->entries,
			r->coarsened ? ", coarsened" : "");
		break;
	case DP_EXPORT_PIPPY:
	case DP_EXPORT_MEGATRON:
	case DP_EXPORT_DEEPSPEED:
		fprintf(out, ", %u stage%s", r->entries,
			r->entries == 1 ? "" : "s");
		break;
	default:
		fprintf(out, ", %u op%s", r->entries,
			r->entries == 1 ? "" : "s");
	}
	fprintf(out, ")\n");
}

static void job_json(dp_json *w, const cli_export_job *j,
		     const dp_export_report *r)
{
	dp_json_begin_object(w, NULL);
	dp_json_str(w, "path", j->path);
	dp_json_str(w, "kind", dp_export_kind_name(j->kind));
	bool picture = j->kind == DP_EXPORT_DOT || j->kind == DP_EXPORT_SVG ||
		       j->kind == DP_EXPORT_PNG || j->kind == DP_EXPORT_PDF;
	if (picture) {
		dp_json_int(w, "nodes", r->nodes);
		dp_json_int(w, "edges", r->edges);
		dp_json_bool(w, "coarsened", r->coarsened);
		dp_json_str(w, "grouping", r->method);
		if (j->kind != DP_EXPORT_DOT) {
			dp_json_str(w, "layout", r->layout);
			dp_json_num(w, "layout_s", r->layout_s);
		}
	} else {
		dp_json_int(w, "entries", r->entries);
		if (j->kind == DP_EXPORT_TRACE)
			dp_json_bool(w, "coarsened", r->coarsened);
	}
	if (j->kind == DP_EXPORT_DEVMAP_TORCH)
		dp_json_int(w, "split_layers", r->split_layers);
	dp_json_str(w, "note", r->note);
	dp_json_end_object(w);
}

int cli_run_exports(const cli_export_job *jobs, int n, const dp_graph *g,
		    const dp_machine *m, const dp_plan *plan,
		    const dp_export_opts *eo, const cli_out_rule *rule,
		    FILE *out, bool json)
{
	if (n == 0)
		return 0;
	/* the --json report is written once every export has succeeded */
	dp_export_report reps[CLI_MAX_EXPORTS];
	int done = 0;
	int rc = 0;
	/* Ctrl-C (or SIGTERM, SIGHUP) only cancels, every time: the export
	 * stops within a second, kills its layout process and removes its
	 * temporary file. (Falling back to the default action on a second
	 * signal let `timeout`, which signals both the process and its group,
	 * kill dnnpart before it cleaned up.) */
	cli_progress cp;
	cli_progress_begin(&cp, CLI_CANCEL_ALWAYS, "exporting");
	for (int i = 0; i < n && rc == 0; i++) {
		char label[600];
		/* checked before the work began; again now, as a file may
		 * have appeared meanwhile */
		if ((rc = cli_check_output(jobs[i].path, rule)))
			break;
		snprintf(label, sizeof label, "exporting %s", jobs[i].path);
		cli_progress_label(&cp, label);
		dp_export_report rep;
		dp_err err;
		dp_err_clear(&err);
		dp_status st =
			dp_export_write_opts(jobs[i].path, jobs[i].kind, g, m,
					     plan, eo, &cp.p, &rep, &err);
		cli_progress_clear(&cp);
		if (st) {
			if (st == DP_ECANCELED)
				fprintf(stderr,
					"dnnpart: %s: export interrupted; the "
					"file was not written\n",
					jobs[i].path);
			rc = st == DP_ECANCELED ? 2 : cli_error(&err);
			break;
		}
		if (rep.note[0])
			fprintf(stderr, "dnnpart: note: %s\n", rep.note);
		if (json && done < CLI_MAX_EXPORTS)
			reps[done++] = rep;
		else if (out)
			print_line(out, &jobs[i], &rep, g);
	}
	cli_progress_end(&cp);
	if (json && rc == 0 && out) {
		dp_json w;
		dp_json_init(&w, out);
		dp_json_begin_object(&w, NULL);
		dp_json_begin_array(&w, "exports");
		for (int i = 0; i < done; i++)
			job_json(&w, &jobs[i], &reps[i]);
		dp_json_end_array(&w);
		dp_json_end_object(&w);
	}
	return rc;
}

/* plan's export options: the option, where its path goes, what it writes
 * (in the order the files are written) */
static const struct plan_export {
	const char *opt;
	size_t off;
	dp_export_kind kind;
} plan_exports[] = {
	{"--dot", offsetof(cli_opts, dot), DP_EXPORT_DOT},
	{"--svg", offsetof(cli_opts, svg), DP_EXPORT_SVG},
	{"--png", offsetof(cli_opts, png), DP_EXPORT_PNG},
	{"--pdf", offsetof(cli_opts, pdf), DP_EXPORT_PDF},
	{"--trace", offsetof(cli_opts, trace), DP_EXPORT_TRACE},
	{"--csv", offsetof(cli_opts, csv), DP_EXPORT_CSV},
	{"--device-map", offsetof(cli_opts, device_map),
	 DP_EXPORT_DEVMAP_TORCH},
	{"--tf-map", offsetof(cli_opts, tf_map), DP_EXPORT_DEVMAP_TF}};

#define NPLAN_EXPORTS (sizeof plan_exports / sizeof plan_exports[0])

/* The path field of export j in o. */
static const char **export_path(const cli_opts *o, size_t j)
{
	return (const char **)(void *)((char *)o + plan_exports[j].off);
}

int cli_parse_export_opt(const char *cmd, int argc, char **argv, int *i,
			 cli_opts *o)
{
	for (size_t j = 0; j < NPLAN_EXPORTS; j++) {
		int r = cli_opt_value(cmd, argc, argv, i, plan_exports[j].opt,
				      export_path(o, j));
		if (r)
			return r;
	}
	return 0;
}

int cli_write_exports(const cli_opts *o, const dp_graph *g, const dp_machine *m,
		      const dp_plan *plan)
{
	cli_export_job jobs[CLI_MAX_EXPORTS];
	int n = 0;
	for (size_t j = 0; j < NPLAN_EXPORTS; j++)
		if (*export_path(o, j))
			jobs[n++] = (cli_export_job){*export_path(o, j),
						     plan_exports[j].kind};
	/* plan prints its report on stdout; the files written go to stderr
	 * so that --json output stays one object */
	cli_out_rule rule = {{o->graph_path, NULL}, o->force};
	return cli_run_exports(jobs, n, g, m, plan, NULL, &rule,
			       o->json ? NULL : stderr, false);
}

/* tui_io.c - the prompts that need files: open another graph, save the
 * placement, export the plan. They run on the UI thread (Graphviz is not
 * thread-safe, and the worker only plans); the status line says what is
 * happening before each starts and how it went after. Failures keep the
 * session as it was. */
#include <string.h>

#include "export.h"
#include "load.h"
#include "placement.h"
#include "tui_session.h"

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);
	return n >= m && strcmp(s + n - m, suffix) == 0;
}

static void do_open(tui_session *s, const char *path)
{
	vstate *st = &s->st;
	state_status(st, false, "loading %s ...", path);
	session_draw(s);
	dp_graph *g = NULL;
	dp_err err;
	dp_err_clear(&err);
	char msg[1200];
	if (graph_load(path, DP_FMT_AUTO, &g, &err) != DP_OK) {
		state_status(st, true, "%s",
			     dp_err_format(&err, msg, sizeof msg));
		return;
	}
	/* nothing may still run on the old graph when it is freed */
	worker_cancel(s->w, false);
	worker_wait_idle(s->w);
	tui_result *r;
	while ((r = worker_take(s->w)))
		worker_result_free(r);
	st->running = st->comparing = false;
	if (state_set_graph(st, g, &err) != DP_OK) {
		graph_free(g);
		state_status(st, true, "%s", err.msg);
		return;
	}
	state_status(st, false, "opened %s: %u ops, %u edges", path, g->nops,
		     g->nedges);
	session_rerun(s);
}

static void do_save(tui_session *s, const char *path)
{
	vstate *st = &s->st;
	dp_err err;
	dp_err_clear(&err);
	dp_status rc =
		ends_with(path, ".place")
			? placement_write_place(path, st->g,
						st->plan->placement, &err)
			: placement_write_json(path, st->g, st->plan, &err);
	char msg[1200];
	if (rc != DP_OK)
		state_status(st, true, "not saved: %s",
			     dp_err_format(&err, msg, sizeof msg));
	else
		state_status(st, false, "saved the %s placement to %s",
			     st->plan->algo, path);
}

static void do_export(tui_session *s, const char *path)
{
	vstate *st = &s->st;
	dp_err err;
	dp_err_clear(&err);
	char msg[1200];
	if (state_plan_stale(st)) {
		state_status(st, true,
			     "the plan on screen is for earlier settings: "
			     "export it after the rerun (r)");
		return;
	}
	dp_export_kind kind;
	if (export_kind_from_path(path, &kind, &err) != DP_OK) {
		state_status(st, true, "%s", err.msg);
		return;
	}
	state_status(st, false, "exporting %s ...", path);
	session_draw(s);
	dp_export_report rep;
	if (export_write_opts(path, kind, st->g, &st->m, st->plan, NULL, NULL,
			      &rep, &err) != DP_OK) {
		state_status(st, true, "not exported: %s",
			     dp_err_format(&err, msg, sizeof msg));
		return;
	}
	state_status(st, false, "exported %s (%s)%s%s", path,
		     export_kind_name(kind), rep.note[0] ? ": " : "", rep.note);
}

void session_do_io(tui_session *s)
{
	vstate *st = &s->st;
	prompt_kind k = st->io;
	st->io = PROMPT_NONE;
	switch (k) {
	case PROMPT_OPEN:
		do_open(s, st->io_path);
		break;
	case PROMPT_SAVE:
		if (st->plan)
			do_save(s, st->io_path);
		break;
	case PROMPT_EXPORT:
		if (st->plan)
			do_export(s, st->io_path);
		break;
	default:
		break;
	}
}

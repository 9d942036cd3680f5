/* tui_io.c - the prompts that need files: open another graph, save the
 * placement, export the plan.
 *
 * Open and export run in the background (filejob.h): a big file takes
 * seconds to load and an SVG layout up to its time limit, and the screen
 * must not freeze meanwhile. The status line shows their phase, progress
 * and elapsed time; Esc cancels. One runs at a time, on the one thread that
 * uses Graphviz. Saving a placement is a quick write and runs at once.
 * Every failure keeps the session as it was: a graph replaces the old one
 * only once it has loaded.
 *
 * Nothing is lost: a save or an export to a file that exists asks
 * "PATH exists - overwrite? (y/N)" first, and the graph that is open is
 * never overwritten, whatever path names it (same device and inode), not
 * even after y. A file that appears while an export runs is kept (afile).
 */
#include <stdio.h>
#include <string.h>

#include "actions.h"
#include "dnnpart/afile.h"
#include "dnnpart/export.h"
#include "dnnpart/placement.h"
#include "dnnpart/units.h"
#include "tui_session.h"
#include "view.h"

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);
	return n >= m && strcmp(s + n - m, suffix) == 0;
}

static void start_open(tui_session *s, const char *path)
{
	vstate *st = &s->st;
	dp_err err;
	dp_err_clear(&err);
	if (filejob_open(s->files, path, &err) != DP_OK) {
		state_status(st, true, "not opened: %s", err.msg);
		return;
	}
	st->status[0] = '\0';
	session_sync_file_job(s);
}

static void do_save(tui_session *s, const char *path)
{
	vstate *st = &s->st;
	dp_err err;
	dp_err_clear(&err);
	const dp_plan *p = st->plan;
	dp_status rc;
	/* a strategy is saved as a strategy file (the path was checked and
	 * any replacement confirmed before this) */
	if (p->strat && ends_with(path, ".place"))
		rc = dp_err_set(&err, DP_EINPUT, path, 0, 0,
				"'%s' is a strategy, which a .place file "
				"cannot hold: save it as .json",
				p->strategy);
	else if (p->strat)
		rc = dp_strategy_write(path, st->g, p->strat, true, &err);
	else if (ends_with(path, ".place"))
		rc = dp_placement_write_place(path, st->g, p->placement, &err);
	else
		rc = dp_placement_write_json(path, st->g, p, &err);
	char msg[1200];
	if (rc != DP_OK)
		state_status(st, true, "not saved: %s",
			     dp_err_format(&err, msg, sizeof msg));
	else
		state_status(st, false, "saved the %s %s to %s", p->algo,
			     p->strat ? "strategy" : "placement", path);
}

static void start_export(tui_session *s, const char *path)
{
	vstate *st = &s->st;
	dp_err err;
	dp_err_clear(&err);
	if (state_plan_stale(st)) {
		state_status(st, true,
			     "the plan on screen is for earlier settings: "
			     "export it after the rerun (r)");
		return;
	}
	dp_export_kind kind;
	if (dp_export_kind_from_path(path, &kind, &err) != DP_OK) {
		state_status(st, true, "%s", err.msg);
		return;
	}
	dp_export_opts eo;
	dp_export_opts_default(&eo);
	eo.coarsen = st->export_detail; /* Tab in the export prompt */
	if (filejob_export(s->files, path, kind, st->g, &st->m, st->plan, &eo,
			   &err) != DP_OK) {
		char msg[1200];
		state_status(st, true, "not exported: %s",
			     dp_err_format(&err, msg, sizeof msg));
		return;
	}
	st->status[0] = '\0';
	session_sync_file_job(s);
}

/* Whether path names a kind of export, else says which there are. */
static bool export_kind_ok(vstate *st, const char *path)
{
	dp_export_kind kind;
	dp_err err;
	dp_err_clear(&err);
	if (dp_export_kind_from_path(path, &kind, &err) == DP_OK)
		return true;
	state_status(st, true, "not exported: %s", err.msg);
	return false;
}

/* Whether the save or export k may write path now: false after saying
 * why, or after asking whether to overwrite it. */
static bool may_write(vstate *st, prompt_kind k, const char *path, bool replace)
{
	const char *verb = k == PROMPT_SAVE ? "saved" : "exported";
	const char *inputs[1] = {st->g->source};
	dp_afile_target what;
	dp_err err;
	dp_err_clear(&err);
	if (dp_afile_check(path, inputs, 1, &what, &err) != DP_OK) {
		char msg[1200];
		state_status(st, true, "not %s: %s", verb,
			     dp_err_format(&err, msg, sizeof msg));
		return false;
	}
	switch (what) {
	case DP_AFILE_INPUT:
		state_status(st, true,
			     "not %s: %s is the open graph: never overwritten",
			     verb, path);
		return false;
	case DP_AFILE_EXISTS:
		if (replace)
			return true;
		actions_confirm_overwrite(st, k, path);
		return false;
	case DP_AFILE_NEW:
		break;
	}
	return true;
}

void session_do_io(tui_session *s)
{
	vstate *st = &s->st;
	prompt_kind k = st->io;
	bool replace = st->io_replace;
	st->io = PROMPT_NONE;
	st->io_replace = false;
	/* a job that ended since the last look no longer holds the runner */
	session_take_file_result(s);
	switch (k) {
	case PROMPT_OPEN:
		start_open(s, st->io_path);
		break;
	case PROMPT_SAVE:
		if (!ends_with(st->io_path, ".json") &&
		    !ends_with(st->io_path, ".place"))
			state_status(st, true,
				     "not saved: %s: a placement is .json or "
				     ".place (e exports the others)",
				     st->io_path);
		else if (st->plan && may_write(st, k, st->io_path, replace))
			do_save(s, st->io_path);
		break;
	case PROMPT_EXPORT:
		if (st->plan && export_kind_ok(st, st->io_path) &&
		    may_write(st, k, st->io_path, replace))
			start_export(s, st->io_path);
		break;
	default:
		break;
	}
}

/* Stops every plan and compare job and drops their results, so nothing
 * runs on the graph when it is freed. */
static void stop_worker(tui_session *s)
{
	worker_cancel(s->w, false);
	worker_wait_idle(s->w);
	worker_result *r;
	while ((r = worker_take(s->w)))
		worker_result_free(r);
	session_sync_jobs(s);
}

/* Applies the levers lv to the session's lever-free graph (the plan is
 * rerun by the caller); false after saying why in the status line. */
static bool relever(vstate *st, const dp_levers *lv)
{
	dp_err err;
	dp_err_clear(&err);
	dp_graph *lg = NULL;
	const dp_graph *plain = st->plain ? st->plain : st->g;
	if (dp_levers_active(lv) &&
	    dp_levers_apply(plain, lv, &lg, &err) != DP_OK) {
		state_status(st, true, "levers: %s", err.msg);
		return false;
	}
	if (state_relever(st, lg, &err) != DP_OK) {
		dp_graph_free(lg);
		state_status(st, true, "levers: %s", err.msg);
		return false;
	}
	return true;
}

void session_rebatch(tui_session *s)
{
	vstate *st = &s->st;
	dp_err err;
	dp_err_clear(&err);
	const dp_graph *base = st->base	   ? st->base
			       : st->plain ? st->plain
					   : st->g;
	dp_graph *g = NULL;
	if (dp_graph_with_batch(base, st->batch, &g, &err) != DP_OK) {
		state_status(st, true, "batch size %lld: %s", st->batch,
			     err.msg);
		st->batch = st->base ? dp_graph_batch_size(st->g) : 0;
		return;
	}
	/* the file runner never runs during a rebatch (settings_batch) */
	stop_worker(s);
	/* the levers go onto the graph at the new size */
	bool levers = st->plain != NULL;
	if (levers && state_relever(st, NULL, &err) != DP_OK) {
		dp_graph_free(g);
		state_status(st, true, "batch size %lld: %s", st->batch,
			     err.msg);
		return;
	}
	state_rebatch(st, g);
	if (levers)
		relever(st, &st->m.levers);
	session_start(s, JOB_PLAN);
}

void session_relever(tui_session *s)
{
	vstate *st = &s->st;
	dp_levers lv = st->lv_next;
	stop_worker(s);
	if (!relever(st, &lv)) {
		session_start(s, JOB_PLAN);
		return;
	}
	st->m.levers = lv;
	state_settings_changed(st);
	char r[64];
	state_status(st, false, "precision %s, recompute %s: levers %s",
		     dp_precision_name(lv.precision),
		     dp_levers_recompute_str(&lv, r, sizeof r),
		     dp_graph_levers(st->g)[0] ? dp_graph_levers(st->g)
					       : "none");
	session_start(s, JOB_PLAN);
}

void session_fit_adopt(tui_session *s)
{
	vstate *st = &s->st;
	const dp_fit_cand *c =
		&st->fit_search.cands[st->fit_rows[st->fit_cursor]];
	dp_levers lv;
	dp_err err;
	dp_err_clear(&err);
	if (dp_levers_parse_set(c->levers, &lv, &err) != DP_OK ||
	    dp_machine_resize(&st->m, c->k, &err) != DP_OK) {
		state_status(st, true, "not adopted: %s", err.msg);
		return;
	}
	lv.gemm_ratio = st->m.levers.gemm_ratio;
	lv.no_bf16 = st->m.levers.no_bf16;
	lv.host_mem = st->m.levers.host_mem;
	stop_worker(s);
	if (!relever(st, &lv))
		return;
	st->m.levers = lv;
	st->algo = c->algo;
	st->zero_stage = c->zero_stage;
	state_algo_changed(st);
	state_settings_changed(st);
	char n[32];
	state_status(st, false, "adopted %s on K=%d with levers %s",
		     dp_fit_cand_strategy(c, n, sizeof n), c->k, c->levers);
	view_leave(st);
	session_start(s, JOB_PLAN);
}

void session_repin(tui_session *s)
{
	/* the jobs read the graph's pins: none may run while they change (the
	 * rerun that follows would cancel them anyway; a file job never runs
	 * here: pins_refused) */
	stop_worker(s);
	state_apply_pins(&s->st);
}

/* Replaces the session's graph with g (taken over). */
static void opened(tui_session *s, dp_graph *g, const char *path)
{
	vstate *st = &s->st;
	dp_err err;
	dp_err_clear(&err);
	/* nothing may still run on the old graph when it is freed (the file
	 * runner is idle: this is its result) */
	stop_worker(s);
	if (state_set_graph(st, g, &err) != DP_OK) {
		dp_graph_free(g);
		state_status(st, true, "not opened: %s", err.msg);
		return;
	}
	state_status(st, false, "opened %s: %u ops, %u edges", path, g->nops,
		     g->nedges);
	session_start(s, JOB_PLAN);
}

static void exported(vstate *st, const filejob_result *r)
{
	const dp_export_report *rep = &r->rep;
	char what[96] = "", secs[32];
	if (r->ekind == DP_EXPORT_DOT || r->ekind == DP_EXPORT_SVG ||
	    r->ekind == DP_EXPORT_PNG || r->ekind == DP_EXPORT_PDF)
		snprintf(what, sizeof what, " (%u nodes, %u edges%s)",
			 rep->nodes, rep->edges,
			 rep->coarsened ? ", coarsened" : "");
	else if (r->ekind == DP_EXPORT_TRACE)
		snprintf(what, sizeof what, " (%u events%s)", rep->entries,
			 rep->coarsened ? ", coarsened" : "");
	else if (r->ekind == DP_EXPORT_PIPPY || r->ekind == DP_EXPORT_MEGATRON)
		snprintf(what, sizeof what, " (%u stage%s)", rep->entries,
			 rep->entries == 1 ? "" : "s");
	else if (rep->entries)
		snprintf(what, sizeof what, " (%u entries)", rep->entries);
	state_status(st, false, "exported the %s plan as %s to %s%s in %ss%s%s",
		     r->algo, dp_export_kind_name(r->ekind), r->path, what,
		     dp_units_fmt_c(secs, sizeof secs, "%.1f", r->elapsed_s),
		     rep->note[0] ? ": " : "", rep->note);
}

void session_take_file_result(tui_session *s)
{
	vstate *st = &s->st;
	filejob_result *r = filejob_take(s->files);
	if (!r)
		return;
	bool open = r->kind == FILEJOB_OPEN;
	if (r->status == DP_ECANCELED)
		state_status(st, false, "cancelled: %s %s", r->path,
			     open ? "not opened, the graph stays"
				  : "not exported, no file written");
	else if (r->status != DP_OK)
		state_status(st, true, "not %s: %s",
			     open ? "opened" : "exported", r->msg);
	else if (open) {
		dp_graph *g = r->g;
		r->g = NULL;
		opened(s, g, r->path);
	} else
		exported(st, r);
	filejob_result_free(r);
	session_sync_file_job(s);
}

void session_sync_file_job(tui_session *s)
{
	vstate *st = &s->st;
	filejob_status fs;
	filejob_get_status(s->files, &fs);
	if (!fs.busy) {
		st->file_job = PROMPT_NONE;
		st->file_cancelling = false;
		st->file_path[0] = st->file_phase[0] = '\0';
		st->file_fraction = -1;
		st->file_elapsed_s = 0;
		return;
	}
	st->file_job = fs.kind == FILEJOB_OPEN ? PROMPT_OPEN : PROMPT_EXPORT;
	st->file_cancelling = fs.cancelling;
	snprintf(st->file_path, sizeof st->file_path, "%s", fs.path);
	snprintf(st->file_phase, sizeof st->file_phase, "%s", fs.phase);
	st->file_fraction = fs.fraction;
	st->file_elapsed_s = fs.elapsed_s;
}

/* tui_session.h - the explorer's running session: the state, the rerun
 * worker, the file job runner and the glue between them (tui_main.c runs
 * the loop; tui_io.c carries out the prompts that need files). UI thread
 * only.
 */
#ifndef DNNPART_TUI_SESSION_H
#define DNNPART_TUI_SESSION_H

#include <stdbool.h>

#include "filejob.h"
#include "state.h"
#include "worker.h"

typedef struct tui_session {
	vstate st;
	worker *w;
	filejob *files; /* open and export, in the background */
	bool full_redraw;
} tui_session;

/* Starts a plan or compare job for the current settings. */
void session_start(tui_session *s, job_kind kind);
/* Mirrors the worker's jobs into the state (running, comparing, their
 * progress): the only writer of those fields. */
void session_sync_jobs(tui_session *s);
/* Draws the screen now (used before a blocking file operation so that the
 * status line says what is happening). */
void session_draw(tui_session *s);

/* Carries out st.io: starts an open or an export in the background, or
 * saves at once; reports in the status line. */
void session_do_io(tui_session *s);
/* Rebuilds the graph at the batch size st->batch (AR_REBATCH) once no job
 * runs on the old one, and reruns the plan. */
void session_rebatch(tui_session *s);
/* Adopts the Fit view's row under the cursor (AR_FIT_ADOPT): its K,
 * strategy, ZeRO stage and levers, the graph rebuilt from the lever-free
 * one; reruns the plan. */
void session_fit_adopt(tui_session *s);
/* Rebuilds the graph with the levers st.lv_next (F, K: AR_RELEVER) from
 * the lever-free one and reruns the plan; a lever the graph refuses is
 * said in the status line and nothing changes. */
void session_relever(tui_session *s);
/* Writes the pins changed by p, P, y, Y into the graph (AR_REPIN) once no
 * job reads it; the plan job that follows honours them. */
void session_repin(tui_session *s);
/* Applies a finished open or export, if any (the new graph replaces the
 * old one only when it loaded; errors go to the status line). */
void session_take_file_result(tui_session *s);
/* Mirrors the file job's progress into the state. */
void session_sync_file_job(tui_session *s);

#endif

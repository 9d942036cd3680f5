/* filejob.h - background file jobs: opening another graph (the explorer's
 * `o`) and exporting the plan (`e`).
 *
 * Both can take long (a big file loads in seconds; an SVG layout can take
 * up to its time limit), so they run on a thread of their own while the UI
 * keeps responding, and apart from the rerun worker (worker.h), so a
 * rerun is never blocked by an export. One file job runs at a time: this
 * thread is the only user of Graphviz (cgraph in DOT loads and DOT
 * exports, and the fork of the SVG layout child) in the explorer once it
 * has started, which is how the explorer keeps to Graphviz's "not
 * thread-safe" (the initial load, tui_load.c, runs on a thread that is
 * joined before any of them starts).
 *
 * An export works on private copies of the placement and the machine: it
 * simulates them again (the simulator is deterministic, so this is the plan
 * on screen, bit for bit) and writes that, so a plan that a rerun replaces
 * meanwhile is never read after it was freed. The graph is shared, read
 * only: it must stay alive until the job's result is taken (the explorer
 * replaces its graph only when an open job ends, and never while another
 * file job runs). Cancelling an export raises its cancel flag: the engine
 * stops, kills the layout child and writes no file. A load cannot be
 * stopped half-way: it is finished and its graph thrown away.
 *
 * Finished results write a byte to a self-pipe (filejob_fd), so the UI can
 * poll() it beside stdin. Every function is for one thread, the front
 * end's; the job's own thread only runs the job.
 */
#ifndef DNNPART_JOBS_FILEJOB_H
#define DNNPART_JOBS_FILEJOB_H

#include <stdbool.h>

#include "dnnpart/err.h"
#include "dnnpart/export.h"
#include "dnnpart/graph.h"
#include "dnnpart/machine.h"
#include "dnnpart/plan.h"

typedef enum filejob_kind {
	FILEJOB_OPEN = 0,
	FILEJOB_EXPORT = 1,
} filejob_kind;

typedef struct filejob_result {
	filejob_kind kind;
	char path[512];
	dp_status status;     /* DP_OK, DP_ECANCELED or an error */
	char msg[1200];	      /* the error, formatted */
	dp_graph *g;	      /* open, DP_OK: the graph (the caller's) */
	dp_export_kind ekind; /* export: the kind written */
	char algo[32];	      /* export: the plan's algorithm */
	dp_export_report rep; /* export, DP_OK: what it wrote */
	double elapsed_s;     /* how long the job ran */
} filejob_result;

typedef struct filejob_status {
	bool busy; /* a job runs, or its result is not taken yet */
	filejob_kind kind;
	bool cancelling; /* filejob_cancel() was called for it */
	char path[512];
	char phase[48];
	double fraction; /* 0..1, < 0 when unknown */
	double elapsed_s;
} filejob_status;

typedef struct filejob filejob;

/* Sets up the (idle) runner. NULL on failure (err set). */
filejob *filejob_new(dp_err *err);
/* Cancels a running job, waits for its thread, frees an untaken result. */
void filejob_free(filejob *fj);

/* The read end of the self-pipe (readable when a result is ready). */
int filejob_fd(const filejob *fj);

/* Starts loading path (format detected). DP_EINPUT when a job is busy. */
dp_status filejob_open(filejob *fj, const char *path, dp_err *err);

/* Starts writing plan (made for g and m) to path as kind, with the
 * options opts (NULL = the defaults; its layout name is not kept: the
 * automatic one is used). Copies the placement and the machine; g must stay
 * alive until the result is taken. DP_EINPUT when a job is busy,
 * DP_ENOMEM. */
dp_status filejob_export(filejob *fj, const char *path, dp_export_kind kind,
			 const dp_graph *g, const dp_machine *m,
			 const dp_plan *plan, const dp_export_opts *opts,
			 dp_err *err);

/* Asks the running job to stop (no-op when none runs). */
void filejob_cancel(filejob *fj);

/* Takes the finished job's result (NULL while it runs or when there is
 * none) and drains the pipe; the runner is then free for the next job. */
filejob_result *filejob_take(filejob *fj);
/* Frees a result, with a loaded graph still in it. */
void filejob_result_free(filejob_result *r);

/* A snapshot of the running job, for a progress line (busy false when
 * idle). */
void filejob_get_status(filejob *fj, filejob_status *s);

#endif

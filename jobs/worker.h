/* tui_worker.h - the thread that reruns the engine while the UI responds.
 *
 * The UI thread submits jobs (a plan with one algorithm, or a comparison of
 * every algorithm) with a private copy of the settings; the worker runs
 * dp_plan_run() on them and queues the results. A job submitted while another
 * runs supersedes it: the running job is cancelled (its atomic flag) and the
 * newest pending job runs next. Each finished result (and each compare row)
 * writes a byte to a self-pipe, so the UI can poll() stdin and the worker at
 * once. The worker only runs dp_plan_run: no Graphviz, no curses, no files.
 *
 * Ownership: results are the caller's once taken (worker_result_free). The
 * graph passed to a job must stay alive until the job's result is taken or
 * worker_wait_idle() returns.
 */
#ifndef DNNPART_TUI_WORKER_H
#define DNNPART_TUI_WORKER_H

#include <stdbool.h>

#include "dnnpart/algo.h"
#include "dnnpart/err.h"
#include "dnnpart/graph.h"
#include "dnnpart/machine.h"
#include "dnnpart/plan.h"

typedef enum job_kind {
	JOB_PLAN = 0,
	JOB_COMPARE = 1,
} job_kind;

typedef struct tui_result {
	job_kind kind;
	const dp_graph *g; /* the graph the job ran on */
	unsigned gen;	   /* the settings generation it was submitted with */
	int row;	   /* compare: registry index of the algorithm */
	dp_status status;  /* DP_OK, DP_ECANCELED or an error */
	char msg[1200];	   /* the error, formatted */
	dp_plan plan;	   /* when status == DP_OK */
	struct tui_result *next;
} tui_result;

typedef struct worker_status {
	bool busy;	     /* a job is running */
	job_kind kind;	     /* of the running job */
	bool plan_queued;    /* a plan job is running or pending */
	bool compare_queued; /* a compare job is running or pending */
	int row;	     /* compare: the algorithm running */
	char phase[48];
	double fraction; /* < 0 when unknown */
	double elapsed_s;
} worker_status;

typedef struct tui_worker tui_worker;

/* Starts the thread (signals blocked in it). NULL on failure (err set). */
tui_worker *worker_new(dp_err *err);
/* Cancels everything, joins the thread, frees queued results. */
void worker_free(tui_worker *w);

/* The read end of the self-pipe (readable when results are queued). */
int worker_fd(const tui_worker *w);

/* Queues a job on copies of m; supersedes a running or pending job (a plan
 * job supersedes both kinds, a compare job only a compare job). */
dp_status worker_submit(tui_worker *w, job_kind kind, const dp_graph *g,
			const dp_machine *m, const dp_algo *algo,
			dp_contention c, unsigned gen, dp_err *err);

/* Cancels the running job and drops pending ones: all of them, or only
 * plan jobs. */
void worker_cancel(tui_worker *w, bool plan_only);
/* Blocks until no job runs or is pending. */
void worker_wait_idle(tui_worker *w);

/* Takes the oldest queued result (NULL if none); drains the pipe. */
tui_result *worker_take(tui_worker *w);
void worker_result_free(tui_result *r);

void worker_get_status(tui_worker *w, worker_status *s);

#endif

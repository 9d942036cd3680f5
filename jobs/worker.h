/* worker.h - the thread that reruns the engine while a front end responds.
 *
 * The front end (the explorer, tui/; the benchmark driver, bench/) submits
 * jobs (a plan with one algorithm, or a comparison of every algorithm) with
 * a private copy of the settings; the worker runs them through
 * dp_plan_run_all() and queues the results. A job submitted while another
 * runs supersedes it: the running job is cancelled (its atomic flag) and
 * the newest pending job runs next. Each finished result (and each compare
 * row) writes a byte to a self-pipe, so the front end can poll() its input
 * and the worker at once. The worker only plans and simulates: no Graphviz,
 * no terminal, no files.
 *
 * Ownership: results are the caller's once taken (worker_result_free). The
 * graph passed to a job must stay alive until the job's result is taken or
 * worker_wait_idle() returns. Threads: every function is for the front
 * end's thread (one thread); the worker's own thread only runs the jobs.
 */
#ifndef DNNPART_JOBS_WORKER_H
#define DNNPART_JOBS_WORKER_H

#include <stdbool.h>

#include "dnnpart/algo.h"
#include "dnnpart/err.h"
#include "dnnpart/fit.h"
#include "dnnpart/graph.h"
#include "dnnpart/machine.h"
#include "dnnpart/plan.h"

typedef enum job_kind {
	JOB_PLAN = 0,
	JOB_COMPARE = 1,
	JOB_FIT = 2, /* what fits: the lever search (as `dnnpart fit`), or
			where the graph takes no lever the smallest K and
			one device's cap */
} job_kind;

typedef struct worker_result {
	job_kind kind;
	const dp_graph *g; /* the graph the job ran on */
	unsigned gen;	   /* the settings generation it was submitted with */
	int row;	   /* compare: registry index of the algorithm */
	dp_status status;  /* DP_OK, DP_ECANCELED or an error */
	char msg[1200];	   /* the error, formatted */
	dp_plan plan;	   /* when status == DP_OK */
	/* a fit job, when status == DP_OK: the smallest K for the caps and
	 * the smallest cap of device fit_dev, the others as they are */
	dp_fit_result fit_k, fit_cap;
	int fit_dev;
	/* the lever search, when it ran (fit_levers): then fit_k and fit_cap
	 * are empty */
	bool fit_levers;
	dp_fit_search search;
	/* a plan job's intermediate plan (an anytime algorithm, best: the
	 * best so far while it runs); the job's final result follows */
	bool interim;
	struct worker_result *next;
} worker_result;

typedef struct worker_status {
	bool busy;	     /* a job is running */
	job_kind kind;	     /* of the running job */
	bool plan_queued;    /* a plan job is running or pending */
	bool compare_queued; /* a compare job is running or pending */
	bool fit_queued;     /* a fit job is running or pending */
	int row;	     /* compare: the algorithm running */
	char phase[48];
	double fraction; /* < 0 when unknown */
	double elapsed_s;
} worker_status;

typedef struct worker worker;

/* Starts the thread (signals blocked in it). NULL on failure (err set). */
worker *worker_new(dp_err *err);
/* Cancels everything, joins the thread, frees queued results. */
void worker_free(worker *w);

/* The read end of the self-pipe (readable when results are queued). */
int worker_fd(const worker *w);

/* Queues a job on a copy of m with a copy of the options o (NULL: the
 * defaults; they carry the contention): a plan job runs algo, a
 * compare job every registered algorithm (algo unused); gen comes back in
 * the results. Supersedes a running or pending job (a plan job supersedes
 * both kinds, a compare job only a compare job). DP_ENOMEM when m cannot
 * be copied. */
dp_status worker_submit(worker *w, job_kind kind, const dp_graph *g,
			const dp_machine *m, const dp_algo *algo,
			const dp_algo_opts *o, unsigned gen, dp_err *err);

/* Queues a fit job: on a graph made with no lever, the lever search of
 * `dnnpart fit` (dp_fit_search_run, every strategy and lever set); where
 * the graph has levers or takes none, dp_fit_run twice (the smallest K for
 * m's caps, then the smallest cap of device dev with m's other caps) with
 * algorithm algo and options o (NULL: defaults). Its one result has kind JOB_FIT. It
 * supersedes a running or pending fit job; a plan job supersedes it (the
 * settings it was for have changed). DP_ENOMEM when m cannot be copied. */
dp_status worker_submit_fit(worker *w, const dp_graph *g, const dp_machine *m,
			    const dp_algo *algo, const dp_algo_opts *o, int dev,
			    unsigned gen, dp_err *err);

/* What a fit job computes, in the calling thread: into r (zeroed by the
 * caller) its status and msg, and the lever search (fit_levers) or
 * fit_k and fit_cap, as worker_submit_fit describes; p may be NULL. For
 * `dnnpart show --view fit`, which runs it without a worker. */
void worker_fit_compute(const dp_graph *g, const dp_machine *m,
			const dp_algo *algo, const dp_algo_opts *o, int dev,
			const dp_progress *p, worker_result *r);

/* Cancels the running job and drops pending ones: all of them, or only
 * plan jobs. */
void worker_cancel(worker *w, bool plan_only);
/* Blocks until no job runs or is pending. */
void worker_wait_idle(worker *w);

/* Takes the oldest queued result (NULL if none); drains the pipe. */
worker_result *worker_take(worker *w);
/* Frees a taken result and its plan; r may be NULL. */
void worker_result_free(worker_result *r);

/* A snapshot of what the worker is doing, for a progress line. */
void worker_get_status(worker *w, worker_status *s);

#endif

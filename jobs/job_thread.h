/* job_thread.h - what the two kinds of background job share (jobs/ only):
 * the self-pipe that wakes a front end's poll(), a thread started with
 * every signal blocked, and the progress meter a running job reports to.
 *
 * The rerun worker (worker.h) and the file jobs (filejob.h) are built on
 * these; neither knows about curses or the views, so the explorer (tui/)
 * and the benchmark driver (bench/) drive them alike.
 */
#ifndef DNNPART_JOBS_JOB_THREAD_H
#define DNNPART_JOBS_JOB_THREAD_H

#include <pthread.h>
#include <time.h>

#include "dnnpart/err.h"

/* A pipe whose read end a front end polls: the job writes a byte when it
 * has something to take. Both ends are non-blocking and close-on-exec (the
 * SVG layout child must not hold them). */
typedef struct job_pipe {
	int rd, wr;
} job_pipe;

/* Opens the pipe; DP_EINTERNAL naming what (e.g. "the worker") when the
 * system refuses. */
dp_status job_pipe_open(job_pipe *p, const char *what, dp_err *err);
/* Closes both ends. */
void job_pipe_close(job_pipe *p);
/* Writes one byte from the job's thread. A full pipe drops it: the front
 * end is already due to wake up, so nothing is lost. */
void job_pipe_notify(job_pipe *p);
/* Reads every byte written so far (the front end, before it takes). */
void job_pipe_drain(job_pipe *p);

/* Starts fn(arg) on a new thread with every signal blocked in it, so that
 * signals reach the front end's thread, whose handlers only set a flag.
 * DP_EINTERNAL naming what when the thread cannot start. */
dp_status job_thread_start(pthread_t *t, void *(*fn)(void *), void *arg,
			   const char *what, dp_err *err);

/* The progress of the running job: its phase and fraction (what
 * dp_progress reports) and when it started, guarded by the owner's mutex
 * mu. */
typedef struct job_meter {
	pthread_mutex_t *mu;
	char phase[48];
	double fraction; /* 0..1, < 0 when unknown */
	struct timespec started;
} job_meter;

/* Restarts the meter for a new job: no phase, fraction unknown, started
 * now. The caller holds mu (or no thread runs yet). */
void job_meter_start(job_meter *m);
/* A dp_progress callback (ud: the job_meter): stores phase (NULL: "") and
 * fraction under mu. Runs on the job's thread. */
void job_meter_report(void *ud, const char *phase, double fraction);
/* Seconds since job_meter_start (monotonic clock). */
double job_meter_elapsed(const job_meter *m);

/* A job owner (the worker, the file jobs), size bytes zeroed; NULL with
 * "out of memory" in err. */
void *job_owner_alloc(size_t size, dp_err *err);
/* What every job owner starts with: its pipe opened (DP_EINTERNAL naming
 * what when refused; nothing to undo then), its mutex mu initialised and
 * its meter started under mu. */
dp_status job_owner_init(job_pipe *pipe, pthread_mutex_t *mu, job_meter *meter,
			 const char *what, dp_err *err);

#endif

/* tui_worker.c - the rerun thread (see tui_worker.h). */
#include "worker.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

typedef struct job {
	bool used;
	job_kind kind;
	const dp_graph *g;
	dp_machine m;
	const dp_algo *algo;
	dp_contention c;
	unsigned gen;
} job;

struct tui_worker {
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cv;	/* a job was queued, or stop */
	pthread_cond_t idle_cv; /* the worker became idle */
	int pipe_rd, pipe_wr;
	bool stop;

	job pending_plan, pending_compare;
	bool busy;
	job_kind cur_kind;
	int cur_row;
	atomic_int cancel; /* the running job's flag */

	char phase[48];
	double fraction;
	struct timespec started;

	tui_result *head, *tail; /* finished results, oldest first */
};

static double since(const struct timespec *t0)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)(t.tv_sec - t0->tv_sec) +
	       (double)(t.tv_nsec - t0->tv_nsec) * 1e-9;
}

static void notify(tui_worker *w)
{
	char b = 1;
	/* the pipe is non-blocking: when it is full the UI is already due to
	 * wake up, so a failed write loses nothing */
	ssize_t n = write(w->pipe_wr, &b, 1);
	(void)n;
}

/* Progress callback: runs on the worker thread, inside the algorithm. */
static void on_progress(void *ud, const char *phase, double fraction)
{
	tui_worker *w = ud;
	pthread_mutex_lock(&w->mu);
	snprintf(w->phase, sizeof w->phase, "%s", phase ? phase : "");
	w->fraction = fraction;
	pthread_mutex_unlock(&w->mu);
}

static void push_result(tui_worker *w, tui_result *r)
{
	pthread_mutex_lock(&w->mu);
	r->next = NULL;
	if (w->tail)
		w->tail->next = r;
	else
		w->head = r;
	w->tail = r;
	pthread_mutex_unlock(&w->mu);
	notify(w);
}

/* Runs one algorithm; returns the result (NULL only when out of memory). */
typedef struct job_run {
	tui_worker *w;
	const job *j;
	bool compare; /* rows are registry indexes; else the plan job's -1 */
} job_run;

static void before_algo(void *ud, size_t i, const dp_algo *algo)
{
	job_run *jr = ud;
	if (!jr->compare)
		return;
	tui_worker *w = jr->w;
	pthread_mutex_lock(&w->mu);
	w->cur_row = (int)i;
	snprintf(w->phase, sizeof w->phase, "%s", algo->name);
	w->fraction = -1;
	pthread_mutex_unlock(&w->mu);
}

static void after_algo(void *ud, size_t i, dp_run_result *rr)
{
	job_run *jr = ud;
	tui_result *r = calloc(1, sizeof *r);
	if (!r) {
		dp_plan_free(&rr->plan);
		return;
	}
	r->kind = jr->j->kind;
	r->g = jr->j->g;
	r->gen = jr->j->gen;
	r->row = jr->compare ? (int)i : -1;
	r->status = rr->status;
	snprintf(r->msg, sizeof r->msg, "%s", rr->msg);
	r->plan = rr->plan; /* the result owns it now */
	memset(&rr->plan, 0, sizeof rr->plan);
	push_result(jr->w, r);
}

/* A plan job runs its algorithm, a compare job every algorithm of the
 * registry in order, through the engine's one run-these-algorithms loop. */
static void run_job(tui_worker *w, job *j)
{
	dp_algo_opts o;
	dp_algo_opts_default(&o);
	o.contention = j->c;
	dp_progress p = {on_progress, w, &w->cancel};
	job_run jr = {w, j, j->kind != JOB_PLAN};
	dp_run_hooks hooks = {before_algo, after_algo, &jr};
	if (jr.compare)
		dp_plan_run_all(j->g, &j->m, dp_algo_all(), dp_algo_count(), &o,
				&p, &hooks);
	else
		dp_plan_run_all(j->g, &j->m, &j->algo, 1, &o, &p, &hooks);
}

static void *worker_main(void *arg)
{
	tui_worker *w = arg;
	pthread_mutex_lock(&w->mu);
	for (;;) {
		while (!w->stop && !w->pending_plan.used &&
		       !w->pending_compare.used) {
			w->busy = false;
			pthread_cond_broadcast(&w->idle_cv);
			pthread_cond_wait(&w->cv, &w->mu);
		}
		if (w->stop)
			break;
		/* plans first: they are what the user is waiting to see */
		job j;
		if (w->pending_plan.used) {
			j = w->pending_plan;
			w->pending_plan.used = false;
		} else {
			j = w->pending_compare;
			w->pending_compare.used = false;
		}
		w->busy = true;
		w->cur_kind = j.kind;
		w->cur_row = -1;
		w->phase[0] = '\0';
		w->fraction = -1;
		atomic_store(&w->cancel, 0);
		clock_gettime(CLOCK_MONOTONIC, &w->started);
		pthread_mutex_unlock(&w->mu);
		run_job(w, &j);
		dp_machine_free(&j.m);
		pthread_mutex_lock(&w->mu);
	}
	w->busy = false;
	pthread_cond_broadcast(&w->idle_cv);
	pthread_mutex_unlock(&w->mu);
	return NULL;
}

tui_worker *worker_new(dp_err *err)
{
	tui_worker *w = calloc(1, sizeof *w);
	if (!w) {
		dp_err_set(err, DP_ENOMEM, NULL, 0, 0, "out of memory");
		return NULL;
	}
	int fds[2];
	if (pipe(fds) != 0) {
		dp_err_set(err, DP_EINTERNAL, NULL, 0, 0,
			   "cannot create the worker's pipe: %s",
			   strerror(errno));
		free(w);
		return NULL;
	}
	w->pipe_rd = fds[0];
	w->pipe_wr = fds[1];
	fcntl(w->pipe_rd, F_SETFL, fcntl(w->pipe_rd, F_GETFL) | O_NONBLOCK);
	fcntl(w->pipe_wr, F_SETFL, fcntl(w->pipe_wr, F_GETFL) | O_NONBLOCK);
	fcntl(w->pipe_rd, F_SETFD, FD_CLOEXEC);
	fcntl(w->pipe_wr, F_SETFD, FD_CLOEXEC);
	pthread_mutex_init(&w->mu, NULL);
	pthread_cond_init(&w->cv, NULL);
	pthread_cond_init(&w->idle_cv, NULL);
	atomic_init(&w->cancel, 0);
	/* signals go to the UI thread only */
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	int rc = pthread_create(&w->thread, NULL, worker_main, w);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc != 0) {
		dp_err_set(err, DP_EINTERNAL, NULL, 0, 0,
			   "cannot start the worker thread: %s", strerror(rc));
		close(w->pipe_rd);
		close(w->pipe_wr);
		pthread_mutex_destroy(&w->mu);
		pthread_cond_destroy(&w->cv);
		pthread_cond_destroy(&w->idle_cv);
		free(w);
		return NULL;
	}
	return w;
}

static void drop_job(job *j)
{
	if (j->used)
		dp_machine_free(&j->m);
	j->used = false;
}

void worker_free(tui_worker *w)
{
	if (!w)
		return;
	pthread_mutex_lock(&w->mu);
	w->stop = true;
	drop_job(&w->pending_plan);
	drop_job(&w->pending_compare);
	atomic_store(&w->cancel, 1);
	pthread_cond_broadcast(&w->cv);
	pthread_mutex_unlock(&w->mu);
	pthread_join(w->thread, NULL);
	tui_result *r;
	while ((r = worker_take(w)))
		worker_result_free(r);
	close(w->pipe_rd);
	close(w->pipe_wr);
	pthread_mutex_destroy(&w->mu);
	pthread_cond_destroy(&w->cv);
	pthread_cond_destroy(&w->idle_cv);
	free(w);
}

int worker_fd(const tui_worker *w)
{
	return w->pipe_rd;
}

dp_status worker_submit(tui_worker *w, job_kind kind, const dp_graph *g,
			const dp_machine *m, const dp_algo *algo,
			dp_contention c, unsigned gen, dp_err *err)
{
	job j = {.used = true,
		 .kind = kind,
		 .g = g,
		 .algo = algo,
		 .c = c,
		 .gen = gen};
	if (dp_machine_copy(&j.m, m, err) != DP_OK)
		return err ? err->code : DP_ENOMEM;
	pthread_mutex_lock(&w->mu);
	if (kind == JOB_PLAN) {
		drop_job(&w->pending_plan);
		drop_job(&w->pending_compare);
		w->pending_plan = j;
		if (w->busy)
			atomic_store(&w->cancel, 1);
	} else {
		drop_job(&w->pending_compare);
		w->pending_compare = j;
		if (w->busy && w->cur_kind == JOB_COMPARE)
			atomic_store(&w->cancel, 1);
	}
	pthread_cond_signal(&w->cv);
	pthread_mutex_unlock(&w->mu);
	return DP_OK;
}

void worker_cancel(tui_worker *w, bool plan_only)
{
	pthread_mutex_lock(&w->mu);
	drop_job(&w->pending_plan);
	if (!plan_only)
		drop_job(&w->pending_compare);
	if (w->busy && (!plan_only || w->cur_kind == JOB_PLAN))
		atomic_store(&w->cancel, 1);
	pthread_mutex_unlock(&w->mu);
}

void worker_wait_idle(tui_worker *w)
{
	pthread_mutex_lock(&w->mu);
	while (w->busy || w->pending_plan.used || w->pending_compare.used)
		pthread_cond_wait(&w->idle_cv, &w->mu);
	pthread_mutex_unlock(&w->mu);
}

tui_result *worker_take(tui_worker *w)
{
	char buf[64];
	while (read(w->pipe_rd, buf, sizeof buf) > 0)
		;
	pthread_mutex_lock(&w->mu);
	tui_result *r = w->head;
	if (r) {
		w->head = r->next;
		if (!w->head)
			w->tail = NULL;
		r->next = NULL;
	}
	pthread_mutex_unlock(&w->mu);
	return r;
}

void worker_result_free(tui_result *r)
{
	if (!r)
		return;
	dp_plan_free(&r->plan);
	free(r);
}

void worker_get_status(tui_worker *w, worker_status *s)
{
	pthread_mutex_lock(&w->mu);
	s->busy = w->busy;
	s->kind = w->cur_kind;
	s->plan_queued =
		w->pending_plan.used || (w->busy && w->cur_kind == JOB_PLAN);
	s->compare_queued = w->pending_compare.used ||
			    (w->busy && w->cur_kind == JOB_COMPARE);
	s->row = w->cur_row;
	snprintf(s->phase, sizeof s->phase, "%s", w->phase);
	s->fraction = w->fraction;
	s->elapsed_s = w->busy ? since(&w->started) : 0;
	pthread_mutex_unlock(&w->mu);
}

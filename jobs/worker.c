/* worker.c - the rerun thread (see worker.h). */
#include "worker.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "job_thread.h"

typedef struct job {
	bool used;
	job_kind kind;
	const dp_graph *g;
	dp_machine m;
	const dp_algo *algo;
	dp_algo_opts o; /* copied from the submitter's */
	unsigned gen;
	int fit_dev; /* a fit job's device */
} job;

struct worker {
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cv;	/* a job was queued, or stop */
	pthread_cond_t idle_cv; /* the worker became idle */
	job_pipe pipe;
	bool stop;

	job pending_plan, pending_compare, pending_fit;
	bool busy;
	job_kind cur_kind;
	int cur_row;
	atomic_int cancel; /* the running job's flag */
	job_meter meter;   /* its phase, fraction and start (under mu) */

	worker_result *head, *tail; /* finished results, oldest first */
};

static void push_result(worker *w, worker_result *r)
{
	pthread_mutex_lock(&w->mu);
	r->next = NULL;
	if (w->tail)
		w->tail->next = r;
	else
		w->head = r;
	w->tail = r;
	pthread_mutex_unlock(&w->mu);
	job_pipe_notify(&w->pipe);
}

/* The job dp_plan_run_all() is running, for its hooks. */
typedef struct job_run {
	worker *w;
	const job *j;
	bool compare; /* rows are registry indexes; else the plan job's -1 */
} job_run;

static void before_algo(void *ud, size_t i, const dp_algo *algo)
{
	job_run *jr = ud;
	if (!jr->compare)
		return;
	worker *w = jr->w;
	pthread_mutex_lock(&w->mu);
	w->cur_row = (int)i;
	snprintf(w->meter.phase, sizeof w->meter.phase, "%s", algo->name);
	w->meter.fraction = -1;
	pthread_mutex_unlock(&w->mu);
}

/* Queues one algorithm's outcome; out of memory, the row is dropped (the
 * front end shows it waiting). */
static void after_algo(void *ud, size_t i, dp_run_result *rr)
{
	job_run *jr = ud;
	worker_result *r = calloc(1, sizeof *r);
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

void worker_fit_compute(const dp_graph *g, const dp_machine *m,
			const dp_algo *algo, const dp_algo_opts *o, int dev,
			const dp_progress *p, worker_result *r)
{
	dp_err err;
	dp_err_clear(&err);
	r->fit_dev = dev;
	/* the lever search needs the graph as loaded (no lever applied); it
	 * says when the graph takes none (nsets 1, no probe) */
	dp_fit_search_opts so = {.gemm_ratio = m->levers.gemm_ratio,
				 .fp16 = m->levers.no_bf16 ||
					 m->levers.precision == DP_PREC_FP16,
				 .stop_without_levers = true};
	if (!dp_graph_levers(g)[0]) {
		r->status = dp_fit_search_run(g, m, o, &so, p, &r->search, &err);
		r->fit_levers = !r->status && !(r->search.nsets == 1 &&
						 !r->search.r.nprobes);
		if (r->status || r->fit_levers)
			goto done;
		dp_fit_search_free(&r->search);
	}
	dp_fit_opts fk = {.kind = DP_FIT_K};
	dp_fit_opts fc = {.kind = DP_FIT_DEVICE_CAP, .device = dev};
	r->status = dp_fit_run(g, m, algo, o, &fk, p, &r->fit_k, &err);
	if (!r->status)
		r->status = dp_fit_run(g, m, algo, o, &fc, p, &r->fit_cap, &err);
done:
	if (r->status)
		dp_err_format(&err, r->msg, sizeof r->msg);
}

/* A fit job: the two searches, one result. */
static void run_fit(worker *w, job *j)
{
	worker_result *r = calloc(1, sizeof *r);
	if (!r)
		return;
	r->kind = JOB_FIT;
	r->g = j->g;
	r->gen = j->gen;
	r->row = -1;
	dp_progress p = {job_meter_report, &w->meter, &w->cancel};
	worker_fit_compute(j->g, &j->m, j->algo, &j->o, j->fit_dev, &p, r);
	push_result(w, r);
}

/* An intermediate placement of an anytime algorithm (best): simulated and
 * queued as a plan result of the running job, so the explorer shows it
 * while the algorithm goes on. Out of memory, it is dropped. */
/* Queues an interim plan of the running plan job (made by make from what
 * the anytime algorithm passed); out of memory or on failure it is
 * dropped. */
static void interim_push(job_run *jr, const dp_algo_origin *from,
			 dp_status (*make)(const job *j, const void *what,
					   dp_plan *plan, dp_err *err),
			 const void *what)
{
	const job *j = jr->j;
	worker_result *r = calloc(1, sizeof *r);
	if (!r)
		return;
	dp_err err;
	if (make(j, what, &r->plan, &err) != DP_OK) {
		free(r);
		return;
	}
	snprintf(r->plan.algo, sizeof r->plan.algo, "%s", j->algo->name);
	r->plan.origin = *from;
	/* found this far into the search: not "planned in 0 us" */
	pthread_mutex_lock(&jr->w->mu);
	r->plan.plan_ms = job_meter_elapsed(&jr->w->meter) * 1000.0;
	pthread_mutex_unlock(&jr->w->mu);
	r->kind = j->kind;
	r->g = j->g;
	r->gen = j->gen;
	r->row = -1;
	r->status = DP_OK;
	r->interim = true;
	push_result(jr->w, r);
}

static dp_status eval_placement(const job *j, const void *pl, dp_plan *plan,
				dp_err *err)
{
	return dp_plan_evaluate(j->g, &j->m, pl, j->o.contention, plan, err);
}

static dp_status eval_strategy(const job *j, const void *s, dp_plan *plan,
			       dp_err *err)
{
	return dp_plan_evaluate_strategy(j->g, &j->m, s, j->o.contention, NULL,
					 plan, err);
}

/* An intermediate placement of an anytime algorithm (best): simulated and
 * queued as a plan result of the running job, so the explorer shows it
 * while the algorithm goes on. */
static void interim_plan(void *ud, const int32_t *pl,
			 const dp_algo_origin *from)
{
	interim_push(ud, from, eval_placement, pl);
}

/* The same for a strategy that best of everything found better. */
static void interim_strategy(void *ud, const dp_strategy *s,
			     const dp_algo_origin *from)
{
	interim_push(ud, from, eval_strategy, s);
}

/* A plan job runs its algorithm, a compare job every algorithm of the
 * registry in order (but those run only on request: dp_algo_compared), through the engine's one run-these-algorithms loop. */
static void run_job(worker *w, job *j)
{
	dp_algo_opts o = j->o;
	dp_progress p = {job_meter_report, &w->meter, &w->cancel};
	job_run jr = {w, j, j->kind != JOB_PLAN};
	dp_run_hooks hooks = {before_algo, after_algo, &jr};
	if (!jr.compare) { /* anytime: best shows its plans as they come */
		o.interim = interim_plan;
		o.interim_strategy = interim_strategy;
		o.interim_ud = &jr;
	}
	size_t n;
	const dp_algo *const *every = dp_algo_compared(&n);
	if (j->kind == JOB_FIT)
		run_fit(w, j);
	else if (jr.compare)
		dp_plan_run_all(j->g, &j->m, every, n, &o, &p, &hooks);
	else
		dp_plan_run_all(j->g, &j->m, &j->algo, 1, &o, &p, &hooks);
}

static void *worker_main(void *arg)
{
	worker *w = arg;
	pthread_mutex_lock(&w->mu);
	for (;;) {
		while (!w->stop && !w->pending_plan.used &&
		       !w->pending_compare.used && !w->pending_fit.used) {
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
		} else if (w->pending_fit.used) {
			j = w->pending_fit;
			w->pending_fit.used = false;
		} else {
			j = w->pending_compare;
			w->pending_compare.used = false;
		}
		w->busy = true;
		w->cur_kind = j.kind;
		w->cur_row = -1;
		job_meter_start(&w->meter);
		atomic_store(&w->cancel, 0);
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

/* Frees what worker_new made before the thread (which it never started,
 * or has joined). */
static void destroy(worker *w)
{
	job_pipe_close(&w->pipe);
	pthread_mutex_destroy(&w->mu);
	pthread_cond_destroy(&w->cv);
	pthread_cond_destroy(&w->idle_cv);
	free(w);
}

worker *worker_new(dp_err *err)
{
	worker *w = job_owner_alloc(sizeof *w, err);
	if (!w || job_owner_init(&w->pipe, &w->mu, &w->meter, "the worker",
				 err) != DP_OK) {
		free(w);
		return NULL;
	}
	pthread_cond_init(&w->cv, NULL);
	pthread_cond_init(&w->idle_cv, NULL);
	atomic_init(&w->cancel, 0);
	if (job_thread_start(&w->thread, worker_main, w, "the worker", err) !=
	    DP_OK) {
		destroy(w);
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

void worker_free(worker *w)
{
	if (!w)
		return;
	pthread_mutex_lock(&w->mu);
	w->stop = true;
	drop_job(&w->pending_plan);
	drop_job(&w->pending_compare);
	drop_job(&w->pending_fit);
	atomic_store(&w->cancel, 1);
	pthread_cond_broadcast(&w->cv);
	pthread_mutex_unlock(&w->mu);
	pthread_join(w->thread, NULL);
	worker_result *r;
	while ((r = worker_take(w)))
		worker_result_free(r);
	destroy(w);
}

int worker_fd(const worker *w)
{
	return w->pipe.rd;
}

/* The job's own copies of the options (NULL: the defaults) and machine. */
static dp_status job_copy_in(job *j, const dp_machine *m, const dp_algo_opts *o,
			     dp_err *err)
{
	if (o)
		j->o = *o;
	else
		dp_algo_opts_default(&j->o);
	return dp_machine_copy(&j->m, m, err);
}

/* Puts j in the slot (under w->mu, which it unlocks), replacing the job
 * waiting there, and cancels a running job of the same kind. */
static dp_status queue_job(worker *w, job *slot, const job *j)
{
	drop_job(slot);
	*slot = *j;
	if (w->busy && w->cur_kind == j->kind)
		atomic_store(&w->cancel, 1);
	pthread_cond_signal(&w->cv);
	pthread_mutex_unlock(&w->mu);
	return DP_OK;
}

dp_status worker_submit(worker *w, job_kind kind, const dp_graph *g,
			const dp_machine *m, const dp_algo *algo,
			const dp_algo_opts *o, unsigned gen, dp_err *err)
{
	job j = {.used = true, .kind = kind, .g = g, .algo = algo, .gen = gen};
	if (job_copy_in(&j, m, o, err) != DP_OK)
		return err ? err->code : DP_ENOMEM;
	pthread_mutex_lock(&w->mu);
	if (kind != JOB_PLAN)
		return queue_job(w, &w->pending_compare, &j);
	/* a plan supersedes every kind of job */
	drop_job(&w->pending_compare);
	drop_job(&w->pending_fit);
	if (w->busy)
		atomic_store(&w->cancel, 1);
	return queue_job(w, &w->pending_plan, &j);
}

dp_status worker_submit_fit(worker *w, const dp_graph *g, const dp_machine *m,
			    const dp_algo *algo, const dp_algo_opts *o, int dev,
			    unsigned gen, dp_err *err)
{
	job j = {.used = true,
		 .kind = JOB_FIT,
		 .g = g,
		 .algo = algo,
		 .gen = gen,
		 .fit_dev = dev};
	if (job_copy_in(&j, m, o, err) != DP_OK)
		return err ? err->code : DP_ENOMEM;
	pthread_mutex_lock(&w->mu);
	return queue_job(w, &w->pending_fit, &j);
}

void worker_cancel(worker *w, bool plan_only)
{
	pthread_mutex_lock(&w->mu);
	drop_job(&w->pending_plan);
	if (!plan_only) {
		drop_job(&w->pending_compare);
		drop_job(&w->pending_fit);
	}
	if (w->busy && (!plan_only || w->cur_kind == JOB_PLAN))
		atomic_store(&w->cancel, 1);
	pthread_mutex_unlock(&w->mu);
}

void worker_wait_idle(worker *w)
{
	pthread_mutex_lock(&w->mu);
	while (w->busy || w->pending_plan.used || w->pending_compare.used ||
	       w->pending_fit.used)
		pthread_cond_wait(&w->idle_cv, &w->mu);
	pthread_mutex_unlock(&w->mu);
}

worker_result *worker_take(worker *w)
{
	job_pipe_drain(&w->pipe);
	pthread_mutex_lock(&w->mu);
	worker_result *r = w->head;
	if (r) {
		w->head = r->next;
		if (!w->head)
			w->tail = NULL;
		r->next = NULL;
	}
	pthread_mutex_unlock(&w->mu);
	return r;
}

void worker_result_free(worker_result *r)
{
	if (!r)
		return;
	dp_plan_free(&r->plan);
	dp_fit_result_free(&r->fit_k);
	dp_fit_result_free(&r->fit_cap);
	dp_fit_search_free(&r->search);
	free(r);
}

void worker_get_status(worker *w, worker_status *s)
{
	pthread_mutex_lock(&w->mu);
	s->busy = w->busy;
	s->kind = w->cur_kind;
	s->plan_queued =
		w->pending_plan.used || (w->busy && w->cur_kind == JOB_PLAN);
	s->compare_queued = w->pending_compare.used ||
			    (w->busy && w->cur_kind == JOB_COMPARE);
	s->fit_queued =
		w->pending_fit.used || (w->busy && w->cur_kind == JOB_FIT);
	s->row = w->cur_row;
	snprintf(s->phase, sizeof s->phase, "%s", w->meter.phase);
	s->fraction = w->meter.fraction;
	s->elapsed_s = w->busy ? job_meter_elapsed(&w->meter) : 0;
	pthread_mutex_unlock(&w->mu);
}

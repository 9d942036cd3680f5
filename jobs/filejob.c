/* filejob.c - open and export on a background thread (see filejob.h). A
 * thread per job: jobs are rare and long, and a thread
 * that exists only while a job runs needs no queue and no wake-ups. */
#include "filejob.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dnnpart/load.h"
#include "job_thread.h"

struct filejob {
	pthread_mutex_t mu;
	job_pipe pipe;

	/* the job (set before its thread starts, read by it only) */
	bool live; /* a thread was started and not joined yet */
	pthread_t thread;
	filejob_kind kind;
	char path[512];
	const dp_graph *g;
	dp_machine m;
	int32_t *placement;
	dp_strategy *strat; /* an export of a strategy's plan: its copy */
	dp_contention contention;
	char algo[32];
	double plan_ms;
	dp_export_kind ekind;
	dp_export_opts eopts;
	atomic_int cancel;

	job_meter meter; /* progress (under mu) */

	/* allocated when the job starts, so the thread needs no memory to
	 * report; done says it is filled in (under mu) */
	filejob_result *result;
	bool done;
};

static void run_open(filejob *fj, filejob_result *r, dp_err *err)
{
	job_meter_report(&fj->meter, "reading", -1);
	r->status = dp_graph_load(fj->path, DP_FMT_AUTO, &r->g, err);
	/* a load cannot stop half-way: a cancelled one is thrown away */
	if (r->status == DP_OK && atomic_load(&fj->cancel)) {
		dp_graph_free(r->g);
		r->g = NULL;
		r->status = dp_err_set(err, DP_ECANCELED, fj->path, 0, 0,
				       "cancelled; not opened");
	}
}

static void run_export(filejob *fj, filejob_result *r, dp_err *err)
{
	dp_progress p = {job_meter_report, &fj->meter, &fj->cancel};
	dp_plan plan;
	memset(&plan, 0, sizeof plan);
	job_meter_report(&fj->meter, "simulating the plan", -1);
	r->status = fj->strat ? dp_plan_evaluate_strategy(
					fj->g, &fj->m, fj->strat,
					fj->contention, &p, &plan, err)
			      : dp_plan_evaluate(fj->g, &fj->m, fj->placement,
						 fj->contention, &plan, err);
	if (r->status != DP_OK)
		return;
	/* the plan on screen, not an "eval" of it */
	snprintf(plan.algo, sizeof plan.algo, "%s", fj->algo);
	plan.plan_ms = fj->plan_ms;
	if (dp_progress_canceled(&p))
		r->status = dp_err_set(err, DP_ECANCELED, fj->path, 0, 0,
				       "export canceled; no file written");
	else
		r->status = dp_export_write_opts(fj->path, fj->ekind, fj->g,
						 &fj->m, &plan, &fj->eopts, &p,
						 &r->rep, err);
	dp_plan_free(&plan);
}

static void *job_main(void *arg)
{
	filejob *fj = arg;
	filejob_result *r = fj->result;
	dp_err err;
	dp_err_clear(&err);
	if (fj->kind == FILEJOB_OPEN)
		run_open(fj, r, &err);
	else
		run_export(fj, r, &err);
	if (r->status != DP_OK)
		dp_err_format(&err, r->msg, sizeof r->msg);
	pthread_mutex_lock(&fj->mu);
	r->elapsed_s = job_meter_elapsed(&fj->meter);
	fj->done = true;
	pthread_mutex_unlock(&fj->mu);
	job_pipe_notify(&fj->pipe);
	return NULL;
}

filejob *filejob_new(dp_err *err)
{
	filejob *fj = job_owner_alloc(sizeof *fj, err);
	if (!fj || job_owner_init(&fj->pipe, &fj->mu, &fj->meter,
				  "the file jobs", err) != DP_OK) {
		free(fj);
		return NULL;
	}
	atomic_init(&fj->cancel, 0);
	return fj;
}

/* Frees the copies a job was given (machine, placement). */
static void free_inputs(filejob *fj)
{
	dp_machine_free(&fj->m);
	free(fj->placement);
	fj->placement = NULL;
	if (fj->strat) {
		dp_strategy_free(fj->strat);
		free(fj->strat);
		fj->strat = NULL;
	}
	fj->g = NULL;
}

/* Joins a finished or cancelled job's thread and frees its inputs. */
static void join_job(filejob *fj)
{
	if (!fj->live)
		return;
	pthread_join(fj->thread, NULL);
	fj->live = false;
	free_inputs(fj);
	filejob_result_free(fj->result); /* NULL when it was taken */
	fj->result = NULL;
	fj->done = false;
}

void filejob_free(filejob *fj)
{
	if (!fj)
		return;
	atomic_store(&fj->cancel, 1);
	join_job(fj);
	job_pipe_close(&fj->pipe);
	pthread_mutex_destroy(&fj->mu);
	free(fj);
}

int filejob_fd(const filejob *fj)
{
	return fj->pipe.rd;
}

static dp_status busy_error(const filejob *fj, dp_err *err)
{
	return dp_err_set(err, DP_EINPUT, NULL, 0, 0,
			  "%s %s is still running (Esc cancels it)",
			  fj->kind == FILEJOB_OPEN ? "opening" : "exporting",
			  fj->path);
}

/* Starts the thread for the job set up in fj. */
static dp_status start(filejob *fj, dp_err *err)
{
	filejob_result *r = calloc(1, sizeof *r);
	if (!r) {
		free_inputs(fj);
		return dp_err_set(err, DP_ENOMEM, fj->path, 0, 0,
				  "out of memory");
	}
	r->kind = fj->kind;
	r->ekind = fj->ekind;
	snprintf(r->path, sizeof r->path, "%s", fj->path);
	snprintf(r->algo, sizeof r->algo, "%s", fj->algo);
	fj->result = r;
	fj->done = false;
	atomic_store(&fj->cancel, 0);
	job_meter_start(&fj->meter);
	dp_status st =
		job_thread_start(&fj->thread, job_main, fj, fj->path, err);
	if (st != DP_OK) {
		free_inputs(fj);
		filejob_result_free(r);
		fj->result = NULL;
		return st;
	}
	fj->live = true;
	return DP_OK;
}

dp_status filejob_open(filejob *fj, const char *path, dp_err *err)
{
	if (fj->live)
		return busy_error(fj, err);
	fj->kind = FILEJOB_OPEN;
	snprintf(fj->path, sizeof fj->path, "%s", path);
	fj->g = NULL;
	fj->algo[0] = '\0';
	memset(&fj->m, 0, sizeof fj->m);
	fj->placement = NULL;
	return start(fj, err);
}

dp_status filejob_export(filejob *fj, const char *path, dp_export_kind kind,
			 const dp_graph *g, const dp_machine *m,
			 const dp_plan *plan, const dp_export_opts *opts,
			 dp_err *err)
{
	if (fj->live)
		return busy_error(fj, err);
	if (plan->nops != dp_plan_graph(plan, g)->nops || plan->k != m->k)
		return dp_err_set(err, DP_EINTERNAL, path, 0, 0,
				  "the plan (%u ops, K=%d) is not for this "
				  "graph and machine (%u ops, K=%d)",
				  plan->nops, plan->k, g->nops, m->k);
	/* a strategy is lowered again in the job; a placement simulated */
	int32_t *pl = NULL;
	dp_strategy *strat = NULL;
	if (plan->strat) {
		strat = malloc(sizeof *strat);
		if (!strat || dp_strategy_copy(strat, plan->strat, err)) {
			free(strat);
			return dp_err_set(err, DP_ENOMEM, path, 0, 0,
					  "out of memory copying the strategy");
		}
	} else {
		pl = malloc((size_t)(g->nops ? g->nops : 1) * sizeof *pl);
		if (!pl)
			return dp_err_set(err, DP_ENOMEM, path, 0, 0,
					  "out of memory copying the "
					  "placement");
		if (g->nops)
			memcpy(pl, plan->placement,
			       (size_t)g->nops * sizeof *pl);
	}
	if (dp_machine_copy(&fj->m, m, err) != DP_OK) {
		free(pl);
		if (strat) {
			dp_strategy_free(strat);
			free(strat);
		}
		return err ? err->code : DP_ENOMEM;
	}
	fj->strat = strat;
	fj->kind = FILEJOB_EXPORT;
	snprintf(fj->path, sizeof fj->path, "%s", path);
	fj->g = g;
	fj->placement = pl;
	fj->contention = plan->contention;
	snprintf(fj->algo, sizeof fj->algo, "%s", plan->algo);
	fj->plan_ms = plan->plan_ms;
	fj->ekind = kind;
	if (opts)
		fj->eopts = *opts;
	else
		dp_export_opts_default(&fj->eopts);
	fj->eopts.layout = NULL; /* the caller's string may not outlive us */
	return start(fj, err);
}

void filejob_cancel(filejob *fj)
{
	if (fj->live)
		atomic_store(&fj->cancel, 1);
}

filejob_result *filejob_take(filejob *fj)
{
	job_pipe_drain(&fj->pipe);
	if (!fj->live)
		return NULL;
	pthread_mutex_lock(&fj->mu);
	bool done = fj->done;
	pthread_mutex_unlock(&fj->mu);
	if (!done)
		return NULL;
	/* the thread has nothing left to do but return: joining is quick */
	filejob_result *r = fj->result;
	fj->result = NULL;
	join_job(fj);
	return r;
}

void filejob_result_free(filejob_result *r)
{
	if (!r)
		return;
	dp_graph_free(r->g);
	free(r);
}

void filejob_get_status(filejob *fj, filejob_status *s)
{
	memset(s, 0, sizeof *s);
	s->fraction = -1;
	if (!fj->live)
		return;
	s->busy = true;
	s->kind = fj->kind;
	s->cancelling = atomic_load(&fj->cancel) != 0;
	snprintf(s->path, sizeof s->path, "%s", fj->path);
	pthread_mutex_lock(&fj->mu);
	snprintf(s->phase, sizeof s->phase, "%s", fj->meter.phase);
	s->fraction = fj->meter.fraction;
	s->elapsed_s = job_meter_elapsed(&fj->meter);
	pthread_mutex_unlock(&fj->mu);
}

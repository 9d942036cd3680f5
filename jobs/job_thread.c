/* job_thread.c - pipe, thread and progress meter of the background jobs
 * (see job_thread.h). */
#include "job_thread.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

dp_status job_pipe_open(job_pipe *p, const char *what, dp_err *err)
{
	int fds[2];
	if (pipe(fds) != 0)
		return dp_err_set(err, DP_EINTERNAL, NULL, 0, 0,
				  "cannot create the pipe of %s: %s", what,
				  strerror(errno));
	for (int i = 0; i < 2; i++) {
		fcntl(fds[i], F_SETFL, fcntl(fds[i], F_GETFL) | O_NONBLOCK);
		fcntl(fds[i], F_SETFD, FD_CLOEXEC);
	}
	p->rd = fds[0];
	p->wr = fds[1];
	return DP_OK;
}

void job_pipe_close(job_pipe *p)
{
	close(p->rd);
	close(p->wr);
	p->rd = p->wr = -1;
}

void job_pipe_notify(job_pipe *p)
{
	char b = 1;
	ssize_t n = write(p->wr, &b, 1);
	(void)n;
}

void job_pipe_drain(job_pipe *p)
{
	char buf[64];
	while (read(p->rd, buf, sizeof buf) > 0)
		;
}

dp_status job_thread_start(pthread_t *t, void *(*fn)(void *), void *arg,
			   const char *what, dp_err *err)
{
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	int rc = pthread_create(t, NULL, fn, arg);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc != 0)
		return dp_err_set(err, DP_EINTERNAL, NULL, 0, 0,
				  "cannot start a thread for %s: %s", what,
				  strerror(rc));
	return DP_OK;
}

void job_meter_start(job_meter *m)
{
	m->phase[0] = '\0';
	m->fraction = -1;
	clock_gettime(CLOCK_MONOTONIC, &m->started);
}

void job_meter_report(void *ud, const char *phase, double fraction)
{
	job_meter *m = ud;
	pthread_mutex_lock(m->mu);
	snprintf(m->phase, sizeof m->phase, "%s", phase ? phase : "");
	m->fraction = fraction;
	pthread_mutex_unlock(m->mu);
}

double job_meter_elapsed(const job_meter *m)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)(t.tv_sec - m->started.tv_sec) +
	       (double)(t.tv_nsec - m->started.tv_nsec) * 1e-9;
}

void *job_owner_alloc(size_t size, dp_err *err)
{
	void *p = calloc(1, size);
	if (!p)
		dp_err_set(err, DP_ENOMEM, NULL, 0, 0, "out of memory");
	return p;
}

dp_status job_owner_init(job_pipe *pipe, pthread_mutex_t *mu, job_meter *meter,
			 const char *what, dp_err *err)
{
	dp_status st = job_pipe_open(pipe, what, err);
	if (st)
		return st;
	pthread_mutex_init(mu, NULL);
	meter->mu = mu;
	job_meter_start(meter);
	return DP_OK;
}

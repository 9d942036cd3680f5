/* ilp_solve.c - solves ilp's MILP with COIN-OR CBC in a child process.
 *
 * Why a child: CBC (2.10's C interface) prints some messages to stdout
 * whatever its log level (an unknown parameter, for one), which would land
 * on the explorer's screen; it has no way to be interrupted from outside
 * between its own time checks (the root LP and cut loop can run long);
 * and its command-line driver keeps static state, so two solves in two
 * threads are not safe. A forked child has its stdout and stderr on
 * /dev/null, is killed at once on cancel, and owns its CBC state. It
 * writes what it found to a pipe: a fixed header, then the solution.
 * The same pattern as the SVG export's Graphviz child (export_svg.c).
 */
#include <Cbc_C_Interface.h>
#include <errno.h>
#include <fcntl.h>
#include <float.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "internal/algo_int.h"
#include "internal/child.h"
#include "internal/clock.h"
#include "internal/ilp.h"

#define POLL_MS 50

/* What the child writes first; then ncols doubles when has_solution. */
typedef struct wire {
	int32_t magic;
	int32_t has_solution, optimal, infeasible, stopped;
	int32_t ncols;
	double obj, bound;
} wire;

#define WIRE_MAGIC 0x494c5031 /* "ILP1" */

static bool write_all(int fd, const void *buf, size_t n)
{
	const char *p = buf;
	while (n) {
		ssize_t w = write(fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return false;
		p += w;
		n -= (size_t)w;
	}
	return true;
}

static double finite_or_max(double v)
{
	return v == INFINITY ? DBL_MAX : v == -INFINITY ? -DBL_MAX : v;
}

/* Runs in the child; never returns. */
static void child_main(int fd, const ilp_model *md, const int *start_cols,
		       const double *start_vals, int nstart, double limit_s)
{
	dpi_child_signals();
	int devnull = open("/dev/null", O_RDWR);
	if (devnull >= 0) {
		dup2(devnull, STDOUT_FILENO);
		dup2(devnull, STDERR_FILENO);
	}
	const ilp_lp *lp = &md->lp;
	int nc = lp->ncols, nr = lp->nrows;
	/* compressed rows -> compressed columns for Cbc_loadProblem */
	CoinBigIndex *cs = calloc((size_t)nc + 1, sizeof *cs);
	int *ci = malloc(((size_t)lp->nnz + 1) * sizeof *ci);
	double *cv = malloc(((size_t)lp->nnz + 1) * sizeof *cv);
	double *clo = malloc(((size_t)nc + 1) * sizeof *clo);
	double *chi = malloc(((size_t)nc + 1) * sizeof *chi);
	double *rlo = malloc(((size_t)nr + 1) * sizeof *rlo);
	double *rhi = malloc(((size_t)nr + 1) * sizeof *rhi);
	if (!cs || !ci || !cv || !clo || !chi || !rlo || !rhi)
		_exit(20);
	for (int i = 0; i < lp->nnz; i++)
		cs[lp->ridx[i] + 1]++;
	for (int j = 0; j < nc; j++)
		cs[j + 1] += cs[j];
	for (int r = 0; r < nr; r++)
		for (int i = lp->rstart[r]; i < lp->rstart[r + 1]; i++) {
			int j = lp->ridx[i];
			ci[cs[j]] = r;
			cv[cs[j]++] = lp->rval[i];
		}
	for (int j = nc; j > 0; j--)
		cs[j] = cs[j - 1];
	cs[0] = 0;
	for (int j = 0; j < nc; j++) {
		clo[j] = finite_or_max(lp->clo[j]);
		chi[j] = finite_or_max(lp->chi[j]);
	}
	for (int r = 0; r < nr; r++) {
		rlo[r] = finite_or_max(lp->rlo[r]);
		rhi[r] = finite_or_max(lp->rhi[r]);
	}
	Cbc_Model *cbc = Cbc_newModel();
	if (!cbc)
		_exit(20);
	Cbc_loadProblem(cbc, nc, nr, cs, ci, cv, clo, chi, lp->obj, rlo, rhi);
	for (int j = 0; j < nc; j++)
		if (lp->is_int[j])
			Cbc_setInteger(cbc, j);
	Cbc_setObjSense(cbc, 1);
	Cbc_setLogLevel(cbc, 0);
	Cbc_setMaximumSeconds(cbc, limit_s);
	/* deterministic: one thread (CBC's default) and fixed seeds */
	/* the limit is wall-clock time: CPU time runs slow on a busy
	 * machine, and the caller waits by the clock */
	Cbc_setParameter(cbc, "timeMode", "elapsed");
	Cbc_setParameter(cbc, "randomSeed", "1");
	Cbc_setParameter(cbc, "randomCbcSeed", "1");
	Cbc_setAllowableFractionGap(cbc, 1e-7);
	if (nstart > 0)
		Cbc_setMIPStartI(cbc, nstart, start_cols, start_vals);
	Cbc_solve(cbc);
	wire w;
	memset(&w, 0, sizeof w);
	w.magic = WIRE_MAGIC;
	w.ncols = nc;
	const double *best = Cbc_bestSolution(cbc);
	w.has_solution = best != NULL;
	w.optimal = best && Cbc_isProvenOptimal(cbc);
	w.infeasible = Cbc_isProvenInfeasible(cbc);
	w.stopped = Cbc_isSecondsLimitReached(cbc);
	w.obj = best ? Cbc_getObjValue(cbc) : NAN;
	w.bound = Cbc_getBestPossibleObjValue(cbc);
	if (!write_all(fd, &w, sizeof w) ||
	    (best && !write_all(fd, best, (size_t)nc * sizeof *best)))
		_exit(21);
	_exit(0);
}

static void kill_child(pid_t pid, int *status)
{
	kill(pid, SIGKILL);
	while (waitpid(pid, status, 0) < 0 && errno == EINTR)
		;
}

dp_status dpi_ilp_solve(const ilp_model *md, const int *start_cols,
			const double *start_vals, int nstart,
			double time_limit_s, const dp_progress *p,
			ilp_answer *ans, dp_err *err)
{
	ans->has_solution = ans->optimal = ans->infeasible = false;
	ans->stopped = false;
	ans->obj = ans->bound = NAN;
	size_t want = sizeof(wire) + (size_t)md->lp.ncols * sizeof(double);
	char *buf = malloc(want);
	if (!buf)
		return dp_err_set(err, DP_ENOMEM, NULL, 0, 0,
				  "out of memory for the MILP's solution");
	int fds[2];
	if (pipe(fds) != 0) {
		free(buf);
		return dp_err_set(err, DP_EIO, NULL, 0, 0,
				  "ilp: could not create a pipe: %s",
				  strerror(errno));
	}
	fflush(stdout);
	fflush(stderr);
	double t0 = dpi_now_s();
	pid_t pid = fork();
	if (pid < 0) {
		int e = errno;
		close(fds[0]);
		close(fds[1]);
		free(buf);
		return dp_err_set(err, DP_EIO, NULL, 0, 0,
				  "ilp: could not start the solver process: %s",
				  strerror(e));
	}
	if (pid == 0) {
		close(fds[0]);
		child_main(fds[1], md, start_cols, start_vals, nstart,
			   time_limit_s);
	}
	close(fds[1]);
	fcntl(fds[0], F_SETFL, fcntl(fds[0], F_GETFL) | O_NONBLOCK);
	/* CBC checks its clock between nodes, not inside its root LP and
	 * cut loop; past this, stop waiting (the caller keeps its start) */
	double hard = time_limit_s * 1.25 + 2.0;
	size_t got = 0;
	int status = 0;
	bool eof = false;
	dp_status st = DP_OK;
	while (!eof) {
		struct pollfd pf = {fds[0], POLLIN, 0};
		poll(&pf, 1, POLL_MS);
		for (;;) {
			char tmp[4096];
			ssize_t n = read(fds[0], tmp, sizeof tmp);
			if (n > 0) {
				size_t k = (size_t)n;
				if (got + k > want)
					k = want > got ? want - got : 0;
				memcpy(buf + got, tmp, k);
				got += k;
				continue;
			}
			if (n == 0)
				eof = true;
			break;
		}
		double el = dpi_now_s() - t0;
		if (dp_progress_canceled(p)) {
			kill_child(pid, &status);
			close(fds[0]);
			free(buf);
			return dpi_canceled(err, "ilp");
		}
		if (!eof && el > hard) {
			/* no answer in time: the caller keeps its warm start */
			kill_child(pid, &status);
			close(fds[0]);
			free(buf);
			ans->stopped = true;
			return DP_OK;
		}
		double f = el / time_limit_s;
		dp_progress_report(p, "ilp: solving", f < 0.99 ? f : 0.99);
	}
	close(fds[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	wire w;
	memset(&w, 0, sizeof w);
	if (got >= sizeof w)
		memcpy(&w, buf, sizeof w);
	if (WIFSIGNALED(status)) {
		st = dp_err_set(err, DP_EINTERNAL, NULL, 0, 0,
				"ilp: the CBC solver process ended on signal "
				"%d (%s)",
				WTERMSIG(status), strsignal(WTERMSIG(status)));
	} else if (WIFEXITED(status) && WEXITSTATUS(status) == 20) {
		st = dp_err_set(err, DP_ENOMEM, NULL, 0, 0,
				"ilp: out of memory in the solver process "
				"(%d columns, %d rows)",
				md->lp.ncols, md->lp.nrows);
	} else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 ||
		   got < sizeof w || w.magic != WIRE_MAGIC ||
		   w.ncols != md->lp.ncols || (w.has_solution && got < want)) {
		st = dp_err_set(err, DP_EINTERNAL, NULL, 0, 0,
				"ilp: the CBC solver process failed (exit %d, "
				"%zu of %zu bytes of its answer)",
				WIFEXITED(status) ? WEXITSTATUS(status) : -1,
				got, want);
	} else {
		ans->has_solution = w.has_solution;
		ans->optimal = w.optimal;
		ans->infeasible = w.infeasible;
		ans->stopped = w.stopped;
		ans->obj = w.obj;
		ans->bound = w.bound;
		if (w.has_solution)
			memcpy(ans->sol, buf + sizeof w,
			       (size_t)md->lp.ncols * sizeof(double));
	}
	free(buf);
	return st;
}

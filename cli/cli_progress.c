/* cli_progress.c - the progress line and the cancel signals of a long
 * command (see cli_progress.h). */
#include "cli_progress.h"

#include "cli.h"

#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static atomic_int cancel_flag;
static const int cancel_signals[] = {SIGINT, SIGTERM, SIGHUP};
#define NSIGNALS (sizeof cancel_signals / sizeof cancel_signals[0])
static struct sigaction saved[NSIGNALS];
static bool caught[NSIGNALS];
static volatile sig_atomic_t once; /* CLI_CANCEL_SIGINT_ONCE */

static void on_signal(int sig)
{
	atomic_store(&cancel_flag, 1);
	/* the next one acts as before: a run that does not stop can still
	 * be killed (sigaction is async-signal-safe) */
	if (once)
		for (size_t i = 0; i < NSIGNALS; i++)
			if (cancel_signals[i] == sig)
				sigaction(sig, &saved[i], NULL);
}

static void on_progress(void *ud, const char *phase, double fraction)
{
	cli_progress *cp = ud;
	int pc = (int)(fraction * 100.0);
	if (pc > 100)
		pc = 100;
	if (!phase)
		phase = "";
	if (pc == cp->percent &&
	    !strncmp(phase, cp->phase, sizeof cp->phase - 1))
		return;
	cp->percent = pc;
	snprintf(cp->phase, sizeof cp->phase, "%s", phase);
	if (pc >= 0)
		fprintf(stderr, "\r\033[K%s: %s %d%%", cp->label, cp->phase,
			pc);
	else
		fprintf(stderr, "\r\033[K%s: %s", cp->label, cp->phase);
	fflush(stderr);
	cp->shown = true;
}

void cli_progress_begin(cli_progress *cp, cli_cancel_on on, const char *label)
{
	memset(cp, 0, sizeof *cp);
	cp->percent = -1;
	cp->p.fn = isatty(STDERR_FILENO) ? on_progress : NULL;
	cp->p.ud = cp;
	cp->p.cancel = &cancel_flag;
	snprintf(cp->label, sizeof cp->label, "%s", label);
	atomic_store(&cancel_flag, 0);
	once = on == CLI_CANCEL_SIGINT_ONCE;
	size_t n = on == CLI_CANCEL_SIGINT_ONCE ? 1 : NSIGNALS;
	for (size_t i = 0; i < NSIGNALS; i++) {
		caught[i] = false;
		if (i >= n || sigaction(cancel_signals[i], NULL, &saved[i]) ||
		    saved[i].sa_handler == SIG_IGN)
			continue;
		struct sigaction sa;
		memset(&sa, 0, sizeof sa);
		sa.sa_handler = on_signal;
		sigemptyset(&sa.sa_mask);
		caught[i] = sigaction(cancel_signals[i], &sa, NULL) == 0;
	}
}

void cli_progress_label(cli_progress *cp, const char *label)
{
	snprintf(cp->label, sizeof cp->label, "%s", label);
	cp->percent = -1; /* the next report draws the line */
}

void cli_progress_clear(cli_progress *cp)
{
	if (cp->shown)
		fprintf(stderr, "\r\033[K");
	cp->shown = false;
}

void cli_progress_end(cli_progress *cp)
{
	cli_progress_clear(cp);
	for (size_t i = 0; i < NSIGNALS; i++)
		if (caught[i])
			sigaction(cancel_signals[i], &saved[i], NULL);
	for (size_t i = 0; i < NSIGNALS; i++)
		caught[i] = false;
}

void cli_run_begin(cli_run *r, const struct cli_opts *o, const char *label)
{
	cli_algo_opts(o, &r->ao);
	cli_progress_begin(&r->cp, CLI_CANCEL_SIGINT_ONCE, label);
	dp_err_clear(&r->err);
}

int cli_run_end(cli_run *r, dp_status st)
{
	cli_progress_end(&r->cp);
	if (!st)
		return 0;
	/* an error whose dp_err an algorithm left unset still fails */
	int rc = cli_error(&r->err);
	return rc ? rc : dp_status_exit_code(st);
}

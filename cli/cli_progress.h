/* cli_progress.h - a long engine call from the command line (plan's
 * algorithm, compare's algorithms, the exports): its progress line on
 * stderr and its cancellation by a signal, in one place.
 *
 * The progress line is drawn only when stderr is a terminal, redrawn when
 * the phase or the percentage changes, and erased before anything else is
 * printed. The cancel flag is raised by a signal handler (which does
 * nothing else); the engine polls it through cp->p. One run at a time: the
 * flag and the saved signal dispositions are the process's.
 */
#ifndef DNNPART_CLI_PROGRESS_H
#define DNNPART_CLI_PROGRESS_H

#include <stdbool.h>

#include "dnnpart/algo.h"

typedef struct cli_progress {
	dp_progress p;	 /* what the engine is given */
	char label[160]; /* what runs: "planning", "exporting F", ... */
	char phase[64];
	int percent;
	bool shown; /* a line is on stderr */
} cli_progress;

/* Which signals cancel the run. */
typedef enum cli_cancel_on {
	/* Ctrl-C cancels; a second one acts as it did before (kills) */
	CLI_CANCEL_SIGINT_ONCE,
	/* SIGINT, SIGTERM and SIGHUP only ever cancel, however many come, so
	 * that the run can clean up (an export removes its temporary file:
	 * `timeout` signals the process and its group) */
	CLI_CANCEL_ALWAYS,
} cli_cancel_on;

/* Lowers the flag, catches the signals of on (a signal the shell ignores,
 * as a background job's SIGINT, stays ignored) and names the run label.
 * cp->p reports progress only when stderr is a terminal. */
void cli_progress_begin(cli_progress *cp, cli_cancel_on on, const char *label);
struct cli_opts;
/* An algorithm's run from the command line (plan, fit). */
typedef struct cli_run {
	dp_algo_opts ao;
	cli_progress cp;
	dp_err err;
} cli_run;
/* r->ao from o (cli_algo_opts), r->cp begun so that Ctrl-C cancels the
 * algorithm (it polls the flag) and a second kills, named label, and
 * r->err cleared. */
void cli_run_begin(cli_run *r, const struct cli_opts *o, const char *label);
/* Ends r->cp; then 0 when st is DP_OK, else prints r->err (cli_error) and
 * returns its exit code. */
int cli_run_end(cli_run *r, dp_status st);
/* Names what runs from now on (a new line on the next report). */
void cli_progress_label(cli_progress *cp, const char *label);
/* Erases the progress line, if one is shown. */
void cli_progress_clear(cli_progress *cp);
/* Erases the line and gives the signals back their earlier handling. */
void cli_progress_end(cli_progress *cp);

#endif

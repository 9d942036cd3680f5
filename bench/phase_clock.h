/* phase_clock.h - the wall time of each phase of an algorithm's run, from
 * its progress reports: a phase ends when the next one reports. Header only,
 * for the bench driver and the standalone bench tools alike.
 *
 *   phase_clock pc;
 *   dp_progress p = {phase_clock_report, &pc, NULL};
 *   phase_clock_start(&pc, phase_clock_now());
 *   ... run with &p ...
 *   phase_clock_stop(&pc);   then pc.names[i], pc.secs[i] for i < pc.n
 */
#ifndef BENCH_PHASE_CLOCK_H
#define BENCH_PHASE_CLOCK_H

#include <stdio.h>
#include <string.h>
#include <time.h>

#define PHASE_CLOCK_MAX 16 /* the phases kept; later ones are dropped */

typedef struct phase_clock {
	char phase[32]; /* the phase running, "" before the first report */
	double t0;	/* when it started */
	char names[PHASE_CLOCK_MAX][32];
	double secs[PHASE_CLOCK_MAX];
	int n;
} phase_clock;

/* Seconds on the monotonic clock. */
static inline double phase_clock_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Empties pc; the run starts at t0 (phase_clock_now's seconds). */
static inline void phase_clock_start(phase_clock *pc, double t0)
{
	memset(pc, 0, sizeof *pc);
	pc->t0 = t0;
}

/* The dp_progress callback (ud: the phase_clock). */
static inline void phase_clock_report(void *ud, const char *phase, double f)
{
	(void)f;
	phase_clock *pc = ud;
	if (!phase || strcmp(pc->phase, phase) == 0)
		return;
	double t = phase_clock_now();
	if (pc->phase[0] && pc->n < PHASE_CLOCK_MAX) {
		memcpy(pc->names[pc->n], pc->phase, sizeof pc->names[0]);
		pc->secs[pc->n++] = t - pc->t0;
	}
	snprintf(pc->phase, sizeof pc->phase, "%s", phase);
	pc->t0 = t;
}

/* Ends the last phase (call right after the run). */
static inline void phase_clock_stop(phase_clock *pc)
{
	phase_clock_report(pc, "end", 1);
}

#endif

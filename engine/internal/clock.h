/* clock.h - the engine's one clock for time limits and timings (internal
 * to the engine). */
#ifndef DNNPART_CLOCK_H
#define DNNPART_CLOCK_H

#include <time.h>

/* Seconds on CLOCK_MONOTONIC, from an arbitrary start: only differences
 * mean anything (a time limit, how long a phase took). */
static inline double dpi_now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

#endif

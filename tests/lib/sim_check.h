/* sim_check.h - what tests/test_sim_random.c checks of one simulator run
 * on a random case, the parts that live in tests/lib: the case, how a
 * check fails, and the memory recomputed by brute force (sim_check.c). */
#ifndef DNNPART_TEST_SIM_CHECK_H
#define DNNPART_TEST_SIM_CHECK_H

#include <stdbool.h>
#include <stdint.h>

#include "dnnpart/graph.h"
#include "dnnpart/machine.h"
#include "dnnpart/sim.h"
#include "lib/testlib.h"

/* One run to check: the seed that made it (failed once a check failed),
 * graph, machine, placement, contention model, result and the simulator's
 * ranks. */
typedef struct sim_ctx {
	uint64_t seed;
	bool failed;
	const dp_graph *g;
	const dp_machine *m;
	const int32_t *pl;
	dp_contention c;
	const dp_sim_result *r;
	const double *rank;
} sim_ctx;

/* Records a failure of the case (only its first) and returns. */
#define FAIL(cx, ...)                                                          \
	do {                                                                   \
		if (!(cx)->failed)                                             \
			test_fail(__FILE__, __LINE__, __VA_ARGS__);            \
		(cx)->failed = true;                                           \
		return;                                                        \
	} while (0)

/* Records a failure "seed S: ..." of this case and marks it failed (the
 * caller goes on or stops as it sees fit). */
#define SEED_FAIL(cx, ...) sim_seed_fail(cx, __FILE__, __LINE__, __VA_ARGS__)
void sim_seed_fail(sim_ctx *cx, const char *file, int line, const char *fmt,
		   ...) __attribute__((format(printf, 4, 5)));

/* Peaks, peak times, live tensors (with detail) and memory curves of
 * every device agree with intervals recomputed from the rules of
 * docs/simulator.md ("Memory"). */
void sim_check_memory(sim_ctx *cx, bool detail);

#endif

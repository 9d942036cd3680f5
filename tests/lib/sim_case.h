/* sim_case.h - the reader of the simulator's hand-computed cases
 * (tests/sim/NAME.case, format in tests/test_sim_cases.c), shared by that
 * runner and the checks on a run's result (sim_case.c).
 *
 * Every function records the case's first failure in c->why ("FILE:LINE:
 * what") and returns false, so a caller just returns what it returns. */
#ifndef DNNPART_TEST_SIM_CASE_H
#define DNNPART_TEST_SIM_CASE_H

#include <stdbool.h>
#include <stdint.h>

#include "dnnpart/graph.h"
#include "dnnpart/machine.h"
#include "dnnpart/sim.h"

#define MAX_K 8

/* One case being read: the graph and machine built so far, the placement,
 * the runs made and the first failure. */
typedef struct scase {
	const char *file;
	int line;
	dp_graph *g;
	bool finalized;
	dp_machine m;
	int64_t cap[MAX_K];
	double speed[MAX_K];
	int32_t *place;
	uint32_t nplace;
	dp_sim_result r[2]; /* port, none */
	int nruns;	    /* 0, 1 (port or none) or 2 (both) */
	int run_cont[2];
	char why[600]; /* the first failure */
} scase;

/* Records the first failure of the case; returns false. */
bool sc_fail(scase *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* A number s, with "~EPS" after it for a tolerance (eps may be NULL). */
bool sc_num(scase *c, const char *s, double *v, double *eps);
bool sc_integer(scase *c, const char *s, long long *v);
/* The op named name. */
bool sc_op_id(scase *c, const char *name, uint32_t *id);
/* The value of NAME=VALUE among words w[from..n), or NULL. */
const char *sc_kv(char **w, int n, int from, const char *name);
/* got equals the time want (with its tolerance) / the whole number want;
 * what names the value in the failure. */
bool sc_same_t(scase *c, const char *what, double got, const char *want);
bool sc_same_i(scase *c, const char *what, long long got, const char *want);
/* A device of the case's machine. */
bool sc_device(scase *c, const char *s, int *d);
/* A check line w[0..n) on one run's result r. */
bool sc_check_run(scase *c, const dp_sim_result *r, char **w, int n);

#endif

/* ilp.h - the exact MILP behind `ilp` (internal to the engine).
 *
 * engine/algo/ilp/ilp_model.c builds the mixed-integer program of a placement
 * and its schedule (docs/algorithms.md, "ilp", states it row by row);
 * engine/algo/ilp/ilp_solve.c solves it with COIN-OR CBC in a child process;
 * engine/algo/ilp/algo_ilp.c is the registry entry that drives both. The model
 * is plain arrays (no CBC type), so tests can read it.
 *
 * Times in the model are scaled: one model unit is 1 / scale µs, with the
 * horizon at about 1000 units, so that the big-M rows stay well within
 * CBC's integrality tolerance.
 */
#ifndef DNNPART_ILP_H
#define DNNPART_ILP_H

#include <stdbool.h>
#include <stdint.h>

#include "dnnpart/algo.h"

/* Graphs with more ops than this are refused (measured: see
 * docs/algorithms.md). */
#define DPI_ILP_MAX_OPS 400u

/* A MILP: columns with bounds, objective and integrality; rows as
 * lo <= sum val * x <= hi in compressed rows. */
typedef struct ilp_lp {
	int ncols, nrows;
	int ccap, rcap;
	double *clo, *chi, *obj;
	char *is_int;
	int *rstart; /* nrows + 1 */
	int *ridx;
	double *rval;
	double *rlo, *rhi;
	int nnz, nzcap;
} ilp_lp;

/* Adds a column lo <= x <= hi with objective coefficient obj (its index in
 * *col when col is not NULL); false when out of memory. */
bool dpi_ilp_lp_col(ilp_lp *lp, double lo, double hi, double obj, bool integ,
		    int *col);
/* Adds coefficient v of column col to the row being built (0 is left
 * out); false when out of memory. */
bool dpi_ilp_lp_nz(ilp_lp *lp, int col, double v);
/* Closes the row being built as lo <= row <= hi (INFINITY for none). */
bool dpi_ilp_lp_row_end(ilp_lp *lp, double lo, double hi);
void dpi_ilp_lp_free(ilp_lp *lp);

/* A pair of ops that may share a device and are not ordered by a path:
 * the binary ord says u runs before v when they share one. */
typedef struct ilp_pair {
	uint32_t u, v;
	int ord; /* column of the order binary */
} ilp_pair;

typedef struct ilp_model {
	ilp_lp lp;
	int k;
	uint32_t nops, nunits;
	uint32_t *unit_of; /* nops: colocation group, or the op alone */
	int x0;		   /* x[unit][d] is column x0 + unit * k + d */
	int s0;		   /* start of op u is column s0 + u */
	int cmax;	   /* the makespan's column */
	double scale;	   /* model units per µs */
	double ub_us;	   /* the horizon: no optimal makespan exceeds it */
	ilp_pair *pairs;
	uint32_t npairs;
	uint32_t mem_rows;    /* devices whose cap gave a row */
	uint32_t sym_classes; /* classes of interchangeable devices */
} ilp_model;

/* Builds the model of g on m. warm (may be NULL) is a placement whose
 * simulated makespan without contention, warm_us, bounds the horizon when
 * it meets the model's memory rows. DP_ENOMEM on allocation failure. */
dp_status dpi_ilp_build(ilp_model *md, const dp_graph *g, const dp_machine *m,
			const int32_t *warm, double warm_us, dp_err *err);
void dpi_ilp_free(ilp_model *md);

/* Whether placement pl meets the model's memory rows: on every device with
 * a cap, params + outputs + temps of its ops + the copies it receives
 * (each producer's largest data edge) <= cap. */
bool dpi_ilp_mem_ok(const dp_graph *g, const dp_machine *m, const int32_t *pl);

/* The integer columns of a MIP start from a placement and its schedule
 * (start and end per op, µs): x from pl, each order binary from who ran
 * first (u first when it ended by v's start). cols and vals
 * have room for lp.ncols; returns how many were written, -1 when out
 * of memory. */
int dpi_ilp_start(const ilp_model *md, const int32_t *pl, const double *start,
		  const double *end, int *cols, double *vals);

/* The placement in a solution vector (lp.ncols values). */
void dpi_ilp_placement(const ilp_model *md, const double *sol, int32_t *pl);

/* What the solver says. */
typedef struct ilp_answer {
	bool has_solution; /* sol holds a feasible solution */
	bool optimal;	   /* proven optimal */
	bool infeasible;   /* proven infeasible */
	bool stopped;	   /* stopped on its time limit */
	double obj;	   /* model units; valid with has_solution */
	double bound;	   /* model units; NAN when unknown */
	double *sol;	   /* lp.ncols values, owned by the caller */
} ilp_answer;

/* Solves md with CBC in a child process (its output cannot reach the
 * terminal, and a cancel kills it at once): at most time_limit_s seconds
 * of search, single-threaded, a fixed seed; the MIP start (ncols_start
 * columns) is handed over first. Polls p's cancel flag (DP_ECANCELED with
 * "ilp: canceled") and reports progress as the share of the time limit
 * spent. ans->sol must have room for lp.ncols values. */
dp_status dpi_ilp_solve(const ilp_model *md, const int *start_cols,
			const double *start_vals, int nstart,
			double time_limit_s, const dp_progress *p,
			ilp_answer *ans, dp_err *err);

#endif

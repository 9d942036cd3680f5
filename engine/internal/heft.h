/* heft.h - the HEFT list scheduler (Topcuoglu, Hariri, Wu: "Performance-
 * effective and low-complexity task scheduling for heterogeneous
 * computing", IEEE TPDS 13(3), 2002), exposed so that tests can check it on
 * the paper's own example with its cost matrix.
 *
 * Tasks are the ops of a finalized graph (its edges give precedence). The
 * cost of task i on processor p is w[i*k+p], or time_us / speed[p] when w is
 * NULL; an edge costs comm[e] when its ends are on different processors
 * (0 otherwise), each edge on its own (the paper's model, no contention),
 * or, with ports, through port-reserving shared transfers.
 * Pins and colocation groups of the graph are honoured. With mem set, a
 * processor is eligible for a task only when the task fits there now under
 * the simulator's liveness rules (listsched.h); when none is, the task goes
 * where it overflows least and out->overflowed is set.
 */
#ifndef DNNPART_HEFT_H
#define DNNPART_HEFT_H

#include <stdbool.h>
#include <stdint.h>

#include "dnnpart/algo.h"
#include "dnnpart/err.h"
#include "dnnpart/graph.h"
#include "listsched.h"

typedef struct heft_problem {
	const dp_graph *g;
	int k;			 /* processors, >= 1 */
	const double *w;	 /* n*k costs, or NULL */
	const double *speed;	 /* k speeds, used when w is NULL */
	const double *comm;	 /* per edge: cost across processors */
	const double *rank_comm; /* per edge: average cost for the ranks */
	bool ports;		 /* false: each edge costs comm on its own,
				    as in the paper; true: the simulator's
				    port model (one transfer per output and
				    processor, one send and one receive at a
				    time per processor, in the order HEFT
				    places the consumers) */
	ls_mem *mem;		 /* NULL: no memory check; else its dev
				    array must be out->proc */
	const dp_progress *progress;
} heft_problem;

typedef struct heft_schedule {
	int32_t *proc;		/* n: caller-allocated */
	double *start, *finish; /* n: caller-allocated */
	double *rank;		/* n: caller-allocated, upward ranks */
	double makespan;
	bool overflowed; /* some task fitted on no processor */
} heft_schedule;

/* Ranks the tasks by upward rank (average cost over processors plus the
 * heaviest successor path with rank_comm, paper eq. 7), then takes them in
 * decreasing rank (ties: smaller topological index) and gives each the
 * eligible processor with the earliest finish time, inserting it into the
 * earliest idle gap that is long enough (paper section 4.2; ties: smaller
 * processor). Errors: DP_ENOMEM, DP_ECANCELED. */
dp_status dpi_heft_run(const heft_problem *pb, heft_schedule *out, dp_err *err);

#endif

/* explain.h - why a plan takes what it takes, and what would change it.
 *
 * dp_explain_plan() reads a simulated plan (dp_plan, with its detail) and
 * says three things:
 *   - what bounds the step: the schedule's critical path split into the
 *     compute of its ops, the transfers it waits for and the time it waits
 *     for a busy device (the three add up to the makespan), the pipeline
 *     bubble, the work of the busiest device, and (once the changes ran)
 *     what the memory caps cost: the makespan the same algorithm reaches
 *     without caps, against this one;
 *   - what holds each device's peak at its peak moment: the largest live
 *     tensors by bytes, each with its op, kind and role (weights, optimizer
 *     state, gradients, activations, received copies, temp), and the bytes
 *     by role; the tensors listed are a subset of those live at the peak,
 *     so their bytes add up to at most the peak;
 * dp_explain_changes() then reruns the plan's algorithm with one change at
 * a time (one more device; caps lifted, or raised to the peak that did not
 * fit; another strategy) and records each rerun's makespan and
 * feasibility: nothing in the list is estimated.
 *
 * Ownership: dp_explain owns its arrays (dp_explain_free). Not thread-safe
 * on one dp_explain; deterministic but for the reruns' plan times. Never
 * prints.
 */
#ifndef DNNPART_EXPLAIN_H
#define DNNPART_EXPLAIN_H

#include <stdbool.h>
#include <stdint.h>

#include "algo.h"
#include "err.h"
#include "graph.h"
#include "machine.h"
#include "plan.h"

/* What can bound a step. */
typedef enum dp_explain_bound {
	DP_XB_COMPUTE = 0, /* compute of the ops on the critical path */
	DP_XB_COMM,	   /* transfers the critical path waits for */
	DP_XB_DEVICE,	   /* the critical path waiting for a busy device */
	DP_XB_BUBBLE,	   /* a pipeline's bubble (its devices' idle share) */
	DP_XB_WORK,	   /* the busiest device's work */
	DP_XB_MEMORY,	   /* what the caps cost (makespan - uncapped) */
	DP_XB_COUNT
} dp_explain_bound;

/* "compute", "communication", "device waits", "bubble", "work",
 * "memory". */
const char *dp_explain_bound_name(dp_explain_bound b);

/* One share of the step. us and share (of the makespan) are -1 when it
 * does not apply (no pipeline) or is not known yet (memory, before the
 * changes ran). */
typedef struct dp_explain_share {
	double us, share;
} dp_explain_share;

/* One tensor live at a device's peak. op is an op of the plan's graph
 * (dp_plan_graph: a strategy's lowered op). */
typedef struct dp_explain_tensor {
	uint32_t op;
	dp_mem_kind kind;
	dp_mem_role role;
	int64_t bytes;
} dp_explain_tensor;

/* One device at its peak. */
typedef struct dp_explain_device {
	int64_t peak_bytes, cap_bytes; /* cap: DP_CAP_UNLIMITED for none */
	double peak_time;
	int64_t by_role[DP_MEMR_COUNT]; /* they add up to peak_bytes */
	dp_explain_tensor *top;		/* ntop largest, largest first */
	int ntop;
	int64_t top_bytes; /* their sum: <= peak_bytes */
	uint32_t nlive;	   /* tensors live at the peak in all */
} dp_explain_device;

typedef enum dp_explain_change_kind {
	DP_XC_DEVICE = 0, /* one more device */
	DP_XC_CAP,	  /* caps raised (to what the peak needed) or lifted */
	DP_XC_STRATEGY,	  /* another algorithm or strategy */
} dp_explain_change_kind;

/* One rerun with one change. */
typedef struct dp_explain_change {
	dp_explain_change_kind kind;
	char what[96];	/* for people: "K=5", "caps 20.0 GiB", "algo tofu" */
	char algo[32];	/* the algorithm rerun */
	char label[64]; /* its plan's strategy label, "" for a placement */
	dp_status status; /* DP_OK: the numbers below hold */
	char err[200];	  /* otherwise why it could not run */
	double makespan;
	bool feasible;
	int worst;	    /* the device most over its cap, -1 if none */
	int64_t over_bytes; /* its peak - cap */
	/* it fits where the plan does not, or it is faster and fits where
	 * the plan fits */
	bool helps;
} dp_explain_change;

typedef struct dp_explain {
	double makespan;
	bool feasible;
	dp_explain_share share[DP_XB_COUNT];
	dp_explain_bound bound; /* the largest of compute, comm, device */
	uint32_t cp_ops;	/* ops on the schedule's critical path */
	int busiest;		/* the device with the most work */
	int k;
	dp_explain_device *dev; /* k */
	dp_explain_change *changes;
	int nchanges;
} dp_explain;

typedef struct dp_explain_opts {
	int top;	/* tensors listed per device (0: 5) */
	bool changes;	/* dp_explain_plan also runs dp_explain_changes */
	/* the strategies tried as changes, by name (NULL: dp, zero, gpipe,
	 * 1f1b, megatron and best, less the plan's own algorithm) */
	const char *const *algos;
	size_t nalgos;
} dp_explain_opts;

/* Explains plan (made by algo with options o for g on m; algo NULL: the
 * plan's own name in the registry). eo may be NULL (defaults, no
 * changes). Errors: DP_ENOMEM, DP_EINPUT for a plan without detail; with
 * changes, DP_ECANCELED from p. On error *out is empty. */
dp_status dp_explain_plan(const dp_graph *g, const dp_machine *m,
			  const dp_algo *algo, const dp_algo_opts *o,
			  const dp_plan *plan, const dp_explain_opts *eo,
			  const dp_progress *p, dp_explain *out, dp_err *err);

/* Runs the changes of x (already explained from plan): each rerun's
 * failure is its row's (status, err); only DP_ENOMEM and DP_ECANCELED are
 * returned. Fills the memory share from the uncapped rerun. Sorted: those
 * that help first, cheapest kind first (devices, caps, strategies), then
 * by makespan. */
dp_status dp_explain_changes(const dp_graph *g, const dp_machine *m,
			     const dp_algo *algo, const dp_algo_opts *o,
			     const dp_plan *plan, const dp_explain_opts *eo,
			     const dp_progress *p, dp_explain *x, dp_err *err);

void dp_explain_free(dp_explain *x);

#endif

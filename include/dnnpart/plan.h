/* plan.h - a placement with its simulated schedule and metrics.
 *
 * dp_plan_run() runs an algorithm from the registry and then the simulator;
 * dp_plan_evaluate() simulates a placement made elsewhere. Both fill a dp_plan
 * that owns its arrays (dp_plan_free()). The simulator is run with detail on,
 * so the plan carries the critical path, the live tensors at each peak and
 * the memory curves.
 */
#ifndef DNNPART_PLAN_H
#define DNNPART_PLAN_H

#include <stdbool.h>
#include <stdint.h>

#include "algo.h"
#include "err.h"
#include "graph.h"
#include "json.h"
#include "machine.h"
#include "sim.h"
#include "strategy.h"
#include "throughput.h"

typedef struct dp_plan {
	uint32_t nops; /* ops of the graph the plan places: the user's graph,
			  or the lowered graph of a strategy */
	int k;
	int32_t *placement; /* nops device indices */
	char algo[32]; /* algorithm name, or "eval" for a given placement */
	/* A strategy that splits ops or micro-batches (strategy.h) is priced
	 * on its lowered graph: lowered is that graph (owned), source[i] the
	 * user's op that lowered op i came from and micro[i] its micro-batch
	 * (-1: none). All NULL for a plain placement of the user's graph:
	 * then dp_plan_graph() is the user's graph. */
	dp_strategy_kind kind;
	char strategy[64]; /* the strategy's label ("dp 8", "1f1b S=4 M=16");
			      "" for a plain placement */
	dp_graph *lowered;
	uint32_t *source;
	int32_t *micro;
	dp_strategy *strat; /* the strategy itself (owned), NULL for a plain
			       placement: what `-o` and `s` save */
	dp_contention contention;
	double plan_ms;	   /* wall time the algorithm took (0 for eval) */
	dp_sim_result sim; /* schedule and per-device stats (with detail) */
	dp_bounds bounds;
	double xlb;	/* makespan / LB (1.0 when LB is 0) */
	double speedup; /* one-device time / makespan */
	/* the throughput objective (throughput.h): the largest device load,
	 * time per sample in a steady pipelined stream, in µs (the file's
	 * scaled times with link "file"). A sample is one run of the user's
	 * graph: a strategy's is its lowered graph's, which holds all the
	 * micro-batches (and replicas) of that run */
	double max_load;
	/* an asynchronous pipeline's (stash, 2bw: no flush) steady-state step
	 * in µs: one step of M micro-batches once the fill is paid, the
	 * busiest device's busy, receiving or sending time of the simulated
	 * step, with stash's M - 1 extra updates (docs/pipeline.md,
	 * "Asynchronous pipelines"); 0 for every other plan. sim.makespan
	 * stays the simulated step, fill and drain included */
	double steady_us;
	bool feasible;	/* every device's peak <= its cap */
	/* whether all ops on one device of the first device's kind would fit
	 * under the first device's cap (peak of the all-on-device-0 schedule) */
	bool one_device_fits;
	int64_t one_device_peak;
	/* what an exact algorithm (ilp) proved about this placement in its own
	 * model; has_bound false for every other algorithm and for eval */
	dp_algo_bound proof;
	/* where best's placement came from; has_origin false for every other
	 * algorithm and for eval */
	dp_algo_origin origin;
} dp_plan;

/* Runs algo on g/m and simulates the result. Errors from the algorithm
 * (including DP_ECANCELED) are passed through; plan is then untouched.
 * The placement it returns must put every op on a device in 0..k-1 and
 * honour pins and colocation groups, else DP_EINTERNAL naming the algorithm
 * and the op. On success *plan is overwritten (free an earlier plan in it
 * first); o may be NULL (defaults), p may be NULL. */
dp_status dp_plan_run(const dp_graph *g, const dp_machine *m,
		      const dp_algo *algo, const dp_algo_opts *o,
		      const dp_progress *p, dp_plan *plan, dp_err *err);

/* Simulates a given placement (copied) under contention c. Devices out of
 * range are DP_EINPUT naming the op; pins and colocation are not enforced
 * here (a placement made elsewhere is priced as it is). */
dp_status dp_plan_evaluate(const dp_graph *g, const dp_machine *m,
			   const int32_t *placement, dp_contention c,
			   dp_plan *plan, dp_err *err);

/* Lowers strategy s (strategy.h) and simulates the lowered graph under
 * contention c. A placement strategy is priced like dp_plan_evaluate. The
 * bounds are the lowered graph's (its critical path and work, replicas
 * included); the one-device reference is the user's graph on device 0.
 * p may be NULL. */
dp_status dp_plan_evaluate_strategy(const dp_graph *g, const dp_machine *m,
				    const dp_strategy *s, dp_contention c,
				    const dp_progress *p, dp_plan *plan,
				    dp_err *err);

void dp_plan_free(dp_plan *plan);

/* The graph whose ops plan places: its lowered graph, or g (the user's
 * graph the plan was made for). */
static inline const dp_graph *dp_plan_graph(const dp_plan *plan,
					    const dp_graph *g)
{
	return plan && plan->lowered ? plan->lowered : g;
}

/* The user's op that op i of dp_plan_graph() came from (i itself for a
 * plain placement). */
static inline uint32_t dp_plan_source(const dp_plan *plan, uint32_t i)
{
	return plan && plan->source ? plan->source[i] : i;
}

/* One algorithm's outcome in dp_plan_run_all(). */
typedef struct dp_run_result {
	const dp_algo *algo;
	dp_status status; /* DP_OK: plan holds the plan */
	char msg[1200];	  /* otherwise the error, formatted (dp_err_format) */
	dp_plan plan;
} dp_run_result;

/* What dp_plan_run_all() tells its caller, from the calling thread:
 * before(ud, i, algo) as algorithm i starts; after(ud, i, r) when it has
 * ended, and after takes r->plan (it must free it, or keep it and leave
 * r->plan zeroed). Either may be NULL; a NULL after frees the plan. */
typedef struct dp_run_hooks {
	void (*before)(void *ud, size_t i, const dp_algo *algo);
	void (*after)(void *ud, size_t i, dp_run_result *r);
	void *ud;
} dp_run_hooks;

/* Runs the n algorithms of algos on g and m, one after the other, with
 * options o (NULL: defaults) and progress p, for every "run these
 * algorithms" in dnnpart: `compare`, the explorer's Compare view, `show`.
 * An algorithm that fails does not stop the others: its result carries the
 * error. A raised cancel flag (in p) stops the run before the next
 * algorithm, or inside the running one, and returns DP_ECANCELED (the
 * cancelled algorithm's result is still handed to after). Returns DP_OK
 * otherwise, whatever the algorithms returned. */
dp_status dp_plan_run_all(const dp_graph *g, const dp_machine *m,
			  const dp_algo *const *algos, size_t n,
			  const dp_algo_opts *o, const dp_progress *p,
			  const dp_run_hooks *hooks);

/* Device with the largest overflow (peak - cap), or -1 when feasible. */
int dp_plan_worst_device(const dp_plan *plan);

/* The largest peak / cap over the devices that have a cap (INFINITY for a
 * zero cap with a nonzero peak), or -1 when no device has one. */
double dp_plan_max_peak_ratio(const dp_plan *plan);

/* A pipeline's bubble: the share of the step device dev waits, 1 - its
 * busy time / the makespan, counted on the devices that run ops of a
 * pipeline plan (the fill before its first op, the gaps, the drain after
 * its last: GPipe's (S-1)/(M+S-1) on uniform stages). dev -1: the whole
 * plan's, 1 - the busy time of those devices / (their number x makespan).
 * -1 when the plan is no pipeline, dev runs no op or the step is empty. */
double dp_plan_bubble(const dp_plan *plan, int dev);

/* Where a lowered op of a pipeline plan runs in the schedule: the chunk
 * of its device it belongs to (0..V-1 under interleaved 1F1B, V virtual
 * stages; else 0) and its block's kind: 'F' forward, 'B' backward (with
 * zb-h1: the input gradients), 'W' zb-h1's deferred weight gradients,
 * 'O' an op that runs once per step (params, updates). */
typedef struct dp_pipe_block {
	uint8_t chunk;
	char kind;
} dp_pipe_block;

/* The block of each of plan's p->nops lowered ops (g: the user's graph
 * the plan was made for, as dp_plan_graph takes it); malloc'ed, for the
 * caller to free. NULL when the plan is no pipeline (or out of memory). */
dp_pipe_block *dp_plan_pipe_blocks(const dp_plan *plan, const dp_graph *g);

/* What the bytes live at a device's memory peak are, by the role of the
 * ops that hold them (docs/simulator.md, "Memory by role"): params (param
 * memory of ops other than updates), gradients (outputs of grad ops), optimizer
 * state (param memory and outputs of update ops), activations (every other
 * output), received copies (tensors a device received from another) and temp
 * (workspace of running ops). Without roles in the graph every output counts as
 * an activation and every param as params. */
typedef enum dp_mem_role {
	DP_MEMR_PARAMS = 0,
	DP_MEMR_GRADIENTS,
	DP_MEMR_OPTIMIZER,
	DP_MEMR_ACTIVATIONS,
	DP_MEMR_COPIES,
	DP_MEMR_TEMP,
	DP_MEMR_COUNT
} dp_mem_role;

/* The role of tensor t, live on a device at its peak (dp_sim_result.live),
 * in the plan's graph g (dp_plan_graph). */
dp_mem_role dp_plan_live_role(const dp_graph *g, const dp_live_tensor *t);
/* "params", "gradients", "optimizer", "activations", "copies", "temp". */
const char *dp_mem_role_name(dp_mem_role r);
/* Fills out[DP_MEMR_COUNT] with device dev's peak bytes by role; they add
 * up to the device's peak_bytes. All zero when dev is out of range or the
 * plan has no live tensors. */
void dp_plan_peak_by_role(const dp_graph *g, const dp_plan *plan, int dev,
			  int64_t out[DP_MEMR_COUNT]);

/* Writes the plan's metrics as members of the JSON object open in w, with
 * the same keys wherever a plan is written: `plan --json`, `eval --json`,
 * each algorithm of `compare --json` and the "metrics" of a placement file
 * (docs/cli.md lists them); a plan with a proof (ilp) adds "optimal",
 * "gap", "milp_objective_us" and "milp_bound_us". Everything but the roles comes from the plan
 * itself (the devices' caps and speeds as the simulator saw them), so a plan
 * reads the same whoever writes it; g gives each device's peak by role.
 * Deterministic: the planning time is not among them. */
void dp_plan_write_metrics(dp_json *w, const dp_graph *g, const dp_plan *plan);

#endif

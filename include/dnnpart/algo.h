/* algo.h - the algorithm registry and the interface every partitioner has.
 *
 * An algorithm takes (graph, machine, options, progress) and writes a device
 * index for every op into placement. It must honour pins (op->pin >= 0) and
 * colocation groups (all ops of a group on one device), poll the cancel flag
 * (returning DP_ECANCELED) and report progress. It returns its best
 * placement even when the memory caps cannot be met: the plan layer
 * simulates it and reports the result as infeasible with the numbers.
 * (The exact `ilp` is the exception: when its conservative memory model
 * proves that no placement fits, it says so with DP_EINPUT.)
 *
 * Algorithms must be deterministic: same input, same placement, bit for bit.
 * They must not keep global state, so two may run in two threads at once.
 */
#ifndef DNNPART_ALGO_H
#define DNNPART_ALGO_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "err.h"
#include "graph.h"
#include "machine.h"
#include "sim.h"

/* Progress and cancellation. fn may be NULL; cancel may be NULL. fn is
 * called from the thread that runs the algorithm. */
typedef struct dp_progress {
	void (*fn)(void *ud, const char *phase, double fraction);
	void *ud;
	atomic_int *cancel; /* nonzero: stop as soon as possible */
} dp_progress;

static inline bool dp_progress_canceled(const dp_progress *p)
{
	return p && p->cancel && atomic_load(p->cancel) != 0;
}

static inline void dp_progress_report(const dp_progress *p, const char *phase,
				      double fraction)
{
	if (p && p->fn)
		p->fn(p->ud, phase, fraction);
}

/* What an exact algorithm (ilp) proves about its placement, in its own
 * model (docs/algorithms.md, "ilp"): has_bound says it was filled. optimal:
 * the solver proved that no placement does better in that model; gap:
 * (objective - bound) / objective, 0 when optimal, NAN when unknown (the
 * solver was stopped before it reported a bound); objective_us: the
 * model's makespan of the placement returned; bound_us: the best lower
 * bound the solver proved on the model's makespan of every placement (NAN
 * when unknown). Heuristics leave it zeroed. */
typedef struct dp_algo_bound {
	bool has_bound;
	bool optimal;
	double gap;
	double objective_us;
	double bound_us;
} dp_algo_bound;

/* What a plan is for: the makespan of one step (the simulator's), or the
 * time per sample of a steady pipelined stream, the max load
 * (throughput.h). Algorithms that can optimise the latter do (msr-dp
 * always does); the others keep minimising the step. */
typedef enum dp_objective { DP_OBJ_STEP = 0, DP_OBJ_THROUGHPUT } dp_objective;

/* Where `best` (a meta-algorithm: it runs the others) got the placement it
 * returned (docs/algorithms.md, "best"): has_origin says it was filled.
 * best_of: the algorithm the placement started from; devices: the devices
 * that algorithm was given (< K: it was run for fewer devices and the rest
 * stay empty); polished: the shared local search improved it; ran: the
 * candidate runs made (algorithms x device counts); skipped: those not
 * started because the budget (dp_algo_opts.budget_s) had run out, in the
 * fixed order (0: the result does not depend on the clock); enumerated:
 * on a tiny graph, the placements its exhaustive search simulated (0: it
 * did not run): every placement, or, without contention, one per
 * relabelling of identical devices (relabeled); then no placement is
 * faster in the simulator, and best_of is "exhaustive" when that search
 * found one better than every algorithm's. Every other algorithm leaves it
 * zeroed. */
typedef struct dp_algo_origin {
	bool has_origin;
	char best_of[32];
	int devices;
	bool polished;
	uint32_t ran;
	uint32_t skipped;
	uint64_t enumerated;
	bool relabeled;
} dp_algo_origin;

/* DDP's default bucket: 25 MiB (bucket_cap_mb). */
#define DP_BUCKET_DEFAULT ((int64_t)25 << 20)

struct dp_strategy;
struct dp_algo;

typedef struct dp_algo_opts {
	dp_contention contention; /* the model the algorithm optimises for */
	dp_objective objective;
	bool polish; /* pardnn: run the polish phase (default on) */
	/* strategies (docs/pipeline.md, docs/spmd.md): micro-batches of a
	 * pipeline and the tensor parallel size; 0 = the algorithm's own
	 * choice */
	int microbatches;
	int tp;
	int virtual_stages; /* --virtual-stages V: interleaved 1F1B (0: 1) */
	/* megatron, hybrid: sequence parallelism (needs a tensor-parallel
	 * size > 1): the ops tensor parallelism replicates split along the
	 * sequence dim `s` */
	bool sp;
	/* pipelines: the schedule their micro-batches run in, a dp_schedule
	 * (strategy.h: DP_SCHED_GPIPE, DP_SCHED_1F1B), or -1 for the
	 * algorithm's own (gpipe's, 1f1b's; pipedream and hybrid: 1F1B) */
	int schedule;
	/* strategies that reduce weight gradients: the bucket size in bytes
	 * (default DP_BUCKET_DEFAULT, 0 = one collective per gradient); zero:
	 * the ZeRO stage 1..3 (0 = its own, 2) */
	int64_t bucket;
	int zero_stage;
	/* ilp: the solver's time limit in seconds, > 0 (default 10); the
	 * best placement found by then is returned */
	double time_limit_s;
	/* out: where an exact algorithm writes what it proved (NULL: not
	 * wanted). dp_plan_run() points it at the plan's own. */
	dp_algo_bound *bound;
	/* best: wall-clock budget in seconds, 0 = none (the default). It only
	 * decides whether the next candidate run in best's fixed order is
	 * started; runs not started are counted in origin->skipped */
	double budget_s;
	/* out: where best writes what it started from (NULL: not wanted).
	 * dp_plan_run() points it at the plan's own. */
	dp_algo_origin *origin;
	/* best (anytime): called from the running thread, before best
	 * returns, with each placement (g->nops entries, borrowed for the
	 * call) that beats every one it passed before on the whole machine,
	 * and where it came from; NULL: not wanted. The explorer shows each
	 * as it comes. The placement best returns is the last one passed or
	 * better. */
	void (*interim)(void *ud, const int32_t *placement,
			const dp_algo_origin *from);
	void *interim_ud;
	/* engine-internal, leave it NULL: placements that one run makes and a
	 * later run on the same graph and machine would make again (best
	 * gives its candidate runs one, so that pardnn's lanes and METIS
	 * seeds are made once with best's lanes and metis candidates) */
	struct dp_algo_shared *shared;
	/* best of everything (dp_plan_run with best): the same for a strategy
	 * that beats every plan passed before (borrowed for the call); NULL:
	 * not wanted */
	void (*interim_strategy)(void *ud, const struct dp_strategy *s,
				 const dp_algo_origin *from);
	/* best: the algorithms dp_plan_run's best of everything may use
	 * (ncandidates of them; `best` among them stands for its placement
	 * search); NULL: every placement algorithm and every strategy */
	const struct dp_algo *const *candidates;
	size_t ncandidates;
	/* best: its placement search alone, no strategies (what dp_plan_run's
	 * best of everything runs inside) */
	bool placements_only;
} dp_algo_opts;

/* Defaults: port contention, polish on, the strategies' own choices
 * (schedule -1), buckets of DP_BUCKET_DEFAULT, zero's
 * stage 2, a time limit of 10 s, no bound, no budget, no origin, no
 * interim, nothing shared. */
void dp_algo_opts_default(dp_algo_opts *o);

typedef dp_status (*dp_algo_fn)(const dp_graph *g, const dp_machine *m,
				const dp_algo_opts *o, const dp_progress *p,
				int32_t *placement, dp_err *err);


/* An algorithm that splits ops or micro-batches returns a strategy
 * (strategy.h) instead of a placement: *out is initialised by the caller
 * (dp_strategy_init) and filled by the algorithm for g and m. */
typedef dp_status (*dp_strategy_fn)(const dp_graph *g, const dp_machine *m,
				    const dp_algo_opts *o, const dp_progress *p,
				    struct dp_strategy *out, dp_err *err);

typedef struct dp_algo {
	const char *name;	   /* user-facing name, e.g. "pardnn" */
	const char *summary;	   /* one line for menus and --help */
	const char *source;	   /* paper or origin, one line */
	dp_algo_fn run;		   /* a placement algorithm, or NULL */
	dp_strategy_fn strategize; /* a strategy algorithm, or NULL: one of
				      run and strategize is set */
	/* runs only when named (plan --algo, compare --algos, the explorer's
	 * `a`): "every algorithm" (dp_algo_compared) leaves it out, because
	 * it takes seconds by design or refuses large graphs (ilp) */
	bool on_request;
	/* honours dp_algo_opts.tp when it is > 0: a tensor-parallel size T
	 * that must divide K (megatron, hybrid); the others ignore it */
	bool takes_tp;
	/* honours dp_algo_opts.schedule: a pipeline algorithm (gpipe, 1f1b,
	 * pipedream, hybrid), whose stages are searched for that order */
	bool takes_schedule;
} dp_algo;

/* The registry, in display order: pardnn first; best (the default) last. */
size_t dp_algo_count(void);
const dp_algo *dp_algo_at(size_t i);
/* Finds an algorithm by name; NULL if unknown. */
const dp_algo *dp_algo_find(const char *name);
/* The default algorithm of plan, show and the explorer: best (the first
 * entry, pardnn, stays first in the list). */
const dp_algo *dp_algo_default(void);
/* "pardnn, single, mtopo, ..." for messages; static storage. */
const char *dp_algo_names(void);
/* The whole registry as an array of dp_algo_count() entries, in display
 * order, for dp_plan_run_all(); static storage, never NULL. */
const dp_algo *const *dp_algo_all(void);
/* What "every algorithm" means (compare without --algos, the explorer's
 * Compare view): the registry without the on_request entries, in display
 * order; static storage, never NULL. *n receives their count. */
const dp_algo *const *dp_algo_compared(size_t *n);
/* Finds the algorithm called name for a user's setting: DP_OK with *out
 * set, else DP_EINPUT with "unknown algorithm 'NAME' (known: pardnn, ...)"
 * (*out untouched). */
dp_status dp_algo_lookup(const char *name, const dp_algo **out, dp_err *err);
/* Parses a comma list of names ("metf,heft") into out, in the order given.
 * out has room for cap entries; dp_algo_count() is always enough, since a
 * name may appear once. DP_OK with *n set, else DP_EINPUT with a message
 * that names the fault: an unknown name (as dp_algo_lookup), a name listed
 * twice, an empty name, or more than cap names. */
dp_status dp_algo_parse_list(const char *spec, const dp_algo **out, size_t cap,
			     size_t *n, dp_err *err);

/* Shared helpers for algorithms (algo_common.c). */

/* Runs algo's placement the way every caller should: o NULL means the
 * defaults, and the pins are checked first (dp_algo_check_pins), so an
 * algorithm's run function may assume every pin names a device of m.
 * placement has g->nops entries. */
dp_status dp_algo_place(const dp_algo *algo, const dp_graph *g,
			const dp_machine *m, const dp_algo_opts *o,
			const dp_progress *p, int32_t *placement, dp_err *err);

/* Checks that every pin names a device < m->k; DP_EINPUT naming the op. */
dp_status dp_algo_check_pins(const dp_graph *g, const dp_machine *m,
			     dp_err *err);
/* Forces pins and colocation onto a placement: pinned ops (and their whole
 * group) go to the pin; every other group goes to the device of its first
 * member (smallest op id). Used as a last step by simple algorithms. */
void dp_algo_apply_constraints(const dp_graph *g, int32_t *placement);

#endif

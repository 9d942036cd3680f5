/* fit.h - what fits: the smallest device count or memory cap with which an
 * algorithm finds a feasible plan, found by search over real reruns.
 *
 * Every probe is a full dp_plan_run() of the algorithm on a copy of the
 * machine with one setting changed (K, every cap, or one device's cap), so
 * the answer is a plan the algorithm really made, never an estimate. The
 * algorithms are heuristics: feasibility need not be monotone in K or in
 * the cap, so the search guarantees only what it checked (below), and the
 * probes are returned so that a front end can show exactly what was tried.
 *
 * DP_FIT_K: K = 1, 2, 4, 8, ... (the last step clamped to max_k) until a
 *   plan is feasible at K = f; then every K between the last infeasible one
 *   and f, upward; the first feasible one is the answer. Guarantee: the
 *   answer is feasible and every K below it that was probed is not (K below
 *   the last infeasible doubling step are not probed). An algorithm that
 *   takes a tensor-parallel size (dp_algo.takes_tp) given one, T > 1, runs
 *   only on K that T divides: then K = T j and the search above runs over
 *   j (T, 2T, 4T, ...), K that T does not divide are never probed, and
 *   k_step says T.
 * DP_FIT_CAP: every device's cap set to one value c. The search brackets c
 *   between a lower bound that no plan can beat (the largest single-op
 *   footprint: param + output + temp of one op, or the params of one
 *   colocation group; 0 for strategies, whose ops are split) and the peak
 *   of the whole graph on one device (doubled, at most 4 times, while the
 *   algorithm still fails there), then bisects to a resolution of 1 MiB or
 *   1 % of the answer, whichever is larger. Guarantee: the answer is
 *   feasible, and the largest probed cap below it is infeasible and within
 *   one resolution step (or the answer is the lower bound itself).
 * DP_FIT_DEVICE_CAP: the same for one device's cap, the others as given.
 */
#ifndef DNNPART_FIT_H
#define DNNPART_FIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "algo.h"
#include "err.h"
#include "graph.h"
#include "machine.h"

typedef enum dp_fit_kind {
	DP_FIT_K = 0,	   /* the smallest K for the given caps */
	DP_FIT_CAP,	   /* the smallest uniform cap for the given K */
	DP_FIT_DEVICE_CAP, /* the smallest cap of one device */
} dp_fit_kind;

typedef struct dp_fit_opts {
	dp_fit_kind kind;
	int max_k;  /* DP_FIT_K: the largest K tried (1..DP_MAX_DEVICES;
		       0: 64) */
	int device; /* DP_FIT_DEVICE_CAP: the device whose cap is searched */
} dp_fit_opts;

/* One rerun of the search. */
typedef struct dp_fit_probe {
	int k;		 /* devices of the probe */
	int64_t cap;	 /* the cap probed (DP_FIT_K: device 0's cap) */
	double makespan; /* µs */
	bool feasible;
	int worst;    /* the device most over its cap, -1 if none */
	int64_t over; /* that device's peak - cap (0 if feasible) */
	char strategy[64]; /* the plan's strategy label, "" for a placement */
	/* a pipeline's stages and micro-batches (0 and 0 for no pipeline):
	 * M > 1 micro-batches add up their gradients before one update
	 * (gradient accumulation), which is how a pipeline of one stage fits
	 * where a placement does not; stages counts devices' stages, each of
	 * virtual_stages chunks (1: not interleaved) */
	int stages, microbatches, virtual_stages;
	char levers[48]; /* the lever search: the probe's lever set */
} dp_fit_probe;

typedef struct dp_fit_result {
	dp_fit_kind kind;
	bool found; /* a feasible probe exists: k, caps and makespan hold it */
	int k;
	int64_t *caps; /* k caps of the answer (owned), NULL when !found */
	double makespan;
	dp_fit_probe answer; /* the probe that is the answer, when found */
	int k_step;    /* DP_FIT_K: the K probed are its multiples (an algorithm
		       that takes a tensor-parallel size T: T), else 1 */
	int device;    /* DP_FIT_DEVICE_CAP: the device searched */
	int64_t lower; /* cap searches: the lower bound (not probed) */
	int64_t resolution;   /* cap searches: the step the search stopped at */
	dp_fit_probe *probes; /* in the order they ran (owned) */
	size_t nprobes;
} dp_fit_result;

/* Runs the search of fo on g and m with algorithm algo (options ao, NULL:
 * defaults). p's progress reports "fit: K=4" or "fit: 16.0 GiB" phases with
 * the probe count as fraction of a bound; its cancel flag stops the search
 * (inside a probe too) with DP_ECANCELED, r then empty. An algorithm error
 * in a probe is returned as it is. DP_EINPUT for a bad device, a bad
 * max_k, or caps to search when K is fixed by the graph's pins beyond it.
 * DP_EINPUT too when no multiple of such a T lies between the pins' K and
 * max_k. On success *r is overwritten (free an earlier one first); found
 * is false when no probe was feasible (r->probes say what was tried). */
dp_status dp_fit_run(const dp_graph *g, const dp_machine *m,
		     const dp_algo *algo, const dp_algo_opts *ao,
		     const dp_fit_opts *fo, const dp_progress *p,
		     dp_fit_result *r, dp_err *err);

void dp_fit_result_free(dp_fit_result *r);

/* The largest single-op footprint of g: the most memory any one device
 * must hold whatever the placement (param + output + temp of one op, or
 * the params of one colocation group). */
int64_t dp_fit_min_cap(const dp_graph *g);


/* The lever search (docs/memory.md, "What fit searches"): the K search of
 * DP_FIT_K where each probe of K tries combinations of a strategy (dp,
 * zero stage 1, 2, 3, megatron, 1f1b, hybrid; or one given algorithm) and
 * a lever set (precision x recomputation x fusion: every combination of
 * the lever table, or the sets given), each a real rerun on the graph the
 * set transforms, and keeps the fastest that fits. A probe fits when one
 * combination does. The search is bounded, in this order per K:
 *  1. each strategy with its heaviest sets (those no other set saves more
 *     memory than in every lever, by the table's order: fp32 < bf16 = fp16,
 *     none < selective < full, none < attention); a strategy none of them
 *     fits is not run with the others (they keep more memory);
 *  2. the others in the order of their estimate, the set's work over the
 *     K devices' speeds (no plan of it is faster); one is not run when its
 *     estimate is no better than the fastest fit found, or when a set of
 *     the strategy that saves at least as much in every lever did not fit;
 *  3. the fastest fit's sets less one lever each, so that "made it fit"
 *     (the levers without which that strategy did not fit) rests on runs.
 * A lever set the graph refuses (bf16 without roles, full without layers)
 * is left out and said in `refused`. */
typedef enum dp_fit_skip {
	DP_FIT_RAN = 0,	   /* run: the fields below hold its plan */
	DP_FIT_SKIP_BOUND, /* its estimate >= the fastest fit at this K */
	DP_FIT_SKIP_HEAVIER, /* a set saving at least as much did not fit */
	DP_FIT_SKIP_REFUSED, /* the strategy refused the graph or K: note */
} dp_fit_skip;

typedef struct dp_fit_cand {
	int k;
	char levers[48]; /* the lever set ("bf16+full", "none") */
	const dp_algo *algo;
	int zero_stage; /* zero's stage 1..3, else 0 */
	double bound;	/* the estimate: work / speeds, µs */
	dp_fit_skip skip;
	dp_fit_probe run; /* when run (skip DP_FIT_RAN) */
	char made_fit[48]; /* feasible: the levers without which this
			      strategy did not fit at k ("bf16+full"), "" */
	char note[120];	   /* DP_FIT_SKIP_REFUSED: why */
} dp_fit_cand;

typedef struct dp_fit_search_opts {
	const char *levers; /* lever sets, comma-separated (levers.h); NULL:
			       every combination of the lever table */
	bool fp16; /* the table's 2-byte precision is fp16 (a GPU with no
		      bf16), not bf16 */
	double gemm_ratio; /* levers.h (0: the default) */
	const dp_algo *algo; /* NULL: the strategy table; else it alone (zero
				without a stage in ao: stages 1, 2 and 3) */
	int max_k;	     /* as dp_fit_opts */
	/* return at once, nsets 1 and no probe, when the graph takes no
	 * lever of the default sets (fit then runs its plain search) */
	bool stop_without_levers;
} dp_fit_search_opts;

typedef struct dp_fit_search {
	dp_fit_result r; /* the K search; each probe the fastest fit at its
			    K (else the run least over) */
	dp_fit_cand *cands; /* every combination at every K probed */
	size_t ncands;
	int best;      /* the answer's candidate, -1 when nothing fits */
	size_t runs;   /* reruns made */
	size_t nsets;  /* lever sets searched */
	size_t nrefused; /* lever sets the graph refused */
	char refused[200]; /* the first: "bf16: why" */
} dp_fit_search;

/* Runs the lever search on g (finalized, as loaded: fp32, no levers) and
 * m with options ao (NULL: defaults). Errors: DP_EINPUT for a bad lever
 * set or max_k, or when the graph refuses every set; what dp_fit_run
 * returns. On success *s is overwritten (dp_fit_search_free). */
dp_status dp_fit_search_run(const dp_graph *g, const dp_machine *m,
			    const dp_algo_opts *ao,
			    const dp_fit_search_opts *so, const dp_progress *p,
			    dp_fit_search *s, dp_err *err);
void dp_fit_search_free(dp_fit_search *s);
/* The candidate's name as fit prints it: "zero-3", "1f1b", "pardnn". */
char *dp_fit_cand_strategy(const dp_fit_cand *c, char *buf, size_t size);

#endif

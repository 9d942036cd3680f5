/* pipedream.h - the PipeDream planner's dynamic program over layers
 * (Narayanan et al., SOSP 2019, section 3.1; engine/algo/pipedream_dp.c,
 * docs/algorithms.md#pipedream). Internal to the engine.
 *
 * The model is a chain of n layers (units of the graph's forward ops in a
 * topological order, coarsened by their `layer` field). A stage is a run
 * of layers i..j-1 on r replicas (data parallel inside the stage). Per
 * micro-batch, on the machine's link (bw bytes per µs, lat µs):
 *
 *   T(i..j, r) = C(i..j) / r + 2 (r-1)/r x W(i..j) / bw / m   (r > 1: a
 *                ring all-reduce of the stage's weight gradients once per
 *                step of m micro-batches, after 1F1B's flush, as the
 *                lowering does; the paper's A(j, m) term, which PipeDream
 *                pays per mini-batch and overlaps, max(C/r, sync)),
 *                C: forward + backward time of the layers,
 *   comm(j)    = 2 (lat + act[j-1] / bw): the activation forward and its
 *                gradient back across the cut after layer j-1,
 *   memory     = static(i..j) + ceil(q / r) x stash(i..j) on each replica,
 *                where q is the stage's number of in-flight micro-batches
 *                under 1F1B: the stages from it to the last (S - s), at
 *                most M; under an asynchronous schedule also (v - 1) x
 *                weights(i..j), v = dp_schedule_versions of the stage
 *                (stash: S - s, 2bw: 2), each replica holding them whole.
 *
 * The slowest stage (max over stages of T and over cuts of comm) is
 * minimised over contiguous splits and replication counts whose replicas
 * add up to at most K, every stage's memory within cap.
 */
#ifndef DNNPART_PIPEDREAM_H
#define DNNPART_PIPEDREAM_H

#include <stdint.h>

#include "dnnpart/err.h"
#include "dnnpart/strategy.h"

typedef struct dpi_pipedream_layer {
	double time_us;	 /* forward + backward per micro-batch */
	int64_t act;	 /* bytes sent to the next layer per micro-batch */
	int64_t weights; /* bytes all-reduced between replicas */
	int64_t stat;	 /* bytes held once (params, grads, state) */
	int64_t stash;	 /* activation bytes kept per in-flight micro-batch */
	int64_t wts;	 /* weights (dpi_pipe_weight_bytes): copied once per
			    extra version of an asynchronous schedule */
} dpi_pipedream_layer;

typedef struct dpi_pipedream_problem {
	const dpi_pipedream_layer *layers;
	uint32_t n; /* >= 1 */
	int k;	    /* devices, >= 1 */
	int rep;    /* 0: any replication per stage (the paper); r > 0:
			every stage has exactly r replicas */
	double bw, lat;
	int64_t cap; /* bytes per device */
	int m;	     /* micro-batches per step: at most m are in flight,
			and the weight sync is paid once per m (0: no
			bound, the sync paid per micro-batch) */
	dp_schedule sch; /* its weight versions count in the memory */
} dpi_pipedream_problem;

/* The best plan: *S stages, stage s = layers cut[s] .. cut[s+1]-1 (cut has
 * room for k + 1 entries) on rep[s] replicas (room for k), and its slowest
 * stage in *cost. DP_EINPUT when no plan fits the cap (the message names
 * the layer count and the cap), DP_ENOMEM. Deterministic: among equal
 * costs, fewer stages, then earlier cuts. */
dp_status dpi_pipedream_solve(const dpi_pipedream_problem *pb, int *S, uint32_t *cut,
		       int *rep, double *cost, dp_err *err);

/* The cost of one given plan in the same model (for tests and for the
 * planner's report): +inf when a stage does not fit. */
double dpi_pipedream_cost(const dpi_pipedream_problem *pb, int S, const uint32_t *cut,
		   const int *rep);

#endif

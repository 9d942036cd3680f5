/* pase.h - the cost model and the search of the `pase` strategy algorithm
 * (engine/algo/pase_model.c, algo_pase.c; internal to the engine).
 *
 * Elango, "PaSE: Parallelization Strategies for Efficient DNN Training",
 * IPDPS 2021. Every op gets a set of configurations (ways to split its dims
 * over a mesh whose axes are K's prime factors); a configuration costs the
 * compute time of one shard, and every data edge costs the time to reshard
 * its tensor from the producer's configuration to the consumer's. The
 * search (algo_pase.c) is the paper's dynamic programming over a vertex
 * order, with tables indexed by the configurations of the dependent set.
 * docs/algorithms.md says what is the paper's and what is ours.
 */
#ifndef DNNPART_PASE_H
#define DNNPART_PASE_H

#include <stdbool.h>
#include <stdint.h>

#include "dnnpart/algo.h"
#include "dnnpart/strategy.h"

/* Most configurations kept per op (the cheapest by a local estimate). */
#define DPI_PASE_MAX_CFGS 8

/* One configuration of an op: the mesh axes that split each dim (the
 * strategy's mask; an op without dims: entry 0 is its batch). */
typedef struct dpi_pase_cfg {
	uint8_t mask[DP_MAX_OP_DIMS];
} dpi_pase_cfg;

typedef struct dpi_pase_model {
	const dp_graph *g;
	const dp_machine *m;
	int naxes, size;
	int mesh[DP_MAX_MESH_AXES];
	int stride[DP_MAX_MESH_AXES];
	uint32_t *off;	   /* nops + 1: configs of op u: off[u] .. off[u+1] */
	dpi_pase_cfg *cfg; /* all configs */
	double *node;	   /* per config: compute time of one shard, µs */
	int64_t *mem;	   /* per config: shard memory (params, output,
			       temp), bytes */
	int8_t *bidx;	   /* per op: its batch dim, -1 none, -2 whole op
			       with a batch role (its entry 0) */
	uint32_t ncapped;  /* ops whose configs were cut to the cheapest
			       DPI_PASE_MAX_CFGS */
	uint32_t npruned;  /* configs pruned by the memory cap */
	uint32_t nover;	   /* ops with no config under the cap (kept their
			       smallest) */
	int64_t cap;	   /* the smallest device cap */
} dpi_pase_model;

/* Builds the configurations of every op of g for machine m (pins: the op
 * whole on its pin). Polls p. DP_ENOMEM, DP_ECANCELED ("pase: canceled"). */
dp_status dpi_pase_model_build(dpi_pase_model *pm, const dp_graph *g,
			       const dp_machine *m, const dp_progress *p,
			       dp_err *err);
void dpi_pase_model_free(dpi_pase_model *pm);

/* Time in µs to bring edge e's tensor from its producer under global
 * config cu to its consumer under global config cv: the most bytes one
 * device receives by the block-intersection rule (latency + bytes /
 * bandwidth; 0 when nothing moves); partial sums of the producer cost a
 * reduce-scatter plus an all-gather of the consumer's block. */
double dpi_pase_edge_cost(const dpi_pase_model *pm, uint32_t e, uint32_t cu,
			  uint32_t cv);

/* The model's cost of a choice of config per op (global indices): the sum
 * of node costs and edge costs. */
double dpi_pase_total(const dpi_pase_model *pm, const uint32_t *choice);

/* The search: fills choice (per op, a global config index) and *cost.
 * *fixed counts the ops fixed early to keep tables under the bound (0:
 * exact within the model). table_limit 0 = the default bound. */
dp_status dpi_pase_solve(const dpi_pase_model *pm, const dp_progress *p,
			 uint64_t table_limit, uint32_t *choice, double *cost,
			 uint32_t *fixed, dp_err *err);

/* A fresh spmd strategy (mesh and masks; pinned ops whole on their pin)
 * from a choice of configs. DP_ENOMEM. */
dp_status dpi_pase_fill(const dpi_pase_model *pm, const uint32_t *choice,
			dp_strategy *s, dp_err *err);

/* The safeguard (pase_guard.c): simulates the choice, data parallelism's
 * configs and all replicas under contention cont, and leaves the best in
 * choice (feasible first, then the shortest step, then that order);
 * *which = 0, 1 or 2 says which. */
dp_status dpi_pase_guard(const dpi_pase_model *pm, const dp_progress *p,
			 dp_contention cont, uint32_t *choice, int *which,
			 dp_err *err);

#endif

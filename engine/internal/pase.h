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
#include <stddef.h>
#include <stdint.h>

#include "dnnpart/algo.h"
#include "dnnpart/strategy.h"
#include "internal/spmd_tensor.h"

/* Beyond this mesh size an edge is priced by its busiest receiver alone
 * (the port replay is quadratic in the mesh), and pase runs no second
 * search and no expert layout (each a simulation of K times the graph). */
#define DPI_PASE_PORTS_MAX 64

/* Most configurations kept per op (the cheapest by a local estimate). */
#define DPI_PASE_MAX_CFGS 8

/* One configuration of an op: the mesh axes that split each dim (the
 * strategy's mask; an op without dims: entry 0 is its batch). */
typedef struct dpi_pase_cfg {
	uint8_t mask[DP_MAX_OP_DIMS];
} dpi_pase_cfg;

/* A memo of edge times by tensor layout (pase_ports.c). */
typedef struct dpi_pase_memo dpi_pase_memo;

/* The last simulations of a run, by choice (pase_guard.c). */
typedef struct dpi_pase_sims dpi_pase_sims;

typedef struct dpi_pase_model {
	const dp_graph *g;
	const dp_machine *m;
	int naxes, size;
	int mesh[DP_MAX_MESH_AXES];
	int stride[DP_MAX_MESH_AXES];
	dpi_mesh grid;	     /* the same mesh, for internal/spmd_tensor.h */
	uint32_t *off;	     /* nops + 1: configs of op u: off[u] .. off[u+1] */
	dpi_pase_cfg *cfg;   /* all configs */
	double *node;	     /* per config: compute time of one shard, µs */
	int64_t *mem;	     /* per config: shard memory (params, output,
			       temp), bytes */
	int64_t *res;	     /* per config: what one device keeps for the
			       step (params, kept activations), bytes */
	int8_t *bidx;	     /* per op: its batch dim, -1 none, -2 whole op
			       with a batch role (its entry 0) */
	uint32_t ncapped;    /* ops whose configs were cut to the cheapest
			       DPI_PASE_MAX_CFGS */
	uint32_t npruned;    /* configs pruned by the memory cap */
	uint32_t nover;	     /* ops with no config under the cap (kept their
			       smallest) */
	int64_t cap;	     /* the smallest device cap */
	double lambda;	     /* the search's price of memory: µs per byte of
			      res added to each config's node cost (0:
			      time alone; pase_fit.c sets it) */
	dpi_pase_memo *memo; /* edge times by layout */
	double *mat;	     /* 2 x size x size message bytes, scratch */
	double *ports;	     /* 2 x size port free times, scratch */
	size_t *eoff;	     /* nedges + 1, NULL: no edge table (see
			       dpi_pase_etab_build) */
	double *etab;	     /* edge e's cost under local configs (a, b)
			       of its ends: etab[eoff[e] + a * db + b] */
	dpi_pase_sims *sims; /* NULL: every choice simulated anew (see
			       dpi_pase_sims_new) */
} dpi_pase_model;

/* Builds the configurations of every op of g for machine m (pins: the op
 * whole on its pin). Polls p. DP_ENOMEM, DP_ECANCELED ("pase: canceled"). */
dp_status dpi_pase_model_build(dpi_pase_model *pm, const dp_graph *g,
			       const dp_machine *m, const dp_progress *p,
			       dp_err *err);
void dpi_pase_model_free(dpi_pase_model *pm);
/* A choice (a configuration per op of pm's graph), not filled in; NULL
 * with err set to DP_ENOMEM ("pase: out of memory") when there is no room. */
uint32_t *dpi_pase_choice_new(const dpi_pase_model *pm, dp_err *err);

/* Time in µs to bring edge e's tensor from its producer under global
 * config cu to its consumer under global config cv, as the lowering moves
 * it (internal/spmd_tensor.h) and the simulator's ports carry it
 * (dpi_pase_tensor_time); 0 when nothing moves. */
double dpi_pase_edge_cost(const dpi_pase_model *pm, uint32_t e, uint32_t cu,
			  uint32_t cv);

/* An edge's tensor and how it is priced: the memo's key. */
typedef struct dpi_pase_key {
	dpi_spmd_tensor t;
	int32_t queued; /* priced by its busiest port (it queues behind
			   others of its kind), not by a lone replay */
} dpi_pase_key;

/* What k's resharding costs (pase_ports.c), µs: without partial sums, the
 * port replay of its messages (each consumer box read from the producer
 * blocks that meet it); with partial sums, the reduce-scatter's messages
 * then the all-gather's, as lower_spmd_edges.c emits them, each phase by
 * its replay or, when k is queued, by its busiest port (latency +
 * bytes / bandwidth summed over the messages one device sends or
 * receives). Above DPI_PASE_PORTS_MAX devices, the busiest receiver's
 * estimate. */
double dpi_pase_tensor_time(const dpi_pase_model *pm, const dpi_pase_key *k);

/* Every data edge's cost under every pair of its ends' configs, priced
 * once (pase_etab.c) so that repeated searches read them instead of
 * pricing them again; the caller frees it with dpi_pase_etab_free before
 * dpi_pase_model_free. Polls p. DP_ENOMEM, DP_ECANCELED. */
dp_status dpi_pase_etab_build(dpi_pase_model *pm, const dp_progress *p,
			      dp_err *err);
void dpi_pase_etab_free(dpi_pase_model *pm);

/* dpi_pase_edge_cost, from the edge table when there is one. */
static inline double dpi_pase_ecost(const dpi_pase_model *pm, uint32_t e,
				    uint32_t cu, uint32_t cv)
{
	if (!pm->etab)
		return dpi_pase_edge_cost(pm, e, cu, cv);
	uint32_t a = pm->g->edges[e].from, b = pm->g->edges[e].to;
	size_t o = pm->eoff[e];
	if (pm->eoff[e + 1] == o)
		return 0; /* a control edge or no bytes */
	return pm->etab[o +
			(size_t)(cu - pm->off[a]) *
				(pm->off[b + 1] - pm->off[b]) +
			(cv - pm->off[b])];
}

/* The simulator's port reservation (docs/simulator.md) replayed on one set of
 * messages: bytes[s * k + d] from device s to d (0: none), created in
 * order of s then d, all ready at time 0; returns when the last ends.
 * send_free and recv_free: k doubles of scratch. */
double dpi_pase_ports_time(const double *bytes, int k, double lat, double bw,
			   double *send_free, double *recv_free);

/* The memo: NULL when out of memory. get: false when key is not in it;
 * put: false when out of memory (the value is then not remembered). */
dpi_pase_memo *dpi_pase_memo_new(void);
void dpi_pase_memo_free(dpi_pase_memo *m);
bool dpi_pase_memo_get(const dpi_pase_memo *m, const void *key, size_t len,
		       double *val);
bool dpi_pase_memo_put(dpi_pase_memo *m, const void *key, size_t len,
		       double val);

/* The model's cost of a choice of config per op (global indices): the sum
 * of node costs and edge costs. */
double dpi_pase_total(const dpi_pase_model *pm, const uint32_t *choice);

/* The search: fills choice (per op, a global config index) and *cost.
 * The elimination search (dpi_pase_solve_elim), else, when its tables
 * would pass their budget, the windowed breadth-first one. *fixed counts
 * the ops fixed to keep tables under the bound (0: exact within the
 * model). table_limit 0 = the default bound. */
dp_status dpi_pase_solve(const dpi_pase_model *pm, const dp_progress *p,
			 uint64_t table_limit, uint32_t *choice, double *cost,
			 uint32_t *fixed, dp_err *err);

/* The breadth-first search (algo_pase.c): the topological order, tables
 * over the dependent set, the oldest vertex fixed when a table would pass
 * table_limit (0: 2^25 / ops, between 64 and 65,536). */
dp_status dpi_pase_solve_window(const dpi_pase_model *pm, const dp_progress *p,
				uint64_t table_limit, uint32_t *choice,
				double *cost, uint32_t *fixed, dp_err *err);

/* Chains of element-wise ops as one vertex (pase_coarsen.c): lead[u] is
 * the first op of u's group (u itself when alone) and, for each config c
 * of the leader, u takes its local config map[u * DPI_PASE_MAX_CFGS + c].
 * Returns how many ops joined a group. */
uint32_t dpi_pase_coarsen(const dpi_pase_model *pm, uint32_t *lead,
			  uint8_t *map);

/* The paper's search by vertex elimination in a min-degree order
 * (pase_elim.c), over every op or, with coarsen, over the groups of
 * dpi_pase_coarsen: exact within the model (and the groups) when *fixed
 * is 0. When the next table would pass limit entries (0: the default,
 * 2^12), the busiest vertex of its dependent set is fixed to data
 * parallelism's config (*fixed counts them). *solved is false (choice
 * untouched) when the whole run's tables would pass limit x ops entries
 * (default 2^24): the caller then runs its windowed breadth-first
 * search. */
dp_status dpi_pase_solve_elim(const dpi_pase_model *pm, const dp_progress *p,
			      uint64_t limit, bool coarsen, uint32_t *choice,
			      double *cost, uint32_t *fixed, bool *solved,
			      dp_err *err);

/* Elimination over every op; when that hits the bound (or its budget),
 * also over the coarsened graph, keeping the cheaper (ties: every op). */
dp_status dpi_pase_solve_best(const dpi_pase_model *pm, const dp_progress *p,
			      uint64_t limit, uint32_t *choice, double *cost,
			      uint32_t *fixed, bool *solved, dp_err *err);

/* A fresh spmd strategy (mesh and masks; pinned ops whole on their pin)
 * from a choice of configs. DP_ENOMEM. */
dp_status dpi_pase_fill(const dpi_pase_model *pm, const uint32_t *choice,
			dp_strategy *s, dp_err *err);

/* Lowers and simulates a choice under contention cont: the makespan
 * (*ms, µs), whether every device fits its cap, and the largest peak /
 * cap over the capped devices (*over, 0 without caps). */
dp_status dpi_pase_simulate(const dpi_pase_model *pm, const uint32_t *choice,
			    dp_contention cont, double *ms, bool *fits,
			    double *over, dp_err *err);

/* Makes dpi_pase_simulate remember its last few results, so that a
 * choice simulated again (the fit's last choice in the safeguard, data
 * parallelism's configs when they are the replicas) is not lowered and
 * simulated twice; the caller frees it with dpi_pase_sims_free before
 * dpi_pase_model_free. DP_ENOMEM. */
dp_status dpi_pase_sims_new(dpi_pase_model *pm, dp_err *err);
void dpi_pase_sims_free(dpi_pase_model *pm);

/* Has any device of pm's machine a cap? */
bool dpi_pase_capped(const dpi_pase_model *pm);

/* Data parallelism's config of op u (a global index): the batch alone
 * split the most (an op without dims: its batch split), else the
 * replica. */
uint32_t dpi_pase_dp_config(const dpi_pase_model *pm, uint32_t u);

/* What one device keeps under a choice: the sum of res (bytes). */
int64_t dpi_pase_resident(const dpi_pase_model *pm, const uint32_t *choice);

/* Per-device memory (pase_fit.c): when the machine has caps and the
 * simulator finds choice over them, searches again with memory priced by
 * a Lagrange multiplier (pm->lambda) until the estimate fits, and leaves
 * the choice that fits with the least time in choice (else the one with
 * the least memory). *tries: the searches it ran. */
dp_status dpi_pase_fit(dpi_pase_model *pm, const dp_progress *p,
		       dp_contention cont, uint32_t *choice, int *tries,
		       dp_err *err);

/* The safeguard (pase_guard.c): simulates the choice, second (another
 * search's choice; NULL: none), data parallelism's configs and all
 * replicas under contention cont, and leaves the best in choice (feasible
 * first, then the shortest step, then that order); *which = 0, 1, 2 or 3
 * says which; *best_ms and *best_fit: its simulated step and fit. */
dp_status dpi_pase_guard(const dpi_pase_model *pm, const dp_progress *p,
			 dp_contention cont, uint32_t *choice,
			 const uint32_t *second, int *which, double *best_ms,
			 bool *best_fit, dp_err *err);

/* The safeguard's last candidate: the `megatron` algorithm's strategy
 * (found in the registry; its refusal is no error), simulated; when it
 * fits and the kept choice (ms, fits) does not, or both fit and it is
 * faster, it replaces *s (label "pase = megatron ... (safeguard)") and
 * *won. When nothing fits, pase's own result stays, with its numbers. */
dp_status dpi_pase_expert(const dpi_pase_model *pm, const dp_algo_opts *o,
			  double ms, bool fits, dp_strategy *s, bool *won,
			  dp_err *err);

#endif

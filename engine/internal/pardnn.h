/* pardnn.h - shared state of the pardnn algorithm (internal).
 *
 * The algorithm follows Qararyah et al., "A computational-graph partitioning
 * method for training memory-constrained DNNs" (Parallel Computing 2021,
 * arXiv 2008.08636), Sec. 4, in phases that each live in their own file:
 *
 *   algo_pardnn_slice.c   step 1, slicing into primary and secondary paths
 *   algo_pardnn_map.c     step 2, mapping secondary paths onto the K groups
 *   algo_pardnn_refine.c  step 3, op switching and critical-path iterations
 *   algo_pardnn_memory.c  step 4, the memory-overflow heuristic
 *   algo_pardnn_polish.c  our addition: memory-safe local moves
 *   algo_pardnn_seed.c    our addition: other seeds (parallel branches,
 *                         list schedules) beside the mapped placement
 *   algo_pardnn_parts.c   our addition: the seed for independent parts
 *   algo_pardnn_layers.c  our addition: the seed of whole layer units
 *   algo_pardnn.c         entry point, shared helpers, simulation budget
 *
 * Every accept/reject decision on the makespan or on memory after mapping is
 * taken on a dp_sim_run() of the one simulator (docs/simulator.md); the
 * estimates used before (levels, loads, communication) only order and propose
 * moves.
 *
 * Colocation: slicing and mapping work on single ops; right after mapping
 * every colocation group is put on one device (by a work-weighted vote), and
 * from then on a group only ever moves whole ("units" below). A unit is a
 * colocation group, or a single op outside any group; it is named by its
 * representative, the smallest op id among its members. Pinned ops (and the
 * whole group of a pinned op) are fixed before slicing and never move.
 *
 * Progress: the fraction reported is of the whole run, monotonic, with the
 * phase names "slicing", "mapping", "refinement", "memory", "polish".
 */
#ifndef DNNPART_INTERNAL_PARDNN_H
#define DNNPART_INTERNAL_PARDNN_H

#include <stdbool.h>
#include <stdint.h>

#include "dnnpart/algo.h"
#include "dnnpart/err.h"
#include "dnnpart/graph.h"
#include "dnnpart/machine.h"
#include "dnnpart/sim.h"

#define PD_NONE UINT32_MAX

/* Score of a simulated placement: memory overflow first (sum over devices
 * of max(0, peak - cap)), then makespan. */
typedef struct pd_score {
	int64_t over;
	double makespan;
} pd_score;

/* Parts of a simulation result a phase needs (dpi_pd_simulate, dpi_pd_ensure).
 * Only what is asked for is computed: without caps the memory pass never
 * runs outside the memory phase (the overflow is 0 whatever the peaks). */
enum {
	PD_SCHED = 1u, /* the schedule and makespan (every run has them) */
	PD_MEM = 2u, /* peaks, so the score's overflow (dropped without caps) */
	PD_PATH = 4u, /* the schedule's critical path */
	PD_LIVE = 8u, /* the tensors live at each peak (with PD_MEM) */
};

/* One proposed move of a unit (rep = representative op) to device `to`;
 * `from` is filled when the move is applied, so it can be undone. */
typedef struct pd_move {
	uint32_t rep;
	int32_t to;
	int32_t from;
} pd_move;

typedef struct pd_ctx {
	const dp_graph *g;
	const dp_machine *m;
	const dp_algo_opts *o;
	const dp_progress *p;
	dp_err *err;
	uint32_t n;
	int k;

	double mean_speed;
	double *w;	   /* n: node weight, time_us / mean speed (µs) */
	double *c;	   /* nedges: cost of the edge when cut (µs) */
	int32_t *fix;	   /* n: device the op must stay on, -1 = free */
	int32_t *devorder; /* k: devices by speed, fastest first (stable) */

	/* slicing (step 1) */
	uint32_t npaths;    /* paths 0..k-1 are the primaries (maybe empty) */
	uint32_t *path_of;  /* n: path of each op, PD_NONE for fixed ops */
	uint32_t *path_off; /* npaths+1 */
	uint32_t *path_ops; /* ops of all paths, each path head first */
	double *tlev;	    /* n: top level with primary-internal edges free */
	double *blev;	    /* n: bottom level, same weights */

	/* the current placement and its score (valid once simulated; its
	 * overflow is exact whenever a device has a cap, because every kept
	 * placement's peaks are computed, and 0 without caps) */
	int32_t *place;
	pd_score cur;

	/* simulator */
	dp_sim *sim;
	/* Two result buffers: *res is the current placement's result (when
	 * res_has is not 0), candidates run into *spare, and a kept
	 * candidate's buffer becomes *res, so a rejected candidate never
	 * costs a new simulation of the placement it was tried against. */
	dp_sim_result rbuf[2];
	dp_sim_result *res, *spare;
	unsigned res_has; /* PD_* parts of *res valid for c->place; 0 when
			     *res is of another placement */
	bool res_last;	  /* *res is the simulator's last run (so
			     dp_sim_finish can add parts to it) */
	bool capped;	  /* some device has a memory cap */
	dp_sim_opts so;
	uint32_t sims;	     /* simulations run so far */
	uint32_t sim_budget; /* total simulations allowed (size-scaled) */

	/* scratch: n stamps for dedup of units (see pd_stamp_*) */
	uint32_t *stamp;
	uint32_t stamp_gen;
} pd_ctx;

/* Fills c for g on m: weights, edge costs, fixed devices, device order and
 * the placement buffer (c->place, not yet filled). dpi_pd_ctx_free() releases
 * what the phases allocated too. */
dp_status dpi_pd_ctx_init(pd_ctx *c, const dp_graph *g, const dp_machine *m,
			  const dp_algo_opts *o, const dp_progress *p,
			  dp_err *err);
void dpi_pd_ctx_free(pd_ctx *c);

/* ---- phases ---- */
dp_status dpi_pd_slice(pd_ctx *c);
dp_status dpi_pd_map(pd_ctx *c);
dp_status dpi_pd_refine(pd_ctx *c);
dp_status dpi_pd_memory(pd_ctx *c);
dp_status dpi_pd_polish(pd_ctx *c);
/* The other seeds beside the mapped placement (algo_pardnn_seed.c). */
enum {
	PD_SEED_BRANCHES = 1u, /* METIS balanced in time windows */
	PD_SEED_METF = 2u,     /* the m-ETF list schedule (small graphs) */
	PD_SEED_HEFT = 4u,     /* the HEFT list schedule (small graphs) */
	PD_SEED_PARTS = 8u,    /* independent parts on device groups */
	PD_SEED_STAGES = 16u,  /* msr-dp's contiguous stages (mid-size) */
	PD_SEED_LAYERS = 32u,  /* whole layer units, searched (few layers) */
	PD_SEED_LANES = 64u,   /* best's lanes (ops x K > DPI_LANES_MIN_WORK) */
	PD_SEED_METIS = 256u,  /* METIS's plan as it is (as lanes: large) */
	PD_SEED_ALL = 383u,
	/* not a seed: the lanes seed at any size (tests; not in PD_SEED_ALL) */
	PD_SEED_LANES_ANY = 128u,
};
/* The parts seed (algo_pardnn_parts.c) into pl: when two or more weakly
 * connected parts each hold 1/(2K) of the work, each gets devices of its
 * own. Fails (not an error: no seed) when it does not apply. */
dp_status dpi_pd_seed_parts(pd_ctx *c, int32_t *pl, dp_err *e);
/* The layer seed (algo_pardnn_layers.c) into pl (c->place): the placement
 * in c->place with each layer unit moved whole by a vote, then units moved
 * to other devices while the simulator says the plan gets faster. Fails
 * (not an error: no seed) when the graph has not 2..128 layer units. */
dp_status dpi_pd_seed_layers(pd_ctx *c, int32_t *pl, dp_err *e);
/* Makes the seeds in which (PD_SEED_*) that apply to the graph and runs
 * rest (the phases after mapping) on those that may win and on the mapped
 * placement (c->place, scored c->cur, last and exactly as without other
 * seeds); keeps the best result in c->place and c->cur. */
dp_status dpi_pd_seeds(pd_ctx *c, unsigned which, dp_status (*rest)(pd_ctx *));

/* pardnn with only the seeds in which (PD_SEED_*) beside the mapped
 * placement; pardnn itself is dpi_pardnn_place(..., PD_SEED_ALL, ...).
 * For tests: with fewer seeds it is the pardnn of before them. */
dp_status dpi_pardnn_place(const dp_graph *g, const dp_machine *m,
			   const dp_algo_opts *o, const dp_progress *p,
			   unsigned which, int32_t *placement, dp_err *err);

/* ---- shared helpers (algo_pardnn.c) ---- */

/* Reports overall progress: phase name and the fraction of the whole run
 * reached at lo + (hi - lo) * f. */
void dpi_pd_progress(const pd_ctx *c, const char *phase, double lo, double hi,
		     double f);
/* DP_ECANCELED (with a message) when the caller's cancel flag is set. */
dp_status dpi_pd_check_cancel(pd_ctx *c);

/* Simulates c->place into c->res with the parts in need (PD_*) and stores
 * its score in *sc (may be NULL; its overflow is 0 unless the peaks were
 * computed, i.e. need has PD_MEM and some device has a cap). Counts the
 * run against the budget. */
dp_status dpi_pd_simulate(pd_ctx *c, unsigned need, pd_score *sc);
/* Makes c->res a result of c->place with the parts in need: nothing when
 * it is one already, the missing parts of the same run when c->res is of
 * c->place (dp_sim_finish; not a new simulation), else dpi_pd_simulate(). */
dp_status dpi_pd_ensure(pd_ctx *c, unsigned need, pd_score *sc);
/* Judges c->place, already changed by some moves, against c->cur: it is
 * kept (*kept, and c->cur becomes its score) when its makespan is lower
 * and, with caps, its overflow is not higher (so a feasible plan stays
 * feasible). Its memory pass runs only when the makespan is lower. One
 * simulation, into c->spare: a kept candidate's result becomes c->res
 * with its critical path (and peaks, with caps), which the next round
 * reads; when it is not kept, the caller must undo exactly its moves, and
 * c->res stays the result of the placement restored. */
dp_status dpi_pd_try_current(pd_ctx *c, bool *kept);
/* True when a is strictly better than b (less overflow, else a makespan
 * lower by more than a relative 1e-12). */
bool dpi_pd_better(const pd_score *a, const pd_score *b);
/* Simulations left in the budget. */
uint32_t dpi_pd_sims_left(const pd_ctx *c);

/* Representative op of u's unit and the unit's members. `self` must point
 * to storage holding u; for an op outside any group, the members are
 * {*self}. */
uint32_t dpi_pd_rep(const dp_graph *g, uint32_t u);
const uint32_t *dpi_pd_unit(const dp_graph *g, const uint32_t *self,
			    uint32_t *len);
/* Moves the whole unit of rep to device `to`; returns the device it was on. */
int32_t dpi_pd_move_unit(pd_ctx *c, uint32_t rep, int32_t to);
/* Change of the summed cut-edge cost (c->c, µs) if the unit of rep moved
 * from its device to `to` (negative = communication saved). Edges inside
 * the unit do not count. */
double dpi_pd_comm_delta(const pd_ctx *c, uint32_t rep, int32_t to);
/* dpi_pd_comm_delta for every device at once: delta[d] for d < k (k entries;
 * delta[own device] = 0). One pass over the unit's edges. */
void dpi_pd_comm_delta_all(const pd_ctx *c, uint32_t rep, double *delta);
/* Adds to comm[d] the cost of each edge of op u (in-edges, then out-edges)
 * to an op already placed on d (place >= 0). */
void dpi_pd_add_placed_comm(const pd_ctx *c, uint32_t u, double *comm);

/* Bytes the unit of rep would add to device e at e's peak time in the
 * current result (c->res, with peaks): its params, the temps and outputs of
 * members live at that time, and copies of inputs from other devices that
 * e does not hold yet. An estimate: the next simulation decides. */
int64_t dpi_pd_need_on(const pd_ctx *c, uint32_t rep, int32_t e);
/* dpi_pd_need_on for every device at once into need (k entries); mark is k
 * bytes of scratch. */
void dpi_pd_need_all(const pd_ctx *c, uint32_t rep, int64_t *need,
		     uint8_t *mark);

/* The device that all the unit's children (succ) or parents outside the
 * unit sit on, if it is one device other than the unit's own; else -1. */
int32_t dpi_pd_sole_neighbour_device(const pd_ctx *c, uint32_t rep, bool succ);

/* Applies moves in chunks, simulating after each chunk and keeping it as
 * dpi_pd_try_current() decides; a rejected chunk is undone. Starts with one
 * chunk of all moves, then passes over the moves not kept yet with chunks
 * of half the size, down to single moves, within max_sims simulations.
 * Moves of fixed units, of units already at their target, and repeated
 * units are skipped. c->cur must hold the score of c->place on entry; on
 * return it holds the score of the kept placement (c->res matches it only
 * when c->res_has is not 0). *kept counts accepted moves. */
dp_status dpi_pd_try_moves(pd_ctx *c, pd_move *mv, uint32_t nmv,
			   uint32_t max_sims, uint32_t *kept);

/* Stamps for deduplication: dpi_pd_stamp_next() starts a new generation;
 * dpi_pd_stamp_set() marks u and returns whether it was already marked. */
void dpi_pd_stamp_next(pd_ctx *c);
bool dpi_pd_stamp_set(pd_ctx *c, uint32_t u);

#endif

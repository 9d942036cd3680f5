/* best.h - the parts of `best` (engine/plan/): how a placement is
 * scored, and the shared local search that polishes the best few
 * candidates (internal to the engine; docs/algorithms.md, "best").
 */
#ifndef DNNPART_BEST_H
#define DNNPART_BEST_H

#include <stdbool.h>
#include <stdint.h>

#include "dnnpart/algo.h"
#include "dnnpart/sim.h"

/* How good a simulated placement is: a feasible one beats an infeasible
 * one; among feasible ones the shorter makespan wins; among infeasible
 * ones the smaller total overflow (sum over devices of peak - cap), then
 * the shorter makespan. */
typedef struct dpi_best_score {
	bool feasible;
	int64_t overflow;
	double makespan;
} dpi_best_score;

/* The score of r (a run with its memory pass). */
dpi_best_score dpi_best_score_of(const dp_sim_result *r);

/* Whether a is strictly better than b. */
bool dpi_best_better(const dpi_best_score *a, const dpi_best_score *b);

/* best's "lanes" candidate (engine/algo/lanes.c): ops follow their main input in
 * a depth-first topological order while each device keeps its share of
 * every time window; pins and colocation groups kept. Writes g->nops
 * entries of pl. Also pardnn's lanes seed (algo_pardnn_seed.c). Both use
 * it only where ops x K > DPI_LANES_MIN_WORK (best's large graphs). */
#define DPI_LANES_MIN_WORK 100000.0
dp_status dpi_lanes(const dp_graph *g, const dp_machine *m, int32_t *pl,
			 dp_err *err);
/* dpi_lanes through sh (dp_algo_opts.shared, may be NULL): copied when sh
 * keeps it for g on m, else made and kept there. */
struct dp_algo_shared;
dp_status dpi_lanes_shared(struct dp_algo_shared *sh, const dp_graph *g,
			   const dp_machine *m, int32_t *pl, dp_err *err);

/* best itself (engine/plan/algo_best.c); share: its candidate runs share
 * the lanes and METIS placements (dp_algo_opts.shared), as the registry's
 * best does; false makes them afresh in every run (tests: the same plan). */
dp_status dpi_best_place(const dp_graph *g, const dp_machine *m,
			 const dp_algo_opts *o, const dp_progress *p, bool share,
			 int32_t *placement, dp_err *err);

/* The shared local search on the simulator: moves single ops (or their
 * whole colocation group) across devices along the schedule's critical
 * path, keeps a move when the makespan goes down and the overflow does not
 * grow, for at most max_sims simulations. s simulates g on m; pl (g->nops
 * entries) is improved in place and *score updated; *improved says whether
 * any move was kept. Deterministic; polls p's cancel flag. */
dp_status dpi_best_polish(dp_sim *s, const dp_graph *g, const dp_machine *m,
			  dp_contention c, uint32_t max_sims,
			  const dp_progress *p, int32_t *pl,
			  dpi_best_score *score, bool *improved, dp_err *err);

/* A deeper local search for small graphs (best_polish.c): passes over
 * every movable unit in op order, trying it on every other device, and
 * keeps each move under the same rule as dpi_best_polish (first
 * improvement), until a pass keeps none or max_sims simulations are
 * spent. *score must be pl's score on entry. Deterministic; polls p's
 * cancel flag. */
dp_status dpi_best_descend(dp_sim *s, const dp_graph *g, const dp_machine *m,
			   dp_contention c, uint32_t max_sims,
			   const dp_progress *p, int32_t *pl,
			   dpi_best_score *score, bool *improved, dp_err *err);

/* Random restarts for small graphs (best_polish.c): from random
 * placements of the movable units (a fixed sequence from seed), each
 * followed by dpi_best_descend, until max_sims simulations are spent;
 * pl and *score (its score on entry) are replaced by any result better in
 * dpi_best_better's order. Deterministic; polls p's cancel flag. */
dp_status dpi_best_restarts(dp_sim *s, const dp_graph *g, const dp_machine *m,
			    dp_contention c, uint32_t max_sims, uint64_t seed,
			    const dp_progress *p, int32_t *pl,
			    dpi_best_score *score, bool *improved, dp_err *err);

/* best's exhaustive search (best_exhaust.c). The number of placements it
 * would simulate on g and m with contention c: every placement of the
 * movable units (pinned ones stay), or, when that is too many, c is
 * DP_CONT_NONE and the devices are interchangeable (equal speeds and caps,
 * no pins), one per relabelling of the devices (*relabel true); 0 when
 * even that times (ops + edges) is above max_work, or when there is
 * nothing to choose (K = 1, every op pinned). */
double dpi_best_exhaust_count(const dp_graph *g, const dp_machine *m,
			      dp_contention c, double max_work, bool *relabel);

/* Simulates those placements (relabel as dpi_best_exhaust_count said) with
 * s (g on m, contention c) and writes the best into pl (g->nops entries;
 * pinned ops get their pin) and its score into *score; equal scores keep
 * the earlier placement in the enumeration's fixed order. *tried: how many
 * were simulated. Polls p's cancel flag. */
dp_status dpi_best_exhaust(dp_sim *s, const dp_graph *g, const dp_machine *m,
			   dp_contention c, bool relabel, const dp_progress *p,
			   int32_t *pl, dpi_best_score *score, uint64_t *tried,
			   dp_err *err);

#endif

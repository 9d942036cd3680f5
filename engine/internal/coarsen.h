/* coarsen.h - the picture of a plan that DOT and SVG exports draw.
 *
 * A dp_coarse maps every op to a drawn node. Without coarsening each op is
 * its own node. Graphs too large to lay out quickly are coarsened to at most
 * max_nodes nodes (docs/export.md): ops of one `layer` scope on one device form
 * a node (shortening layer paths "a/b/c" -> "a/b" until they fit), else runs of
 * consecutive ops of one device's schedule form a node. The schedule's critical
 * path stays visible: its ops are kept as nodes of their own when there are few
 * enough of them, otherwise the nodes that hold them are marked. Edges between
 * two nodes are merged into one that carries the sum of their bytes; the
 * critical path's hops are flagged on the edges, and a hop that waited for the
 * device (no graph edge) becomes an extra edge.
 *
 * A coarsened picture is also thinned: groups of a training graph are
 * joined by many long edges (forward activations feed the backward pass),
 * and dot's time grows with their length (one virtual node per rank
 * crossed). It keeps the critical path's edges and, for each node, its
 * largest input; the rest are counted in edges_all and left out.
 */
#ifndef DNNPART_COARSEN_H
#define DNNPART_COARSEN_H

#include <stdbool.h>
#include <stdint.h>

#include "dnnpart/err.h"
#include "dnnpart/export.h"
#include "dnnpart/graph.h"
#include "dnnpart/plan.h"

typedef enum dp_coarse_method {
	DP_COARSE_NONE = 0, /* one node per op */
	DP_COARSE_LAYER,    /* (layer or layer prefix, device) groups */
	DP_COARSE_RUNS,	    /* runs of one device's schedule */
} dp_coarse_method;

typedef struct dp_cnode {
	int32_t dev;
	uint32_t nops;
	uint32_t op;	   /* its op when nops == 1, else its first op in
			       schedule order */
	uint32_t last_op;  /* its last op in schedule order */
	uint32_t ncrit;	   /* schedule critical-path ops inside */
	uint32_t label;	   /* offset into c->strs: layer (prefix) or "" */
	double busy_us;	   /* sum of the scheduled durations of its ops */
	double start, end; /* earliest start and latest end of its ops */
	int64_t out_bytes, param_bytes, temp_max;
} dp_cnode;

typedef struct dp_cedge {
	uint32_t from, to; /* node ids, from != to */
	int64_t bytes;	   /* sum of data bytes of the graph edges merged */
	uint32_t nedges;   /* graph edges merged (0: a device-order hop) */
	bool control;	   /* every merged edge is a control edge */
	uint8_t hop;	   /* 0, or the dp_hop_cause of a critical hop */
} dp_cedge;

typedef struct dp_coarse {
	dp_coarse_method method;
	int layer_depth;  /* LAYER: path components kept (0 = whole) */
	bool layer_finer; /* LAYER: the largest groups keep one more */
	uint32_t run_len; /* RUNS: most ops in one node */
	bool cp_kept;	  /* critical-path ops are nodes of their own */
	uint32_t cp_len;  /* ops on the critical path drawn */
	uint32_t n;
	dp_cnode *nodes;
	uint32_t *of; /* nops entries: node of each op */
	uint32_t nedges;
	dp_cedge *edges;    /* sorted by (from, to) */
	uint32_t edges_all; /* edges between nodes before a coarsened
			       picture was thinned (see dpi_coarsen_build) */
	char *strs;	    /* label arena, offset 0 = "" */
	size_t strs_len, strs_cap;
} dp_coarse;

/* Builds the picture of plan for g. mode and max_nodes come from the export
 * options (max_nodes already resolved, >= 16); auto_limit is the op count
 * above which DP_COARSEN_AUTO coarsens. The critical path is the plan's
 * schedule critical path (the graph's when the plan has none). Errors: no
 * memory, DP_ECANCELED when p's cancel flag is raised. */
dp_status dpi_coarsen_build(const dp_graph *g, const dp_plan *plan,
			    dp_export_coarsen mode, uint32_t max_nodes,
			    uint32_t auto_limit, const dp_progress *p,
			    dp_coarse *c, dp_err *err);
void dpi_coarsen_free(dp_coarse *c);

/* Which groups of a layer grouping to draw one level finer (see
 * export_coarsen_refine.c): pairs are the np distinct (layer index + 1) <<
 * 32 | device keys of the ops grouped (layer index 0: no layer), ids and
 * fids each layer's prefix id at the level that fits and one level down,
 * pair_ops the ops of each pair, groups the groups at the level that fits.
 * Splits the largest groups first while the total stays within budget;
 * split[i] = 1 for the pairs of a split group. Returns the new total, or
 * UINT32_MAX when out of memory. */
uint32_t dpi_coarsen_refine(const uint64_t *pairs, uint32_t np,
			    const uint32_t *ids, const uint32_t *fids,
			    const uint32_t *pair_ops, uint32_t groups,
			    uint32_t budget, uint8_t *split);

/* Fills c->edges from g's edges and the critical path (cp, with the cause
 * of each hop) once c->of and c->nodes are set; thins a coarsened picture
 * (export_coarsen_edges.c). DP_ENOMEM or DP_ECANCELED, without a message. */
dp_status dpi_coarsen_edges(const dp_graph *g, const uint32_t *cp,
			    const uint8_t *cause, uint32_t cp_len,
			    const dp_progress *p, dp_coarse *c);

/* About how many virtual nodes dot's layering of picture c would create
 * (one per rank an edge crosses, ranks from the longest path over edges
 * that go forward in node order). dot's time grows with it. */
uint64_t dpi_coarsen_layout_cost(const dp_coarse *c);

/* "grouped by layer", "grouped by layer prefix (2 levels)", "runs of up to
 * 57 ops of one device's schedule", "" when not coarsened. */
void dpi_coarsen_describe(const dp_coarse *c, char *buf, size_t size);

#endif

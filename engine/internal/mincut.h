/* mincut.h - shared state of the mincut algorithm (internal).
 *
 * A multilevel acyclic balanced min-cut partitioner after Tavarageri et al.
 * ("Automatic model parallelism for deep neural networks with compiler and
 * hardware support", arXiv 1906.08168) and the multilevel acyclic
 * partitioning of Herrmann et al. (SISC 2019) and Moreira et al.:
 *
 *   algo_mincut_coarsen.c  the level-0 graph (units, soft edges, pinned
 *                          ops as terminals) and the
 *                          coarsening by acyclic matching
 *   algo_mincut_initial.c  the initial partitions of the coarsest graph
 *   algo_mincut_refine.c   the Fiduccia-Mattheyses refinement at every level
 *   algo_mincut.c          entry point: budgets, levels, devices, placement
 *
 * Parts are numbered in the order of a topological order of the quotient
 * graph: every edge between free vertices goes from a part to the same or
 * a later one (the "monotone" invariant; it makes the quotient acyclic).
 * Part p runs on device dev[p]; pinned ops are terminals and soft edges
 * (see mc_level) are not ordered: both pull on the vertices they join but
 * do not constrain the order (see docs/algorithms.md).
 */
#ifndef DNNPART_INTERNAL_MINCUT_H
#define DNNPART_INTERNAL_MINCUT_H

#include <stdbool.h>
#include <stdint.h>

#include "dnnpart/algo.h"
#include "dnnpart/err.h"
#include "dnnpart/graph.h"
#include "dnnpart/machine.h"

#include "internal/listsched.h"

#define MC_NONE UINT32_MAX
#define MC_MAX_LEVELS 64
/* Balance: every part's time, pinned ops included, is at most MC_TOL times
 * its device's share (speed / sum of speeds) of the total time. */
#define MC_TOL 1.03

/* One level of the multilevel hierarchy: a DAG with merged parallel edges.
 * Edge weight: the communication time (µs) of the edges it stands for,
 * latency + bytes / bandwidth each. Terminals: per vertex, (device, weight)
 * of its edges to ops pinned to that device. Soft edges: edges that go
 * against the order of the vertices (into a colocation group whose earliest
 * member comes before the producer): they count in the cut, not in the
 * order, stored once at each end. */
typedef struct mc_level {
	uint32_t nv;
	uint32_t *out_off, *out_dst; /* nv+1, out_off[nv] */
	double *out_w;
	uint32_t *in_off, *in_src; /* the same edges, by destination */
	double *in_w;
	double *time; /* per vertex: time_us of its ops */
	double *mem;  /* per vertex: param + output + temp bytes */
	uint32_t *t_off;
	uint32_t *t_dev;
	double *t_w;
	uint32_t *s_off, *s_nb; /* soft edges, both ways (see below) */
	double *s_w;
	uint32_t *cmap; /* per vertex: its vertex on the next coarser level
			   (NULL on the coarsest) */
} mc_level;

/* A queue of vertices by gain, the highest first, ties by the smaller
 * vertex (the initial growing and FM refinement). */
typedef struct mc_gent {
	double gain;
	uint32_t v;
} mc_gent;

typedef struct mc_gainq {
	mc_gent *h;
	uint32_t len, cap;
} mc_gainq;

/* Queues v with gain; -1 when out of memory (the queue is unchanged). */
int dpi_mc_gainq_push(mc_gainq *q, double gain, uint32_t v);
/* Removes and returns the highest gain (q->len > 0). */
mc_gent dpi_mc_gainq_pop(mc_gainq *q);

typedef struct mc_ctx {
	const dp_graph *g;
	const dp_machine *m;
	const dp_progress *p;
	dp_err *err;
	int k;
	ls_cons cons;	/* forced[u]: the device of a pinned op */
	uint32_t *unit; /* per op: its level-0 vertex, MC_NONE if forced */
	double maxw;	/* heaviest cluster the coarsening makes (time) */
	mc_level lv[MC_MAX_LEVELS];
	int nlv;
	double total_w; /* sum of the level-0 edge and terminal weights */

	/* the partition of the current level */
	int32_t *part;	 /* per vertex */
	double *load;	 /* per part: time, pinned ops included */
	double *pmem;	 /* per part: bytes, pinned ops included */
	double *bound;	 /* per part: most time allowed */
	double *budget;	 /* per part: most bytes allowed (may be inf) */
	int32_t *dev;	 /* part -> device */
	int32_t *of_dev; /* device -> part */
	double *fixed_t; /* per device: time of the ops pinned there */
	double *fixed_m; /* per device: bytes of the ops pinned there */
	double *cap_m;	 /* per device: byte budget (inf: none) */

	/* scratch */
	double *conn;	  /* per part */
	int32_t *touched; /* parts with conn set */
	uint32_t *pmark;  /* per part: pstamp when conn is set */
	uint32_t pstamp;
	uint32_t *stamp; /* per vertex: pass that moved it */
	uint32_t pass;
	mc_gainq heap;
	uint32_t *log;	   /* vertices moved in a pass, in order */
	int32_t *log_from; /* the part each came from */
	uint32_t moved;	   /* moves the last pass kept */
} mc_ctx;

/* Builds level 0 from the graph: one vertex per free op or unpinned
 * colocation group, ordered by the earliest topological position of its
 * ops; edges that go forward in that order are the DAG's, the others soft
 * edges (a group can close a cycle), edges to pinned ops terminals. */
dp_status dpi_mc_build(mc_ctx *c);
/* Coarsens level 0 into c->lv[1..] by acyclic matchings. */
dp_status dpi_mc_coarsen(mc_ctx *c);
void dpi_mc_level_free(mc_level *lv);

/* Partitions the coarsest level into c->part (and sets dev, loads). */
dp_status dpi_mc_initial(mc_ctx *c);
/* Refines c->part on level l with FM passes, then rebalances. */
dp_status dpi_mc_refine(mc_ctx *c, int l);
/* Recomputes loads and memory of the parts from c->part on level l and
 * c->dev (also of_dev, bound and budget). */
void dpi_mc_loads(mc_ctx *c, int l);
/* Communication (µs, the edge weights) cut by c->part on level l. */
double dpi_mc_cut(const mc_ctx *c, int l);
/* Whether some part is over its bound or budget. */
bool dpi_mc_any_over(const mc_ctx *c);
/* DP_ENOMEM "out of memory for mincut on N ops". */
dp_status dpi_mc_nomem(mc_ctx *c);
/* Polls the cancel flag every so often; DP_ECANCELED "mincut: canceled". */
dp_status dpi_mc_poll(mc_ctx *c, double fraction);

#endif

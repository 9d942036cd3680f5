/* listsched.h - pieces shared by the list-scheduling placers (m-ETF, HEFT).
 *
 * - ls_heap: a binary heap of (key, rank, tie, op) entries ordered by key
 *   ascending, then rank descending, then tie ascending: "earliest first,
 *   then highest priority, then smallest topological index".
 * - ls_cons: pins and colocation groups as "the one device an op may use".
 * - ls_ports: the send and receive ports of contention `port`
 *   (docs/simulator.md), with scratch times for trying an op on a device.
 * - ls_mem: the simulator's memory liveness rules (docs/simulator.md) applied
 *   incrementally while a list scheduler places ops one at a time, so that
 *   the scheduler can ask "does op v fit on device d now?".
 * - dpi_ls_verify: runs a scheduler, simulates its placement and, when a device
 *   overflows in the simulator's own order although it fitted in the
 *   scheduler's, reruns the scheduler with that device's budget lowered.
 *
 * Internal to the engine; not thread-safe per object (one per run).
 */
#ifndef DNNPART_LISTSCHED_H
#define DNNPART_LISTSCHED_H

#include <stdbool.h>
#include <stdint.h>

#include "dnnpart/algo.h"
#include "dnnpart/err.h"
#include "dnnpart/graph.h"
#include "dnnpart/machine.h"
#include "dnnpart/sim.h"

/* ---- ports ---- */

/* Each device sends one transfer and receives one at a time. Trying an op
 * on a device takes the ports only in scratch send times (stamped per try,
 * so that a try costs nothing to undo); reserving takes them for real. */
typedef struct ls_ports {
	int k;
	double *send_free, *recv_free; /* k: when each port is free */
	double *send_tmp; /* k + 1: scratch send times; [k]: the receive port
			   * of the device tried */
	uint32_t *send_stamp, stamp; /* send_tmp[d] holds when stamps match */
} ls_ports;

/* All ports free at 0. Returns 0, or -1 when out of memory. */
int dpi_ls_ports_init(ls_ports *pt, int k);
void dpi_ls_ports_free(ls_ports *pt);
/* Starts a try on device d. True when the stamp wrapped around (callers
 * that stamp by pt->stamp themselves clear their stamps then). */
bool dpi_ls_ports_try(ls_ports *pt, int d);
/* A transfer of dur us from src to dst whose data is ready at t: returns
 * when it starts (after both ports are free); reserve takes the ports,
 * else only the scratch times of the current try. */
double dpi_ls_ports_xfer(ls_ports *pt, int src, int dst, double t, double dur,
			 bool reserve);

/* ---- heap ---- */

typedef struct ls_entry {
	double key;   /* smaller first */
	double rank;  /* then larger first */
	uint32_t tie; /* then smaller first (topological index) */
	uint32_t op;
} ls_entry;

typedef struct ls_heap {
	ls_entry *a;
	uint32_t len, cap;
} ls_heap;

/* Returns 0, or -1 when out of memory. The heap grows as needed. */
int dpi_ls_heap_push(ls_heap *h, ls_entry e);
/* Removes the top entry into *e; returns false when empty. */
bool dpi_ls_heap_pop(ls_heap *h, ls_entry *e);
static inline const ls_entry *ls_heap_top(const ls_heap *h)
{
	return h->len ? &h->a[0] : 0;
}
void dpi_ls_heap_free(ls_heap *h);

/* ---- constraints ---- */

typedef struct ls_cons {
	const dp_graph *g;
	int32_t *forced;    /* per op: device its pin (or its group's pin)
			       forces, -1 = free */
	int32_t *group_dev; /* per group: device of its first placed member */
} ls_cons;

dp_status dpi_ls_cons_init(ls_cons *c, const dp_graph *g, dp_err *err);
void dpi_ls_cons_free(ls_cons *c);
/* The device op v must use, or -1 when any device is allowed. */
static inline int32_t ls_cons_device(const ls_cons *c, uint32_t v)
{
	if (c->forced[v] >= 0)
		return c->forced[v];
	int32_t grp = c->g->ops[v].colocate;
	return grp >= 0 ? c->group_dev[grp] : -1;
}
/* Records that v was placed on d (fixes its group's device). */
static inline void ls_cons_place(ls_cons *c, uint32_t v, int32_t d)
{
	int32_t grp = c->g->ops[v].colocate;
	if (grp >= 0 && c->group_dev[grp] < 0)
		c->group_dev[grp] = d;
}

/* ---- memory liveness ---- */

/* A distinct predecessor of an op: data when some edge from it carries
 * data (bytes = the largest such edge), else control only. */
typedef struct ls_input {
	uint32_t u;
	bool data;
	int64_t bytes;
} ls_input;

/* A received copy of op u's output on device dev, made by one transfer
 * shared by every consumer of u there (docs/simulator.md). */
typedef struct ls_copy {
	int32_t dev;
	uint32_t next; /* next copy of the same op, UINT32_MAX = none */
	int64_t bytes;
	double xfer_start, xfer_end;
	double free_at; /* max(transfer end, ends of consumers there) */
} ls_copy;

typedef struct ls_free_ev {
	double t;
	int32_t dev;
	int64_t bytes;
} ls_free_ev;

typedef struct ls_mem {
	const dp_graph *g;
	int k;
	const int32_t *dev; /* the scheduler's placement (-1 = not yet) */
	const int64_t *cap; /* k budgets checked by dpi_ls_mem_over */
	int64_t *params;    /* k: param_bytes of the ops placed there */
	int64_t *cur;	    /* k: other bytes live at the clock */
	int64_t *peak;	    /* k: the largest cur seen so far */
	bool *freed;	    /* k: memory was released since the flag was
				  last cleared by the scheduler */
	double clock;	    /* allocations happen at the clock */

	uint32_t *open_cons; /* per op: data consumers not placed yet */
	double *out_free;    /* per op: when its output can be released */
	uint32_t *copy_head; /* per op: first ls_copy, UINT32_MAX = none */
	ls_copy *copies;
	uint32_t ncopies, copies_cap;
	uint32_t *stamp; /* per op: dedup of inputs in dpi_ls_mem_inputs */
	uint32_t stamp_gen;
	struct ls_input *in; /* the distinct inputs of op in_op */
	uint32_t nin, in_op;

	ls_free_ev *ev; /* min-heap of pending releases by time */
	uint32_t nev, ev_cap;
} ls_mem;

/* dev and start/end arrays belong to the scheduler; cap has k budgets. */
dp_status dpi_ls_mem_init(ls_mem *m, const dp_graph *g, int k,
			  const int32_t *dev, const int64_t *cap, dp_err *err);
void dpi_ls_mem_free(ls_mem *m);

/* Fills m->in / m->nin with the distinct predecessors of v (cached: a
 * second call for the same v does nothing). */
void dpi_ls_mem_inputs(ls_mem *m, uint32_t v);

/* The copy of u's output on device d, or NULL. */
ls_copy *dpi_ls_mem_copy(ls_mem *m, uint32_t u, int32_t d);

/* Bytes by which the device would exceed its budget if v were placed on d
 * now: <= 0 means it fits. Counts v's params for the whole step (against
 * the device's peak so far), its output and temp, and a copy of each input
 * from another device that d does not hold yet. */
int64_t dpi_ls_mem_over(ls_mem *m, uint32_t v, int32_t d);
/* As dpi_ls_mem_over, counting only the releases due by time t >= clock. */
int64_t dpi_ls_mem_over_at(ls_mem *m, uint32_t v, int32_t d, double t);
/* True when v can never fit on d again: its params alone, on top of the
 * device's peak so far, exceed the budget (peaks and params only grow). */
bool dpi_ls_mem_never(const ls_mem *m, uint32_t v, int32_t d);

/* Moves the clock forward to t (no-op when t <= clock), releasing what is
 * due by then (frees come before allocations at one instant). */
void dpi_ls_mem_advance(ls_mem *m, double t);
/* Time of the next pending release, or -1 when none is pending. */
double dpi_ls_mem_next_release(const ls_mem *m);

/* Records a new transfer of u's output to d (a copy allocated at the clock
 * on d; an existing copy grows to bytes when smaller). Returns 0, or -1
 * when out of memory. */
int dpi_ls_mem_add_copy(ls_mem *m, uint32_t u, int32_t d, int64_t bytes,
			double xfer_start, double xfer_end);
/* Records that v runs on dev[v] over [s, f): params, output and temp are
 * allocated at the clock (advance it to s first), consumers' counts drop,
 * and the outputs and copies whose last consumer this was get their
 * release time. Returns 0, or -1 when out of memory. */
int dpi_ls_mem_place(ls_mem *m, uint32_t v, double s, double f);

/* ---- helpers ---- */

/* Upward ranks: rank(u) = wbar[u] + max over successors v of (cbar[e] +
 * rank(v)) in reverse topological order (Topcuoglu et al. 2002, eq. 7). */
void dpi_ls_upward_ranks(const dp_graph *g, const double *wbar,
			 const double *cbar, double *rank);

/* Communication cost of edge e between two different devices: latency for a
 * control edge, latency + bytes / bandwidth otherwise. */
static inline double ls_edge_comm(const dp_graph *g, const dp_machine *m,
				  uint32_t e)
{
	const dp_edge *ed = &g->edges[e];
	return dp_machine_comm(m, 0, 1, ed->control ? 0 : ed->bytes);
}

/* One scheduling attempt under budgets cap (k entries): writes a placement
 * and sets *overflowed when some op fitted on no device. */
typedef dp_status (*ls_attempt_fn)(void *ctx, const int64_t *cap,
				   int32_t *placement, bool *overflowed,
				   dp_err *err);

/* Runs attempt with the machine's caps, simulates the placement under
 * contention c, and while a device overflows in the simulator although the
 * attempt found room for everything, retries (a few rounds) with that
 * device's budget lowered by its overflow. Keeps the best placement:
 * feasible before infeasible, then shorter makespan, then less overflow.
 * algo names the algorithm in a cancel message. */
dp_status dpi_ls_verify(const char *algo, const dp_graph *g,
			const dp_machine *m, dp_contention c,
			ls_attempt_fn attempt, void *ctx, const dp_progress *p,
			int32_t *placement, dp_err *err);

#endif

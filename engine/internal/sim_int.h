/* sim_int.h - the simulator's private state, shared by sim_setup.c (checks
 * and priorities), sim.c (the event loop), sim_memory.c (memory intervals
 * and peaks) and sim_path.c (the schedule's critical path). Not a public
 * header.
 */
#ifndef DNNPART_SIM_INT_H
#define DNNPART_SIM_INT_H

#include <stdint.h>

#include "dnnpart/sim.h"
#include "internal/grow.h"

#define SIM_NONE UINT32_MAX
/* High bit of a compact successor entry: the edge is a control edge. */
#define SIM_CTRL 0x80000000u
/* Largest single tensor the memory sweep can carry (it packs the device
 * number above the byte count in one 64-bit word): 2^53 bytes, 8 PiB. */
#define SIM_MAX_TENSOR (INT64_C(1) << 53)

/* An entry of the event queue: an op ending on a device (kind 0, id =
 * device) or an op becoming available (kind 1, id = op). key = kind << 31 |
 * id, so that at one instant ends come first, in increasing device number. */
typedef struct sim_event {
	double t;
	uint32_t key;
} sim_event;

/* What the event loop touches for each consumer of an ending op, packed so
 * that it is one memory access: latest arrival so far, producers not yet
 * ended, device. */
typedef struct sim_node {
	double avail;
	uint32_t missing;
	int32_t dev;
} sim_node;

/* A memory event for the sweep: key = time bits << 1 | is_alloc (frees sort
 * before allocations at one instant), val = device << 53 | bytes. */
typedef struct sim_mem_event {
	uint64_t key;
	uint64_t val;
} sim_mem_event;

struct dp_sim {
	const dp_graph *g;
	const dp_machine *m;
	int k;
	uint32_t n;
	double lat, bw;

	/* fixed per (graph, machine) */
	double *rank;	     /* n: upward rank */
	uint32_t *prio;	     /* n: priority index of each op, 0 = first */
	uint32_t *by_prio;   /* n: op of each priority index */
	double *ptime;	     /* n: time_us of the op of each priority index */
	uint32_t *indeg;     /* n: number of in-edges (data and control) */
	uint32_t *succ_to;   /* nedges, CSR order of g: consumer | SIM_CTRL */
	int64_t *succ_bytes; /* nedges: data bytes (0 for control) */
	int64_t *out_bytes;  /* n: max(output_bytes, largest out-edge bytes) */

	/* per-run scratch, per op */
	sim_node *node;
	uint32_t *prev_on_dev; /* op that ran just before on the same device */
	uint32_t *xoff;	       /* first transfer of the op (creation order) */
	uint16_t *xnum;	       /* number of its transfers (< DP_MAX_DEVICES) */
	double *outfree;       /* when its output is freed on its device */
	uint32_t *ready; /* the ready heaps of all devices, back to back */
	sim_event *ev;	 /* event queue (binary heap), n + k entries */
	uint32_t nev;

	/* per-run scratch, per device */
	uint32_t *rbase, *rlen; /* ready heap of device d: ready[rbase[d]..) */
	uint32_t *running;	/* op running on d, SIM_NONE when idle */
	uint32_t *last;		/* last op started on d, SIM_NONE before */
	double *send_free, *recv_free;
	double *xend;	     /* end of the current op's transfer to d */
	int64_t *xbytes;     /* bytes of the current op's transfer to d */
	/* link "file" (dp_machine.link_file): the time of each data edge, CSR
	 * order (the graph's own, else lat + bytes/bw), and of the current
	 * op's transfer to d (its largest edge there); both NULL otherwise */
	double *xcost_edge;
	double *xcost;
	uint32_t *xidx;	     /* index of the current op's transfer to d */
	uint32_t *touched;   /* devices with a transfer of the current op */
	uint8_t *dirty_flag; /* d is in dirty[] */
	uint32_t *dirty;     /* devices to look at in the start phase */
	uint32_t ndirty;
	int64_t *level;	  /* memory sweep: current bytes on d */
	double *last_t;	  /* memory curve: last point's time on d */
	uint32_t *dcount; /* k + 1 counters */

	/* grow-only buffers sized by the largest run so far */
	double *copyfree; /* per transfer: when the copy is freed */
	uint32_t cap_copyfree;
	sim_mem_event *mev, *mtmp;
	size_t cap_mev;
	uint32_t *hist; /* radix sort histograms */

	/* what the last run computed, for dp_sim_finish() */
	const dp_sim_result *last_res; /* its result, NULL before any run */
	unsigned done;		       /* SIM_DONE_* bits */
};

/* Parts of a result computed after the schedule (dp_sim_run, dp_sim_finish). */
enum {
	SIM_DONE_MEMORY = 1u, /* peaks and feasibility */
	SIM_DONE_LIVE = 2u,   /* live tensors at the peaks */
	SIM_DONE_CURVES = 4u, /* memory curves */
	SIM_DONE_PATH = 8u,   /* the schedule's critical path */
};

/* sim_memory.c: computes peaks (always) and, when asked, the live tensors
 * at each peak and the memory curves (lists not asked for are left empty).
 * Needs start/end/xfers in r. */
dp_status dpi_sim_memory(dp_sim *s, const int32_t *pl, bool live, bool curves,
			 dp_sim_result *r, dp_err *err);
/* sim_memory.c: the result of a run that skipped memory: has_memory false,
 * peaks = params at time 0, feasibility on params alone, empty lists. */
void dpi_sim_memory_skipped(dp_sim *s, dp_sim_result *r);

/* sim_path.c: the schedule's critical path (docs/simulator.md) into
 * r->cp_*. */
dp_status dpi_sim_critical_path(dp_sim *s, const int32_t *pl, dp_sim_result *r,
				dp_err *err);

#endif

/* sim.h - the discrete-event simulator: one cost model for every placement.
 *
 * The rules are docs/simulator.md's, exactly:
 * list scheduling by upward rank, one transfer per (tensor, target device),
 * contention models port (default) and none, time-resolved memory per device,
 * the schedule's critical path with the cause of each hop, lower bounds.
 *
 * A dp_sim is built once per (graph, machine link/speed/K setting): it
 * precomputes priorities and owns scratch buffers, so dp_sim_run() does not
 * allocate after the first run with a given result (results keep their
 * buffers between runs). Caps are read from the machine at each run, so a
 * cap change needs no new dp_sim; a change of K, speeds, bandwidth or latency
 * does. A dp_sim is not thread-safe; use one per thread.
 *
 * Times are µs, sizes bytes. Ops that are placed on a device >= k, or
 * negative, are an error (DP_EINPUT naming the op).
 */
#ifndef DNNPART_SIM_H
#define DNNPART_SIM_H

#include <stdbool.h>
#include <stdint.h>

#include "err.h"
#include "graph.h"
#include "machine.h"

typedef enum dp_contention {
	DP_CONT_PORT = 0, /* one send and one receive at a time per device */
	DP_CONT_NONE =
		1, /* transfers never wait (the reference ParDNN's model) */
} dp_contention;

/* Why an op on the schedule's critical path started when it did. */
typedef enum dp_hop_cause {
	DP_HOP_START = 0,    /* first op of the path: started at time 0 */
	DP_HOP_DATA = 1,     /* waited for a producer on the same device */
	DP_HOP_TRANSFER = 2, /* waited for a transfer from another device */
	DP_HOP_DEVICE = 3,   /* waited for the previous op on its device */
} dp_hop_cause;

typedef struct dp_transfer {
	uint32_t op; /* producer whose output moves */
	int32_t src, dst;
	int64_t bytes;
	double start, end;
} dp_transfer;

typedef enum dp_mem_kind {
	DP_MEM_PARAM = 0,  /* param_bytes of an op placed on the device */
	DP_MEM_OUTPUT = 1, /* an op's output on its own device */
	DP_MEM_COPY = 2,   /* a received copy of another device's output */
	DP_MEM_TEMP = 3,   /* workspace while the op runs */
} dp_mem_kind;

/* A tensor live on a device at that device's memory peak. */
typedef struct dp_live_tensor {
	uint32_t op;
	int32_t kind; /* dp_mem_kind */
	int64_t bytes;
	double alloc, free; /* [alloc, free) in µs; params: [0, makespan) */
} dp_live_tensor;

/* One step of a device's memory curve: from time t on, the device holds
 * bytes (until the next point). Points are in time order. */
typedef struct dp_mem_point {
	double t;
	int64_t bytes;
} dp_mem_point;

typedef struct dp_device_stats {
	uint32_t ops;	/* ops placed on it */
	double busy_us; /* sum of durations of its ops */
	int64_t comm_in_bytes, comm_out_bytes;
	double comm_in_us, comm_out_us; /* sum of transfer durations */
	uint32_t xfers_in, xfers_out;
	int64_t param_bytes; /* persistent memory */
	int64_t peak_bytes;
	double peak_time;  /* first instant the peak is reached */
	int64_t cap_bytes; /* what the plan may use: the machine's cap at
			      this run less its reserve (machine.h) */
	int64_t reserve_bytes; /* that reserve: the cap is cap_bytes +
				  reserve_bytes (0 for no cap) */
	double speed;	   /* the machine's speed factor at this run */
} dp_device_stats;

typedef struct dp_sim_opts {
	dp_contention contention;
	/* Fill the detail parts of the result: live tensors at each peak,
	 * memory curves, the schedule critical path. Search loops leave it
	 * off; reports turn it on. */
	bool detail;
	/* Skip the memory pass (false, the default of a zeroed struct, computes
	 * memory as always). The schedule is identical either way (start, end,
	 * avail, transfers, makespan, busy and communication statistics, cut
	 * counts); what is skipped is the sweep over memory intervals, about
	 * half of a run. Then has_memory is false, each device's peak_bytes is
	 * its param_bytes (a lower bound of its real peak) with peak_time 0,
	 * feasible is false only when params alone exceed a cap, and the live
	 * tensors and curves are empty (with detail the critical path is still
	 * filled). For search loops that compare makespans where no device has
	 * a cap, or that reject on the makespan before they look at memory
	 * (dp_sim_finish() adds the memory pass to an accepted candidate): with
	 * finite caps a move can make a feasible plan infeasible, so a caller
	 * that keeps a plan must have its peaks. */
	bool skip_memory;
	/* With detail: leave out the live tensors at the peaks (skip_live) or
	 * the memory curves (skip_curves); the lists are then empty. Peaks and
	 * the critical path are still computed. */
	bool skip_live;
	bool skip_curves;
} dp_sim_opts;

typedef struct dp_sim_result {
	uint32_t nops;
	int k;
	double *start, *end; /* per op */
	double *avail;	     /* per op: when all its inputs had arrived */
	dp_transfer *xfers;  /* in creation order */
	uint32_t nxfers;
	dp_device_stats *dev; /* k entries */
	double makespan;
	bool feasible;	   /* every device's peak <= its cap */
	bool has_memory;   /* peaks were computed (false after skip_memory) */
	int64_t cut_bytes; /* sum of bytes of all transfers */
	uint32_t
		cut_edges; /* data or control edges whose ends differ in device */

	/* detail (only when opts.detail; a run without detail leaves cp_len
	 * 0 and the live and curve lists empty). Params are a device's base
	 * level for the whole step; its curve ends with (makespan, 0) when the
	 * makespan is > 0. Live tensors: per device, ops in id order (param,
	 * output, temp), then received copies in transfer order. */
	uint32_t *cp_ops;  /* schedule critical path, first op first */
	uint8_t *cp_cause; /* dp_hop_cause of each entry */
	uint32_t cp_len;
	dp_live_tensor *live; /* live tensors at each device's peak */
	uint32_t *live_off;   /* k+1: device d's are live[live_off[d]..) */
	dp_mem_point *curve;  /* memory curves of all devices */
	uint32_t *curve_off;  /* k+1: device d's are curve[curve_off[d]..) */

	/* internal capacities, so a result can be reused without allocating */
	uint32_t cap_ops, cap_xfers, cap_live, cap_curve, cap_cp;
	int cap_k;
} dp_sim_result;

typedef struct dp_sim dp_sim;

/* Builds a simulator for g (finalized) on m. The machine must outlive it and
 * must not change K, speeds or links while it is in use. */
dp_sim *dp_sim_new(const dp_graph *g, const dp_machine *m, dp_err *err);
void dp_sim_free(dp_sim *s);

/* Upward rank (priority) of each op, as docs/simulator.md defines it. */
const double *dp_sim_ranks(const dp_sim *s);

/* Simulates placement (nops device indices) and fills r. r must be zeroed
 * before its first use (or be a result from an earlier run). o may be NULL
 * (port contention, no detail, memory computed). */
dp_status dp_sim_run(dp_sim *s, const int32_t *placement, const dp_sim_opts *o,
		     dp_sim_result *r, dp_err *err);

/* Completes r, the result of this simulator's last dp_sim_run() (with the
 * same placement; no other run in between), with the parts that run
 * skipped and o asks for: the memory pass when it ran with skip_memory and
 * o->skip_memory is false, and with o->detail the critical path, live
 * tensors and curves (each unless o skips it). Parts already there are not
 * computed again; the result is then exactly what dp_sim_run() with o would
 * have given. Lets a search loop simulate a candidate without memory,
 * reject it on its makespan, and pay for the memory pass only for the
 * candidates it may keep. DP_EINTERNAL when r is not the last run's result
 * (the simulator's scratch state belongs to its last run). */
dp_status dp_sim_finish(dp_sim *s, const int32_t *placement,
			const dp_sim_opts *o, dp_sim_result *r, dp_err *err);

void dp_sim_result_free(dp_sim_result *r);

/* Lower bound and reference numbers of a graph on a machine (no placement):
 * graph critical path (time_us / max speed), work bound (sum time_us / sum
 * of speeds), LB = max of the two, and the one-device time (sum time_us /
 * speed of device 0). */
typedef struct dp_bounds {
	double graph_cp_us;
	double work_bound_us;
	double lb_us;
	double one_device_us;
} dp_bounds;
void dp_sim_bounds(const dp_graph *g, const dp_machine *m, dp_bounds *b);
/* Like dp_sim_bounds, but reports a failure to allocate the scratch space of
 * the graph critical path (DP_ENOMEM; graph_cp_us is then 0), which
 * dp_sim_bounds silently ignores. */
dp_status dp_sim_bounds_checked(const dp_graph *g, const dp_machine *m,
				dp_bounds *b, dp_err *err);

const char *dp_sim_contention_name(dp_contention c);
dp_status dp_sim_contention_parse(const char *s, dp_contention *c, dp_err *err);
const char *dp_sim_hop_cause_name(dp_hop_cause c);
const char *dp_sim_mem_kind_name(dp_mem_kind k);

#endif

/* graph.h - the computational graph of one training step.
 *
 * Ops and edges live in flat arrays indexed by id (ops are numbered in input
 * order, from 0). Strings (names, types, layers, colocation labels) live in
 * one arena; names have a hash index. After dp_graph_finalize() the graph also
 * holds CSR successor and predecessor lists, a topological order and the
 * colocation groups, and it must not be changed any more.
 *
 * Building: dp_graph_new(), dp_graph_add_op() / graph_set_*() / dp_graph_add_edge(),
 * then dp_graph_finalize(). A finalized graph is read-only and may be shared by
 * several threads. dp_graph_free() releases everything.
 *
 * Sizes are bytes (int64_t), times are microseconds (double) on a reference
 * device of speed 1.0.
 */
#ifndef DNNPART_GRAPH_H
#define DNNPART_GRAPH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "err.h"

/* Largest graph accepted: ids are 32-bit and a few arrays are per edge. */
#define DP_MAX_OPS 50000000u
#define DP_MAX_EDGES 200000000u
/* Largest sum of every op's output, param and temp bytes and every edge's
 * bytes (4 PiB). Every memory or traffic total the simulator and the
 * algorithms keep in int64 is at most this sum (a transfer carries one
 * edge's bytes), so capping it keeps those sums from overflowing. */
#define DP_MAX_GRAPH_BYTES ((int64_t)1 << 52)
/* Largest sum of every op's time_us (1e15 µs, about 31 years): with device
 * speeds of at least 1e-6 and links of at least 1 B/s, every time the
 * simulator computes stays a finite double. */
#define DP_MAX_GRAPH_TIME_US 1e15

typedef struct dp_op {
	uint32_t name;	      /* offset into g->strs; unique */
	uint32_t type;	      /* offset into g->strs; 0 = "" (unknown) */
	uint32_t layer;	      /* offset into g->strs; 0 = "" (none) */
	int32_t colocate;     /* colocation group id, -1 = none */
	int32_t pin;	      /* device index, -1 = free */
	double time_us;	      /* >= 0, finite */
	int64_t output_bytes; /* >= 0 */
	int64_t param_bytes;  /* >= 0 */
	int64_t temp_bytes;   /* >= 0 */
} dp_op;

typedef struct dp_edge {
	uint32_t from, to;
	int64_t bytes; /* data bytes; after finalize: resolved (producer's
			   output_bytes when the input gave none; 0 for control) */
	bool control;  /* no data: costs latency only, uses no port */
} dp_edge;

/* Defaults that an input file may carry for the machine ("machine" block of
 * the native JSON, msr-fiddle's maxFPGAs / maxSizePerFPGA, ...). Command-line
 * settings override them. Zero / negative means "not given". */
typedef struct dp_machine_hint {
	int devices;
	int64_t memory_bytes; /* per device */
	double bw_bytes_per_us;
	double lat_us; /* < 0: not given */
} dp_machine_hint;

typedef struct dp_graph {
	char *name;   /* graph name (from the file or its basename) */
	char *source; /* path it was loaded from, "" if built in memory */

	uint32_t nops, ops_cap;
	dp_op *ops;
	uint32_t nedges, edges_cap;
	dp_edge *edges;

	/* string arena: offset 0 is the empty string */
	char *strs;
	size_t strs_len, strs_cap;

	/* name -> op id open-addressing hash (internal) */
	uint32_t *name_hash;
	uint32_t name_hash_cap;

	/* colocation group labels: group id -> string offset */
	uint32_t ngroups, groups_cap;
	uint32_t *group_label;
	/* interning of colocation labels (internal) */
	uint32_t *group_hash;
	uint32_t group_hash_cap;
	/* interning of type and layer strings (internal) */
	uint32_t *intern_hash;
	uint32_t intern_hash_cap, nintern;

	dp_machine_hint hint;

	/* Loader notes for the front ends to report; 0 when not applicable. */
	uint32_t cpu_pinned;	/* ops the input pins to the host CPU (ParDNN
				   .place device -1, msr-fiddle supportedOnFpga
				   false): kept out of the graph, so out of the K
				   accelerators; dependencies through them are
				   kept as control edges */
	uint32_t unknown_names; /* side-file entries (durations, sizes, lists)
				   naming no op of the graph; skipped */

	/* ---- valid after dp_graph_finalize() ---- */
	bool finalized;
	uint32_t *
		succ_off; /* nops+1: out-edges of u are succ_edge[succ_off[u] .. succ_off[u+1]) */
	uint32_t *succ_edge; /* nedges: edge ids, in input order per op */
	uint32_t *pred_off;  /* nops+1 */
	uint32_t *pred_edge; /* nedges */
	uint32_t *
		topo; /* nops: topological order (Kahn, smallest op id first) */
	uint32_t *topo_pos; /* nops: position of each op in topo */
	uint32_t *
		group_off; /* ngroups+1: members of group c are group_ops[group_off[c] ..) */
	uint32_t
		*group_ops; /* ops that have a group, sorted by group then id */

	/* totals, computed by finalize */
	double total_time_us;
	int64_t total_output_bytes, total_param_bytes, max_temp_bytes;
} dp_graph;

/* Empty graph with the given name (may be NULL). NULL on allocation failure. */
dp_graph *dp_graph_new(const char *name);
void dp_graph_free(dp_graph *g);

/* Sets g->source (the path the graph came from). */
dp_status dp_graph_set_source(dp_graph *g, const char *path, dp_err *err);
dp_status dp_graph_set_name(dp_graph *g, const char *name, dp_err *err);

/* Adds an op with defaults (time 0, sizes 0, no type/layer/group, pin -1)
 * and stores its id in *id. Errors: empty or duplicate name (DP_EINPUT,
 * message names the op; the caller adds the file position), too many ops,
 * no memory. */
dp_status dp_graph_add_op(dp_graph *g, const char *name, uint32_t *id,
			  dp_err *err);

/* Looks an op up by name; returns its id or UINT32_MAX. */
uint32_t dp_graph_find(const dp_graph *g, const char *name);

/* Setters for string fields; they intern the string. */
dp_status dp_graph_set_type(dp_graph *g, uint32_t op, const char *type,
			    dp_err *err);
dp_status dp_graph_set_layer(dp_graph *g, uint32_t op, const char *layer,
			     dp_err *err);
/* Puts op into the colocation group with this label (created on first use);
 * "" removes it from its group. */
dp_status dp_graph_set_colocate(dp_graph *g, uint32_t op, const char *label,
				dp_err *err);

/* Adds an edge. bytes < 0 means "the producer's output_bytes". Errors:
 * self-loop, too many edges, no memory. Duplicate edges are kept. */
dp_status dp_graph_add_edge(dp_graph *g, uint32_t from, uint32_t to,
			    int64_t bytes, bool control, dp_err *err);

/* Checks a numeric field a loader is about to store: finite and >= 0.
 * On error fills err with "FIELD of op NAME must be a finite number >= 0,
 * got X" (position left to the caller to fill). */
dp_status dp_graph_check_number(const char *field, const char *opname, double v,
				dp_err *err);

/* Validates and freezes the graph: builds CSR lists, the topological order,
 * colocation group lists and totals; resolves edge bytes. Errors (DP_EINPUT):
 * a cycle (message names the ops on one cycle, in order), negative or
 * non-finite numbers, ops of one colocation group pinned to different
 * devices. The file name for messages is g->source. */
dp_status dp_graph_finalize(dp_graph *g, dp_err *err);

/* Accessors. */
static inline const char *dp_graph_str(const dp_graph *g, uint32_t off)
{
	return g->strs + off;
}
static inline const char *dp_graph_op_name(const dp_graph *g, uint32_t op)
{
	return g->strs + g->ops[op].name;
}

/* Approximate heap bytes held by the graph (for limits and benchmarks). */
size_t dp_graph_memory_bytes(const dp_graph *g);

/* Graph critical path (longest path by time_us / max_speed, no
 * communication). Writes the ops of the path, in order, into path (nops
 * entries; may be NULL) and their count into *len; returns the length in µs
 * at speed max_speed. Returns a negative value on allocation failure. */
double dp_graph_critical_path(const dp_graph *g, double max_speed,
			      uint32_t *path, uint32_t *len);

#endif

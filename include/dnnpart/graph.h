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

#include <math.h>
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
	uint32_t dims;	      /* iteration space, 0 = none; read it with
			       dp_op_dims() (internal: a record of g->dims) */
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
	uint32_t dims; /* the consumer's dims indexing the tensor, 0 = none;
			   read them with dp_edge_dims() */
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

	/* name -> op id open-addressing hash: name_hash_cap slots of an id
	 * and its name's hash (internal) */
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

	/* iteration spaces and roles (internal; use the accessors below):
	 * records of op and edge dims, 8-byte aligned (offset 0: no record),
	 * stored once each (dims_hash); the dp_role of each op, NULL until a
	 * role is set; the batch dim's name (offset into strs, 0 = none) */
	unsigned char *dims;
	size_t dims_len, dims_cap;
	uint32_t *dims_hash;
	uint32_t dims_hash_cap, ndims_records;
	uint8_t *roles;
	uint32_t roles_cap;
	uint32_t batch_dim;
	/* the lever set the graph was made with (levers.h: "bf16+full"), an
	 * offset into strs; 0 = none */
	uint32_t levers;
	/* bytes --offload keeps in host memory (levers.h), 0 = none */
	int64_t host_bytes;

	/* Loader notes for the front ends to report; 0 when not applicable. */
	uint32_t cpu_pinned;	/* ops the input pins to the host CPU (ParDNN
				   .place device -1, msr-fiddle supportedOnFpga
				   false): kept out of the graph, so out of the K
				   accelerators; dependencies through them are
				   kept as control edges */
	uint32_t unknown_names; /* side-file entries (durations, sizes, lists)
				   naming no op of the graph; skipped */

	/* Optional per-edge transfer times the input gives (msr-fiddle's edge
	 * `cost`), in µs; NULL when none, else xfer_cap >= nedges entries, NAN
	 * for an edge without one. Used instead of latency + bytes/bandwidth
	 * when the machine's link is "file" (dp_machine.link_file); read them
	 * with dp_edge_xfer_us(). */
	double *xfer_us;
	uint32_t xfer_cap;

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

/* Sets edge e's transfer time (µs, finite, >= 0) given by the input: see
 * dp_graph.xfer_us. Errors: e out of range, a bad number, no memory. */
dp_status dp_graph_set_edge_xfer(dp_graph *g, uint32_t e, double us,
				 dp_err *err);

/* Edge e's transfer time given by the input, or NAN when it has none. */
static inline double dp_edge_xfer_us(const dp_graph *g, uint32_t e)
{
	return g->xfer_us && e < g->xfer_cap ? g->xfer_us[e] : (double)NAN;
}

/* Checks a numeric field a loader is about to store: finite and >= 0.
 * On error fills err with "FIELD of op NAME must be a finite number >= 0,
 * got X" (position left to the caller to fill). */
dp_status dp_graph_check_number(const char *field, const char *opname, double v,
				dp_err *err);

/* Validates and freezes the graph: builds CSR lists, the topological order,
 * colocation group lists and totals; resolves edge bytes. Errors (DP_EINPUT):
 * a cycle (message names the ops on one cycle, in order), negative or
 * non-finite numbers, ops of one colocation group pinned to different
 * devices, iteration spaces that disagree with the bytes or with each
 * other (see "Iteration spaces" below: the message names the op or edge and
 * the field). The file name for messages is g->source. */
dp_status dp_graph_finalize(dp_graph *g, dp_err *err);

/* ---- Iteration spaces and roles (docs/formats.md) ----
 *
 * Optional fields that strategies splitting ops and micro-batches need; a
 * graph without them loads and behaves as before, and its ops and edges
 * cost no memory for them (dp_op.dims and dp_edge.dims sit in what was
 * padding; roles take one byte per op once any op has one).
 *
 * An op's iteration space is its loop nest: named dims with sizes (`dims`,
 * in the order given), the dims that index its output tensor, in order
 * (`out`; a dim of dims not in out is a reduction dim), the dims that index
 * its param tensor (`param`) and the bytes of one element (`elem_bytes`,
 * default 4). An edge's dims are the consumer's dims that index the tensor
 * it carries, one per dim of the producer's out, in the same order. The
 * graph's batch dim is the dim that data parallelism and micro-batches
 * split.
 *
 * Rules (checked when the fields are set, or by dp_graph_finalize() for
 * those that involve bytes, other ops or the whole graph):
 *   - a dim name is 1..DP_MAX_DIM_NAME letters, digits or '_', not
 *     starting with a digit; an op has at most DP_MAX_OP_DIMS dims, each
 *     named once, each of size 1..2^62;
 *   - every name in out and param is a dim of the op, named once there,
 *     and each of the two tensors holds at most 2^62 bytes;
 *   - elem_bytes is an integer 1..DP_MAX_ELEM_BYTES;
 *   - output_bytes, when not 0, equals product(out sizes) x elem_bytes
 *     (0: the output takes no memory of its own, as a variable's output
 *     is the weights its param_bytes already count; bytes are never
 *     filled in from dims);
 *   - param_bytes, when not 0, is at least product(param sizes) x
 *     elem_bytes (it may hold more: gradients, optimizer state, tensors
 *     such as a bias that the param dims do not index; 0: the param is
 *     held elsewhere, as an update op's is by its variable);
 *   - an edge with dims is a data edge whose producer has out; it names as
 *     many dims as the producer's out has, each a dim of the consumer named
 *     once, each of the same size as the producer's out dim at its
 *     position; its bytes (given, else the producer's output_bytes)
 *     equal the producer's out tensor (product(out sizes) x the
 *     producer's elem_bytes);
 *   - a producer with dims but no out has several output tensors: an edge
 *     out of it may give dims (each a dim of the consumer) and from_dims
 *     (the producer's dims of that output, one per dim, of the same
 *     sizes); the bytes equal product(sizes) x the producer's elem_bytes;
 *     from_dims on an edge whose producer has out is an error;
 *   - the batch dim is a dim of at least one op.
 * Errors are DP_EINPUT with a message naming the op and what was expected;
 * loaders add the file position. */
#define DP_MAX_OP_DIMS 32
#define DP_MAX_DIM_NAME 63
#define DP_MAX_ELEM_BYTES 1024
#define DP_DEFAULT_ELEM_BYTES 4

/* An op's iteration space to set (dp_graph_set_op_dims). */
typedef struct dp_dims_spec {
	uint32_t n;		  /* number of dims, 0..DP_MAX_OP_DIMS */
	const char *const *names; /* n dim names */
	const int64_t *sizes;	  /* n sizes, each >= 1 */
	int32_t nout;		  /* dims indexing the output; -1 = not given */
	const char *const *out;	  /* nout dim names */
	int32_t nparam;		  /* dims indexing the param; -1 = not given */
	const char *const *param; /* nparam dim names */
	int64_t elem_bytes;	  /* 0 = DP_DEFAULT_ELEM_BYTES */
} dp_dims_spec;

/* An op's iteration space as read (dp_op_dims). The pointers point into
 * the graph: valid until the graph is changed or freed, read-only. */
typedef struct dp_dims {
	uint32_t n;		  /* number of dims */
	const uint32_t *name_off; /* n offsets into g->strs (dp_graph_str) */
	const int64_t *sizes;	  /* n sizes, each >= 1 */
	int32_t nout;		  /* -1 = out not given */
	const uint8_t *out;	  /* nout indices into name_off / sizes */
	int32_t nparam;		  /* -1 = param not given */
	const uint8_t *param;	  /* nparam indices */
	int64_t elem_bytes;
} dp_dims;

/* Gives op its iteration space (replacing any it had); the strings and
 * arrays of spec are copied. Checks the rules that concern the op alone
 * (names, sizes, out and param naming its dims, elem_bytes); the bytes are
 * checked by dp_graph_finalize(). Errors: DP_EINPUT with a message that
 * says which field and what was expected; DP_ENOMEM. */
dp_status dp_graph_set_op_dims(dp_graph *g, uint32_t op,
			       const dp_dims_spec *spec, dp_err *err);

/* Reads op's iteration space into *d; returns false, with *d = {n = 0,
 * nout = nparam = -1, elem_bytes = 4}, when the op has none. */
bool dp_op_dims(const dp_graph *g, uint32_t op, dp_dims *d);

/* Index of the dim called name in op's dims, or -1 (also when the op has
 * no iteration space). */
int dp_op_find_dim(const dp_graph *g, uint32_t op, const char *name);

/* Gives edge e the consumer's dims that index its tensor (n names, copied;
 * n may be 0 when the producer's output is a scalar). Checks the names
 * (syntax, each named once); how they fit the producer and the consumer is
 * checked by dp_graph_finalize(). Errors: DP_EINPUT, DP_ENOMEM. */
dp_status dp_graph_set_edge_dims(dp_graph *g, uint32_t e, uint32_t n,
				 const char *const *names, dp_err *err);

/* Edge e's dims: returns their number and points *name_off at their name
 * offsets into g->strs (valid until the graph changes); -1, with *name_off
 * NULL, when the edge has none. */
int dp_edge_dims(const dp_graph *g, uint32_t e, const uint32_t **name_off);
/* The producer's dims that index edge e's tensor (`from_dims`, given for an
 * edge out of an op with several outputs, aligned with its dims): their
 * number, -1 with *name_off NULL when the edge has none. */
int dp_edge_from_dims(const dp_graph *g, uint32_t e,
		      const uint32_t **name_off);

/* Sets the graph's batch dim ("" or NULL: none). Checks the name's syntax;
 * that some op has it is checked by dp_graph_finalize(). */
dp_status dp_graph_set_batch_dim(dp_graph *g, const char *name, dp_err *err);
/* The batch dim's name, "" when the graph has none. */
const char *dp_graph_batch_dim(const dp_graph *g);

/* The batch size: the batch dim's size in the first op that has it; 0
 * when the graph has no batch dim or no op names it. */
int64_t dp_graph_batch_size(const dp_graph *g);
/* A finalized copy of g (finalized) for batch size batch: every op whose
 * dims hold the batch dim gets it scaled by batch / dp_graph_batch_size(g),
 * its time and temp by the same factor, its output bytes when its output is
 * indexed by the batch dim; data edges that carry the batch dim scale with
 * their producer. Ops without dims and params are unchanged. DP_EINPUT
 * when g has no batch dim, batch is not 1..2^40, or an op's batch dim
 * would not be a whole number (naming the op); DP_ENOMEM. */
dp_status dp_graph_with_batch(const dp_graph *g, int64_t batch,
			      dp_graph **out, dp_err *err);

/* What an op does in the training step (docs/formats.md). */
typedef enum dp_role {
	DP_ROLE_NONE = 0, /* not given */
	DP_ROLE_INPUT,	  /* reads a batch of data */
	DP_ROLE_PARAM,	  /* holds weights (a variable) */
	DP_ROLE_FORWARD,
	DP_ROLE_BACKWARD,
	DP_ROLE_GRAD,	/* computes a weight gradient */
	DP_ROLE_UPDATE, /* optimizer step */
	DP_ROLE_LOSS,
	DP_ROLE_COUNT
} dp_role;

/* The role's name as written in files ("forward", ...); "" for
 * DP_ROLE_NONE and for values out of range. */
const char *dp_role_name(dp_role r);
/* Parses a role name (exact, lower case). Errors: DP_EINPUT "unknown role
 * 'X': expected one of input, param, forward, backward, grad, update,
 * loss" (the caller adds the position). */
dp_status dp_role_parse(const char *s, dp_role *out, dp_err *err);
/* Sets op's role (DP_ROLE_NONE clears it). Errors: DP_EINPUT for a value
 * out of range, DP_ENOMEM. */
dp_status dp_graph_set_role(dp_graph *g, uint32_t op, dp_role role,
			    dp_err *err);
/* op's role; DP_ROLE_NONE when not given. */
static inline dp_role dp_op_role(const dp_graph *g, uint32_t op)
{
	return g->roles ? (dp_role)g->roles[op] : DP_ROLE_NONE;
}

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

/* graph_int.h - graph internals shared by engine/core/graph.c, graph_dims.c
 * and the loaders (not part of the public API). */
#ifndef DNNPART_GRAPH_INT_H
#define DNNPART_GRAPH_INT_H

#include "dnnpart/graph.h"

/* Stores s once in the string arena (interned: equal strings share one
 * offset); "" and NULL are offset 0. what names the string in the error
 * when it is not UTF-8. */
/* Makes room for nops ops, nedges edges and name_bytes more bytes of names
 * (builders that know the size: the lowering of a strategy), so that the
 * arrays and the name index do not grow step by step. DP_ENOMEM. */
dp_status dpi_graph_reserve(dp_graph *g, uint32_t nops, uint32_t nedges,
			    size_t name_bytes, dp_err *err);
dp_status dpi_graph_intern(dp_graph *g, const char *s, const char *what,
			   uint32_t *off, dp_err *err);

/* Where a rule about an iteration space was broken, so that a loader can
 * point at it: the field of the op or edge ("dims", "out", "param",
 * "elem_bytes", "output_bytes", "param_bytes", "bytes", or "batch_dim" for
 * the graph) and the entry in it (the i-th dim of dims, the i-th name of
 * out, param or an edge's dims), -1 for the field as a whole. */
typedef struct dpi_dims_at {
	const char *field;
	int index;
} dpi_dims_at;

/* Fills err (DP_EINPUT, no position) with the message and *at (may be
 * NULL) with the field and entry; returns DP_EINPUT. */
dp_status dpi_graph_dims_fail(dpi_dims_at *at, const char *field, int index,
			      dp_err *err, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

/* dp_graph_set_op_dims / dp_graph_set_edge_dims / dp_graph_set_batch_dim
 * that also say where a rule was broken. err->msg holds what was wrong,
 * without the op's name or a position. */
dp_status dpi_graph_set_op_dims(dp_graph *g, uint32_t op,
				const dp_dims_spec *spec, dpi_dims_at *at,
				dp_err *err);
/* from: NULL, or the producer's n dims that index the tensor (an edge out
 * of an op with several outputs: `from_dims`). */
dp_status dpi_graph_set_edge_dims(dp_graph *g, uint32_t e, uint32_t n,
				  const char *const *names,
				  const char *const *from, dpi_dims_at *at,
				  dp_err *err);

/* Puts the op (edge when edge is true) and the field in front of err->msg:
 * "op 'mm', out[1]: ...", "edge 'a' -> 'b', dims: ...", "batch_dim: ...",
 * for messages without a file position (the public setters, finalize). */
void dpi_graph_dims_label(const dp_graph *g, bool edge, uint32_t id,
			  const dpi_dims_at *at, dp_err *err);

/* The rules that involve bytes (see graph.h): output_bytes and param_bytes
 * against op's out and param. Loaders call it once they have read an op,
 * so that its errors carry the op's position; dp_graph_finalize() calls it
 * for every op. */
dp_status dpi_graph_check_op_dims(const dp_graph *g, uint32_t op,
				  dpi_dims_at *at, dp_err *err);
/* The rules that tie edge e's dims to its producer and consumer (their
 * dims must be set first). Before finalize, e's bytes < 0 means "not
 * given"; after it the bytes are not checked again. */
dp_status dpi_graph_check_edge_dims(const dp_graph *g, uint32_t e,
				    dpi_dims_at *at, dp_err *err);
/* The batch dim, when set, is a dim of some op. */
dp_status dpi_graph_check_batch_dim(const dp_graph *g, dp_err *err);

/* Grows g->roles with g->ops (dp_graph_add_op); no-op while no op has a
 * role. Returns -1 when out of memory. */
int dpi_graph_grow_roles(dp_graph *g);
/* Heap bytes of the dims records, their index and the roles. */
size_t dpi_graph_dims_memory(const dp_graph *g);
void dpi_graph_free_dims(dp_graph *g);

/* Does any op of g have a pin? (engine/core/graph.c) */
bool dpi_graph_has_pins(const dp_graph *g);

#endif

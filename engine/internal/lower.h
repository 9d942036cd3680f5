/* lower.h - building a lowered graph (strategy.h, docs/spmd.md,
 * docs/pipeline.md; internal to the engine: engine/strategy/).
 *
 * Every kind of strategy lowers to a new graph plus a placement of it, each
 * lowered op remembering the user's op it came from and its micro-batch.
 * dpi_lower_* is the one way the lowering modules build that: begin, add
 * ops (they take the type, layer and role of their source op) and edges,
 * then finish (finalize and hand the arrays to a dp_lowered) or abort.
 */
#ifndef DNNPART_LOWER_H
#define DNNPART_LOWER_H

#include <stdbool.h>
#include <stdint.h>

#include "dnnpart/strategy.h"

typedef struct dpi_lower_buf {
	const dp_graph *src_g; /* the user's graph */
	dp_graph *g;	       /* the lowered graph being built */
	int32_t *placement;
	uint32_t *source;
	int32_t *micro;
	uint32_t cap;
} dpi_lower_buf;

/* Starts a lowered graph of src_g, named after it, with room for about
 * expect_ops ops (grown as needed). DP_ENOMEM. */
dp_status dpi_lower_begin(dpi_lower_buf *b, const dp_graph *src_g,
			  uint32_t expect_ops, dp_err *err);

/* What a lowered op is. */
typedef struct dpi_lower_op {
	uint32_t source; /* the user's op it comes from */
	int32_t device;
	int32_t micro; /* -1: none */
	double time_us;
	int64_t output_bytes, param_bytes, temp_bytes;
	dp_role role; /* DP_ROLE_NONE: the source op's role */
} dpi_lower_op;

/* Op u of g as it is, whole, on device: no micro-batch, its own time,
 * bytes and role. */
static inline dpi_lower_op dpi_lower_op_of(const dp_graph *g, uint32_t u,
					   int32_t device)
{
	const dp_op *o = &g->ops[u];
	return (dpi_lower_op){
		.source = u,
		.device = device,
		.micro = -1,
		.time_us = o->time_us,
		.output_bytes = o->output_bytes,
		.param_bytes = o->param_bytes,
		.temp_bytes = o->temp_bytes,
		.role = DP_ROLE_NONE,
	};
}

/* Adds an op called name (type and layer of op->source) and stores its id
 * in *id. A name that is taken (a user's op already called "a#d1") is
 * DP_EINPUT naming both. */
dp_status dpi_lower_add(dpi_lower_buf *b, const char *name,
			const dpi_lower_op *op, uint32_t *id, dp_err *err);

/* Adds a data edge of bytes (>= 0), or a control edge. */
dp_status dpi_lower_edge(dpi_lower_buf *b, uint32_t from, uint32_t to,
			 int64_t bytes, bool control, dp_err *err);

/* Finalizes the lowered graph and moves everything into *out (b is then
 * empty). On failure b is freed. */
dp_status dpi_lower_finish(dpi_lower_buf *b, dp_lowered *out, dp_err *err);

/* Frees what b holds. */
void dpi_lower_abort(dpi_lower_buf *b);

/* The lowering of each kind (engine/strategy/lower_*.c); s has passed
 * dp_strategy_check. */
typedef dp_status dpi_lower_fn(const dp_graph *g, const dp_machine *m,
			       const dp_strategy *s, const dp_progress *p,
			       dp_lowered *out, dp_err *err);
dp_status dpi_lower_spmd(const dp_graph *g, const dp_machine *m,
			 const dp_strategy *s, const dp_progress *p,
			 dp_lowered *out, dp_err *err);
dp_status dpi_lower_pipeline(const dp_graph *g, const dp_machine *m,
			     const dp_strategy *s, const dp_progress *p,
			     dp_lowered *out, dp_err *err);

/* What dpi_lower_pipeline_of pipelines: the user's graph (source and sub
 * NULL), or its spmd lowering by the split inside the stages (source: the
 * user's op of each op; sub: its device in its stage's group, of group). */
typedef struct dpi_pipe_src {
	const dp_graph *g;
	const uint32_t *source;
	const int32_t *sub;
	int group;
	uint8_t *kind; /* per op of g: dpi_pipe_kind */
} dpi_pipe_src;
dp_status dpi_lower_pipeline_of(const dp_graph *ug, const dp_strategy *s,
				const dpi_pipe_src *ps, const dp_progress *p,
				dp_lowered *out, dp_err *err);

/* A pipeline whose stages are tensor parallel (a split of some dim other
 * than the batch inside them): the spmd lowering of the split, pipelined
 * (lower_pipe_tp.c); and whether s is one (pipeline_check.c). */
dpi_lower_fn dpi_lower_pipeline_tp;
bool dpi_pipe_is_tp(const dp_graph *g, const dp_strategy *s);

/* A pipeline with a data-parallel split inside its stages (groups of
 * dp_spmd_size devices; lower_pipe3d.c), and its check. */
dp_status dpi_lower_pipeline3d(const dp_graph *g, const dp_machine *m,
			       const dp_strategy *s, const dp_progress *p,
			       dp_lowered *out, dp_err *err);
dp_status dpi_strategy_check_pipe3d(const dp_graph *g, const dp_strategy *s,
				    dp_err *err);

/* The checks of each kind, beyond what dp_strategy_check checks for all. */
dp_status dpi_strategy_check_spmd(const dp_graph *g, const dp_machine *m,
				  const dp_strategy *s, dp_err *err);
dp_status dpi_strategy_check_pipeline(const dp_graph *g, const dp_machine *m,
				      const dp_strategy *s, dp_err *err);

#endif

/* export_impl.h - shared pieces of the export writers (engine/export*.c).
 *
 * Numbers and sizes in exported files go through the one formatter,
 * dnnpart/units.h ('.' as the decimal point whatever LC_NUMERIC says, the
 * same text as the explorer and the CLI show), and JSON through the one
 * writer, dnnpart/json.h. Strings that come from the input (op names,
 * layers) may hold anything; the label escaper below turns invalid UTF-8
 * into U+FFFD so that SVG output stays well-formed.
 */
#ifndef DNNPART_EXPORT_IMPL_H
#define DNNPART_EXPORT_IMPL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "coarsen.h"
#include "dnnpart/afile.h"
#include "dnnpart/export.h"
#include "dnnpart/json.h"
#include "dnnpart/units.h"

/* Appends s to the buffer as text for a Graphviz escString attribute:
 * backslashes doubled, control characters shown as '?', invalid UTF-8 as
 * U+FFFD, at most max_chars characters (then "..."; 0 = no limit). */
typedef struct dpi_sbuf {
	char *s;
	size_t len, cap;
	bool oom;
} dpi_sbuf;
void dpi_sbuf_reset(dpi_sbuf *b);
void dpi_sbuf_free(dpi_sbuf *b);
void dpi_sbuf_puts(dpi_sbuf *b, const char *s);
void dpi_sbuf_printf(dpi_sbuf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void dpi_sbuf_put_label(dpi_sbuf *b, const char *s, size_t max_chars);

/* What a picture export was asked for (the arguments of
 * dpi_export_dot_write and dpi_export_svg_write). */
typedef struct dpi_picture_job {
	const char *path;
	const dp_graph *g;
	const dp_machine *m;
	const dp_plan *plan;
	const dp_export_opts *o;
	const dp_progress *p;
	dp_export_report *rep;
	const char *format; /* a rendered picture: "svg", "png" or "pdf" */
} dpi_picture_job;
/* Writes picture c (the coarsened graph) of job j into af->f; an error
 * leaves the file to the caller, who removes it. */
typedef dp_status (*dpi_picture_body)(const dpi_picture_job *j,
				      const dp_coarse *c, dp_afile *af,
				      dp_err *err);
/* The one frame of the DOT and SVG writers: coarsens j->g (auto_limit ops
 * at most drawn one node each under DP_COARSEN_AUTO), opens j->path through
 * afile, lets body write the picture, then commits, or removes the file on
 * an error or a cancel (nothing at the path unless it succeeds), and fills
 * j->rep (nodes, edges, grouping, a note when ops were grouped). */
dp_status dpi_export_picture(const dpi_picture_job *j, uint32_t auto_limit,
			     dpi_picture_body body, dp_err *err);

/* Device colors: Paul Tol's "light" scheme, readable in print and by
 * colour-blind readers; cycles after 9 devices. */
const char *dpi_export_device_color(int dev);
/* A paler tint of the same color, for the device's cluster background. */
const char *dpi_export_device_tint(int dev);
/* The color of the critical path (Tol "vibrant" red). */
#define EXPORT_CRIT_COLOR "#CC3311"

/* Builds the Graphviz graph of picture c (export_dot.c): one cluster_devN
 * subgraph per device, ops or groups as nodes, the critical path in red.
 * render: for a layout in this process (SVG): node names are made safe for
 * XML, empty devices get an "(no ops)" node so that their cluster shows,
 * and the input-format attributes (time_us, bytes, ...) are left out.
 * time_ranks > 0: dot's ranks are that many windows of the schedule's time
 * (rank=same groups), instead of the graph's structure. The caller
 * agclose()s *out. */
struct Agraph_s;
dp_status dpi_export_dot_build(const dp_graph *g, const dp_machine *m,
			       const dp_plan *plan, const dp_coarse *c,
			       bool render, int time_ranks,
			       const dp_progress *p, struct Agraph_s **out,
			       dp_err *err);

/* The per-kind writers behind dp_export_write_opts. Each writes through afile
 * (nothing at path unless it succeeds) and may fill rep. */
dp_status dpi_export_dot_write(const char *path, const dp_graph *g,
			       const dp_machine *m, const dp_plan *plan,
			       const dp_export_opts *o, const dp_progress *p,
			       dp_export_report *rep, dp_err *err);
/* kind: DP_EXPORT_SVG, _PNG or _PDF: the one picture, rendered by
 * Graphviz's svg or cairo (png, pdf) renderer in the layout child. */
dp_status dpi_export_svg_write(const char *path, dp_export_kind kind,
			       const dp_graph *g, const dp_machine *m,
			       const dp_plan *plan, const dp_export_opts *o,
			       const dp_progress *p, dp_export_report *rep,
			       dp_err *err);
/* The Chrome / Perfetto trace of the schedule (export_trace.c). */
dp_status dpi_export_trace_write(const char *path, const dp_graph *g,
				 const dp_graph *user,
				 const dp_machine *m, const dp_plan *plan,
				 const dp_export_opts *o, const dp_progress *p,
				 dp_export_report *rep, dp_err *err);
dp_status dpi_export_csv_write(const char *path, const dp_graph *g,
			       const dp_plan *plan, dp_export_report *rep,
			       dp_err *err);
dp_status dpi_export_torch_write(const char *path, const dp_graph *g,
				 const dp_plan *plan, dp_export_report *rep,
				 dp_err *err);
dp_status dpi_export_tf_write(const char *path, const dp_graph *g,
			      const dp_plan *plan, dp_export_report *rep,
			      dp_err *err);
/* A pipeline plan's stages for PiPPy or Megatron, or (Megatron) a data /
 * tensor parallel one's sizes (export_pipe.c); g is the user's graph (the
 * one the strategy's stages index). */
dp_status dpi_export_pipe_write(const char *path, dp_export_kind kind,
				const dp_graph *g, const dp_plan *plan,
				dp_export_report *rep, dp_err *err);
/* What a framework's config needs of a plan: a pipeline's stages and
 * micro-batches, or one stage of an spmd strategy; the data and tensor
 * parallel widths of a stage, the ZeRO stage (spmd), the numbered layers
 * (blocks) of the graph. */
typedef struct dpi_plan_shape {
	bool pipe;
	int S, M, dp, tp, zero_stage;
	uint32_t layers;
} dpi_plan_shape;
/* DP_EINPUT for a placement (export_pipe.c). */
dp_status dpi_export_plan_shape(const char *path, const dp_graph *g,
				const dp_plan *plan, dpi_plan_shape *sh,
				dp_err *err);
/* The length of op u's block, its layer path up to the end of its first
 * component that ends in a digit ("model/h3" of "model/h3/attn"): what
 * Megatron counts as a layer; 0 when it has none (export_pipe.c). */
size_t dpi_export_block_len(const dp_graph *g, uint32_t u);
/* A PyTorch file that wraps the model as a dp or zero plan runs it: DDP,
 * ZeroRedundancyOptimizer (stage 1), FSDP (stages 2 and 3), with
 * activation checkpointing of the blocks and bf16/fp16 (export_levers.c). */
dp_status dpi_export_torchwrap_write(const char *path, const dp_graph *g,
				     const dp_plan *plan,
				     dp_export_report *rep, dp_err *err);
/* Megatron-LM's arguments for the levers g was made with (its "levers")
 * and a ZeRO stage (1, 2: the distributed optimizer; 0: none), one per
 * line (export_levers.c). */
void dpi_export_megatron_levers(FILE *f, const dp_graph *g, int zero_stage);
/* A DeepSpeed config (JSON) for a data parallel (dp, zero) or pipeline
 * plan: batch sizes, ZeRO stage, precision, activation checkpointing
 * (export_levers.c); g is the user's graph. */
dp_status dpi_export_deepspeed_write(const char *path, const dp_graph *g,
				     const dp_plan *plan,
				     dp_export_report *rep, dp_err *err);

#endif

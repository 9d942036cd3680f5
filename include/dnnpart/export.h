/* export.h - writing a plan for reports and for the frameworks that run it.
 *
 * Every export is written through afile: a temporary file in the target's
 * folder renamed into place, so a failed or cancelled export leaves no
 * partial file and an existing file untouched.
 */
#ifndef DNNPART_EXPORT_H
#define DNNPART_EXPORT_H

#include <stdbool.h>
#include <stdint.h>

#include "algo.h"
#include "err.h"
#include "graph.h"
#include "machine.h"
#include "plan.h"

typedef enum dp_export_kind {
	DP_EXPORT_DOT = 0,	/* .dot/.gv: clusters per device, via cgraph */
	DP_EXPORT_SVG,		/* .svg: rendered with gvc in a child process */
	DP_EXPORT_JSON,		/* .json: native placement with metrics */
	DP_EXPORT_PLACE,	/* .place: ParDNN "name device" lines */
	DP_EXPORT_CSV,		/* .csv: op,device,start_us,end_us */
	DP_EXPORT_DEVMAP_TORCH, /* PyTorch/Accelerate-style {"layer": "cuda:N"} */
	DP_EXPORT_DEVMAP_TF,	/* TensorFlow "/device:GPU:N" per op */
	DP_EXPORT_PNG,		/* .png: the SVG's picture, rendered by
				   Graphviz (cairo) in the same child */
	DP_EXPORT_PDF,		/* .pdf: the same as a PDF page */
	DP_EXPORT_TRACE,	/* .trace.json: Chrome / Perfetto trace of
				   the schedule (export_trace.c) */
	DP_EXPORT_PIPPY,	/* .pippy.py: a pipeline's split points for
				   torch.distributed.pipelining */
	DP_EXPORT_MEGATRON,	/* .megatron.sh: a pipeline's pp/tp/dp sizes
				   and layers per stage as Megatron-LM
				   arguments (export_pipe.c) */
	DP_EXPORT_DEEPSPEED,	/* .deepspeed.json: a DeepSpeed config of a
				   data parallel or pipeline plan (batch
				   sizes, ZeRO stage, precision, activation
				   checkpointing; export_levers.c) */
	DP_EXPORT_TORCHWRAP,	/* .torch.py: a dp or zero plan as PyTorch
				   wrapping (DDP, ZeroRedundancyOptimizer,
				   FSDP, activation checkpointing) */
} dp_export_kind;

/* Picks the kind from a file name's extension (.dot .gv .svg .png .pdf
 * .json .place .csv; "*.devmap.json" or "*.torch.json" = torch device map,
 * "*.tf.txt" = TensorFlow device strings, "*.trace.json" = trace,
 * "*.pippy.py" = torch.distributed.pipelining split, "*.megatron.sh" =
 * Megatron-LM arguments, "*.deepspeed.json" = DeepSpeed config,
 * "*.torch.py" = PyTorch wrapping of a dp or zero plan). Unknown
 * extension: DP_EINPUT listing them. PiPPy needs a pipeline plan, Megatron
 * a pipeline or a data / tensor parallel one, DeepSpeed a data parallel
 * or pipeline one: exporting another plan as them is DP_EINPUT saying so,
 * as is a graph without the layer names they split at. */
dp_status dp_export_kind_from_path(const char *path, dp_export_kind *kind,
				   dp_err *err);
const char *dp_export_kind_name(dp_export_kind kind);

/* Writes plan in the given kind to path. progress may be NULL; its cancel
 * flag stops a long SVG layout (DP_ECANCELED, no file written). */
dp_status dp_export_write(const char *path, dp_export_kind kind,
			  const dp_graph *g, const dp_machine *m,
			  const dp_plan *plan, const dp_progress *progress,
			  dp_err *err);

/* ---- options and report (dp_export_write uses the defaults) ---- */

/* When DOT and SVG exports draw groups of ops instead of single ops. */
typedef enum dp_export_coarsen {
	DP_COARSEN_AUTO = 0, /* SVG: when the graph has more than max_nodes
				ops; DOT: when it has more than
				DP_EXPORT_DOT_FULL_MAX ops */
	DP_COARSEN_NEVER,    /* one node per op, whatever the size */
	DP_COARSEN_ALWAYS,   /* group by layer (else by runs) even when small */
} dp_export_coarsen;

/* Largest graph a DOT export writes op by op in DP_COARSEN_AUTO mode. */
#define DP_EXPORT_DOT_FULL_MAX 200000u
/* Default bound on the nodes of a picture: an SVG of more ops is
 * coarsened (DP_COARSEN_AUTO) to at most this many nodes. Measured with
 * tools/svg_check.py on pictures laid out as a timeline on 4 devices: up
 * to about 150 nodes the picture stays within 3.5 times as tall as wide
 * and renders at 100 %; 300 op nodes made a strip 5.7 times as tall as
 * wide (docs/export.md). */
#define DP_EXPORT_MAX_NODES 150u
/* Most events of a trace (DP_EXPORT_TRACE) before it is coarsened: about
 * 200 MB of JSON at ~200 bytes an event; Perfetto's JSON importer fails
 * near 900 MB. */
#define DP_EXPORT_TRACE_MAX_EVENTS 1000000u
/* Default time limit of an SVG layout, in seconds. */
#define DP_EXPORT_TIMEOUT_S 120.0

typedef struct dp_export_opts {
	dp_export_coarsen coarsen;
	uint32_t max_nodes; /* bound of a coarsened picture (>= 16);
			       0 = DP_EXPORT_MAX_NODES */
	double timeout_s;   /* SVG layout limit; <= 0 = DP_EXPORT_TIMEOUT_S */
	const char *layout; /* SVG layout: "timeline" (devices as columns,
			       nodes placed in start order by dnnpart) or
			       a Graphviz engine ("dot", "sfdp", ...);
			       NULL = timeline (docs/export.md) */
} dp_export_opts;

/* What an export did, for the front end to tell the user. */
typedef struct dp_export_report {
	bool coarsened;	       /* DOT/SVG: groups of ops were drawn */
	uint32_t nodes;	       /* DOT/SVG: nodes drawn */
	uint32_t edges;	       /* DOT/SVG: edges drawn */
	char method[128];      /* DOT/SVG: how ops were grouped, "" if not */
	char layout[32];       /* SVG: the layout engine used */
	double layout_s;       /* SVG: seconds the layout and rendering took */
	uint32_t split_layers; /* torch map: layers spread over several
				  devices (listed under their majority
				  device) */
	uint32_t entries;      /* rows / keys / lines written */
	char note[512]; /* one or two sentences worth showing; "" if none */
} dp_export_report;

/* Defaults: DP_COARSEN_AUTO, DP_EXPORT_MAX_NODES, DP_EXPORT_TIMEOUT_S,
 * automatic layout. */
void dp_export_opts_default(dp_export_opts *o);

/* dp_export_write with options (NULL = defaults) and an optional report
 * (may be NULL; cleared first, filled on success). */
dp_status dp_export_write_opts(const char *path, dp_export_kind kind,
			       const dp_graph *g, const dp_machine *m,
			       const dp_plan *plan, const dp_export_opts *opts,
			       const dp_progress *progress,
			       dp_export_report *report, dp_err *err);

/* Parses "auto", "never", "always" for --coarsen. */
dp_status dp_export_coarsen_parse(const char *s, dp_export_coarsen *c,
				  dp_err *err);

#endif

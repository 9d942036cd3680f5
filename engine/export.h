/* export.h - writing a plan for reports and for the frameworks that run it.
 *
 * Every export is written through afile: a temporary file in the target's
 * folder renamed into place, so a failed or cancelled export leaves no
 * partial file and an existing file untouched.
 */
#ifndef DNNPART_EXPORT_H
#define DNNPART_EXPORT_H

#include "algo.h"
#include "err.h"
#include "graph.h"
#include "machine.h"
#include "plan.h"

typedef enum dp_export_kind {
	DP_EXPORT_DOT = 0,     /* .dot/.gv: clusters per device, via cgraph */
	DP_EXPORT_SVG,         /* .svg: rendered with gvc in a child process */
	DP_EXPORT_JSON,        /* .json: native placement with metrics */
	DP_EXPORT_PLACE,       /* .place: ParDNN "name device" lines */
	DP_EXPORT_CSV,         /* .csv: op,device,start_us,end_us */
	DP_EXPORT_DEVMAP_TORCH, /* PyTorch/Accelerate-style {"layer": "cuda:N"} */
	DP_EXPORT_DEVMAP_TF,   /* TensorFlow "/device:GPU:N" per op */
} dp_export_kind;

/* Picks the kind from a file name's extension (.dot .gv .svg .json .place
 * .csv; "*.devmap.json" or "*.torch.json" = torch device map, "*.tf.txt" =
 * TensorFlow device strings). Unknown extension: DP_EINPUT listing them. */
dp_status export_kind_from_path(const char *path, dp_export_kind *kind,
				dp_err *err);
const char *export_kind_name(dp_export_kind kind);

/* Writes plan in the given kind to path. progress may be NULL; its cancel
 * flag stops a long SVG layout (DP_ECANCELED, no file written). */
dp_status export_write(const char *path, dp_export_kind kind,
		       const dp_graph *g, const dp_machine *m,
		       const dp_plan *plan, const dp_progress *progress,
		       dp_err *err);

#endif

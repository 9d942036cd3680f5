/* load_host.h - ops that an input pins to the host CPU (internal).
 *
 * Some real inputs say that an op runs on the host CPU, not on an
 * accelerator: ParDNN's .place files give such ops device -1 and msr-fiddle
 * marks them supportedOnFpga false. dnnpart partitions across K accelerators
 * only, so such ops are kept out of the graph; what ran through them is kept
 * as control edges (latency only) so that no dependency is lost. Used by
 * load_pardnn.c and load_fiddle.c.
 */
#ifndef DNNPART_INTERNAL_LOAD_HOST_H
#define DNNPART_INTERNAL_LOAD_HOST_H

#include <stdbool.h>

#include "dnnpart/err.h"
#include "dnnpart/graph.h"

/* Builds in *out a new, unfinalized graph with every op of the finalized
 * graph t except those with host[u] set (same order, names, fields,
 * colocation labels, machine hint and unknown_names), every edge between
 * two kept ops, and one control edge p -> s for each kept p and kept s
 * joined in t by a path whose inner ops are all host ops (one per pair).
 * Sets (*out)->cpu_pinned to the number of ops left out. t is not changed. */
dp_status dpi_load_drop_host_ops(const dp_graph *t, const bool *host,
				 dp_graph **out, dp_err *err);

#endif

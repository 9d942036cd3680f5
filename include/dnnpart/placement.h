/* placement.h - placement files: native JSON and ParDNN .place.
 *
 * Native JSON: {"format":"dnnpart-placement","version":1,"graph":NAME,
 * "devices":K,"algorithm":NAME,"placement":{"op":dev,...},"metrics":{...}}.
 * ParDNN .place: one "name device" line per op.
 * Writes go through afile (temporary file renamed into place).
 */
#ifndef DNNPART_PLACEMENT_H
#define DNNPART_PLACEMENT_H

#include <stdbool.h>
#include <stdint.h>

#include "err.h"
#include "graph.h"
#include "plan.h"

typedef struct dp_placement_info {
	int devices;	     /* K stated by the file (JSON "devices"), else
			       1 + the largest device index seen */
	uint32_t omitted;    /* ops of the graph the file did not mention; each
			       was given the device of its heaviest placed
			       neighbour (device 0 when it has none) */
	uint32_t cpu_pinned; /* .place entries with device -1 (CPU); placed
				like omitted ops and counted here */
	bool devices_stated; /* devices came from the file's "devices" */
	char algorithm[32];  /* JSON "algorithm" (what made the placement,
				cut to 31 bytes), "" when absent */
} dp_placement_info;

/* Reads a placement for g (format by content) into placement (g->nops
 * entries). Errors: unknown op names, bad device numbers, malformed lines,
 * with file and line. */
dp_status dp_placement_read(const char *path, const dp_graph *g,
			    int32_t *placement, dp_placement_info *info,
			    dp_err *err);

/* Writes plan as native JSON (with its metrics). */
dp_status dp_placement_write_json(const char *path, const dp_graph *g,
				  const dp_plan *plan, dp_err *err);
/* Writes a ParDNN .place file. */
dp_status dp_placement_write_place(const char *path, const dp_graph *g,
				   const int32_t *placement, dp_err *err);

#endif

/* placement_lines.h - placements written one "NAME DEVICE" line per op
 * (internal): ParDNN's .place files and TensorFlow's device lists. */
#ifndef DNNPART_INTERNAL_PLACEMENT_LINES_H
#define DNNPART_INTERNAL_PLACEMENT_LINES_H

#include <stdint.h>

#include "dnnpart/err.h"
#include "dnnpart/graph.h"

/* Writes path (through afile) with a line per op: its name, device_prefix
 * and its device number. A name with a line break is DP_EINPUT naming the
 * op and saying that what (e.g. "a line of a .place file") cannot hold it;
 * no file is written then. */
dp_status dpi_placement_write_lines(const char *path, const dp_graph *g,
				    const int32_t *placement,
				    const char *device_prefix, const char *what,
				    dp_err *err);

#endif

/* load_name.h - the name a graph takes from its file (internal).
 *
 * A graph file that names no graph (DOT without a graph id, JSON without
 * "name", every msr-fiddle file) is named after the file: its base name
 * without the last extension. One rule for every loader of a single file
 * (engine/io/load.c); the folder formats (ParDNN, PipeDream) name the graph
 * after their folder instead.
 */
#ifndef DNNPART_INTERNAL_LOAD_NAME_H
#define DNNPART_INTERNAL_LOAD_NAME_H

#include "dnnpart/err.h"
#include "dnnpart/graph.h"

/* Sets g's name from path: "dir/resnet50.json" -> "resnet50", ".hidden"
 * stays ".hidden"; at most 255 bytes. */
dp_status dpi_load_name_from_file(dp_graph *g, const char *path, dp_err *err);

#endif

/* load_util.h - what the loaders of graph files share (internal; in
 * engine/io/load.c).
 *
 * The name a graph takes from its file: a graph file that names no graph (DOT without a graph id, JSON without
 * "name", every msr-fiddle file) is named after the file: its base name
 * without the last extension. One rule for every loader of a single file
 * (engine/io/load.c); the folder formats (ParDNN, PipeDream) name the graph
 * after their folder instead.
 */
#ifndef DNNPART_INTERNAL_LOAD_UTIL_H
#define DNNPART_INTERNAL_LOAD_UTIL_H

#include "dnnpart/err.h"
#include "dnnpart/graph.h"

/* Sets g's name from path: "dir/resnet50.json" -> "resnet50", "dir/x/" ->
 * "x", ".hidden" stays ".hidden"; at most 255 bytes. */
dp_status dpi_load_name_from_file(dp_graph *g, const char *path, dp_err *err);

/* A new, empty graph in *g whose source is source; DP_ENOMEM "out of
 * memory while loading WHAT" (*g NULL) when it cannot be made. */
dp_status dpi_load_new_graph(const char *source, const char *what, dp_graph **g,
			     dp_err *err);

/* Line s without its leading blanks and its trailing blanks and CR (the
 * line-based formats: ParDNN's files, PipeDream's graph.txt); s is cut in
 * place, the result points into it. */
char *dpi_load_trim(char *s);

#endif

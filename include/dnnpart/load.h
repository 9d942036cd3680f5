/* load.h - reading graphs from files, format detected by content.
 *
 * dp_graph_load() reads path, detects (or is told) the format, builds and
 * finalizes the graph. Errors name the file, the line and column where
 * known, and what was expected. Nothing is printed.
 */
#ifndef DNNPART_LOAD_H
#define DNNPART_LOAD_H

#include <stddef.h>

#include "err.h"
#include "graph.h"

typedef enum dp_format {
	DP_FMT_AUTO = 0,
	DP_FMT_JSON,	  /* native dnnpart JSON */
	DP_FMT_DOT,	  /* Graphviz DOT */
	DP_FMT_PARDNN,	  /* the ParDNN reference's input folder */
	DP_FMT_FIDDLE,	  /* msr-fiddle (NeurIPS'20) JSON */
	DP_FMT_PIPEDREAM, /* PipeDream profiler graph.txt */
} dp_format;

/* Loads and finalizes a graph. *out is set only on success. */
dp_status dp_graph_load(const char *path, dp_format fmt, dp_graph **out,
			dp_err *err);

/* Detects the format of path by its content (a directory is a ParDNN
 * folder). Unknown content is DP_EINPUT with a message listing the formats. */
dp_status dp_load_detect(const char *path, dp_format *fmt, dp_err *err);

const char *dp_load_format_name(dp_format f);
/* Parses "json", "dot", "pardnn", "fiddle", "pipedream", "auto". */
dp_status dp_load_format_parse(const char *s, dp_format *f, dp_err *err);

/* Reads a whole file into a NUL-terminated buffer (caller frees). Errors
 * name the file and the system's reason. Refuses files over max_bytes with
 * a clear message (0 = no limit). */
dp_status dp_load_read_file(const char *path, size_t max_bytes, char **text,
			    size_t *len, dp_err *err);

/* Per-format loaders (load_*.c). Each builds an unfinalized graph from text
 * (path is used for messages and the default graph name). */
dp_status dp_load_json(const char *path, const char *text, size_t len,
		       dp_graph **out, dp_err *err);
dp_status dp_load_dot(const char *path, const char *text, size_t len,
		      dp_graph **out, dp_err *err);
dp_status dp_load_pardnn(const char *dir, dp_graph **out, dp_err *err);
dp_status dp_load_fiddle(const char *path, const char *text, size_t len,
			 dp_graph **out, dp_err *err);
dp_status dp_load_pipedream(const char *path, const char *text, size_t len,
			    dp_graph **out, dp_err *err);

/* Line and column (1-based) of byte offset off in text. */
void dp_load_line_col(const char *text, size_t off, int *line, int *col);

#endif

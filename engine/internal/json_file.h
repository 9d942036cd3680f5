/* json_file.h - how the JSON files of dnnpart's own formats begin
 * (internal): the placement file and the strategy file. */
#ifndef DNNPART_INTERNAL_JSON_FILE_H
#define DNNPART_INTERNAL_JSON_FILE_H

#include "dnnpart/afile.h"
#include "dnnpart/err.h"
#include "dnnpart/json.h"

/* Opens af at path (dp_afile_open) and starts w on it with the top object
 * and its first keys: {"format": format, "version": 1, "graph": graph.
 * The caller writes the rest, ends the object and commits af. */
static inline dp_status dpi_json_file_begin(dp_afile *af, dp_json *w,
					    const char *path,
					    const char *format,
					    const char *graph, dp_err *err)
{
	dp_status st = dp_afile_open(af, path, err);
	if (st)
		return st;
	dp_json_init(w, af->f);
	dp_json_begin_object(w, NULL);
	dp_json_str(w, "format", format);
	dp_json_int(w, "version", 1);
	dp_json_str(w, "graph", graph);
	return DP_OK;
}

#endif

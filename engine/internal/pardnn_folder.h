/* pardnn_folder.h - reading the files of a ParDNN folder (internal to
 * load_pardnn.c and load_pardnn_files.c).
 *
 * load_pardnn_files.c finds each file of the folder by pattern and reads
 * line-oriented text files; load_pardnn.c turns their lines into a graph.
 */
#ifndef DNNPART_INTERNAL_PARDNN_FOLDER_H
#define DNNPART_INTERNAL_PARDNN_FOLDER_H

#include <stdbool.h>

#include "dnnpart/err.h"

#define PD_NAME_MAX 4096 /* longest op name, including the NUL */

/* The files of a folder, by role (the table in load_pardnn_files.c). */
enum pd_role {
	R_EDGES,
	R_DUR,
	R_TSZ,
	R_VAR,
	R_REF,
	R_NOOP,
	R_MEM,
	R_COLOC,
	R_PLACE,
	R_COUNT
};

/* Called for each non-blank line: raw is the whole line (for columns),
 * line the same text without surrounding white space; both may be
 * modified. */
typedef dp_status (*pd_line_fn)(void *ctx, const char *path, char *raw,
				char *line, int lineno, dp_err *err);

/* Fills files[role] with the path of the file for each role (NULL when an
 * optional one is absent; caller frees). Errors: the folder cannot be read,
 * a required file is missing, several files match without one preferred. */
dp_status dpi_pardnn_find_files(const char *dir, char *files[R_COUNT],
				dp_err *err);

/* Reads path and calls fn(ctx, ...) for each non-blank line, stopping at
 * the first error. A NUL byte in the file is an error. */
dp_status dpi_pardnn_read_lines(const char *path, pd_line_fn fn, void *ctx,
				dp_err *err);

/* Parses a name at *p, "quoted" or bare (up to white space, "->" or "::"),
 * into out (PD_NAME_MAX bytes) and skips the white space after it. Returns
 * false on a syntax error (then *p is where it was found). */
bool dpi_pardnn_parse_name(char **p, char *out);

/* DP_EINPUT "expected EXPECTED" at path:lineno, column of at in raw (no
 * column when at is NULL). */
dp_status dpi_pardnn_bad_line(const char *path, int lineno, const char *raw,
			      const char *at, const char *expected,
			      dp_err *err);

#endif

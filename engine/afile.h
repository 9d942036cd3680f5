/* afile.h - output files that appear whole or not at all.
 *
 * afile_open() creates a temporary file in the same folder as path
 * (".NAME.tmpXXXXXX"); the caller writes to af->f; afile_commit() flushes,
 * syncs and renames it onto path; afile_abort() removes it. A failure at any
 * step removes the temporary file and leaves an existing file at path as it
 * was.
 */
#ifndef DNNPART_AFILE_H
#define DNNPART_AFILE_H

#include <stdio.h>

#include "err.h"

typedef struct dp_afile {
	FILE *f;
	char *path;
	char *tmp;
} dp_afile;

dp_status afile_open(dp_afile *af, const char *path, dp_err *err);
/* Checks ferror, flushes, fsyncs, closes and renames. */
dp_status afile_commit(dp_afile *af, dp_err *err);
void afile_abort(dp_afile *af);

#endif

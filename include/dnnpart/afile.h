/* afile.h - output files that appear whole or not at all.
 *
 * dp_afile_open() creates a temporary file in the same folder as path
 * (".NAME.tmpXXXXXX"); the caller writes to af->f; dp_afile_commit() flushes,
 * syncs and renames it onto path; dp_afile_abort() removes it. A failure at any
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

dp_status dp_afile_open(dp_afile *af, const char *path, dp_err *err);
/* Checks ferror, flushes, fsyncs, closes and renames. */
dp_status dp_afile_commit(dp_afile *af, dp_err *err);
void dp_afile_abort(dp_afile *af);

/* Removes the temporary file of every afile still open (up to 16 at a
 * time are tracked). Async-signal-safe: for a front end's handler of a
 * signal that ends the process (SIGTERM, SIGHUP, SIGINT), so that a killed
 * write leaves neither a partial file nor a stray temporary one. */
void dp_afile_remove_pending(void);

#endif

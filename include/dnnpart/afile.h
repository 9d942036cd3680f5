/* afile.h - output files that appear whole or not at all.
 *
 * dp_afile_open() creates a temporary file in the same folder as path
 * (".NAME.tmpXXXXXX"); the caller writes to af->f; dp_afile_commit() flushes,
 * syncs and renames it onto path; dp_afile_abort() removes it. A failure at any
 * step removes the temporary file and leaves an existing file at path as it
 * was.
 *
 * Replacing: an afile replaces a file only when one was at path when it was
 * opened; whether that may happen is the caller's decision, made before
 * with dp_afile_check() (the command line's --force, the explorer's
 * "overwrite? (y/N)"). A file that appears at path while the afile is
 * written is never replaced: the commit fails and keeps it.
 */
#ifndef DNNPART_AFILE_H
#define DNNPART_AFILE_H

#include <stdio.h>

#include "err.h"

typedef struct dp_afile {
	FILE *f;
	char *path;
	char *tmp;
	int replace; /* something was at path at open: commit may replace it */
} dp_afile;

/* What writing to a path would do. */
typedef enum dp_afile_target {
	DP_AFILE_NEW = 0,    /* nothing there: a new file */
	DP_AFILE_EXISTS = 1, /* a file is there: replacing it needs consent */
	DP_AFILE_INPUT = 2,  /* it is one of the inputs: never replace it */
} dp_afile_target;

/* Says in *what what writing to path would replace. inputs (n paths, NULL
 * entries skipped) are the files being read, such as the open graph: one
 * that is the same file as path (same device and inode, whatever the
 * spelling or links) gives DP_AFILE_INPUT. DP_EINPUT when path is empty or
 * a folder. */
dp_status dp_afile_check(const char *path, const char *const *inputs, size_t n,
			 dp_afile_target *what, dp_err *err);

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

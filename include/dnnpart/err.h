/* err.h - error values shared by every engine module.
 *
 * Engine functions never print and never exit: they return a dp_status and,
 * on failure, fill a caller-owned dp_err with a message a user can act on
 * (what was wrong, what was expected) and, where known, the file, line and
 * column. Only the front ends decide to print or to exit.
 */
#ifndef DNNPART_ERR_H
#define DNNPART_ERR_H

#include <stdarg.h>

typedef enum dp_status {
	DP_OK = 0,
	DP_EINPUT = 2,	  /* bad input file or bad user setting (exit code 2) */
	DP_EINTERNAL = 3, /* a bug or an impossible state (exit code 3) */
	DP_ENOMEM =
		4, /* allocation failed; reported as exit code 2 with the size */
	DP_EIO = 5, /* a file could not be read or written (exit code 2) */
	DP_ECANCELED = 6, /* the caller's cancel flag was raised */
} dp_status;

typedef struct dp_err {
	dp_status code;
	char file[512]; /* "" when the error has no file */
	int line;	/* 1-based; 0 when unknown */
	int col;	/* 1-based; 0 when unknown */
	char msg[1024];
} dp_err;

/* Clears err (code DP_OK, empty strings). err may be NULL. */
void dp_err_clear(dp_err *err);

/* Fills err with code, position and a printf-style message; returns code so
 * that callers can write `return dp_err_set(err, DP_EINPUT, ...)`.
 * err may be NULL (then only the code is returned). file may be NULL. */
dp_status dp_err_set(dp_err *err, dp_status code, const char *file, int line,
		     int col, const char *fmt, ...)
	__attribute__((format(printf, 6, 7)));

/* Like dp_err_set with a va_list. */
dp_status dp_err_setv(dp_err *err, dp_status code, const char *file, int line,
		      int col, const char *fmt, va_list ap);

/* Formats err as "file:line:col: message" (parts omitted when unknown) into
 * buf; returns buf. */
char *dp_err_format(const dp_err *err, char *buf, unsigned long size);

/* The exit code a command-line front end should use for code (0, 2 or 3). */
int dp_status_exit_code(dp_status code);

#endif

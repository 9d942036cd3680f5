/* err.c - error values (see err.h). */
#include "err.h"

#include <stdio.h>
#include <string.h>

void dp_err_clear(dp_err *err)
{
	if (!err)
		return;
	err->code = DP_OK;
	err->file[0] = '\0';
	err->line = 0;
	err->col = 0;
	err->msg[0] = '\0';
}

dp_status dp_err_setv(dp_err *err, dp_status code, const char *file, int line,
		      int col, const char *fmt, va_list ap)
{
	if (!err)
		return code;
	err->code = code;
	snprintf(err->file, sizeof err->file, "%s", file ? file : "");
	err->line = line;
	err->col = col;
	vsnprintf(err->msg, sizeof err->msg, fmt, ap);
	return code;
}

dp_status dp_err_set(dp_err *err, dp_status code, const char *file, int line,
		     int col, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	dp_err_setv(err, code, file, line, col, fmt, ap);
	va_end(ap);
	return code;
}

char *dp_err_format(const dp_err *err, char *buf, unsigned long size)
{
	if (size == 0)
		return buf;
	if (!err) {
		buf[0] = '\0';
		return buf;
	}
	if (err->file[0] && err->line > 0 && err->col > 0)
		snprintf(buf, size, "%s:%d:%d: %s", err->file, err->line,
			 err->col, err->msg);
	else if (err->file[0] && err->line > 0)
		snprintf(buf, size, "%s:%d: %s", err->file, err->line,
			 err->msg);
	else if (err->file[0])
		snprintf(buf, size, "%s: %s", err->file, err->msg);
	else
		snprintf(buf, size, "%s", err->msg);
	return buf;
}

int dp_status_exit_code(dp_status code)
{
	switch (code) {
	case DP_OK:
		return 0;
	case DP_EINTERNAL:
		return 3;
	default:
		return 2;
	}
}

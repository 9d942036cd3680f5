/* err.c - error values (see err.h). */
#include "dnnpart/err.h"

#include <stdio.h>
#include <string.h>

#include "internal/nomem.h"
#include "internal/utf8.h"

/* Length of the character at s if a terminal shows it as text: UTF-8 that
 * is neither a C0 control, DEL, nor a C1 control (U+0080..U+009F, which
 * some terminals take as escape sequences); 0 otherwise. */
static int printable_len(const char *s)
{
	const unsigned char *u = (const unsigned char *)s;
	if (u[0] < 0x20 || u[0] == 0x7F)
		return 0;
	if (u[0] == 0xC2 && u[1] >= 0x80 && u[1] <= 0x9F)
		return 0;
	return dpi_utf8_seq_len(s);
}

/* Rewrites the NUL-terminated text in buf (size bytes) so that every byte
 * that printable_len() refuses reads "\xNN": messages quote input files
 * and paths, which may hold anything, and front ends print them on a
 * terminal. Truncates at a whole character. */
static void escape_text(char *buf, size_t size)
{
	size_t i = 0;
	int n;
	while (buf[i] && (n = printable_len(buf + i)) > 0)
		i += (size_t)n;
	if (!buf[i])
		return; /* the usual case: nothing to escape */
	char out[1024];
	size_t cap = size < sizeof out ? size : sizeof out;
	size_t o = i < cap ? i : cap - 1;
	memcpy(out, buf, o);
	while (buf[i]) {
		n = printable_len(buf + i);
		if (n > 0) {
			if (o + (size_t)n >= cap)
				break;
			memcpy(out + o, buf + i, (size_t)n);
			o += (size_t)n;
			i += (size_t)n;
		} else {
			if (o + 4 >= cap)
				break;
			snprintf(out + o, 5, "\\x%02X", (unsigned char)buf[i]);
			o += 4;
			i++;
		}
	}
	out[o] = '\0';
	memcpy(buf, out, o + 1);
}

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
	escape_text(err->file, sizeof err->file);
	escape_text(err->msg, sizeof err->msg);
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

dp_status dpi_nomem(dp_err *err, const char *doing, ...)
{
	char what[sizeof err->msg - 32];
	va_list ap;
	va_start(ap, doing);
	vsnprintf(what, sizeof what, doing, ap);
	va_end(ap);
	return dp_err_set(err, DP_ENOMEM, NULL, 0, 0, "out of memory while %s",
			  what);
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
	/* again here: some callers fill err->file directly */
	escape_text(buf, size);
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

/* json_scan.c - streaming JSON syntax scanner (see internal/json_scan.h).
 *
 * Grammar: RFC 8259. Nesting is limited to MAX_DEPTH so that hostile input
 * cannot exhaust anything; the limit is far above what graph files use.
 */
#include "internal/json_scan.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dnnpart/load.h"

#define MAX_DEPTH 512

void dpi_jscan_init(jscan *js, const char *path, const char *text, size_t len,
		    dp_err *err)
{
	memset(js, 0, sizeof *js);
	js->text = text;
	js->len = len;
	js->path = path;
	js->err = err;
	/* a UTF-8 byte-order mark is not part of the JSON text */
	if (len >= 3 && memcmp(text, "\xef\xbb\xbf", 3) == 0)
		js->pos = 3;
}

void dpi_jscan_free(jscan *js)
{
	free(js->sbuf);
	js->sbuf = NULL;
	js->slen = js->scap = 0;
}

int dpi_jscan_peek(jscan *js)
{
	while (js->pos < js->len) {
		char c = js->text[js->pos];
		if (c != ' ' && c != '\t' && c != '\n' && c != '\r')
			return (unsigned char)c;
		js->pos++;
	}
	return -1;
}

dp_status dpi_jscan_error_at(jscan *js, size_t off, const char *fmt, ...)
{
	int line, col;
	dp_load_line_col(js->text, off, &line, &col);
	va_list ap;
	va_start(ap, fmt);
	dp_err_setv(js->err, DP_EINPUT, js->path, line, col, fmt, ap);
	va_end(ap);
	return DP_EINPUT;
}

/* "'x'", "end of file" or "byte 0x01" for the byte at off. */
static const char *describe(const jscan *js, size_t off, char *buf, size_t size)
{
	if (off >= js->len)
		snprintf(buf, size, "end of file");
	else if (isprint((unsigned char)js->text[off]))
		snprintf(buf, size, "'%c'", js->text[off]);
	else
		snprintf(buf, size, "byte 0x%02x",
			 (unsigned char)js->text[off]);
	return buf;
}

/* Error "expected WHAT, got X" at the current position; at the end of the
 * file "unexpected end of file, expected WHAT". */
static dp_status expected(jscan *js, const char *what)
{
	char got[32];
	if (js->pos >= js->len)
		return dpi_jscan_error_at(js, js->pos,
					  "unexpected end of file, expected %s",
					  what);
	return dpi_jscan_error_at(js, js->pos, "expected %s, got %s", what,
				  describe(js, js->pos, got, sizeof got));
}

const char *dpi_jscan_kind(jscan *js)
{
	switch (dpi_jscan_peek(js)) {
	case '"':
		return "string";
	case '{':
		return "object";
	case '[':
		return "array";
	case 't':
	case 'f':
		return "boolean";
	case 'n':
		return "null";
	case -1:
		return "nothing";
	default:
		return "number";
	}
}

static int sbuf_put(jscan *js, const char *p, size_t n)
{
	if (js->slen + n + 1 > js->scap) {
		size_t nc = js->scap ? js->scap * 2 : 256;
		while (nc < js->slen + n + 1)
			nc *= 2;
		char *q = realloc(js->sbuf, nc);
		if (!q)
			return -1;
		js->sbuf = q;
		js->scap = nc;
	}
	memcpy(js->sbuf + js->slen, p, n);
	js->slen += n;
	js->sbuf[js->slen] = '\0';
	return 0;
}

static int hex4(const char *p, unsigned *v)
{
	*v = 0;
	for (int i = 0; i < 4; i++) {
		int c = (unsigned char)p[i], d;
		if (c >= '0' && c <= '9')
			d = c - '0';
		else if (c >= 'a' && c <= 'f')
			d = c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			d = c - 'A' + 10;
		else
			return -1;
		*v = *v * 16 + (unsigned)d;
	}
	return 0;
}

static int put_utf8(jscan *js, unsigned cp)
{
	char b[4];
	size_t n;
	if (cp < 0x80) {
		b[0] = (char)cp;
		n = 1;
	} else if (cp < 0x800) {
		b[0] = (char)(0xc0 | cp >> 6);
		b[1] = (char)(0x80 | (cp & 0x3f));
		n = 2;
	} else if (cp < 0x10000) {
		b[0] = (char)(0xe0 | cp >> 12);
		b[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		b[2] = (char)(0x80 | (cp & 0x3f));
		n = 3;
	} else {
		b[0] = (char)(0xf0 | cp >> 18);
		b[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
		b[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
		b[3] = (char)(0x80 | (cp & 0x3f));
		n = 4;
	}
	return sbuf_put(js, b, n);
}

/* Scans a string at pos; decodes it into sbuf when decode is set. */
static dp_status scan_string(jscan *js, bool decode)
{
	size_t open = js->pos;
	if (js->pos >= js->len || js->text[js->pos] != '"')
		return expected(js, "a string in double quotes");
	js->pos++;
	if (decode) {
		js->slen = 0;
		if (sbuf_put(js, "", 0))
			return dp_err_set(js->err, DP_ENOMEM, js->path, 0, 0,
					  "out of memory reading a string");
	}
	size_t run = js->pos; /* start of bytes not yet copied */
	while (js->pos < js->len) {
		unsigned char c = (unsigned char)js->text[js->pos];
		if (c == '"') {
			if (decode &&
			    sbuf_put(js, js->text + run, js->pos - run))
				return dp_err_set(js->err, DP_ENOMEM, js->path,
						  0, 0, "out of memory");
			js->pos++;
			return DP_OK;
		}
		if (c < 0x20)
			return dpi_jscan_error_at(
				js, js->pos,
				"control character (byte 0x%02x) inside a "
				"string: write it as an escape such as \\n",
				c);
		if (c != '\\') {
			js->pos++;
			continue;
		}
		if (decode && sbuf_put(js, js->text + run, js->pos - run))
			return dp_err_set(js->err, DP_ENOMEM, js->path, 0, 0,
					  "out of memory");
		size_t esc = js->pos;
		js->pos++;
		if (js->pos >= js->len)
			break;
		char e = js->text[js->pos];
		const char *simple = strchr("\"\\/bfnrt", e);
		if (simple && e) {
			static const char out[] = "\"\\/\b\f\n\r\t";
			if (decode &&
			    sbuf_put(js, &out[simple - "\"\\/bfnrt"], 1))
				return dp_err_set(js->err, DP_ENOMEM, js->path,
						  0, 0, "out of memory");
			js->pos++;
		} else if (e == 'u') {
			unsigned cp;
			if (js->pos + 5 > js->len ||
			    hex4(js->text + js->pos + 1, &cp))
				return dpi_jscan_error_at(
					js, esc,
					"bad escape: expected \\u and four hex "
					"digits");
			js->pos += 5;
			if (cp >= 0xd800 && cp < 0xdc00 &&
			    js->pos + 6 <= js->len &&
			    js->text[js->pos] == '\\' &&
			    js->text[js->pos + 1] == 'u') {
				unsigned lo;
				if (!hex4(js->text + js->pos + 2, &lo) &&
				    lo >= 0xdc00 && lo < 0xe000) {
					cp = 0x10000 + ((cp - 0xd800) << 10) +
					     (lo - 0xdc00);
					js->pos += 6;
				}
			}
			if (cp >= 0xd800 && cp < 0xe000)
				cp = 0xfffd; /* a lone surrogate */
			if (decode && put_utf8(js, cp))
				return dp_err_set(js->err, DP_ENOMEM, js->path,
						  0, 0, "out of memory");
		} else {
			return dpi_jscan_error_at(
				js, esc,
				"bad escape in a string: expected one of "
				"\\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX "
				"after the backslash");
		}
		run = js->pos;
	}
	int line, col;
	dp_load_line_col(js->text, open, &line, &col);
	return dpi_jscan_error_at(js, js->len,
				  "unexpected end of file inside the string "
				  "opened at line %d, column %d: expected a "
				  "closing '\"'",
				  line, col);
}

dp_status dpi_jscan_string(jscan *js)
{
	dpi_jscan_peek(js);
	return scan_string(js, true);
}

/* JSON number grammar: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? */
static dp_status scan_number(jscan *js)
{
	size_t p = js->pos;
	const char *t = js->text;
	size_t n = js->len;
	size_t start = p;
	if (p < n && t[p] == '-')
		p++;
	if (p < n && t[p] == '0') {
		p++;
	} else if (p < n && t[p] >= '1' && t[p] <= '9') {
		while (p < n && isdigit((unsigned char)t[p]))
			p++;
	} else {
		js->pos = start;
		return expected(js, "a value (string, number, object, array, "
				    "true, false or null)");
	}
	if (p < n && t[p] == '.') {
		p++;
		if (!(p < n && isdigit((unsigned char)t[p])))
			return dpi_jscan_error_at(js, start,
						  "bad number: expected digits "
						  "after the decimal point");
		while (p < n && isdigit((unsigned char)t[p]))
			p++;
	}
	if (p < n && (t[p] == 'e' || t[p] == 'E')) {
		p++;
		if (p < n && (t[p] == '+' || t[p] == '-'))
			p++;
		if (!(p < n && isdigit((unsigned char)t[p])))
			return dpi_jscan_error_at(
				js, start,
				"bad number: expected digits in "
				"the exponent");
		while (p < n && isdigit((unsigned char)t[p]))
			p++;
	}
	js->pos = p;
	return DP_OK;
}

static dp_status scan_literal(jscan *js)
{
	static const char *const lits[] = {"true", "false", "null"};
	for (int i = 0; i < 3; i++) {
		size_t l = strlen(lits[i]);
		if (js->pos + l <= js->len &&
		    memcmp(js->text + js->pos, lits[i], l) == 0 &&
		    !(js->pos + l < js->len &&
		      isalnum((unsigned char)js->text[js->pos + l]))) {
			js->pos += l;
			return DP_OK;
		}
	}
	return expected(js, "a value (string, number, object, array, true, "
			    "false or null)");
}

/* Scans a member key and its colon inside an object. */
static dp_status scan_key(jscan *js, bool decode)
{
	if (dpi_jscan_peek(js) != '"')
		return expected(js, "a member name in double quotes");
	dp_status st = scan_string(js, decode);
	if (st)
		return st;
	if (dpi_jscan_peek(js) != ':')
		return expected(js, "':' after the member name");
	js->pos++;
	return DP_OK;
}

static dp_status unclosed(jscan *js, char open, size_t at)
{
	int line, col;
	dp_load_line_col(js->text, at, &line, &col);
	char what[160];
	snprintf(what, sizeof what,
		 "',' or '%c' to continue the %s opened at "
		 "line %d, column %d",
		 open == '{' ? '}' : ']', open == '{' ? "object" : "array",
		 line, col);
	return expected(js, what);
}

dp_status dpi_jscan_value(jscan *js, size_t *start, size_t *end)
{
	char stack[MAX_DEPTH];
	size_t opened[MAX_DEPTH];
	int depth = 0;
	dpi_jscan_peek(js);
	if (start)
		*start = js->pos;
	dp_status st;
	for (;;) {
		/* a value */
		int c = dpi_jscan_peek(js);
		if (c == '{' || c == '[') {
			if (depth == MAX_DEPTH)
				return dpi_jscan_error_at(
					js, js->pos,
					"nesting deeper than %d "
					"levels",
					MAX_DEPTH);
			stack[depth] = (char)c;
			opened[depth++] = js->pos++;
			int d = dpi_jscan_peek(js);
			if (d == (c == '{' ? '}' : ']')) {
				js->pos++;
				depth--;
			} else if (c == '{') {
				if ((st = scan_key(js, false)))
					return st;
				continue;
			} else {
				continue;
			}
		} else if (c == '"') {
			if ((st = scan_string(js, false)))
				return st;
		} else if (c == 't' || c == 'f' || c == 'n') {
			if ((st = scan_literal(js)))
				return st;
		} else if (c == -1) {
			return expected(js, "a value");
		} else {
			if ((st = scan_number(js)))
				return st;
		}
		/* after a complete value: close containers or go on */
		for (;;) {
			if (depth == 0) {
				if (end)
					*end = js->pos;
				return DP_OK;
			}
			int d = dpi_jscan_peek(js);
			char top = stack[depth - 1];
			if (d == ',') {
				js->pos++;
				if (top == '{' && (st = scan_key(js, false)))
					return st;
				break; /* next value */
			}
			if (d == (top == '{' ? '}' : ']')) {
				js->pos++;
				depth--;
				continue;
			}
			return unclosed(js, top, opened[depth - 1]);
		}
	}
}

static dp_status container_begin(jscan *js, jscan_iter *it, char open,
				 const char *what)
{
	it->what = what;
	it->first = true;
	it->open = js->pos;
	if (dpi_jscan_peek(js) != open) {
		char want[128];
		snprintf(want, sizeof want, "%s for %s",
			 open == '{' ? "an object '{'" : "an array '['", what);
		return expected(js, want);
	}
	it->open = js->pos++;
	return DP_OK;
}

dp_status dpi_jscan_object_begin(jscan *js, jscan_iter *it, const char *what)
{
	return container_begin(js, it, '{', what);
}

dp_status dpi_jscan_array_begin(jscan *js, jscan_iter *it, const char *what)
{
	return container_begin(js, it, '[', what);
}

/* Common part of _next: consumes ',' or the closing byte. */
static dp_status container_next(jscan *js, jscan_iter *it, char close,
				bool *has)
{
	int c = dpi_jscan_peek(js);
	if (c == close) {
		js->pos++;
		*has = false;
		return DP_OK;
	}
	if (!it->first) {
		if (c != ',') {
			int line, col;
			dp_load_line_col(js->text, it->open, &line, &col);
			char want[200];
			snprintf(want, sizeof want,
				 "',' or '%c' after an element of %s (opened "
				 "at line %d, column %d)",
				 close, it->what, line, col);
			return expected(js, want);
		}
		js->pos++;
		if (dpi_jscan_peek(js) == close) {
			char want[160];
			snprintf(want, sizeof want,
				 "another element of %s after ',' (JSON has "
				 "no trailing commas)",
				 it->what);
			return expected(js, want);
		}
	}
	it->first = false;
	*has = true;
	return DP_OK;
}

dp_status dpi_jscan_object_next(jscan *js, jscan_iter *it, bool *has,
				size_t *key_off)
{
	dp_status st = container_next(js, it, '}', has);
	if (st || !*has)
		return st;
	dpi_jscan_peek(js);
	if (key_off)
		*key_off = js->pos;
	return scan_key(js, true);
}

dp_status dpi_jscan_array_next(jscan *js, jscan_iter *it, bool *has)
{
	dp_status st = container_next(js, it, ']', has);
	if (st || !*has)
		return st;
	if (dpi_jscan_peek(js) == -1)
		return expected(js, "a value");
	return DP_OK;
}

dp_status dpi_jscan_object_at(jscan *js, size_t off, jscan_iter *it,
			      const char *what)
{
	js->pos = off;
	return dpi_jscan_object_begin(js, it, what);
}

dp_status dpi_jscan_array_at(jscan *js, size_t off, jscan_iter *it,
			     const char *what)
{
	js->pos = off;
	return dpi_jscan_array_begin(js, it, what);
}

bool dpi_jscan_member(jscan *js, jscan_iter *it, size_t *key_off, dp_status *st)
{
	bool has = false;
	if (!*st)
		*st = dpi_jscan_object_next(js, it, &has, key_off);
	return !*st && has;
}

bool dpi_jscan_element(jscan *js, jscan_iter *it, dp_status *st)
{
	bool has = false;
	if (!*st)
		*st = dpi_jscan_array_next(js, it, &has);
	return !*st && has;
}

size_t *dpi_jscan_slot(const jscan *js, const jscan_slot *slots, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(js->sbuf, slots[i].key) == 0)
			return slots[i].at;
	return NULL;
}

size_t dpi_jscan_child_offset(const char *text, size_t start, size_t end,
			      const char *key, int index)
{
	dp_err e;
	jscan js;
	dpi_jscan_init(&js, NULL, text, end, &e);
	js.pos = start;
	jscan_iter it;
	bool has, obj = dpi_jscan_peek(&js) == '{';
	size_t found = start;
	if ((key && !obj) ||
	    (obj ? dpi_jscan_object_begin(&js, &it, "an element")
		 : dpi_jscan_array_begin(&js, &it, "an element")))
		goto out;
	for (int k = 0;; k++) {
		if ((obj ? dpi_jscan_object_next(&js, &it, &has, NULL)
			 : dpi_jscan_array_next(&js, &it, &has)) ||
		    !has)
			break;
		if (key ? strcmp(js.sbuf, key) == 0 : k == index) {
			dpi_jscan_peek(&js);
			found = js.pos;
			break;
		}
		if (dpi_jscan_value(&js, NULL, NULL))
			break;
	}
out:
	dpi_jscan_free(&js);
	return found;
}

size_t dpi_jscan_member_offset(const char *text, size_t start, size_t end,
			       const char *key)
{
	return dpi_jscan_child_offset(text, start, end, key, 0);
}

dp_status dpi_jscan_end(jscan *js)
{
	if (dpi_jscan_peek(js) == -1)
		return DP_OK;
	return expected(js, "end of file after the top-level value");
}

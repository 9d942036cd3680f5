/* json_scan.h - a streaming JSON syntax scanner (internal to the engine).
 *
 * The native graph loader must read files of hundreds of megabytes; a full
 * cJSON tree of such a file would need several times its size. The scanner
 * walks the text in place, validates the syntax with messages that say
 * what was expected and where (file:line:col), and yields the extent of
 * each value, so that callers can hand one small element at a time to cJSON
 * or read keys and scalars directly. It never allocates except for one
 * reusable buffer holding the last decoded string.
 *
 * All functions return DP_OK or DP_EINPUT with js->err filled (file, line,
 * column, message).
 */
#ifndef DNNPART_JSON_SCAN_H
#define DNNPART_JSON_SCAN_H

#include <stdbool.h>
#include <stddef.h>

#include "dnnpart/err.h"

typedef struct jscan {
	const char
		*text; /* whole file (NUL-terminated at text[len] or beyond) */
	size_t len;    /* scanning stops here */
	size_t pos;
	const char *path; /* for messages */
	dp_err *err;
	char *sbuf; /* last decoded string (dpi_jscan_string) */
	size_t slen, scap;
} jscan;

/* A position inside an object or array being iterated. */
typedef struct jscan_iter {
	size_t open; /* offset of its '{' or '[' */
	bool first;
	const char *what; /* "the top-level object", "ops", ... for messages */
} jscan_iter;

void dpi_jscan_init(jscan *js, const char *path, const char *text, size_t len,
		    dp_err *err);
void dpi_jscan_free(jscan *js);

/* Skips white space (and a UTF-8 byte-order mark at offset 0); returns the
 * next byte, or -1 at the end. */
int dpi_jscan_peek(jscan *js);

/* Fills js->err with the position of offset off and a message. */
dp_status dpi_jscan_error_at(jscan *js, size_t off, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* The kind of value starting at the current position, for messages:
 * "string", "number", "object", "array", "boolean", "null". */
const char *dpi_jscan_kind(jscan *js);

/* Opens an object or array at the current position (after white space). */
dp_status dpi_jscan_object_begin(jscan *js, jscan_iter *it, const char *what);
dp_status dpi_jscan_array_begin(jscan *js, jscan_iter *it, const char *what);
/* The same at offset off (a value noted earlier). */
dp_status dpi_jscan_object_at(jscan *js, size_t off, jscan_iter *it,
			      const char *what);
dp_status dpi_jscan_array_at(jscan *js, size_t off, jscan_iter *it,
			     const char *what);
/* Moves to the next member: *has = false at the closing brace; otherwise
 * the key is decoded into js->sbuf (NUL-terminated, js->slen bytes), its
 * offset stored in *key_off, and the position is at the member's value. */
dp_status dpi_jscan_object_next(jscan *js, jscan_iter *it, bool *has,
				size_t *key_off);
/* Moves to the next element: *has = false at the closing bracket. */
dp_status dpi_jscan_array_next(jscan *js, jscan_iter *it, bool *has);

/* The same as one loop condition, which stops at the end or at an error:
 *	dp_status st = dpi_jscan_object_begin(js, &it, "what");
 *	while (dpi_jscan_member(js, &it, &key_off, &st)) ...
 * true at a member (as dpi_jscan_object_next; key_off may be NULL); false
 * at the closing brace, or when *st is an error already or becomes one. */
bool dpi_jscan_member(jscan *js, jscan_iter *it, size_t *key_off,
		      dp_status *st);
/* The same over an array's elements. */
bool dpi_jscan_element(jscan *js, jscan_iter *it, dp_status *st);

/* A member's name and where the offset of its value goes, for objects
 * whose values are read after the scan (a file's top level). */
typedef struct jscan_slot {
	const char *key;
	size_t *at;
} jscan_slot;

/* The slot of the table named js->sbuf, or NULL. */
size_t *dpi_jscan_slot(const jscan *js, const jscan_slot *slots, size_t n);

/* Skips one value, checking its syntax; *start and *end (may be NULL) get
 * its extent [start, end). */
dp_status dpi_jscan_value(jscan *js, size_t *start, size_t *end);
/* Reads a string value into js->sbuf. */
dp_status dpi_jscan_string(jscan *js);

/* Offset of the value of a child of the object or array at text[start]
 * (already validated, ending by end): the member named key when key is
 * not NULL (an object's), else the index-th member or element; start when
 * there is no such child. */
size_t dpi_jscan_child_offset(const char *text, size_t start, size_t end,
			      const char *key, int index);
/* Offset of the value of member key in the object text[start, end)
 * (already validated), or start when it has no such member. */
size_t dpi_jscan_member_offset(const char *text, size_t start, size_t end,
			       const char *key);

/* Checks that only white space follows the top-level value. */
dp_status dpi_jscan_end(jscan *js);

#endif

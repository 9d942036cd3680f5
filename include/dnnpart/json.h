/* json.h - the one JSON writer.
 *
 * Every JSON file and report dnnpart writes goes through it: placement
 * files, graphs (dp_gen_write_json), exports, and the command line's
 * --json reports. So a number or a string prints the same everywhere:
 *   numbers  dp_units_fmt_num(): the shortest text that reads back as
 *            exactly the same double, '.' as decimal point whatever the
 *            locale, null when not finite; integers (dp_json_int) exactly;
 *   strings  UTF-8 kept as it is, invalid bytes written as \ufffd, quotes,
 *            backslashes and control characters escaped.
 * Layout: objects and arrays one member per line, indented by two spaces;
 * an object begun with dp_json_begin_line() keeps its members on one line
 * (for rows of a table such as per-device metrics).
 *
 * The writer holds no memory of its own; it writes to a FILE the caller
 * owns and never fails by itself (check ferror(f) or the afile commit).
 * Members inside an object take a key; values inside an array and the
 * top-level value take key NULL.
 */
#ifndef DNNPART_JSON_H
#define DNNPART_JSON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define DP_JSON_MAX_DEPTH 32

typedef struct dp_json {
	FILE *f;
	int depth;
	/* per open level: no member written yet, and written on one line */
	bool empty[DP_JSON_MAX_DEPTH];
	bool line[DP_JSON_MAX_DEPTH];
	int over; /* levels open past DP_JSON_MAX_DEPTH (written on one line) */
} dp_json;

void dp_json_init(dp_json *w, FILE *f);
/* Objects and arrays; end writes the closing bracket (and, for the
 * top-level value, a newline). */
void dp_json_begin_object(dp_json *w, const char *key);
void dp_json_begin_line(dp_json *w, const char *key);
void dp_json_end_object(dp_json *w);
void dp_json_begin_array(dp_json *w, const char *key);
void dp_json_end_array(dp_json *w);
/* Values; dp_json_str(NULL) writes null. */
void dp_json_str(dp_json *w, const char *key, const char *s);
void dp_json_num(dp_json *w, const char *key, double v);
void dp_json_int(dp_json *w, const char *key, int64_t v);
void dp_json_bool(dp_json *w, const char *key, bool v);
void dp_json_null(dp_json *w, const char *key);

/* The same literals without a writer, for streaming writers that lay out
 * their own lines (dp_gen_write_json's one op per line). */
void dp_json_put_string(FILE *f, const char *s);
void dp_json_put_num(FILE *f, double v);

#endif

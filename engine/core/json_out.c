/* json_out.c - the one JSON writer (see dnnpart/json.h). */
#include "dnnpart/json.h"

#include <string.h>

#include "dnnpart/units.h"
#include "internal/utf8.h"

/* The bytes with an escape letter of their own (the other control bytes
 * are written \u00XX). */
static const char esc_from[] = "\"\\\n\r\t";
static const char esc_to[] = "\"\\nrt";

void dp_json_put_string(FILE *f, const char *s)
{
	putc('"', f);
	while (s && *s) {
		int n = dpi_utf8_seq_len(s);
		if (n == 0) {
			fputs("\\ufffd", f);
			s++;
			continue;
		}
		if (n > 1) {
			fwrite(s, 1, (size_t)n, f);
			s += n;
			continue;
		}
		unsigned char c = (unsigned char)*s++;
		const char *e = c ? strchr(esc_from, c) : NULL;
		if (e) {
			putc('\\', f);
			putc(esc_to[e - esc_from], f);
		} else if (c < 0x20 || c == 0x7F) {
			fprintf(f, "\\u%04x", c);
		} else {
			putc(c, f);
		}
	}
	putc('"', f);
}

void dp_json_put_num(FILE *f, double v)
{
	char b[40];
	fputs(dp_units_fmt_num(v, b, sizeof b), f);
}

void dp_json_init(dp_json *w, FILE *f)
{
	w->f = f;
	w->depth = 0;
	w->over = 0;
	w->empty[0] = true;
	w->line[0] = false;
}

/* Starts a member: separator, new line and indent, key. */
static void member(dp_json *w, const char *key)
{
	if (w->depth > 0) {
		int d = w->depth;
		if (!w->empty[d])
			putc(',', w->f);
		if (w->line[d]) {
			if (!w->empty[d])
				putc(' ', w->f);
		} else {
			putc('\n', w->f);
			for (int i = 0; i < d; i++)
				fputs("  ", w->f);
		}
		w->empty[d] = false;
	}
	if (key) {
		dp_json_put_string(w->f, key);
		fputs(": ", w->f);
	}
}

static void open_level(dp_json *w, const char *key, char bracket, bool line)
{
	member(w, key);
	putc(bracket, w->f);
	if (w->depth + 1 >= DP_JSON_MAX_DEPTH) {
		/* deeper than the writer tracks: the levels below share the
		 * deepest one's state (one line), their brackets still match */
		w->over++;
		w->line[w->depth] = true;
		w->empty[w->depth] = true;
		return;
	}
	bool in_line = w->depth > 0 && w->line[w->depth];
	w->depth++;
	w->empty[w->depth] = true;
	w->line[w->depth] = line || in_line;
}

static void close_level(dp_json *w, char bracket)
{
	if (w->over > 0) {
		w->over--;
		w->empty[w->depth] = false;
		putc(bracket, w->f);
		return;
	}
	int d = w->depth;
	if (!w->empty[d] && !w->line[d]) {
		putc('\n', w->f);
		for (int i = 0; i < d - 1; i++)
			fputs("  ", w->f);
	}
	putc(bracket, w->f);
	if (w->depth > 0)
		w->depth--;
	if (w->depth == 0)
		putc('\n', w->f);
}

void dp_json_begin_object(dp_json *w, const char *key)
{
	open_level(w, key, '{', false);
}

void dp_json_begin_line(dp_json *w, const char *key)
{
	open_level(w, key, '{', true);
}

void dp_json_end_object(dp_json *w)
{
	close_level(w, '}');
}

void dp_json_begin_array(dp_json *w, const char *key)
{
	open_level(w, key, '[', false);
}

void dp_json_end_array(dp_json *w)
{
	close_level(w, ']');
}

void dp_json_str(dp_json *w, const char *key, const char *s)
{
	member(w, key);
	if (s)
		dp_json_put_string(w->f, s);
	else
		fputs("null", w->f);
}

void dp_json_num(dp_json *w, const char *key, double v)
{
	member(w, key);
	dp_json_put_num(w->f, v);
}

void dp_json_int(dp_json *w, const char *key, int64_t v)
{
	member(w, key);
	fprintf(w->f, "%lld", (long long)v);
}

void dp_json_bool(dp_json *w, const char *key, bool v)
{
	member(w, key);
	fputs(v ? "true" : "false", w->f);
}

void dp_json_null(dp_json *w, const char *key)
{
	member(w, key);
	fputs("null", w->f);
}

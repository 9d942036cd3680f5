/* load.c - reading graph files: format detection by content and dispatch
 * to the per-format loaders (see load.h).
 */
#include "dnnpart/load.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dnnpart/units.h"
#include "internal/arrays.h"
#include "internal/json_scan.h"
#include "internal/load_util.h"

#define FORMAT_LIST                                                            \
	"native dnnpart JSON (an object with an \"ops\" array), msr-fiddle "   \
	"JSON (\"nodes\" and \"maxFPGAs\"), Graphviz DOT (starting with "      \
	"digraph, graph or strict), a PipeDream graph.txt (lines like "        \
	"'node1 -- Input0 -- forward_compute_time=...') or a ParDNN folder"

static const char *const format_names[] = {
	[DP_FMT_AUTO] = "auto",	    [DP_FMT_JSON] = "json",
	[DP_FMT_DOT] = "dot",	    [DP_FMT_PARDNN] = "pardnn",
	[DP_FMT_FIDDLE] = "fiddle", [DP_FMT_PIPEDREAM] = "pipedream",
};

const char *dp_load_format_name(dp_format f)
{
	return DPI_NAME_OF(format_names, f, "unknown");
}

dp_status dp_load_format_parse(const char *s, dp_format *f, dp_err *err)
{
	/* the other names three of them go by */
	static const char *const other_names[DPI_NARR(format_names)] = {
		[DP_FMT_JSON] = "native",
		[DP_FMT_DOT] = "gv",
		[DP_FMT_FIDDLE] = "msr-fiddle"};
	for (size_t i = 0; s && i < DPI_NARR(format_names); i++)
		if (strcasecmp(s, format_names[i]) == 0 ||
		    (other_names[i] && strcasecmp(s, other_names[i]) == 0)) {
			*f = (dp_format)i;
			return DP_OK;
		}
	return dp_err_set(err, DP_EINPUT, NULL, 0, 0,
			  "unknown format '%s': expected one of auto, json, "
			  "dot, pardnn, fiddle, pipedream",
			  s ? s : "");
}

dp_status dpi_load_name_from_file(dp_graph *g, const char *path, dp_err *err)
{
	size_t end = strlen(path);
	while (end > 1 && path[end - 1] == '/')
		end--;
	size_t start = end;
	while (start > 0 && path[start - 1] != '/')
		start--;
	size_t n = end - start;
	for (size_t i = end; i > start + 1; i--)
		if (path[i - 1] == '.') {
			n = i - 1 - start;
			break;
		}
	char nm[256];
	snprintf(nm, sizeof nm, "%.*s", (int)n, path + start);
	return dp_graph_set_name(g, nm, err);
}

dp_status dpi_load_new_graph(const char *source, const char *what, dp_graph **g,
			     dp_err *err)
{
	if (!(*g = dp_graph_new(NULL)))
		return dp_err_set(err, DP_ENOMEM, NULL, 0, 0,
				  "out of memory while loading %s", what);
	return dp_graph_set_source(*g, source, err);
}

char *dpi_load_trim(char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	size_t n = strlen(s);
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
		s[--n] = '\0';
	return s;
}

void dp_load_line_col(const char *text, size_t off, int *line, int *col)
{
	int l = 1;
	size_t ls = 0;
	const char *p = text;
	const char *end = text + off;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl)
			break;
		l++;
		p = nl + 1;
		ls = (size_t)(p - text);
	}
	*line = l;
	*col = (int)(off - ls) + 1;
}

/* read(2), again when a signal interrupts it. */
static ssize_t read_some(int fd, void *buf, size_t n)
{
	ssize_t r;
	do
		r = read(fd, buf, n);
	while (r < 0 && errno == EINTR);
	return r;
}

/* Frees buf, closes fd and says why the read failed (errno). */
static dp_status read_failed(int fd, char *buf, const char *path, dp_err *err)
{
	int e = errno;
	free(buf);
	close(fd);
	return dp_err_set(err, DP_EIO, path, 0, 0, "read error: %s",
			  strerror(e));
}

dp_status dp_load_read_file(const char *path, size_t max_bytes, char **text,
			    size_t *len, dp_err *err)
{
	*text = NULL;
	*len = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return dp_err_set(err, DP_EIO, path, 0, 0, "cannot open: %s",
				  strerror(errno));
	struct stat st;
	if (fstat(fd, &st) != 0) {
		int e = errno;
		close(fd);
		return dp_err_set(err, DP_EIO, path, 0, 0, "cannot read: %s",
				  strerror(e));
	}
	if (S_ISDIR(st.st_mode)) {
		close(fd);
		return dp_err_set(err, DP_EINPUT, path, 0, 0,
				  "is a folder; expected a file");
	}
	char a[32], b[32];
	if (max_bytes && S_ISREG(st.st_mode) &&
	    (uint64_t)st.st_size > (uint64_t)max_bytes) {
		close(fd);
		return dp_err_set(
			err, DP_EINPUT, path, 0, 0,
			"the file is %s, more than the %s this "
			"machine can hold in memory for loading",
			dp_units_fmt_bytes(st.st_size, a, sizeof a),
			dp_units_fmt_bytes((int64_t)max_bytes, b, sizeof b));
	}
	/* regular files: one buffer of the right size; others (pipes):
	 * grow as data comes */
	size_t cap = S_ISREG(st.st_mode) ? (size_t)st.st_size + 1 : 65536;
	size_t n = 0;
	char *buf = malloc(cap);
	if (!buf) {
		close(fd);
		return dp_err_set(
			err, DP_ENOMEM, path, 0, 0,
			"out of memory: cannot hold the file (%s)",
			dp_units_fmt_bytes((int64_t)cap, a, sizeof a));
	}
	for (;;) {
		if (n + 1 >= cap) {
			/* full: a regular file is normally at its end here,
			 * so look for one more byte before doubling (else a
			 * file would need twice its size to be read) */
			char probe;
			ssize_t r = read_some(fd, &probe, 1);
			if (r < 0)
				return read_failed(fd, buf, path, err);
			if (r == 0)
				break;
			if (max_bytes && n >= max_bytes) {
				free(buf);
				close(fd);
				return dp_err_set(
					err, DP_EINPUT, path, 0, 0,
					"the input is more than the "
					"%s this machine can hold in "
					"memory for loading",
					dp_units_fmt_bytes((int64_t)max_bytes,
							   a, sizeof a));
			}
			char *q = realloc(buf, cap * 2);
			if (!q) {
				free(buf);
				close(fd);
				return dp_err_set(
					err, DP_ENOMEM, path, 0, 0,
					"out of memory reading the file (more "
					"than %s)",
					dp_units_fmt_bytes((int64_t)n, a,
							   sizeof a));
			}
			buf = q;
			cap *= 2;
			buf[n++] = probe;
			continue;
		}
		ssize_t r = read_some(fd, buf + n, cap - 1 - n);
		if (r < 0)
			return read_failed(fd, buf, path, err);
		if (r == 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	buf[n] = '\0';
	*text = buf;
	*len = n;
	return DP_OK;
}

/* The most a graph file may be: half the physical memory, because the
 * graph built from it needs room too. 0 (no limit) when unknown. */
static size_t load_limit(void)
{
	long pages = sysconf(_SC_PHYS_PAGES);
	long psize = sysconf(_SC_PAGESIZE);
	if (pages <= 0 || psize <= 0)
		return 0;
	unsigned long long mem =
		(unsigned long long)pages * (unsigned long long)psize;
	mem /= 2;
	return mem > (size_t)-1 ? (size_t)-1 : (size_t)mem;
}

/* What detection learned from a JSON text's top-level keys. */
typedef struct json_keys {
	bool ops_array /* an "ops" member */, nodes, max_fpgas, source_id;
	bool nomem; /* the scan ran out of memory: nothing can be told */
	char format[32];
} json_keys;

/* Does the first element of the array at js->pos have a "sourceId"? */
static bool first_has_source_id(jscan *js)
{
	jscan_iter it;
	bool has;
	size_t s, e;
	if (dpi_jscan_array_begin(js, &it, "edges") ||
	    dpi_jscan_array_next(js, &it, &has) || !has ||
	    dpi_jscan_peek(js) != '{' || dpi_jscan_value(js, &s, &e))
		return false;
	return dpi_jscan_member_offset(js->text, s, e, "sourceId") != s;
}

/* Walks the top-level object collecting the keys detection needs. Stops at
 * the first syntax error (detection is generous; the loader reports it). */
static void scan_json_keys(const char *text, size_t len, json_keys *k)
{
	memset(k, 0, sizeof *k);
	dp_err e;
	dp_err_clear(&e);
	jscan js;
	dpi_jscan_init(&js, NULL, text, len, &e);
	jscan_iter it;
	bool has;
	if (dpi_jscan_object_begin(&js, &it, "the top-level object"))
		goto out;
	while (!dpi_jscan_object_next(&js, &it, &has, NULL) && has) {
		char key[32];
		snprintf(key, sizeof key, "%s", js.sbuf);
		int c = dpi_jscan_peek(&js);
		if (strcmp(key, "ops") == 0) {
			/* any type: the loader then says "ops" must be an
			 * array, which helps more than "unknown kind" */
			k->ops_array = true;
		} else if (strcmp(key, "nodes") == 0) {
			k->nodes = true;
		} else if (strcmp(key, "maxFPGAs") == 0) {
			k->max_fpgas = true;
		} else if (strcmp(key, "format") == 0 && c == '"') {
			if (dpi_jscan_string(&js))
				break;
			snprintf(k->format, sizeof k->format, "%s", js.sbuf);
			continue;
		} else if (strcmp(key, "edges") == 0 && c == '[') {
			size_t at = js.pos;
			k->source_id = first_has_source_id(&js);
			js.pos = at;
		}
		if (dpi_jscan_value(&js, NULL, NULL))
			break;
	}
out:
	k->nomem = e.code == DP_ENOMEM;
	dpi_jscan_free(&js);
}

/* True when the text's first non-blank line looks like a PipeDream node
 * line: "nodeN -- ". */
static bool looks_pipedream(const char *p)
{
	if (strncmp(p, "node", 4) != 0)
		return false;
	p += 4;
	if (!isdigit((unsigned char)*p))
		return false;
	while (isdigit((unsigned char)*p))
		p++;
	return strncmp(p, " -- ", 4) == 0;
}

/* Skips white space and DOT comments (C, C++ and '#' lines). */
static const char *skip_blank(const char *p, const char *end)
{
	while (p < end) {
		if (isspace((unsigned char)*p)) {
			p++;
		} else if (p + 1 < end && p[0] == '/' && p[1] == '/') {
			while (p < end && *p != '\n')
				p++;
		} else if (p + 1 < end && p[0] == '/' && p[1] == '*') {
			const char *q = strstr(p + 2, "*/");
			p = q ? q + 2 : end;
		} else if (*p == '#') {
			while (p < end && *p != '\n')
				p++;
		} else {
			break;
		}
	}
	return p;
}

static bool is_keyword(const char *p, const char *end, const char *kw)
{
	size_t n = strlen(kw);
	return (size_t)(end - p) >= n && strncasecmp(p, kw, n) == 0 &&
	       (p + n == end || !(isalnum((unsigned char)p[n]) || p[n] == '_'));
}

/* Detects the format of text; path is used for messages. */
static dp_status detect_text(const char *path, const char *text, size_t len,
			     dp_format *fmt, dp_err *err)
{
	const char *end = text + len;
	const char *p = text;
	if (len >= 3 && memcmp(p, "\xef\xbb\xbf", 3) == 0)
		p += 3;
	const char *first = p;
	while (first < end && isspace((unsigned char)*first))
		first++;
	if (first == end)
		return dp_err_set(err, DP_EINPUT, path, 0, 0,
				  "empty file: expected a graph in one of "
				  "these formats: " FORMAT_LIST);
	if (*first == '{') {
		json_keys k;
		scan_json_keys(text, len, &k);
		if (k.nomem)
			return dp_err_set(err, DP_ENOMEM, path, 0, 0,
					  "out of memory while telling the "
					  "file's format");
		if (strcmp(k.format, "dnnpart-placement") == 0)
			return dp_err_set(err, DP_EINPUT, path, 0, 0,
					  "this is a dnnpart placement file, "
					  "not a graph (give it as the "
					  "PLACEMENT argument of eval)");
		if (strcmp(k.format, "dnnpart-strategy") == 0)
			return dp_err_set(err, DP_EINPUT, path, 0, 0,
					  "this is a dnnpart strategy file, "
					  "not a graph (give it as the "
					  "second argument of eval)");
		if (strcmp(k.format, "dnnpart-graph") == 0 || k.ops_array) {
			*fmt = DP_FMT_JSON;
			return DP_OK;
		}
		if ((k.nodes && k.max_fpgas) || k.source_id) {
			*fmt = DP_FMT_FIDDLE;
			return DP_OK;
		}
		return dp_err_set(err, DP_EINPUT, path, 1, 1,
				  "JSON of an unknown kind: expected a native "
				  "dnnpart graph (\"format\": "
				  "\"dnnpart-graph\" or an \"ops\" array) or "
				  "msr-fiddle JSON (\"nodes\" and "
				  "\"maxFPGAs\"); use --format to force one");
	}
	if (*first == '[')
		return dp_err_set(err, DP_EINPUT, path, 0, 0,
				  "JSON with an array at the top level: "
				  "expected an object, such as a native "
				  "dnnpart graph {\"ops\": [...], \"edges\": "
				  "[...]}");
	if (looks_pipedream(first)) {
		*fmt = DP_FMT_PIPEDREAM;
		return DP_OK;
	}
	const char *q = skip_blank(p, end);
	if (is_keyword(q, end, "digraph") || is_keyword(q, end, "graph") ||
	    is_keyword(q, end, "strict")) {
		*fmt = DP_FMT_DOT;
		return DP_OK;
	}
	return dp_err_set(
		err, DP_EINPUT, path, 0, 0,
		"cannot tell the format of this file: expected " FORMAT_LIST
		"; use --format to force one");
}

/* Detection from the first MiB of a large regular file, so that a huge
 * file of the wrong kind (or of zeros) fails without being read whole.
 * Returns 1 when decided (*fmt set), -1 when decidedly no graph (err
 * filled), 0 when only the whole file can tell (JSON whose telling keys
 * come late) or the file is small. */
static int detect_by_prefix(const char *path, const struct stat *st,
			    dp_format *fmt, dp_err *err)
{
	enum { PREFIX = 1 << 20 };
	if (!S_ISREG(st->st_mode) || st->st_size <= PREFIX)
		return 0;
	char *buf = malloc(PREFIX + 1);
	FILE *f = buf ? fopen(path, "rb") : NULL;
	size_t n = f ? fread(buf, 1, PREFIX, f) : 0;
	if (f)
		fclose(f);
	int r = 0;
	if (n > 0) {
		buf[n] = '\0';
		if (detect_text(path, buf, n, fmt, NULL) == DP_OK) {
			r = 1;
		} else {
			const char *p = buf;
			if (n >= 3 && memcmp(p, "\xef\xbb\xbf", 3) == 0)
				p += 3;
			while (p < buf + n && isspace((unsigned char)*p))
				p++;
			/* only JSON can need more than its start */
			if (p < buf + n && *p != '{') {
				detect_text(path, buf, n, fmt, err);
				r = -1;
			}
		}
	}
	free(buf);
	return r;
}

dp_status dp_load_detect(const char *path, dp_format *fmt, dp_err *err)
{
	struct stat st;
	if (stat(path, &st) != 0)
		return dp_err_set(err, DP_EIO, path, 0, 0, "cannot open: %s",
				  strerror(errno));
	if (S_ISDIR(st.st_mode)) {
		*fmt = DP_FMT_PARDNN;
		return DP_OK;
	}
	/* the first MiB decides for nearly every file; only when it does not
	 * (a JSON file whose telling keys come late) is the whole file read */
	int r = detect_by_prefix(path, &st, fmt, err);
	if (r > 0)
		return DP_OK;
	if (r < 0)
		return err ? err->code : DP_EINPUT;
	char *text;
	size_t len;
	dp_status s = dp_load_read_file(path, load_limit(), &text, &len, err);
	if (s)
		return s;
	s = detect_text(path, text, len, fmt, err);
	free(text);
	return s;
}

/* "dir/name.ext" -> "name", "dir/folder/" -> "folder". Caller frees. */
static dp_status not_available(const char *path, dp_format f, dp_err *err)
{
	return dp_err_set(err, DP_EINPUT, path, 0, 0,
			  "the %s format is recognised but its loader is "
			  "not available in this build",
			  dp_load_format_name(f));
}

/* The loader of each single-file format (the ParDNN folder has its own
 * entry point). */
typedef dp_status (*text_loader)(const char *path, const char *text, size_t len,
				 dp_graph **out, dp_err *err);
static const text_loader text_loaders[] = {
	[DP_FMT_JSON] = dp_load_json,
	[DP_FMT_DOT] = dp_load_dot,
	[DP_FMT_FIDDLE] = dp_load_fiddle,
	[DP_FMT_PIPEDREAM] = dp_load_pipedream,
};

dp_status dp_graph_load(const char *path, dp_format fmt, dp_graph **out,
			dp_err *err)
{
	dp_err_clear(err);
	struct stat st;
	if (stat(path, &st) != 0)
		return dp_err_set(err, DP_EIO, path, 0, 0, "cannot open: %s",
				  strerror(errno));
	bool dir = S_ISDIR(st.st_mode);
	if (dir && fmt != DP_FMT_AUTO && fmt != DP_FMT_PARDNN)
		return dp_err_set(err, DP_EINPUT, path, 0, 0,
				  "is a folder, but the %s format is a single "
				  "file",
				  dp_load_format_name(fmt));
	if (!dir && fmt == DP_FMT_PARDNN)
		return dp_err_set(err, DP_EINPUT, path, 0, 0,
				  "the pardnn format is a folder of files; "
				  "this is a file");

	char *text = NULL;
	size_t len = 0;
	dp_status s = DP_OK;
	dp_graph *g = NULL;
	if (!dir && fmt == DP_FMT_AUTO &&
	    detect_by_prefix(path, &st, &fmt, err) < 0)
		return err ? err->code : DP_EINPUT;
	if (dir) {
		s = dp_load_pardnn(path, &g, err);
	} else {
		s = dp_load_read_file(path, load_limit(), &text, &len, err);
		if (!s && fmt == DP_FMT_AUTO)
			s = detect_text(path, text, len, &fmt, err);
	}
	if (!s && !dir) {
		text_loader load =
			(unsigned)fmt < sizeof text_loaders /
						sizeof text_loaders[0]
				? text_loaders[fmt]
				: NULL;
		s = load ? load(path, text, len, &g, err)
			 : not_available(path, fmt, err);
	}
	free(text);
	if (!s && !g->name[0])
		s = dpi_load_name_from_file(g, path, err);
	if (!s)
		s = dp_graph_set_source(g, path, err);
	if (!s) {
		s = dp_graph_finalize(g, err);
		if (s && err && !err->file[0])
			snprintf(err->file, sizeof err->file, "%s", path);
	}
	if (s) {
		dp_graph_free(g);
		return s;
	}
	*out = g;
	return DP_OK;
}

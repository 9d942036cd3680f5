/* testlib_text.c - the text and edit-case readers of testlib.h: a graph
 * loaded from text or a file of tests/data, the edit tables (test_check_edits),
 * dims as text and small graphs from text (test_graph_text). */
#include "testlib.h"

#include <stdlib.h>
#include <string.h>

#include "dnnpart/load.h"

dp_graph *test_loaded(dp_status st, dp_graph *g, dp_err *err)
{
	if (st == DP_OK && dp_graph_finalize(g, err) == DP_OK)
		return g;
	dp_graph_free(g);
	return NULL;
}

dp_graph *test_load_with(test_text_loader load, const char *path,
			 const char *text, dp_err *err)
{
	dp_err_clear(err);
	size_t len = text ? strlen(text) : 0;
	char *file = text ? NULL : test_read_file(path, &len);
	if (!text && !file) {
		dp_err_set(err, DP_EIO, path, 0, 0, "cannot read");
		return NULL;
	}
	dp_graph *g = NULL;
	dp_status st = load(path, text ? text : file, len, &g, err);
	free(file);
	return test_loaded(st, g, err);
}

dp_graph *test_load_data(test_text_loader load, const char *rel)
{
	char path[1024];
	snprintf(path, sizeof path, "%s/%s", test_data_dir(), rel);
	dp_err err;
	dp_graph *g = test_load_with(load, path, NULL, &err);
	if (!g)
		FAIL_ERR(rel, &err);
	return g;
}

dp_graph *test_json_text(const char *text)
{
	dp_err err;
	dp_graph *g = test_load_with(dp_load_json, "t.json", text, &err);
	if (g && dp_graph_set_source(g, "t.json", &err) != DP_OK) {
		dp_graph_free(g);
		g = NULL;
	}
	if (!g)
		test_fail(__FILE__, __LINE__, "load: %s", err.msg);
	return g;
}

/* Loads text as the file name, sets it as the source and finalizes. */
static dp_status load_named(test_text_loader load, const char *name,
			    const char *text, dp_err *err)
{
	dp_graph *g = NULL;
	dp_err_clear(err);
	dp_status st = load(name, text, strlen(text), &g, err);
	if (!st && !(st = dp_graph_set_source(g, name, err)))
		st = dp_graph_finalize(g, err);
	dp_graph_free(g);
	return st;
}

/* One edit case: base with from replaced by to fails with msg. */
static void check_edit(const char *path, int line, const char *base,
		       const char *from, const char *to, const char *msg,
		       test_text_loader load, const char *name)
{
	const char *at = strstr(base, from);
	if (!at) {
		test_fail(path, line, "'%s' is not in the base text", from);
		return;
	}
	size_t n = strlen(base) + strlen(to) + 1;
	char *text = malloc(n);
	if (!text) {
		test_fail(path, line, "out of memory");
		return;
	}
	snprintf(text, n, "%.*s%s%s", (int)(at - base), base, to,
		 at + strlen(from));
	dp_err err;
	dp_status st = load_named(load, name, text, &err);
	char got[1600];
	dp_err_format(&err, got, sizeof got);
	if (st != DP_EINPUT || strcmp(got, msg) != 0)
		test_fail(path, line,
			  "status %d, error \"%s\", want %d, \"%s\"", (int)st,
			  got, (int)DP_EINPUT, msg);
	free(text);
}

int test_check_edits(const char *path, const char *base, test_text_loader load,
		     const char *name)
{
	char *file = test_read_file(path, NULL);
	if (!file || !base) {
		test_fail(path, 0, "cannot read it or its base text");
		free(file);
		return 0;
	}
	const char *from = NULL, *to = NULL;
	int n = 0, line = 0;
	for (char *l = file, *next; l; l = next) {
		next = strchr(l, '\n');
		if (next)
			*next++ = '\0';
		line++;
		if (!strncmp(l, "replace ", 8))
			from = l + 8, to = NULL;
		else if (!strncmp(l, "with ", 5) && from)
			to = l + 5;
		else if (!strncmp(l, "error ", 6) && from && to) {
			check_edit(path, line, base, from, to, l + 6, load,
				   name);
			from = to = NULL;
			n++;
		} else if (l[0] && l[0] != '#')
			test_fail(path, line,
				  "expected replace, with or error in that "
				  "order, got '%s'",
				  l);
	}
	free(file);
	return n;
}

/* " label=b,s" (" label=-" when n < 0) of the dims d indexes by which. */
static size_t dims_list(char *buf, size_t size, const char *label,
			const dp_graph *g, const dp_dims *d,
			const uint8_t *which, int n)
{
	size_t p =
		(size_t)snprintf(buf, size, " %s=%s", label, n < 0 ? "-" : "");
	for (int i = 0; i < n; i++)
		p += (size_t)snprintf(buf + p, size - p, "%s%s", i ? "," : "",
				      dp_graph_str(g, d->name_off[which[i]]));
	return p;
}

const char *test_dims_text(const dp_graph *g, uint32_t op)
{
	static char buf[512];
	dp_dims d;
	size_t p = 0;
	buf[0] = '\0';
	if (!dp_op_dims(g, op, &d))
		return "none";
	for (uint32_t i = 0; i < d.n; i++)
		p += (size_t)snprintf(
			buf + p, sizeof buf - p, "%s%s=%lld", i ? "," : "",
			dp_graph_str(g, d.name_off[i]), (long long)d.sizes[i]);
	p += dims_list(buf + p, sizeof buf - p, "out", g, &d, d.out, d.nout);
	p += dims_list(buf + p, sizeof buf - p, "param", g, &d, d.param,
		       d.nparam);
	snprintf(buf + p, sizeof buf - p, " elem=%lld",
		 (long long)d.elem_bytes);
	return buf;
}

const char *test_edge_dims_text(const dp_graph *g, uint32_t e)
{
	static char buf[256];
	const uint32_t *nm;
	int n = dp_edge_dims(g, e, &nm);
	if (n < 0)
		return "none";
	size_t p = 0;
	buf[0] = '\0';
	for (int i = 0; i < n; i++)
		p += (size_t)snprintf(buf + p, sizeof buf - p, "%s%s",
				      i ? "," : "", dp_graph_str(g, nm[i]));
	return n ? buf : "[]";
}

/* One edge "FROM>TO" or "FROM~TO" of test_graph_text. */
static void text_edge(dp_graph *g, char *w, int64_t bytes)
{
	char *mark = strpbrk(w, ">~");
	bool control = mark && *mark == '~';
	if (mark)
		*mark++ = '\0';
	uint32_t from = dp_graph_find(g, w);
	uint32_t to = mark ? dp_graph_find(g, mark) : UINT32_MAX;
	dp_err err;
	if (from == UINT32_MAX || to == UINT32_MAX)
		test_fail(__FILE__, __LINE__, "edge '%s': no such ops", w);
	else if (dp_graph_add_edge(g, from, to, bytes, control, &err) != DP_OK)
		test_fail(__FILE__, __LINE__, "edge %s -> %s: %s", w, mark,
			  err.msg);
}

dp_graph *test_graph_text(const char *name, const char *text, int64_t bytes)
{
	dp_graph *g = dp_graph_new(name);
	char *copy = strdup(text);
	if (!g || !copy) {
		test_fail(__FILE__, __LINE__, "out of memory");
		free(copy);
		return g;
	}
	char *edges = strchr(copy, ';');
	if (edges)
		*edges++ = '\0';
	char *save;
	for (char *w = strtok_r(copy, " ", &save); w;
	     w = strtok_r(NULL, " ", &save)) {
		char *t = strchr(w, ':');
		if (t)
			*t++ = '\0';
		test_add_op(g, w, t ? strtod(t, NULL) : 0, 0, NULL);
	}
	for (char *w = edges ? strtok_r(edges, " ", &save) : NULL; w;
	     w = strtok_r(NULL, " ", &save))
		text_edge(g, w, bytes);
	free(copy);
	return g;
}

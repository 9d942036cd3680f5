/* load_fiddle.c - msr-fiddle JSON (Tarnawski et al., "Efficient Algorithms
 * for Device Placement of DNN Graph Operators", NeurIPS 2020;
 * github.com/msr-fiddle/dnn-partitioning).
 *
 *   {"maxSizePerFPGA": 17185374208.0, "maxFPGAs": 6, "maxCPUs": 1,
 *    "nodes": [{"id": 3, "name": "node3", "fpgaLatency": 0.696,
 *               "size": 131325952.0, "colorClass": 3, "isBackwardNode": 0,
 *               "supportedOnFpga": 1, "cpuLatency": 6.96}, ...],
 *    "edges": [{"sourceId": 3, "destId": 5, "cost": 0.06, "size": 54579200.0}]}
 *
 * Mapping (docs/formats.md says the same to users):
 * - maxFPGAs -> the machine hint's device count, maxSizePerFPGA -> its
 *   per-device memory; maxCPUs and cpuLatency are not used.
 * - fpgaLatency is in milliseconds and becomes time_us = 1000 x fpgaLatency.
 *   The source states no unit; its layer graphs copy PipeDream's profiles,
 *   which are in ms (resnet50: node77 has fpgaLatency 1.236 and PipeDream's
 *   forward_compute_time=1.236), and the operator graphs are on the same
 *   scale (ms gives a ResNet-50 training step of 0.68 s; µs would give an
 *   impossible 0.68 ms).
 * - size -> param_bytes: the paper's model charges each node's size to its
 *   device for the whole step (a layer's size is its weights plus its
 *   stashed activations, e.g. node77: 205520896 activation + 4096 weights),
 *   so it is memory held for the step, not a transient output. Ops have
 *   output_bytes 0; an edge's size says what a transfer moves (an edge
 *   without one moves its producer's size). Its cost (a time for the
 *   paper's CPU-DRAM link, ms like fpgaLatency) is kept as the edge's
 *   transfer time in µs (dp_graph.xfer_us), which prices it only under
 *   `--link file`; otherwise the machine's link prices bytes.
 * - colorClass -> colocation group "color<N>", made only for classes that
 *   two or more nodes share.
 * - supportedOnFpga false: the node runs on the host CPU; it is kept out of
 *   the graph and counted in g->cpu_pinned (see internal/load_host.h).
 * - name -> op name (default "node<id>"); layerId -> layer "layer<N>", else
 *   colorClass -> layer "class<N>"; isBackwardNode -> type and role
 *   "backward" or "forward".
 * Errors name the file, line and column of the offending node, edge or
 * member (the files are one long line, so the column is what matters).
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "dnnpart/load.h"
#include "dnnpart/units.h"
#include "internal/json_scan.h"
#include "internal/load_host.h"
#include "internal/load_util.h"
#include "internal/nomem.h"
#include "internal/sort_key.h"

#define MS_TO_US 1000.0

typedef struct fd_state {
	const char *path;
	const char *text;
	size_t len;
	dp_graph *g;
	dp_err *err;
} fd_state;

typedef struct fd_id {
	double id;
	uint32_t op;
} fd_id;

/* Line and column (1-based) of byte offset off. */
static void line_col(const char *t, size_t off, int *line, int *col)
{
	int l = 1, c = 1;
	for (size_t i = 0; i < off && t[i]; i++) {
		if (t[i] == '\n') {
			l++;
			c = 1;
		} else {
			c++;
		}
	}
	*line = l;
	*col = c;
}

/* Skips a JSON string starting at t[i] == '"'; returns the offset after
 * its closing quote. */
static size_t skip_string(const char *t, size_t len, size_t i)
{
	for (i++; i < len && t[i] != '"'; i++)
		if (t[i] == '\\')
			i++;
	return i + 1;
}

/* In the (already validated) JSON object starting at t[start], the offset
 * of the value of member key, or start if there is none. */
static size_t member_offset(const char *t, size_t len, size_t start,
			    const char *key)
{
	size_t klen = strlen(key);
	int depth = 0;
	for (size_t i = start; i < len;) {
		char c = t[i];
		if (c == '"') {
			size_t end = skip_string(t, len, i);
			if (depth == 1 && end - i - 2 == klen &&
			    memcmp(t + i + 1, key, klen) == 0) {
				size_t j = end;
				while (j < len && isspace((unsigned char)t[j]))
					j++;
				if (j < len && t[j] == ':') {
					for (j++; j < len &&
						  isspace((unsigned char)t[j]);)
						j++;
					return j;
				}
			}
			i = end;
			continue;
		}
		if (c == '{' || c == '[')
			depth++;
		else if ((c == '}' || c == ']') && --depth == 0)
			break;
		i++;
	}
	return start;
}

/* Offset of element idx of the top-level member array key (its '{'), or
 * of the array itself when idx is out of range, or 0. */
static size_t element_offset(const char *t, size_t len, const char *key,
			     int idx)
{
	size_t arr = member_offset(t, len, 0, key);
	if (arr == 0 || arr >= len || t[arr] != '[')
		return arr;
	int depth = 0, count = -1;
	for (size_t i = arr; i < len;) {
		char c = t[i];
		if (c == '"') {
			i = skip_string(t, len, i);
			continue;
		}
		if (c == '{' || c == '[') {
			if (depth == 1 && ++count == idx)
				return i;
			depth++;
		} else if ((c == '}' || c == ']') && --depth == 0) {
			break;
		}
		i++;
	}
	return arr;
}

/* An error about member key of element idx of array what ("nodes",
 * "edges"); key NULL points at the element itself. */
static dp_status bad(fd_state *s, const char *what, int idx, const char *key,
		     const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

static dp_status bad(fd_state *s, const char *what, int idx, const char *key,
		     const char *fmt, ...)
{
	size_t off = element_offset(s->text, s->len, what, idx);
	if (key)
		off = member_offset(s->text, s->len, off, key);
	int line, col;
	line_col(s->text, off, &line, &col);
	char msg[900];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	return dp_err_set(s->err, DP_EINPUT, s->path, line, col, "%s[%d]: %s",
			  what, idx, msg);
}

/* A number member; *have = false (and no error) when absent and !need. */
static dp_status get_number(fd_state *s, const cJSON *obj, const char *what,
			    int idx, const char *key, bool need, double *v,
			    bool *have)
{
	const cJSON *m = cJSON_GetObjectItemCaseSensitive(obj, key);
	*have = m != NULL;
	if (!m) {
		if (need)
			return bad(s, what, idx, NULL,
				   "missing \"%s\" (a number)", key);
		return DP_OK;
	}
	if (!cJSON_IsNumber(m))
		return bad(s, what, idx, key, "\"%s\" must be a number", key);
	*v = m->valuedouble;
	if (!isfinite(*v) || *v < 0)
		return bad(s, what, idx, key,
			   "\"%s\" must be a finite number >= 0, got %g", key,
			   *v);
	return DP_OK;
}

/* A "size" read by get_number must also fit the graph's byte counts
 * (1e300 became a negative int64 and a message without a position). */
static dp_status check_size(fd_state *s, const char *what, int idx, double v)
{
	if (v <= 4611686018427387904.0) /* 2^62, as units.c */
		return DP_OK;
	return bad(s, what, idx, "size",
		   "\"size\" must be a number of bytes from 0 to 2^62, got %g",
		   v);
}

/* A boolean member that may also be 0/1; def when absent. */
static dp_status get_flag(fd_state *s, const cJSON *obj, int idx,
			  const char *key, bool def, bool *v)
{
	const cJSON *m = cJSON_GetObjectItemCaseSensitive(obj, key);
	if (!m) {
		*v = def;
		return DP_OK;
	}
	if (cJSON_IsBool(m)) {
		*v = cJSON_IsTrue(m);
		return DP_OK;
	}
	if (cJSON_IsNumber(m) && (m->valuedouble == 0 || m->valuedouble == 1)) {
		*v = m->valuedouble == 1;
		return DP_OK;
	}
	return bad(s, "nodes", idx, key, "\"%s\" must be true/false or 0/1",
		   key);
}

static bool is_int(double v)
{
	return isfinite(v) && v == floor(v) && fabs(v) < 9e15;
}

static int cmp_id(const void *a, const void *b)
{
	double x = ((const fd_id *)a)->id, y = ((const fd_id *)b)->id;
	return x < y ? -1 : x > y;
}

static uint32_t find_id(const fd_id *ids, uint32_t n, double id)
{
	fd_id key = {id, 0};
	const fd_id *f = bsearch(&key, ids, n, sizeof *ids, cmp_id);
	return f ? f->op : UINT32_MAX;
}

static dp_status read_hint(fd_state *s, const cJSON *root)
{
	const cJSON *k = cJSON_GetObjectItemCaseSensitive(root, "maxFPGAs");
	const cJSON *m =
		cJSON_GetObjectItemCaseSensitive(root, "maxSizePerFPGA");
	int line, col;
	if (k) {
		if (!cJSON_IsNumber(k) || !is_int(k->valuedouble) ||
		    k->valuedouble < 1 || k->valuedouble > 1024) {
			line_col(s->text,
				 member_offset(s->text, s->len, 0, "maxFPGAs"),
				 &line, &col);
			return dp_err_set(s->err, DP_EINPUT, s->path, line, col,
					  "\"maxFPGAs\" must be an integer "
					  "from 1 to 1024");
		}
		s->g->hint.devices = (int)k->valuedouble;
	}
	if (m) {
		if (!cJSON_IsNumber(m) || !isfinite(m->valuedouble) ||
		    m->valuedouble <= 0 || m->valuedouble > 4e18) {
			line_col(s->text,
				 member_offset(s->text, s->len, 0,
					       "maxSizePerFPGA"),
				 &line, &col);
			return dp_err_set(s->err, DP_EINPUT, s->path, line, col,
					  "\"maxSizePerFPGA\" must be a number "
					  "of bytes > 0");
		}
		s->g->hint.memory_bytes = (int64_t)llround(m->valuedouble);
	}
	return DP_OK;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* How many entries of the sorted array v[0..n) equal c. */
static uint32_t count_sorted(const double *v, uint32_t n, double c)
{
	uint32_t lo = dpi_lower_bound(v, n, c), k = 0;
	while (lo + k < n && v[lo + k] == c)
		k++;
	return k;
}

/* Puts nodes whose colorClass is shared by two or more into group
 * "color<N>". colors[u] is NAN for a node without a class. */
static dp_status colocate_colors(fd_state *s, const double *colors)
{
	uint32_t n = s->g->nops, m = 0;
	double *sorted = malloc(((size_t)n + 1) * sizeof *sorted);
	if (!sorted)
		return dpi_nomem(s->err, "loading an msr-fiddle graph");
	for (uint32_t u = 0; u < n; u++)
		if (!isnan(colors[u]))
			sorted[m++] = colors[u];
	qsort(sorted, m, sizeof *sorted, cmp_double);
	dp_status st = DP_OK;
	char buf[64];
	for (uint32_t u = 0; u < n && !st; u++) {
		if (isnan(colors[u]) || count_sorted(sorted, m, colors[u]) < 2)
			continue;
		snprintf(buf, sizeof buf, "color%.0f", colors[u]);
		st = dp_graph_set_colocate(s->g, u, buf, s->err);
	}
	free(sorted);
	return st;
}

/* Reads every node's id first, so that a duplicate id is reported as such
 * (not as the duplicate default name "node<id>" it would make). */
static dp_status read_ids(fd_state *s, const cJSON *nodes, fd_id *ids)
{
	uint32_t n = 0;
	const cJSON *nd;
	cJSON_ArrayForEach(nd, nodes)
	{
		if (!cJSON_IsObject(nd))
			return bad(s, "nodes", (int)n, NULL,
				   "each node must be an object");
		const cJSON *jid = cJSON_GetObjectItemCaseSensitive(nd, "id");
		if (!jid)
			return bad(s, "nodes", (int)n, NULL,
				   "missing \"id\" (an integer)");
		if (!cJSON_IsNumber(jid) || !is_int(jid->valuedouble))
			return bad(s, "nodes", (int)n, "id",
				   "\"id\" must be an integer");
		ids[n].id = jid->valuedouble;
		ids[n].op = n;
		n++;
	}
	qsort(ids, n, sizeof *ids, cmp_id);
	for (uint32_t i = 1; i < n; i++)
		if (ids[i].id == ids[i - 1].id) {
			uint32_t later = ids[i].op > ids[i - 1].op
						 ? ids[i].op
						 : ids[i - 1].op;
			return bad(s, "nodes", (int)later, "id",
				   "duplicate \"id\" %.0f", ids[i].id);
		}
	return DP_OK;
}

/* Adds one op per node, in file order (ids already checked). */
static dp_status read_nodes(fd_state *s, const cJSON *nodes, double *colors,
			    bool *host, uint32_t *nhost)
{
	dp_graph *g = s->g;
	int idx = 0;
	const cJSON *nd;
	char buf[64];
	cJSON_ArrayForEach(nd, nodes)
	{
		double id = 0, lat = 0, size = 0, cc = 0, lid = 0;
		bool have, have_cc, have_lid, backward, supported;
		dp_status st;
		if ((st = get_number(s, nd, "nodes", idx, "fpgaLatency", true,
				     &lat, &have)) ||
		    (st = get_number(s, nd, "nodes", idx, "size", true, &size,
				     &have)) ||
		    (st = check_size(s, "nodes", idx, size)) ||
		    (st = get_flag(s, nd, idx, "isBackwardNode", false,
				   &backward)) ||
		    (st = get_flag(s, nd, idx, "supportedOnFpga", true,
				   &supported)))
			return st;
		id = cJSON_GetObjectItemCaseSensitive(nd, "id")->valuedouble;
		const cJSON *jc =
			cJSON_GetObjectItemCaseSensitive(nd, "colorClass");
		have_cc = jc != NULL;
		if (jc && (!cJSON_IsNumber(jc) || !is_int(jc->valuedouble)))
			return bad(s, "nodes", idx, "colorClass",
				   "\"colorClass\" must be an integer");
		cc = jc ? jc->valuedouble : 0;
		const cJSON *jl =
			cJSON_GetObjectItemCaseSensitive(nd, "layerId");
		have_lid = jl && cJSON_IsNumber(jl) && is_int(jl->valuedouble);
		lid = have_lid ? jl->valuedouble : 0;
		const cJSON *jn = cJSON_GetObjectItemCaseSensitive(nd, "name");
		if (jn && !(cJSON_IsString(jn) && jn->valuestring[0]))
			return bad(s, "nodes", idx, "name",
				   "\"name\" must be a non-empty string");
		snprintf(buf, sizeof buf, "node%.0f", id);
		uint32_t op;
		if ((st = dp_graph_add_op(g, jn ? jn->valuestring : buf, &op,
					  s->err)))
			return st == DP_EINPUT && s->err
				       ? bad(s, "nodes", idx, "name", "%s",
					     s->err->msg)
				       : st;
		g->ops[op].time_us = lat * MS_TO_US;
		g->ops[op].param_bytes = (int64_t)llround(size);
		if ((st = dp_graph_set_type(g, op,
					    backward ? "backward" : "forward",
					    s->err)) ||
		    (st = dp_graph_set_role(g, op,
					    backward ? DP_ROLE_BACKWARD
						     : DP_ROLE_FORWARD,
					    s->err)))
			return st;
		if (have_lid || have_cc) {
			snprintf(buf, sizeof buf, "%s%.0f",
				 have_lid ? "layer" : "class",
				 have_lid ? lid : cc);
			if ((st = dp_graph_set_layer(g, op, buf, s->err)))
				return st;
		}
		colors[op] = have_cc ? cc : NAN;
		if (!supported) {
			host[op] = true;
			(*nhost)++;
		}
		idx++;
	}
	return colocate_colors(s, colors);
}

static dp_status read_edges(fd_state *s, const cJSON *edges, const fd_id *ids)
{
	dp_graph *g = s->g;
	int idx = 0;
	const cJSON *ed;
	cJSON_ArrayForEach(ed, edges)
	{
		if (!cJSON_IsObject(ed))
			return bad(s, "edges", idx, NULL,
				   "each edge must be an object");
		static const char *keys[2] = {"sourceId", "destId"};
		uint32_t end[2];
		for (int k = 0; k < 2; k++) {
			const cJSON *j =
				cJSON_GetObjectItemCaseSensitive(ed, keys[k]);
			if (!j)
				return bad(s, "edges", idx, NULL,
					   "missing \"%s\" (a node id)",
					   keys[k]);
			if (!cJSON_IsNumber(j) || !is_int(j->valuedouble))
				return bad(s, "edges", idx, keys[k],
					   "\"%s\" must be an integer node id",
					   keys[k]);
			end[k] = find_id(ids, g->nops, j->valuedouble);
			if (end[k] == UINT32_MAX)
				return bad(s, "edges", idx, keys[k],
					   "\"%s\" %.0f names no node", keys[k],
					   j->valuedouble);
		}
		if (end[0] == end[1])
			return bad(s, "edges", idx, NULL,
				   "edge from node '%s' to itself",
				   dp_graph_op_name(g, end[0]));
		double size = 0;
		bool have;
		dp_status st = get_number(s, ed, "edges", idx, "size", false,
					  &size, &have);
		if (!st)
			st = check_size(s, "edges", idx, size);
		if (st)
			return st;
		int64_t bytes = have ? (int64_t)llround(size)
				     : g->ops[end[0]].param_bytes;
		if ((st = dp_graph_add_edge(g, end[0], end[1], bytes, false,
					    s->err)))
			return st;
		double cost = 0;
		if ((st = get_number(s, ed, "edges", idx, "cost", false, &cost,
				     &have)))
			return st;
		if (have &&
		    (st = dp_graph_set_edge_xfer(g, g->nedges - 1,
						 cost * MS_TO_US, s->err)))
			return st;
		idx++;
	}
	return DP_OK;
}

static dp_status parse(fd_state *s, const cJSON *root, dp_graph **out)
{
	int line, col;
	if (!cJSON_IsObject(root))
		return dp_err_set(s->err, DP_EINPUT, s->path, 1, 1,
				  "expected a JSON object with \"nodes\" and "
				  "\"edges\" (msr-fiddle format)");
	const cJSON *nodes = cJSON_GetObjectItemCaseSensitive(root, "nodes");
	const cJSON *edges = cJSON_GetObjectItemCaseSensitive(root, "edges");
	const char *missing = !cJSON_IsArray(nodes)   ? "nodes"
			      : !cJSON_IsArray(edges) ? "edges"
						      : NULL;
	if (missing) {
		line_col(s->text, member_offset(s->text, s->len, 0, missing),
			 &line, &col);
		return dp_err_set(s->err, DP_EINPUT, s->path, line, col,
				  "expected a member \"%s\" holding an array",
				  missing);
	}
	dp_status st = read_hint(s, root);
	if (st)
		return st;
	size_t n = (size_t)cJSON_GetArraySize(nodes) + 1;
	fd_id *ids = malloc(n * sizeof *ids);
	double *colors = malloc(n * sizeof *colors);
	bool *host = calloc(n, sizeof *host);
	uint32_t nhost = 0;
	if (!ids || !colors || !host)
		st = dpi_nomem(s->err, "loading an msr-fiddle graph");
	if (!st)
		st = read_ids(s, nodes, ids);
	if (!st)
		st = read_nodes(s, nodes, colors, host, &nhost);
	if (!st)
		st = read_edges(s, edges, ids);
	if (!st && nhost) {
		st = dp_graph_finalize(s->g, s->err);
		if (!st)
			st = dpi_load_drop_host_ops(s->g, host, out, s->err);
	} else if (!st) {
		*out = s->g;
		s->g = NULL;
	}
	free(ids);
	free(colors);
	free(host);
	return st;
}

/* Brackets open at offset off of JSON text (outside strings): cJSON stops
 * at CJSON_NESTING_LIMIT levels, which is not a syntax error to report. */
static int open_brackets(const char *text, size_t off)
{
	int depth = 0;
	bool in_str = false;
	for (size_t i = 0; i < off; i++) {
		char c = text[i];
		if (in_str) {
			if (c == '\\')
				i++;
			else if (c == '"')
				in_str = false;
		} else if (c == '"') {
			in_str = true;
		} else if (c == '[' || c == '{') {
			depth++;
		} else if (c == ']' || c == '}') {
			depth--;
		}
	}
	return depth;
}

dp_status dp_load_fiddle(const char *path, const char *text, size_t len,
			 dp_graph **out, dp_err *err)
{
	fd_state s = {path, text, len, NULL, err};
	const char *end = NULL;
	cJSON *root = cJSON_ParseWithLengthOpts(text, len, &end, false);
	if (!root) {
		int line, col;
		size_t off = end && end >= text ? (size_t)(end - text) : 0;
		line_col(text, off, &line, &col);
		if (open_brackets(text, off) >= CJSON_NESTING_LIMIT)
			return dp_err_set(err, DP_EINPUT, path, line, col,
					  "nesting deeper than %d levels",
					  CJSON_NESTING_LIMIT);
		/* cJSON fails the same way when it runs out of memory (it
		 * said "syntax error" under ulimit -v): text the scanner
		 * finds well-formed is a memory error */
		jscan js;
		dp_err scan_err;
		dpi_jscan_init(&js, path, text, len, &scan_err);
		dp_status vs = dpi_jscan_value(&js, NULL, NULL);
		if (!vs)
			vs = dpi_jscan_end(&js);
		dpi_jscan_free(&js);
		if (!vs) {
			char a[32];
			return dp_err_set(
				err, DP_ENOMEM, path, 0, 0,
				"out of memory: the file is %s and reading "
				"msr-fiddle JSON needs about ten times that",
				dp_units_fmt_bytes((int64_t)len, a, sizeof a));
		}
		return dp_err_set(err, DP_EINPUT, path, line, col,
				  "JSON syntax error (expected a value, ',' "
				  "or a closing bracket here)");
	}
	dp_status st = DP_OK;
	while (end && (size_t)(end - text) < len &&
	       isspace((unsigned char)*end))
		end++;
	if (end && (size_t)(end - text) < len) {
		int line, col;
		line_col(text, (size_t)(end - text), &line, &col);
		st = dp_err_set(err, DP_EINPUT, path, line, col,
				"unexpected text after the JSON object");
	}
	if (!st)
		st = dpi_load_new_graph(path, "an msr-fiddle graph", &s.g, err);
	if (!st)
		st = dpi_load_name_from_file(s.g, path, err);
	dp_graph *g = NULL;
	if (!st)
		st = parse(&s, root, &g);
	cJSON_Delete(root);
	dp_graph_free(s.g);
	if (st == DP_ENOMEM && err && !err->file[0])
		snprintf(err->file, sizeof err->file, "%s", path);
	if (st)
		return st;
	*out = g;
	return DP_OK;
}

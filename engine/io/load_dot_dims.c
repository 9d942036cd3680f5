/* load_dot_dims.c - iteration spaces in DOT (docs/formats.md):
 * node attributes dims="b=8,s=1024,k=768", out="b,s,n", param="k,n",
 * elem_bytes=2 and edge attribute dims="b,s,k". The graph checks the
 * rules (graph_dims.c); errors name the node or edge, the attribute and a
 * guessed line. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "dnnpart/units.h"
#include "internal/graph_int.h"
#include "internal/load_dot_int.h"

/* Line of the first edge statement naming from and to (and containing
 * attr, when given); else dpi_dot_guess_line(to, attr). */
static int guess_edge_line(const char *text, const char *from, const char *to,
			   const char *attr)
{
	size_t len = strlen(text);
	int line = 1;
	for (const char *p = text; *p; line++) {
		const char *eol = strchr(p, '\n');
		size_t ll = eol ? (size_t)(eol - p) : strlen(p);
		bool has[2] = {false, false};
		const char *nm[2] = {from, to};
		for (int k = 0; k < 2; k++) {
			size_t nl = strlen(nm[k]);
			for (size_t i = 0; nl && i + nl <= ll && !has[k]; i++)
				has[k] = !memcmp(p + i, nm[k], nl) &&
					 dpi_dot_token_at(
						 text, (size_t)(p - text) + i,
						 nl, len);
		}
		bool arrow = false, at = !attr;
		for (size_t i = 0; i + 1 < ll; i++)
			if (p[i] == '-' && (p[i + 1] == '>' || p[i + 1] == '-'))
				arrow = true;
		for (size_t i = 0; attr && i + strlen(attr) <= ll && !at; i++)
			at = !memcmp(p + i, attr, strlen(attr));
		if (has[0] && has[1] && arrow && at)
			return line;
		if (!eol)
			break;
		p = eol + 1;
	}
	return dpi_dot_guess_line(text, to, attr);
}

/* A comma-separated list in buf (modified in place): up to DP_MAX_OP_DIMS
 * items, blanks around them dropped; returns the count or -1 when there
 * are more, or an item is empty. */
static int split_list(char *buf, char **items)
{
	int n = 0;
	for (char *p = buf;;) {
		while (*p == ' ' || *p == '\t')
			p++;
		char *end = strchr(p, ',');
		char *next = end ? end + 1 : NULL;
		if (!end)
			end = p + strlen(p);
		while (end > p && (end[-1] == ' ' || end[-1] == '\t'))
			end--;
		*end = '\0';
		if (!*p || n == DP_MAX_OP_DIMS)
			return -1;
		items[n++] = p;
		if (!next)
			return n;
		p = next;
	}
}

/* An attribute holding a list of dim names ("b,s,n") -> names; *n = -1
 * when absent. buf holds the names. For messages: the node's name, or the
 * edge's label, tail and head (head NULL for a node). */
static dp_status dim_list_attr(dload *D, void *obj, Agsym_t *sym,
			       const char *name, const char *tail,
			       const char *head, char *buf, size_t cap,
			       const char **names, int32_t *n)
{
	const char *v = dpi_dot_attr(obj, sym);
	*n = -1;
	if (!v)
		return DP_OK;
	snprintf(buf, cap, "%s", v);
	char *items[DP_MAX_OP_DIMS];
	int k = strlen(v) < cap ? split_list(buf, items) : -1;
	if (k < 0) {
		char msg[200];
		snprintf(msg, sizeof msg,
			 "expected dim names separated by commas (at most "
			 "%d), such as \"b,s,n\", got '%.60s'",
			 DP_MAX_OP_DIMS, v);
		int line =
			head ? guess_edge_line(D->text, tail, head, sym->name)
			     : dpi_dot_guess_line(D->text, name, sym->name);
		return dp_err_set(D->err, DP_EINPUT, D->path, line, 0,
				  "%s '%s', attribute %s: %s",
				  head ? "edge" : "node", name, sym->name, msg);
	}
	for (int i = 0; i < k; i++)
		names[i] = items[i];
	*n = k;
	return DP_OK;
}

/* Turns an iteration-space error into one about the node's or edge's
 * attribute (DOT values are strings: the entry is named, not placed). */
static dp_status dims_error(dload *D, const char *what, const char *name,
			    int line, const dpi_dims_at *at, const dp_err *e)
{
	if (e->code != DP_EINPUT || !at->field)
		return dp_err_set(D->err, e->code, D->path, 0, 0, "%s", e->msg);
	return dp_err_set(D->err, DP_EINPUT, D->path, line, 0,
			  "%s '%s', attribute %s: %s", what, name, at->field,
			  e->msg);
}

dp_status dpi_dot_read_node_dims(dload *D, Agnode_t *nd, uint32_t id)
{
	const char *name = agnameof(nd);
	const char *v = dpi_dot_attr(nd, D->dims);
	if (!v) {
		Agsym_t *need[] = {D->dout, D->dparam, D->elem};
		for (int i = 0; i < 3; i++)
			if (dpi_dot_attr(nd, need[i]))
				return dpi_dot_value_error(
					D, "node", name, need[i]->name,
					"given without dims (it describes the "
					"op's iteration space: give the sizes "
					"of its dims in dims=\"b=8,n=1024\")");
		return DP_OK;
	}
	char dbuf[2048], obuf[1024], pbuf[1024];
	const char *names[DP_MAX_OP_DIMS], *out[DP_MAX_OP_DIMS],
		*param[DP_MAX_OP_DIMS];
	int64_t sizes[DP_MAX_OP_DIMS];
	char *items[DP_MAX_OP_DIMS];
	snprintf(dbuf, sizeof dbuf, "%s", v);
	int k = strlen(v) < sizeof dbuf ? split_list(dbuf, items) : -1;
	for (int i = 0; i < k; i++) {
		char *eq = strchr(items[i], '=');
		double d = 0;
		size_t len = 0;
		if (eq) {
			*eq = '\0';
			char *num = eq + 1;
			while (*num == ' ' || *num == '\t')
				num++;
			len = dp_units_scan_number(num, &d);
			if (!len || num[len] || d != floor(d) || d < 1 ||
			    d > 4611686018427387904.0) {
				char msg[200];
				snprintf(msg, sizeof msg,
					 "dim '%.40s': expected an integer "
					 "size from 1 to 2^62, got '%.40s'",
					 items[i], num);
				return dpi_dot_value_error(D, "node", name,
							   "dims", msg);
			}
			char *e = eq;
			while (e > items[i] && (e[-1] == ' ' || e[-1] == '\t'))
				*--e = '\0';
		}
		if (!eq || !items[i][0]) {
			k = -1;
			break;
		}
		names[i] = items[i];
		sizes[i] = (int64_t)llround(d);
	}
	if (k < 0) {
		char msg[240];
		snprintf(msg, sizeof msg,
			 "expected NAME=SIZE pairs separated by commas (at "
			 "most %d), such as \"b=8,s=1024,k=768\", got "
			 "'%.60s'",
			 DP_MAX_OP_DIMS, v);
		return dpi_dot_value_error(D, "node", name, "dims", msg);
	}
	dp_dims_spec spec = {0};
	spec.n = (uint32_t)k;
	spec.names = names;
	spec.sizes = sizes;
	spec.out = out;
	spec.param = param;
	dp_status st;
	if ((st = dim_list_attr(D, nd, D->dout, name, NULL, NULL, obuf,
				sizeof obuf, out, &spec.nout)) ||
	    (st = dim_list_attr(D, nd, D->dparam, name, NULL, NULL, pbuf,
				sizeof pbuf, param, &spec.nparam)))
		return st;
	if ((v = dpi_dot_attr(nd, D->elem))) {
		double d;
		size_t len = dp_units_scan_number(v, &d);
		if (!len || v[len] || d != floor(d) || d < 1 ||
		    d > DP_MAX_ELEM_BYTES) {
			char msg[160];
			snprintf(msg, sizeof msg,
				 "expected an integer from 1 to %d (the bytes "
				 "of one element), got '%.40s'",
				 DP_MAX_ELEM_BYTES, v);
			return dpi_dot_value_error(D, "node", name,
						   "elem_bytes", msg);
		}
		spec.elem_bytes = (int64_t)d;
	}
	dpi_dims_at at = {NULL, -1};
	dp_err e;
	if (dpi_graph_set_op_dims(D->g, id, &spec, &at, &e) ||
	    dpi_graph_check_op_dims(D->g, id, &at, &e))
		return dims_error(D, "node", name,
				  dpi_dot_guess_line(D->text, name, at.field),
				  &at, &e);
	return DP_OK;
}

dp_status dpi_dot_read_edge_dims(dload *D, Agedge_t *ed, uint32_t e)
{
	const char *from = agnameof(agtail(ed)), *to = agnameof(aghead(ed));
	char label[600], buf[1024];
	snprintf(label, sizeof label, "%s -> %s", from, to);
	const char *names[DP_MAX_OP_DIMS];
	int32_t n;
	dp_status st = dim_list_attr(D, ed, D->edims, label, from, to, buf,
				     sizeof buf, names, &n);
	if (st || n < 0)
		return st;
	dpi_dims_at at = {NULL, -1};
	dp_err err;
	if (dpi_graph_set_edge_dims(D->g, e, (uint32_t)n, names, NULL, &at,
				    &err) ||
	    dpi_graph_check_edge_dims(D->g, e, &at, &err))
		return dims_error(D, "edge", label,
				  guess_edge_line(D->text, from, to, at.field),
				  &at, &err);
	return DP_OK;
}

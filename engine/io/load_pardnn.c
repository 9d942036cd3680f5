/* load_pardnn.c - the ParDNN reference's input folder.
 *
 * ParDNN (Qararyah et al. 2021; github.com/ParCoreLab/pardnn) reads a
 * TensorFlow training graph as a folder of text files. Files are found by
 * pattern (when several match, the preferred name is taken; otherwise it is
 * an error that lists them):
 *
 *   role          pattern              preferred when several   required
 *   edges         *.dot                *src_sink*               yes
 *   durations     *durations*.txt      *fixed*                  yes
 *   tensor sizes  tensors_sz*.txt      tensors_sz_32_low.txt    yes
 *   variables     var_nodes.txt                                 no
 *   ref ops       ref_nodes.txt                                 no
 *   no-ops        no_ops.txt                                    no
 *   memory        memory.txt                                    no
 *   colocations   *col*ocation*.txt    collocations.txt         no
 *   placement     *.place              vanilla*                 no
 *
 * How each is read (the reference's rules, src/graph.cpp, unless said):
 * - edges: `"a"->"b"` lines (quotes optional, `digraph{` and `}` lines
 *   skipped). Ops are numbered by first appearance. The artificial `src`
 *   and `snk` ops are kept, with time 0, so that placement files that list
 *   them (the reference's do) still match; their edges are not loaded: they
 *   only mark entries and exits, and an edge to snk would keep every exit
 *   tensor alive until the end of the step.
 * - durations: `name::µs`; an op without a line takes 1 µs, as in the
 *   reference.
 * - tensor sizes: `"name":: bytes`, the size of the op's output; every
 *   data edge carries its producer's tensor size.
 * - memory: `name::bytes`, the memory the op holds; without the file (or a
 *   line for an op) it equals the tensor size.
 * - variables hold their memory for the whole step (param_bytes) and have
 *   no transient output; reading one from another device still moves its
 *   tensor size.
 * - ref ops (reads, assigns, optimizer applies) are colocated with every
 *   variable they read directly (a predecessor in var_nodes.txt); a ref op
 *   with no variable predecessor goes with the variable whose name is the
 *   longest prefix of its own at a '/'. Groups merge when they share an op
 *   (an apply op joins a weight and its momentum slot), and each group is
 *   named after its first variable.
 * - no-ops: edges into or out of them carry no data (control edges).
 * - colocations: `a::b::c` per line, one group per line.
 * - placement: `name device`; device -1 means TensorFlow ran the op on the
 *   host CPU: such ops are kept out of the graph (see internal/load_host.h)
 *   and counted in g->cpu_pinned. Other devices (the vanilla placement) are
 *   not constraints and are ignored.
 * - names in side files that no edge mentions are skipped and counted in
 *   g->unknown_names; malformed lines are errors with file and line.
 * - layer: the op's name scope, without a leading `gradients*` scope, cut to
 *   two levels (`gradients/resnet_model/conv2d_8/...` -> `resnet_model/conv2d_8`).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dnnpart/load.h"
#include "internal/arrays.h"
#include "internal/load_host.h"
#include "internal/load_util.h"
#include "internal/nomem.h"
#include "internal/pardnn_folder.h"
#include "internal/unionfind.h"

#define NONE UINT32_MAX

enum pd_kind { K_OP, K_VAR, K_REF, K_NOOP, K_SRC, K_SNK };

typedef struct pd_state {
	const char *dir;
	char *files[R_COUNT]; /* full paths, NULL when absent */
	dp_graph *t;	      /* every op of the edges file */
	uint32_t *ef, *et;    /* edge endpoints as read */
	uint32_t ne, ne_cap;
	uint32_t n; /* ops, fixed after the edges file */
	uint8_t *kind;
	uint8_t list_kind; /* the kind of the op list being read */
	double *time;
	int64_t *tsz, *mem;
	bool *host;
	uint32_t *uf; /* union-find parent for colocation */
	uint32_t nhost;
	char na[PD_NAME_MAX], nb[PD_NAME_MAX]; /* names being parsed */
} pd_state;

/* ---- edges file ---- */

static dp_status op_for(pd_state *s, const char *name, uint32_t *id,
			dp_err *err)
{
	*id = dp_graph_find(s->t, name);
	if (*id != NONE)
		return DP_OK;
	return dp_graph_add_op(s->t, name, id, err);
}

static dp_status edge_line(void *ctx, const char *path, char *raw, char *line,
			   int lineno, dp_err *err)
{
	pd_state *s = ctx;
	static const char *want = "an edge line \"a\"->\"b\"";
	size_t l = strlen(line);
	if (line[l - 1] == ';')
		line[--l] = '\0';
	if (strcmp(line, "}") == 0 || strcmp(line, "{") == 0)
		return DP_OK;
	if ((strncmp(line, "digraph", 7) == 0 ||
	     strncmp(line, "strict", 6) == 0) &&
	    line[l - 1] == '{')
		return DP_OK;
	char *p = line;
	if (!dpi_pardnn_parse_name(&p, s->na) || strncmp(p, "->", 2) != 0)
		return dpi_pardnn_bad_line(path, lineno, raw, p, want, err);
	p += 2;
	if (!dpi_pardnn_parse_name(&p, s->nb) || *p)
		return dpi_pardnn_bad_line(path, lineno, raw, p, want, err);
	uint32_t u, v;
	dp_status st;
	if ((st = op_for(s, s->na, &u, err)) ||
	    (st = op_for(s, s->nb, &v, err))) {
		if (err) {
			snprintf(err->file, sizeof err->file, "%s", path);
			err->line = lineno;
		}
		return st;
	}
	if (u == v)
		return dp_err_set(err, DP_EINPUT, path, lineno, 0,
				  "edge from '%s' to itself", s->na);
	if (s->ne == s->ne_cap) {
		uint32_t nc = s->ne_cap ? s->ne_cap * 2 : 1024;
		uint32_t *f = realloc(s->ef, (size_t)nc * sizeof *f);
		if (f)
			s->ef = f;
		uint32_t *t = f ? realloc(s->et, (size_t)nc * sizeof *t) : NULL;
		if (!t)
			return dpi_nomem(err, "loading a ParDNN folder");
		s->et = t;
		s->ne_cap = nc;
	}
	s->ef[s->ne] = u;
	s->et[s->ne++] = v;
	return DP_OK;
}

/* ---- side files ---- */

/* Splits "name::value" (the last "::"); returns the op id (NONE for an
 * unknown name, counted) and the value text. */
static dp_status name_value(pd_state *s, const char *path, char *raw,
			    char *line, int lineno, const char *want,
			    uint32_t *id, double *val, dp_err *err)
{
	char *sep = NULL;
	for (char *q = strstr(line, "::"); q; q = strstr(q + 1, "::"))
		sep = q;
	if (!sep)
		return dpi_pardnn_bad_line(path, lineno, raw, line, want, err);
	*sep = '\0';
	char *vtext = dpi_load_trim(sep + 2), *end;
	char *p = line;
	if (!dpi_pardnn_parse_name(&p, s->na) || *p)
		return dpi_pardnn_bad_line(path, lineno, raw, p, want, err);
	*val = strtod(vtext, &end);
	if (end == vtext || *dpi_load_trim(end) || !isfinite(*val) || *val < 0)
		return dp_err_set(err, DP_EINPUT, path, lineno,
				  (int)(vtext - raw) + 1,
				  "expected %s: the value must be a number "
				  ">= 0, got '%s'",
				  want, vtext);
	*id = dp_graph_find(s->t, s->na);
	if (*id == NONE)
		s->t->unknown_names++;
	return DP_OK;
}

static dp_status dur_line(void *ctx, const char *path, char *raw, char *line,
			  int lineno, dp_err *err)
{
	pd_state *s = ctx;
	uint32_t id;
	double v;
	dp_status st = name_value(s, path, raw, line, lineno,
				  "a duration line \"name::microseconds\"", &id,
				  &v, err);
	if (!st && id != NONE)
		s->time[id] = v;
	return st;
}

static dp_status bytes_line(pd_state *s, const char *path, char *raw,
			    char *line, int lineno, int64_t *dst, dp_err *err)
{
	uint32_t id;
	double v;
	dp_status st = name_value(s, path, raw, line, lineno,
				  "a size line \"name::bytes\"", &id, &v, err);
	if (st)
		return st;
	if (v > 4e18)
		return dp_err_set(err, DP_EINPUT, path, lineno, 0,
				  "size %g bytes is too large", v);
	if (id != NONE)
		dst[id] = (int64_t)llround(v);
	return DP_OK;
}

static dp_status tsz_line(void *ctx, const char *path, char *raw, char *line,
			  int lineno, dp_err *err)
{
	pd_state *s = ctx;
	return bytes_line(s, path, raw, line, lineno, s->tsz, err);
}

static dp_status mem_line(void *ctx, const char *path, char *raw, char *line,
			  int lineno, dp_err *err)
{
	pd_state *s = ctx;
	return bytes_line(s, path, raw, line, lineno, s->mem, err);
}

/* A line of an op list (variables, refs, no-ops): the op is of
 * s->list_kind. */
static dp_status list_line(void *ctx, const char *path, char *raw, char *line,
			   int lineno, dp_err *err)
{
	pd_state *s = ctx;
	char *p = line;
	if (!dpi_pardnn_parse_name(&p, s->na) || *p)
		return dpi_pardnn_bad_line(path, lineno, raw, p,
					   "one op name per line", err);
	uint32_t id = dp_graph_find(s->t, s->na);
	if (id == NONE)
		s->t->unknown_names++;
	else if (s->kind[id] != K_SRC && s->kind[id] != K_SNK)
		s->kind[id] =
			s->list_kind; /* later lists win (the reference) */
	return DP_OK;
}

static dp_status place_line(void *ctx, const char *path, char *raw, char *line,
			    int lineno, dp_err *err)
{
	pd_state *s = ctx;
	static const char *want = "a placement line \"name device\"";
	char *sp = NULL;
	for (char *q = line; *q; q++)
		if (*q == ' ' || *q == '\t')
			sp = q;
	if (!sp)
		return dpi_pardnn_bad_line(path, lineno, raw, line, want, err);
	*sp = '\0';
	char *dtext = sp + 1, *end;
	long dev = strtol(dtext, &end, 10);
	if (end == dtext || *end || dev < -1)
		return dp_err_set(err, DP_EINPUT, path, lineno,
				  (int)(dtext - raw) + 1,
				  "expected %s: the device must be an integer "
				  ">= -1 (-1 = host CPU), got '%s'",
				  want, dtext);
	char *p = dpi_load_trim(line);
	if (!dpi_pardnn_parse_name(&p, s->na) || *p)
		return dpi_pardnn_bad_line(path, lineno, raw, p, want, err);
	uint32_t id = dp_graph_find(s->t, s->na);
	if (id == NONE)
		s->t->unknown_names++;
	else if (dev == -1 && s->kind[id] != K_SRC && s->kind[id] != K_SNK &&
		 !s->host[id]) {
		s->host[id] = true;
		s->nhost++;
	}
	return DP_OK;
}

/* ---- colocation ---- */

static dp_status coloc_line(void *ctx, const char *path, char *raw, char *line,
			    int lineno, dp_err *err)
{
	pd_state *s = ctx;
	uint32_t first = NONE;
	char *p = line;
	for (;;) {
		if (!dpi_pardnn_parse_name(&p, s->na))
			return dpi_pardnn_bad_line(
				path, lineno, raw, p,
				"a colocation line \"a::b::c\"", err);
		uint32_t id = dp_graph_find(s->t, s->na);
		if (id == NONE)
			s->t->unknown_names++;
		else if (first == NONE)
			first = id;
		else
			dpi_uf_union(s->uf, first, id);
		if (!*p)
			return DP_OK;
		if (strncmp(p, "::", 2) != 0)
			return dpi_pardnn_bad_line(
				path, lineno, raw, p,
				"a colocation line \"a::b::c\"", err);
		p += 2;
	}
}

/* Ref ops join every variable that feeds them; those fed by none join the
 * variable whose name is their longest '/'-prefix. */
static dp_status colocate_refs(pd_state *s, dp_err *err)
{
	bool *fed = calloc((size_t)s->n + 1, sizeof *fed);
	if (!fed)
		return dpi_nomem(err, "loading a ParDNN folder");
	for (uint32_t e = 0; e < s->ne; e++) {
		uint32_t a = s->ef[e], b = s->et[e];
		if (s->kind[b] == K_REF && s->kind[a] == K_VAR) {
			dpi_uf_union(s->uf, a, b);
			fed[b] = true;
		}
	}
	dp_status st = DP_OK;
	for (uint32_t u = 0; u < s->n && !st; u++) {
		if (s->kind[u] != K_REF || fed[u])
			continue;
		char *buf = strdup(dp_graph_op_name(s->t, u));
		if (!buf) {
			st = dpi_nomem(err, "loading a ParDNN folder");
			break;
		}
		for (char *sl = strrchr(buf, '/'); sl; sl = strrchr(buf, '/')) {
			*sl = '\0';
			uint32_t v = dp_graph_find(s->t, buf);
			if (v != NONE && s->kind[v] == K_VAR) {
				dpi_uf_union(s->uf, u, v);
				break;
			}
		}
		free(buf);
	}
	free(fed);
	return st;
}

/* Names each group of two or more ops after its first variable (else its
 * first op) and stores the labels in s->t. */
static dp_status label_groups(pd_state *s, dp_err *err)
{
	uint32_t n = s->n;
	uint32_t *size = calloc((size_t)n + 1, sizeof *size);
	uint32_t *label = malloc(((size_t)n + 1) * sizeof *label);
	if (!size || !label) {
		free(size);
		free(label);
		return dpi_nomem(err, "loading a ParDNN folder");
	}
	for (uint32_t u = 0; u < n; u++)
		label[u] = NONE;
	for (uint32_t u = 0; u < n; u++) {
		uint32_t r = dpi_uf_find(s->uf, u);
		size[r]++;
		if (label[r] == NONE ||
		    (s->kind[u] == K_VAR && s->kind[label[r]] != K_VAR))
			label[r] = u;
	}
	dp_status st = DP_OK;
	for (uint32_t u = 0; u < n && !st; u++) {
		uint32_t r = dpi_uf_find(s->uf, u);
		if (size[r] < 2)
			continue;
		/* a copy: the label is interned into the arena it comes from */
		char *lab = strdup(dp_graph_op_name(s->t, label[r]));
		st = lab ? dp_graph_set_colocate(s->t, u, lab, err)
			 : dpi_nomem(err, "loading a ParDNN folder");
		free(lab);
	}
	free(size);
	free(label);
	return st;
}

/* ---- building ---- */

/* The op's name scope without a leading gradients* scope, two levels. */
static void layer_of(const char *name, char *out, size_t size)
{
	if (strncmp(name, "gradients", 9) == 0 && strchr(name, '/'))
		name = strchr(name, '/') + 1;
	const char *last = strrchr(name, '/');
	size_t n = last ? (size_t)(last - name) : 0;
	const char *s1 = memchr(name, '/', n);
	if (s1) {
		const char *s2 =
			memchr(s1 + 1, '/', n - (size_t)(s1 + 1 - name));
		if (s2)
			n = (size_t)(s2 - name);
	}
	if (n >= size)
		n = size - 1;
	memcpy(out, name, n);
	out[n] = '\0';
}

/* What the input says an op does: a variable holds weights; an op under
 * TensorFlow's gradients* scope is part of the backward pass. Other ops
 * may be forward or optimizer work; the input does not say which. */
static dp_role role_of(const pd_state *s, uint32_t u)
{
	const char *name = dp_graph_op_name(s->t, u);
	if (s->kind[u] == K_VAR)
		return DP_ROLE_PARAM;
	if (s->kind[u] == K_OP && strncmp(name, "gradients", 9) == 0 &&
	    strchr(name, '/'))
		return DP_ROLE_BACKWARD;
	return DP_ROLE_NONE;
}

static dp_status fill_ops(pd_state *s, dp_err *err)
{
	static const char *types[] = {
		[K_OP] = "",	   [K_VAR] = "Variable", [K_REF] = "RefOp",
		[K_NOOP] = "NoOp", [K_SRC] = "Source",	 [K_SNK] = "Sink"};
	char buf[1024];
	for (uint32_t u = 0; u < s->n; u++) {
		dp_op *op = &s->t->ops[u];
		uint8_t k = s->kind[u];
		int64_t mem = s->mem[u] >= 0 ? s->mem[u] : s->tsz[u];
		op->time_us = k == K_SRC || k == K_SNK ? 0.0 : s->time[u];
		if (k == K_VAR)
			op->param_bytes = mem;
		else if (k == K_OP || k == K_REF)
			op->output_bytes = mem;
		layer_of(dp_graph_op_name(s->t, u), buf, sizeof buf);
		dp_status st;
		if ((st = dp_graph_set_type(s->t, u, types[k], err)) ||
		    (st = dp_graph_set_layer(s->t, u, buf, err)) ||
		    (st = dp_graph_set_role(s->t, u, role_of(s, u), err)))
			return st;
	}
	for (uint32_t e = 0; e < s->ne; e++) {
		uint32_t a = s->ef[e], b = s->et[e];
		uint8_t ka = s->kind[a], kb = s->kind[b];
		if (ka == K_SRC || ka == K_SNK || kb == K_SRC || kb == K_SNK)
			continue;
		bool control = ka == K_NOOP || kb == K_NOOP;
		dp_status st = dp_graph_add_edge(
			s->t, a, b, control ? 0 : s->tsz[a], control, err);
		if (st)
			return st;
	}
	return DP_OK;
}

static dp_status alloc_arrays(pd_state *s, dp_err *err)
{
	size_t n = (size_t)s->n + 1;
	s->kind = calloc(n, sizeof *s->kind);
	s->time = malloc(n * sizeof *s->time);
	s->tsz = calloc(n, sizeof *s->tsz);
	s->mem = malloc(n * sizeof *s->mem);
	s->host = calloc(n, sizeof *s->host);
	s->uf = malloc(n * sizeof *s->uf);
	if (!s->kind || !s->time || !s->tsz || !s->mem || !s->host || !s->uf)
		return dpi_nomem(err, "loading a ParDNN folder");
	for (uint32_t u = 0; u < s->n; u++) {
		const char *nm = dp_graph_op_name(s->t, u);
		s->kind[u] = strcmp(nm, "src") == 0   ? K_SRC
			     : strcmp(nm, "snk") == 0 ? K_SNK
						      : K_OP;
		s->time[u] = 1.0; /* the reference's default duration */
		s->mem[u] = -1;
		s->uf[u] = u;
	}
	return DP_OK;
}

static dp_status set_name(dp_graph *g, const char *dir, dp_err *err)
{
	char buf[512];
	snprintf(buf, sizeof buf, "%s", dir);
	size_t l = strlen(buf);
	while (l > 1 && buf[l - 1] == '/')
		buf[--l] = '\0';
	const char *b = strrchr(buf, '/');
	b = b && b[1] ? b + 1 : buf;
	return dp_graph_set_name(g, b, err);
}

static void free_state(pd_state *s)
{
	for (int r = 0; r < R_COUNT; r++)
		free(s->files[r]);
	DPI_FREE_ALL(s->ef, s->et, s->kind, s->time, s->tsz, s->mem, s->host,
		     s->uf);
}

dp_status dp_load_pardnn(const char *dir, dp_graph **out, dp_err *err)
{
	static const pd_line_fn side[R_COUNT] = {
		[R_DUR] = dur_line,	[R_TSZ] = tsz_line,
		[R_VAR] = list_line,	[R_REF] = list_line,
		[R_NOOP] = list_line,	[R_MEM] = mem_line,
		[R_PLACE] = place_line, [R_COLOC] = coloc_line,
	};
	/* order matters: kinds before placement (src/snk are never host)
	 * and before colocation (ref ops need the variable list) */
	static const int order[] = {R_DUR, R_TSZ,  R_MEM,   R_VAR,
				    R_REF, R_NOOP, R_PLACE, R_COLOC};
	static const uint8_t list_kind[R_COUNT] = {
		[R_VAR] = K_VAR, [R_REF] = K_REF, [R_NOOP] = K_NOOP};
	pd_state s;
	memset(&s, 0, sizeof s);
	s.dir = dir;
	dp_status st = dpi_pardnn_find_files(dir, s.files, err);
	if (!st)
		st = dpi_load_new_graph(dir, "a ParDNN folder", &s.t, err);
	if (!st)
		st = set_name(s.t, dir, err);
	if (!st)
		st = dpi_pardnn_read_lines(s.files[R_EDGES], edge_line, &s,
					   err);
	if (!st && s.t->nops == 0)
		st = dp_err_set(err, DP_EINPUT, s.files[R_EDGES], 0, 0,
				"no edges; expected lines \"a\"->\"b\"");
	if (!st) {
		s.n = s.t->nops;
		st = alloc_arrays(&s, err);
	}
	for (size_t i = 0; !st && i < sizeof order / sizeof order[0]; i++) {
		s.list_kind = list_kind[order[i]];
		if (s.files[order[i]])
			st = dpi_pardnn_read_lines(s.files[order[i]],
						   side[order[i]], &s, err);
	}
	if (!st)
		st = colocate_refs(&s, err);
	if (!st)
		st = label_groups(&s, err);
	if (!st)
		st = fill_ops(&s, err);
	dp_graph *g = NULL;
	if (!st && s.nhost) {
		/* finalize the full graph for its adjacency lists, then
		 * rebuild it without the host ops */
		st = dp_graph_finalize(s.t, err);
		if (!st)
			st = dpi_load_drop_host_ops(s.t, s.host, &g, err);
	} else if (!st) {
		g = s.t;
		s.t = NULL;
	}
	dp_graph_free(s.t);
	free_state(&s);
	/* memory errors come from deep inside without a file: name the
	 * folder */
	if (st == DP_ENOMEM && err && !err->file[0])
		snprintf(err->file, sizeof err->file, "%s", dir);
	if (st)
		return st;
	*out = g;
	return DP_OK;
}

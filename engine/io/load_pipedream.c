/* load_pipedream.c - PipeDream profiler graph.txt, loaded as a training step.
 *
 * PipeDream (Narayanan et al., SOSP 2019) profiles a PyTorch model per layer
 * and writes graph.txt: one line per layer
 *
 *   node4 -- Conv2d(3, 64, ...) -- forward_compute_time=1.318,
 *     backward_compute_time=2.796, activation_size=205520896.0,
 *     parameter_size=262144.000
 *
 * (times in ms, sizes in bytes; activation_size may be a list "[a; b; c]"
 * for layers with several outputs, summed here) and one line per edge,
 * "\tnodeA -- nodeB". The profile describes forward layers only; a training
 * step also runs their backward, so the graph built here has, per layer N:
 *
 * - op "N" (forward, role forward; input layers role input): time =
 *   forward_compute_time, output = activation_size;
 * - op "N_bw" (backward, role backward): time = backward_compute_time, param_bytes =
 *   parameter_size (the weights live with the op that updates them), output
 *   = the gradients it sends back (sum of its inputs' activation sizes);
 * - forward edges P -> N carrying activation(P);
 * - mirrored backward edges N_bw -> P_bw carrying activation(P) (the
 *   gradient of P's output has P's output's shape);
 * - saved activations: P -> N_bw for each input P of N (activation(P)) and
 *   N -> N_bw (activation(N)): backward needs the layer's inputs and output;
 * - N and N_bw colocated (group "N") when N has parameters.
 *
 * Input layers (description "Input" or "InputK") are data loading: their
 * forward time is set to 0 and they have no backward op. Forward ops come
 * first in file order, then backward ops in reverse file order.
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dnnpart/load.h"
#include "internal/arrays.h"
#include "internal/grow.h"
#include "internal/load_util.h"
#include "internal/nomem.h"

#define MS_TO_US 1000.0

typedef struct pd_layer {
	uint32_t fw; /* op id of the forward op */
	uint32_t bw; /* op id of the backward op, UINT32_MAX for inputs */
	double fw_ms, bw_ms;
	double act, param; /* bytes */
	bool input;
	int line;
} pd_layer;

typedef struct pd_edge {
	uint32_t from, to; /* layer indices */
} pd_edge;

typedef struct pd_state {
	const char *path;
	dp_graph *g;
	pd_layer *layers;
	uint32_t nlayers, layers_cap;
	pd_edge *edges;
	uint32_t nedges, edges_cap;
	char **edge_names; /* 2 per pending edge, resolved after parsing */
	int *edge_lines;
} pd_state;

static dp_status syntax(const pd_state *s, int line, int col, dp_err *err,
			const char *what)
{
	return dp_err_set(err, DP_EINPUT, s->path, line, col,
			  "%s; expected a layer line 'nodeN -- Description -- "
			  "forward_compute_time=MS, backward_compute_time=MS, "
			  "activation_size=BYTES, parameter_size=BYTES' or an "
			  "edge line '<TAB>nodeA -- nodeB'",
			  what);
}

/* Parses one value: a number or "[a; b; ...]" (summed). Advances *p. */
static int parse_value(char **p, double *out)
{
	char *s = *p, *end;
	if (*s == '[') {
		double sum = 0;
		s++;
		for (;;) {
			while (*s == ' ')
				s++;
			double v = strtod(s, &end);
			if (end == s)
				return -1;
			sum += v;
			s = end;
			while (*s == ' ')
				s++;
			if (*s == ';') {
				s++;
				continue;
			}
			if (*s != ']')
				return -1;
			s++;
			break;
		}
		*out = sum;
	} else {
		*out = strtod(s, &end);
		if (end == s)
			return -1;
		s = end;
	}
	*p = s;
	return 0;
}

/* Parses "key=value, key=value, ..." of a layer line into the layer. */
static dp_status parse_attrs(const pd_state *s, char *attrs, char *line0,
			     int line, pd_layer *L, dp_err *err)
{
	static const char *keys[] = {"forward_compute_time",
				     "backward_compute_time", "activation_size",
				     "parameter_size"};
	double vals[4];
	bool have[4] = {false, false, false, false};
	char *p = attrs;
	while (*p) {
		char *key = p;
		char *eq = strchr(p, '=');
		if (!eq)
			return syntax(s, line, (int)(p - line0) + 1, err,
				      "attribute without '='");
		*eq = '\0';
		key = dpi_load_trim(key);
		p = eq + 1;
		while (*p == ' ')
			p++;
		char *vstart = p;
		double v;
		if (parse_value(&p, &v))
			return syntax(s, line, (int)(vstart - line0) + 1, err,
				      "attribute value is not a number or a "
				      "list [a; b]");
		if (!isfinite(v) || v < 0)
			return dp_err_set(err, DP_EINPUT, s->path, line,
					  (int)(vstart - line0) + 1,
					  "%s must be a finite number >= 0, "
					  "got %g",
					  key, v);
		for (int k = 0; k < 4; k++)
			if (strcmp(key, keys[k]) == 0) {
				vals[k] = v;
				have[k] = true;
			}
		while (*p == ' ')
			p++;
		if (*p == ',')
			p++;
		else if (*p)
			return syntax(s, line, (int)(p - line0) + 1, err,
				      "expected ',' between attributes");
		while (*p == ' ')
			p++;
	}
	for (int k = 0; k < 4; k++)
		if (!have[k])
			return dp_err_set(err, DP_EINPUT, s->path, line, 0,
					  "layer line has no %s= attribute "
					  "(each layer needs "
					  "forward_compute_time, "
					  "backward_compute_time, "
					  "activation_size and parameter_size)",
					  keys[k]);
	L->fw_ms = vals[0];
	L->bw_ms = vals[1];
	L->act = vals[2];
	L->param = vals[3];
	return DP_OK;
}

/* "Input" or "Input<digits>": PipeDream's data-loading layer. */
static bool is_input_type(const char *t)
{
	if (strncmp(t, "Input", 5) != 0)
		return false;
	for (t += 5; *t; t++)
		if (!isdigit((unsigned char)*t))
			return false;
	return true;
}

static dp_status parse_layer(pd_state *s, char *ln, int line, dp_err *err)
{
	char *sep = strstr(ln, " -- ");
	if (!sep)
		return syntax(s, line, 1, err,
			      "no ' -- ' after the layer name");
	char *last = sep, *q;
	while ((q = strstr(last + 4, " -- ")))
		last = q;
	if (last == sep)
		return syntax(s, line, (int)(sep - ln) + 1, err,
			      "layer line has no description and attributes");
	*sep = '\0';
	*last = '\0';
	char *name = dpi_load_trim(ln), *desc = dpi_load_trim(sep + 4);
	if (!*name)
		return syntax(s, line, 1, err, "empty layer name");
	if (dpi_grow((void **)&s->layers, &s->layers_cap, s->nlayers + 1,
		     sizeof *s->layers, 64))
		return dpi_nomem(err, "loading a PipeDream graph");
	pd_layer *L = &s->layers[s->nlayers];
	memset(L, 0, sizeof *L);
	L->line = line;
	dp_status st = parse_attrs(s, last + 4, ln, line, L, err);
	if (st)
		return st;
	/* type: the description up to its first '(' */
	size_t tl = strcspn(desc, "(");
	while (tl && desc[tl - 1] == ' ')
		tl--;
	desc[tl] = '\0';
	L->input = is_input_type(desc);
	st = dp_graph_add_op(s->g, name, &L->fw, err);
	if (!st) {
		dp_op *op = &s->g->ops[L->fw];
		op->time_us = L->input ? 0.0 : L->fw_ms * MS_TO_US;
		op->output_bytes = (int64_t)llround(L->act);
		if (!(st = dp_graph_set_type(s->g, L->fw, desc, err)) &&
		    !(st = dp_graph_set_layer(s->g, L->fw, name, err)))
			st = dp_graph_set_role(s->g, L->fw,
					       L->input ? DP_ROLE_INPUT
							: DP_ROLE_FORWARD,
					       err);
	}
	if (st) {
		if (err) {
			snprintf(err->file, sizeof err->file, "%s", s->path);
			err->line = line;
			err->col = 1;
		}
		return st;
	}
	L->bw = UINT32_MAX;
	s->nlayers++;
	return DP_OK;
}

static dp_status parse_edge(pd_state *s, char *ln, int line, dp_err *err)
{
	char *sep = strstr(ln, " -- ");
	if (!sep)
		return syntax(s, line, 1, err, "edge line without ' -- '");
	*sep = '\0';
	char *a = dpi_load_trim(ln), *b = dpi_load_trim(sep + 4);
	if (!*a || !*b || strstr(b, " -- "))
		return syntax(s, line, 1, err, "malformed edge line");
	uint32_t n = s->nedges;
	if (dpi_grow((void **)&s->edges, &s->edges_cap, n + 1, sizeof *s->edges,
		     64))
		return dpi_nomem(err, "loading a PipeDream graph");
	size_t cap = s->edges_cap;
	const dpi_arr arrs[] = {DPI_ARR(s->edge_names, cap * 2),
				DPI_ARR(s->edge_lines, cap)};
	if (dpi_arrays_resize(arrs, DPI_NARR(arrs)))
		return dpi_nomem(err, "loading a PipeDream graph");
	s->edge_names[2 * n] = a;
	s->edge_names[2 * n + 1] = b;
	s->edge_lines[n] = line;
	s->nedges++;
	return DP_OK;
}

/* Layer index of the forward op named name, or UINT32_MAX. Forward ops are
 * the first nlayers ops, added in layer order, so op id == layer index. */
static uint32_t layer_of(const pd_state *s, const char *name)
{
	uint32_t id = dp_graph_find(s->g, name);
	return id < s->nlayers ? id : UINT32_MAX;
}

static dp_status resolve_edges(pd_state *s, dp_err *err)
{
	for (uint32_t i = 0; i < s->nedges; i++) {
		for (int k = 0; k < 2; k++) {
			const char *nm = s->edge_names[2 * i + k];
			uint32_t l = layer_of(s, nm);
			if (l == UINT32_MAX)
				return dp_err_set(
					err, DP_EINPUT, s->path,
					s->edge_lines[i], 0,
					"edge names layer '%s', which "
					"no layer line declares",
					nm);
			if (k == 0)
				s->edges[i].from = l;
			else
				s->edges[i].to = l;
		}
		if (s->edges[i].from == s->edges[i].to)
			return dp_err_set(err, DP_EINPUT, s->path,
					  s->edge_lines[i], 0,
					  "edge from layer '%s' to itself",
					  s->edge_names[2 * i]);
	}
	return DP_OK;
}

/* Adds the backward ops (reverse layer order) and every edge. */
static dp_status build_training(pd_state *s, dp_err *err)
{
	dp_graph *g = s->g;
	char nm[1024];
	dp_status st;
	for (uint32_t i = s->nlayers; i-- > 0;) {
		pd_layer *L = &s->layers[i];
		if (L->input)
			continue;
		snprintf(nm, sizeof nm, "%s_bw", dp_graph_op_name(g, L->fw));
		if ((st = dp_graph_add_op(g, nm, &L->bw, err)))
			return st != DP_EINPUT
				       ? st
				       : dp_err_set(err, st, s->path, L->line,
						    0,
						    "backward op name '%s' is "
						    "taken by a layer; rename "
						    "that layer",
						    nm);
		dp_op *op = &g->ops[L->bw];
		op->time_us = L->bw_ms * MS_TO_US;
		op->param_bytes = (int64_t)llround(L->param);
		snprintf(nm, sizeof nm, "%sBackward",
			 dp_graph_str(g, g->ops[L->fw].type));
		if ((st = dp_graph_set_type(g, L->bw, nm, err)))
			return st;
		snprintf(nm, sizeof nm, "%s", dp_graph_op_name(g, L->fw));
		if ((st = dp_graph_set_layer(g, L->bw, nm, err)) ||
		    (st = dp_graph_set_role(g, L->bw, DP_ROLE_BACKWARD, err)))
			return st;
		if (L->param > 0 &&
		    ((st = dp_graph_set_colocate(g, L->fw, nm, err)) ||
		     (st = dp_graph_set_colocate(g, L->bw, nm, err))))
			return st;
	}
	/* forward edges, in file order */
	for (uint32_t i = 0; i < s->nedges; i++) {
		const pd_layer *P = &s->layers[s->edges[i].from];
		const pd_layer *N = &s->layers[s->edges[i].to];
		if ((st = dp_graph_add_edge(g, P->fw, N->fw, -1, false, err)))
			return st;
	}
	/* mirrored backward edges and the gradients' sizes */
	for (uint32_t i = 0; i < s->nedges; i++) {
		const pd_layer *P = &s->layers[s->edges[i].from];
		const pd_layer *N = &s->layers[s->edges[i].to];
		if (P->bw == UINT32_MAX || N->bw == UINT32_MAX)
			continue;
		int64_t b = (int64_t)llround(P->act);
		if ((st = dp_graph_add_edge(g, N->bw, P->bw, b, false, err)))
			return st;
		g->ops[N->bw].output_bytes += b;
	}
	/* saved activations: inputs of N, then N's own output */
	for (uint32_t i = 0; i < s->nedges; i++) {
		const pd_layer *P = &s->layers[s->edges[i].from];
		const pd_layer *N = &s->layers[s->edges[i].to];
		if (N->bw == UINT32_MAX)
			continue;
		if ((st = dp_graph_add_edge(g, P->fw, N->bw, -1, false, err)))
			return st;
	}
	for (uint32_t i = 0; i < s->nlayers; i++) {
		const pd_layer *L = &s->layers[i];
		if (L->bw != UINT32_MAX &&
		    (st = dp_graph_add_edge(g, L->fw, L->bw, -1, false, err)))
			return st;
	}
	return DP_OK;
}

/* Graph name: the folder of graph.txt (PipeDream names the model by its
 * folder), else the file name without extension. */
static dp_status set_name(dp_graph *g, const char *path, dp_err *err)
{
	char buf[512];
	snprintf(buf, sizeof buf, "%s", path);
	char *slash = strrchr(buf, '/');
	const char *base = slash ? slash + 1 : buf;
	if (strcmp(base, "graph.txt") == 0 && slash) {
		*slash = '\0';
		char *s2 = strrchr(buf, '/');
		base = s2 ? s2 + 1 : buf;
	} else {
		char *dot = strrchr(buf, '.');
		if (dot && dot > base)
			*dot = '\0';
	}
	return dp_graph_set_name(g, *base ? base : "pipedream", err);
}

dp_status dp_load_pipedream(const char *path, const char *text, size_t len,
			    dp_graph **out, dp_err *err)
{
	pd_state s;
	memset(&s, 0, sizeof s);
	s.path = path;
	char *buf = malloc(len + 1);
	s.g = dp_graph_new(NULL);
	dp_status st = DP_OK;
	if (!buf || !s.g) {
		st = dpi_nomem(err, "loading a PipeDream graph");
		goto done;
	}
	memcpy(buf, text, len);
	buf[len] = '\0';
	if ((st = dp_graph_set_source(s.g, path, err)) ||
	    (st = set_name(s.g, path, err)))
		goto done;
	if (memchr(text, '\0', len)) {
		st = dp_err_set(err, DP_EINPUT, path, 0, 0,
				"file contains a NUL byte; expected a text "
				"graph.txt");
		goto done;
	}
	int line = 0;
	for (char *p = buf; p && *p;) {
		char *nl = strchr(p, '\n');
		if (nl)
			*nl = '\0';
		line++;
		bool indented = *p == '\t' || *p == ' ';
		char *ln = dpi_load_trim(p);
		if (*ln)
			st = indented ? parse_edge(&s, ln, line, err)
				      : parse_layer(&s, ln, line, err);
		if (st)
			goto done;
		p = nl ? nl + 1 : NULL;
	}
	if (s.nlayers == 0) {
		st = dp_err_set(err, DP_EINPUT, path, 0, 0,
				"no layer lines; expected 'nodeN -- "
				"Description -- forward_compute_time=MS, ...'");
		goto done;
	}
	if ((st = resolve_edges(&s, err)) || (st = build_training(&s, err)))
		goto done;
done:
	DPI_FREE_ALL(s.layers, s.edges, s.edge_names, s.edge_lines, buf);
	if (st) {
		dp_graph_free(s.g);
		return st;
	}
	*out = s.g;
	return DP_OK;
}

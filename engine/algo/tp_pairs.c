/* tp_pairs.c - Megatron's column/row pairs found by the graph's structure
 * (internal/tp_pairs.h). */
#include "internal/tp_pairs.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define MAX_CHAIN 64

static bool in_list(const uint8_t *l, int32_t n, uint32_t i)
{
	for (int32_t k = 0; k < n; k++)
		if (l[k] == i)
			return true;
	return false;
}

/* Whether op u's type names a normalisation (its dims hide the reduction
 * over the hidden dim). */
static bool is_norm(const dp_graph *g, uint32_t u)
{
	const char *t = dp_graph_str(g, g->ops[u].type);
	for (; *t; t++)
		if (tolower((unsigned char)t[0]) == 'n' &&
		    tolower((unsigned char)t[1]) == 'o' &&
		    tolower((unsigned char)t[2]) == 'r' &&
		    tolower((unsigned char)t[3]) == 'm')
			return true;
	return false;
}

/* The dim of producer p (out axis j of edge e) and its index, or -1. */
static int producer_dim(const dp_graph *g, uint32_t e, uint32_t name)
{
	const uint32_t *names;
	int ne = dp_edge_dims(g, e, &names);
	dp_dims pd;
	if (ne < 0 || !dp_op_dims(g, g->edges[e].from, &pd) || pd.nout != ne)
		return -1;
	for (int j = 0; j < ne; j++)
		if (names[j] == name)
			return pd.out[j];
	return -1;
}

/* The dim of consumer v that edge e maps producer dim i to, or -1. */
static int consumer_dim(const dp_graph *g, uint32_t e, uint32_t i)
{
	const uint32_t *names;
	int ne = dp_edge_dims(g, e, &names);
	dp_dims pd, cd;
	if (ne < 0 || !dp_op_dims(g, g->edges[e].from, &pd) ||
	    !dp_op_dims(g, g->edges[e].to, &cd) || pd.nout != ne)
		return -1;
	for (int j = 0; j < ne; j++)
		if (pd.out[j] == i)
			for (uint32_t k = 0; k < cd.n; k++)
				if (cd.name_off[k] == names[j])
					return (int)k;
	return -1;
}

/* The one data input of v from a non-param op that carries v's dim i:
 * its producer and the producer's dim; false when there is none, or when
 * v has more than one non-param data input (chain) / none carries i. */
static bool input_of(const dp_graph *g, uint32_t v, uint32_t i, bool chain,
		     uint32_t *p, int *pi)
{
	dp_dims vd;
	dp_op_dims(g, v, &vd);
	int inputs = 0;
	*pi = -1;
	for (uint32_t k = g->pred_off[v]; k < g->pred_off[v + 1]; k++) {
		uint32_t e = g->pred_edge[k];
		uint32_t u = g->edges[e].from;
		if (g->edges[e].control || dp_op_role(g, u) == DP_ROLE_PARAM)
			continue;
		inputs++;
		int d = producer_dim(g, e, vd.name_off[i]);
		if (d >= 0 && *pi < 0) {
			*p = u;
			*pi = d;
		}
	}
	return *pi >= 0 && (!chain || inputs == 1);
}

enum { OTHER, POINTWISE, COLUMN };

/* What forward op u is for its dim i. */
static int kind_of(const dp_graph *g, uint32_t u, uint32_t i)
{
	dp_dims d;
	if (dp_op_role(g, u) != DP_ROLE_FORWARD || !dp_op_dims(g, u, &d) ||
	    d.nout < 0 || !in_list(d.out, d.nout, i) || is_norm(g, u))
		return OTHER;
	bool reduces = false;
	for (int32_t k = 0; k < d.nparam; k++)
		if (!in_list(d.out, d.nout, d.param[k]))
			reduces = true;
	if (reduces && in_list(d.param, d.nparam, i))
		return COLUMN;
	if ((uint32_t)d.nout != d.n)
		return OTHER;
	for (int32_t k = 0; k < d.nparam; k++)
		if (d.param[k] != i)
			return OTHER;
	return POINTWISE;
}

typedef struct walk {
	const dp_graph *g;
	int64_t min_size;
	uint32_t batch; /* the batch dim's name offset, or UINT32_MAX */
	int8_t *dim;
	uint32_t *queue;
	uint32_t head, tail;
} walk;

/* Whether dim i of u may be split on the tensor axis. */
static bool can_split(const walk *w, uint32_t u, int i)
{
	dp_dims d;
	return i >= 0 && w->dim[u] < 0 && w->g->ops[u].pin < 0 &&
	       dp_op_dims(w->g, u, &d) && d.sizes[i] >= w->min_size &&
	       d.name_off[i] != w->batch;
}

static void assign(walk *w, uint32_t u, int i)
{
	if (!can_split(w, u, i))
		return;
	w->dim[u] = (int8_t)i;
	w->queue[w->tail++] = u;
}

/* A pair ending at row op b (its reduction dim r): the chain back to its
 * column op, assigned when every op of it is free. */
static void try_pair(walk *w, uint32_t b, uint32_t r)
{
	uint32_t ops[MAX_CHAIN + 1];
	int dims[MAX_CHAIN + 1], n = 0;
	ops[n] = b;
	dims[n++] = (int)r;
	uint32_t cur = b, i = r;
	while (n <= MAX_CHAIN) {
		uint32_t p = 0;
		int pi;
		if (!input_of(w->g, cur, i, n > 1, &p, &pi))
			return;
		int k = kind_of(w->g, p, (uint32_t)pi);
		if (k == OTHER)
			return;
		ops[n] = p;
		dims[n++] = pi;
		if (k == COLUMN)
			break;
		cur = p;
		i = (uint32_t)pi;
	}
	if (n > MAX_CHAIN)
		return;
	for (int k = 0; k < n; k++)
		if (!can_split(w, ops[k], dims[k]))
			return;
	for (int k = 0; k < n; k++)
		assign(w, ops[k], dims[k]);
}

/* Spreads u's split (see the header). */
static void spread(walk *w, uint32_t u)
{
	const dp_graph *g = w->g;
	uint32_t i = (uint32_t)w->dim[u];
	dp_dims d;
	dp_op_dims(g, u, &d);
	for (uint32_t k = g->pred_off[u]; k < g->pred_off[u + 1]; k++) {
		uint32_t e = g->pred_edge[k], p = g->edges[e].from;
		if (!g->edges[e].control && dp_op_role(g, p) == DP_ROLE_PARAM)
			assign(w, p, producer_dim(g, e, d.name_off[i]));
	}
	if (d.nout >= 0 && in_list(d.out, d.nout, i))
		for (uint32_t k = g->succ_off[u]; k < g->succ_off[u + 1]; k++) {
			uint32_t e = g->succ_edge[k];
			if (!g->edges[e].control)
				assign(w, g->edges[e].to,
				       consumer_dim(g, e, i));
		}
	int32_t grp = g->ops[u].colocate;
	for (uint32_t k = grp >= 0 ? g->group_off[grp] : 0;
	     grp >= 0 && k < g->group_off[grp + 1]; k++) {
		uint32_t v = g->group_ops[k];
		dp_dims vd;
		if (!dp_op_dims(g, v, &vd))
			continue;
		for (uint32_t j = 0; j < vd.n; j++)
			if (vd.name_off[j] == d.name_off[i] &&
			    vd.sizes[j] == d.sizes[i])
				assign(w, v, (int)j);
	}
}

int dpi_tp_pairs(const dp_graph *g, int64_t min_size, int8_t *dim)
{
	walk w = {.g = g, .min_size = min_size, .dim = dim};
	w.queue = malloc((g->nops ? g->nops : 1) * sizeof *w.queue);
	if (!w.queue)
		return -1;
	const char *bd = dp_graph_batch_dim(g);
	w.batch = UINT32_MAX;
	for (uint32_t u = 0; u < g->nops; u++) {
		dim[u] = -1;
		int b = bd[0] ? dp_op_find_dim(g, u, bd) : -1;
		dp_dims d;
		if (b >= 0 && dp_op_dims(g, u, &d))
			w.batch = d.name_off[b];
	}
	for (uint32_t u = 0; u < g->nops; u++) {
		dp_dims d;
		if (dp_op_role(g, u) != DP_ROLE_FORWARD ||
		    !dp_op_dims(g, u, &d) || d.nparam <= 0 || d.nout < 0 ||
		    is_norm(g, u))
			continue;
		for (int32_t k = 0; k < d.nparam; k++)
			if (!in_list(d.out, d.nout, d.param[k]) &&
			    d.name_off[d.param[k]] != w.batch)
				try_pair(&w, u, d.param[k]);
	}
	while (w.head < w.tail)
		spread(&w, w.queue[w.head++]);
	free(w.queue);
	return (int)w.tail;
}

/* Whether some op has a dim called name. */
static bool has_dim(const dp_graph *g, const char *name)
{
	for (uint32_t u = 0; u < g->nops; u++)
		if (dp_op_find_dim(g, u, name) >= 0)
			return true;
	return false;
}

/* The size of the vocabulary: the largest dim `v` of any op (the word
 * embedding's rows, the logits' classes), 0 when none. */
static int64_t vocab_size(const dp_graph *g)
{
	int64_t z = 0;
	for (uint32_t u = 0; u < g->nops; u++) {
		dp_dims d;
		int i = dp_op_find_dim(g, u, "v");
		if (i >= 0 && dp_op_dims(g, u, &d) && d.sizes[i] > z)
			z = d.sizes[i];
	}
	return z;
}

int dpi_tp_dims(const dp_graph *g, int8_t *dim)
{
	if (!has_dim(g, "f") && !has_dim(g, "heads"))
		return dpi_tp_pairs(g, 1, dim);
	int64_t voc = vocab_size(g);
	int n = 0;
	for (uint32_t u = 0; u < g->nops; u++) {
		int f = dp_op_find_dim(g, u, "f");
		int h = dp_op_find_dim(g, u, "heads");
		int v = dp_op_find_dim(g, u, "v");
		dp_dims d;
		if (v >= 0 && dp_op_dims(g, u, &d) && d.sizes[v] != voc)
			v = -1; /* a small table (BERT's token types) */
		dim[u] = (int8_t)(g->ops[u].pin >= 0 ? -1
				  : f >= 0	     ? f
				  : h >= 0	     ? h
						     : v);
		n += dim[u] >= 0;
	}
	return n;
}

/* graph_levers_fuse.c - fused element-wise chains, `--fuse elementwise`
 * (internal/levers_int.h; docs/memory.md gives the formula).
 *
 * A chain is a connected set (by data edges) of two or more forward ops of
 * one layer whose types are element-wise or normalising (bias adds,
 * activations such as GELU's and tanh, LayerNorm's and softmax's
 * arithmetic and reductions): one fused kernel runs it. The kernel writes
 * its outputs (the ops a forward op outside the chain, or the loss,
 * reads) and its statistics (outputs under 1/16 of the chain's largest:
 * LayerNorm's mean and rstd, softmax's max and sum); every other output
 * stays on chip. For the backward it saves its inputs (the tensors it
 * reads from outside) instead of its intermediates: each backward op of
 * the layer that reads an intermediate reads the chain's inputs (an extra
 * data edge), the fused backward kernel recomputing the rest. A backward
 * op that reads an intermediate and whose output only such ops read keeps
 * that output on chip too. Every op of a fused kernel, forward or
 * backward, takes the time of its arithmetic (graph_levers.c).
 */
#include <stdlib.h>
#include <string.h>

#include "internal/levers_int.h"
#include "internal/nomem.h"
#include "internal/unionfind.h"

/* Types one fused element-wise kernel runs (as our graphs name them). */
static const char *const ew_types[] = {
	"Add",	   "AddV2",   "Sub",	   "Mul",    "RealDiv", "Div",
	"BiasAdd", "Neg",     "Square",	   "Sqrt",   "Rsqrt",	"Pow",
	"Exp",	   "Log",     "Tanh",	   "Erf",    "Sigmoid", "Relu",
	"Gelu",	   "Mean",    "Max",	   "Sum",    "Softmax", "LayerNorm",
	"Dropout", "Maximum", "Minimum",   NULL};

static bool is_ew(const dp_graph *g, uint32_t u)
{
	if (dp_op_role(g, u) != DP_ROLE_FORWARD)
		return false;
	const char *t = dp_graph_str(g, g->ops[u].type);
	for (const char *const *p = ew_types; *p; p++)
		if (!strcmp(t, *p))
			return true;
	return false;
}

static bool is_bwd(const dp_graph *g, uint32_t u)
{
	dp_role r = dp_op_role(g, u);
	return r == DP_ROLE_BACKWARD || r == DP_ROLE_GRAD;
}

/* The chains: par (union-find over ops) joins the element-wise forward
 * ops of one layer that a data edge links and drop has not taken (a fused
 * attention core). Returns how many ops are in a chain of two or more;
 * size[root] counts each chain. */
static uint32_t chains(const dp_graph *g, const dpi_lv_sets *s, uint32_t *par,
		       uint32_t *size)
{
	for (uint32_t u = 0; u < g->nops; u++) {
		par[u] = u;
		size[u] = 0;
	}
	for (uint32_t e = 0; e < g->nedges; e++) {
		const dp_edge *ed = &g->edges[e];
		uint32_t a = ed->from, b = ed->to;
		if (!ed->control && is_ew(g, a) && is_ew(g, b) &&
		    s->drop[a] < 0 && s->drop[b] < 0 &&
		    g->ops[a].layer == g->ops[b].layer)
			dpi_uf_union(par, a, b);
	}
	for (uint32_t u = 0; u < g->nops; u++)
		if (is_ew(g, u) && s->drop[u] < 0)
			size[dpi_uf_find(par, u)]++;
	uint32_t n = 0;
	for (uint32_t u = 0; u < g->nops; u++)
		n += is_ew(g, u) && s->drop[u] < 0 &&
		     size[dpi_uf_find(par, u)] > 1;
	return n;
}

/* Whether u, an op of chain r, is one of its intermediates: no forward op
 * outside the chain (nor the loss) reads it, and it is no statistic. */
static bool intermediate(const dp_graph *g, uint32_t *par, uint32_t r,
			 uint32_t u, const int64_t *largest)
{
	if (g->ops[u].output_bytes * 16 < largest[r])
		return false;
	for (uint32_t k = g->succ_off[u]; k < g->succ_off[u + 1]; k++) {
		const dp_edge *e = &g->edges[g->succ_edge[k]];
		if (e->control || is_bwd(g, e->to))
			continue;
		if (!is_ew(g, e->to) || dpi_uf_find(par, e->to) != r)
			return false;
	}
	return true;
}

/* Scratch of fuse_chains. */
typedef struct fuse_ctx {
	const dp_graph *g;
	dpi_lv_sets *s;
	uint32_t *par, *size;
	int64_t *largest; /* per chain root: its largest output */
	uint32_t *inter;  /* per op: its chain's root + 1 if an
			     intermediate, else 0 */
	uint32_t *in_off, *in_op; /* the inputs of chain root r:
				     in_op[in_off[r] .. in_off[r + 1]) */
	uint32_t *stamp;	  /* per op: the backward op + 1 that last
				     took it as an input */
	uint32_t cap;
} fuse_ctx;

/* Whether data edge e enters chain r = root of e->to from outside (after
 * the chains' ops are marked in drop). */
static bool chain_input(const fuse_ctx *c, const dp_edge *e)
{
	const dp_graph *g = c->g;
	uint32_t r = dpi_uf_find(c->par, e->to);
	return !e->control && e->bytes > 0 && is_ew(g, e->to) &&
	       c->s->drop[e->to] >= 0 && c->size[r] > 1 &&
	       (!is_ew(g, e->from) || dpi_uf_find(c->par, e->from) != r);
}

/* The chains' inputs by root (in_off, in_op). */
static void chain_inputs(fuse_ctx *c)
{
	const dp_graph *g = c->g;
	for (uint32_t e = 0; e < g->nedges; e++)
		if (chain_input(c, &g->edges[e]))
			c->in_off[dpi_uf_find(c->par, g->edges[e].to) + 1]++;
	for (uint32_t i = 1; i <= g->nops; i++)
		c->in_off[i] += c->in_off[i - 1];
	for (uint32_t e = 0; e < g->nedges; e++)
		if (chain_input(c, &g->edges[e]))
			c->in_op[c->in_off[dpi_uf_find(c->par,
						       g->edges[e].to)]++] =
				g->edges[e].from;
	for (uint32_t i = g->nops; i > 0; i--)
		c->in_off[i] = c->in_off[i - 1];
	c->in_off[0] = 0;
}

/* Marks in s what the chains drop; each backward op of a layer that reads
 * an intermediate of its layer is fused and reads the chain's inputs. */
static dp_status fuse_chains(fuse_ctx *c, dp_err *err)
{
	const dp_graph *g = c->g;
	dpi_lv_sets *s = c->s;
	uint32_t n = g->nops;
	for (uint32_t u = 0; u < n; u++) {
		uint32_t r = dpi_uf_find(c->par, u);
		c->largest[u] = 0;
		c->inter[u] = 0;
		c->stamp[u] = 0;
		if (is_ew(g, u) && s->drop[u] < 0 && c->size[r] > 1 &&
		    g->ops[u].output_bytes > c->largest[r])
			c->largest[r] = g->ops[u].output_bytes;
	}
	for (uint32_t u = 0; u < n; u++) {
		uint32_t r = dpi_uf_find(c->par, u);
		if (!is_ew(g, u) || s->drop[u] >= 0 || c->size[r] < 2)
			continue;
		bool in = intermediate(g, c->par, r, u, c->largest);
		s->drop[u] = in ? g->ops[u].output_bytes : 0;
		c->inter[u] = in ? r + 1 : 0;
	}
	chain_inputs(c);
	dp_status st = DP_OK;
	for (uint32_t b = 0; !st && b < n; b++) {
		if (!is_bwd(g, b))
			continue;
		for (uint32_t k = g->pred_off[b];
		     !st && k < g->pred_off[b + 1]; k++) {
			const dp_edge *e = &g->edges[g->pred_edge[k]];
			uint32_t u = e->from;
			if (e->control || !c->inter[u] ||
			    g->ops[b].layer != g->ops[u].layer)
				continue;
			if (s->drop[b] < 0)
				s->drop[b] = 0;
			uint32_t r = c->inter[u] - 1;
			for (uint32_t i = c->in_off[r];
			     !st && i < c->in_off[r + 1]; i++) {
				uint32_t p = c->in_op[i];
				if (c->stamp[p] == b + 1)
					continue;
				c->stamp[p] = b + 1;
				st = dpi_levers_push_pair(&s->extra,
							   &s->nextra, &c->cap,
							   p, b, err);
			}
		}
	}
	return st;
}

/* A fused backward op whose output only fused backward ops read keeps it
 * on chip. */
static void fuse_backward_outputs(const dp_graph *g, dpi_lv_sets *s)
{
	for (uint32_t u = 0; u < g->nops; u++) {
		if (!is_bwd(g, u) || s->drop[u] != 0)
			continue;
		bool inner = g->succ_off[u + 1] > g->succ_off[u];
		for (uint32_t k = g->succ_off[u];
		     inner && k < g->succ_off[u + 1]; k++) {
			const dp_edge *e = &g->edges[g->succ_edge[k]];
			inner = e->control ||
				(is_bwd(g, e->to) && s->drop[e->to] >= 0);
		}
		if (inner)
			s->drop[u] = g->ops[u].output_bytes;
	}
}

dp_status dpi_levers_fuse_elementwise(const dp_graph *g, dpi_lv_sets *s,
				      dp_err *err)
{
	size_t n = g->nops ? g->nops : 1;
	fuse_ctx c = {.g = g, .s = s};
	c.par = malloc(n * sizeof *c.par);
	c.size = malloc(n * sizeof *c.size);
	c.inter = malloc(n * sizeof *c.inter);
	c.stamp = malloc(n * sizeof *c.stamp);
	c.largest = malloc(n * sizeof *c.largest);
	c.in_off = calloc(n + 1, sizeof *c.in_off);
	c.in_op = malloc(((size_t)g->nedges + 1) * sizeof *c.in_op);
	dp_status st = DP_OK;
	if (!c.par || !c.size || !c.inter || !c.stamp || !c.largest ||
	    !c.in_off || !c.in_op)
		st = dpi_nomem(err, "--fuse elementwise");
	else if (!chains(g, s, c.par, c.size))
		st = dp_err_set(err, DP_EINPUT, NULL, 0, 0,
				"--fuse elementwise: graph '%s' has no "
				"element-wise chain (two or more forward "
				"element-wise ops of one layer linked by a "
				"data edge; docs/memory.md)",
				g->name);
	else
		st = fuse_chains(&c, err);
	if (!st)
		fuse_backward_outputs(g, s);
	free(c.par);
	free(c.size);
	free(c.inter);
	free(c.stamp);
	free(c.largest);
	free(c.in_off);
	free(c.in_op);
	return st;
}

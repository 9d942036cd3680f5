/* pipe_zb.c - the zero-bubble schedule's split of the backward
 * (internal/pipeline.h, docs/pipeline.md "Zero bubble: zb-h1").
 *
 * Under zb-h1 a stage's backward of one micro-batch is two blocks: B, the
 * input gradients (what the previous stage waits for), and W, the weight
 * gradients, which the schedule defers to fill bubbles. W is the ops of
 * role grad that stay on their stage: a grad op that sends its output to
 * another stage (GPT-2's tied embedding: the output layer's share of the
 * word embedding's gradient goes to the first stage) is needed elsewhere
 * and runs with B. A W op may not feed a B op (W runs after B): such a
 * graph, or one without grad ops, is refused.
 */
#include "internal/nomem.h"
#include "internal/pipeline.h"

#include <stdlib.h>

static bool sends_elsewhere(const dp_graph *g, const dp_strategy *s,
			    const uint8_t *kd, uint32_t u)
{
	for (uint32_t j = g->succ_off[u]; j < g->succ_off[u + 1]; j++) {
		const dp_edge *e = &g->edges[g->succ_edge[j]];
		if (!e->control && kd[e->to] != DPI_PIPE_ONCE &&
		    s->pipe.stage[e->to] != s->pipe.stage[u])
			return true;
	}
	return false;
}

uint8_t *dpi_pipe_w_ops(const dp_graph *g, const dp_strategy *s,
			const uint8_t *kd)
{
	uint8_t *w = calloc(g->nops ? g->nops : 1, 1);
	if (!w)
		return NULL;
	for (uint32_t u = 0; u < g->nops; u++)
		w[u] = kd[u] == DPI_PIPE_BWD &&
		       dp_op_role(g, u) == DP_ROLE_GRAD &&
		       !sends_elsewhere(g, s, kd, u);
	return w;
}

#define NO_GRAD                                                                \
	"schedule zb-h1 splits each backward into input gradients (B) and "    \
	"weight gradients (W: ops of role grad), but graph '%s' has no op of " \
	"role grad%s; give the weight-gradient ops the role grad "             \
	"(docs/formats.md) or use 1f1b"

dp_status dpi_pipe_check_zb_roles(const dp_graph *g, const dp_algo_opts *o,
				  const char *name, dp_err *err)
{
	if (!o || o->schedule != DP_SCHED_ZBH1)
		return DP_OK;
	for (uint32_t u = 0; u < g->nops; u++)
		if (dp_op_role(g, u) == DP_ROLE_GRAD)
			return DP_OK;
	return dp_err_set(err, DP_EINPUT, g->source, 0, 0, "%s: " NO_GRAD, name,
			  g->name, "");
}

dp_status dpi_pipe_check_zb(const dp_graph *g, const dp_strategy *s,
			    const uint8_t *kd, dp_err *err)
{
	uint8_t *w = dpi_pipe_w_ops(g, s, kd);
	if (!w)
		return dpi_nomem(err, "checking a pipeline");
	bool any = false;
	for (uint32_t u = 0; u < g->nops && !any; u++)
		any = w[u];
	dp_status st = DP_OK;
	if (!any)
		st = dp_err_set(err, DP_EINPUT, g->source, 0, 0, NO_GRAD,
				g->name, " that stays on its stage");
	for (uint32_t e = 0; !st && e < g->nedges; e++) {
		uint32_t u = g->edges[e].from, v = g->edges[e].to;
		if (w[u] && !w[v] && kd[v] == DPI_PIPE_BWD)
			st = dp_err_set(err, DP_EINPUT, g->source, 0, 0,
					"schedule zb-h1: weight-gradient op "
					"'%s' (role grad) feeds backward op "
					"'%s', but a stage runs its weight "
					"gradients (W) after its input "
					"gradients (B); use 1f1b, or give '%s' "
					"the role grad",
					dp_graph_op_name(g, u),
					dp_graph_op_name(g, v),
					dp_graph_op_name(g, v));
	}
	free(w);
	return st;
}

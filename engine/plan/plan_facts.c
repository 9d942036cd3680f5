/* plan_facts.c - what a plan's numbers say beyond the simulator's: the
 * largest peak against its cap, a pipeline's bubble, and the bytes at a
 * device's peak by role (see dnnpart/plan.h). The JSON writer
 * (io/plan_json.c) and the explanation (explain.c) read them. */
#include <math.h>
#include <stdlib.h>

#include "dnnpart/plan.h"
#include "internal/pipeline.h"

double dp_plan_max_peak_ratio(const dp_plan *p)
{
	double best = -1.0;
	for (int d = 0; p->sim.dev && d < p->k; d++) {
		const dp_device_stats *s = &p->sim.dev[d];
		if (s->cap_bytes == DP_CAP_UNLIMITED)
			continue;
		double r = s->cap_bytes > 0 ? (double)s->peak_bytes /
						      (double)s->cap_bytes
			   : s->peak_bytes > 0 ? INFINITY
					       : 0.0;
		if (r > best)
			best = r;
	}
	return best;
}

double dp_plan_bubble(const dp_plan *p, int dev)
{
	if (p->kind != DP_STRAT_PIPELINE || !p->sim.dev ||
	    !(p->sim.makespan > 0) || dev < -1 || dev >= p->k)
		return -1;
	double busy = 0;
	int n = 0;
	for (int d = dev < 0 ? 0 : dev; d < (dev < 0 ? p->k : dev + 1); d++)
		if (p->sim.dev[d].ops) {
			busy += p->sim.dev[d].busy_us;
			n++;
		}
	if (!n)
		return -1;
	double b = 1 - busy / ((double)n * p->sim.makespan);
	return b < 0 ? 0 : b;
}

dp_pipe_block *dp_plan_pipe_blocks(const dp_plan *p, const dp_graph *g)
{
	const dp_strategy *s = p->strat;
	if (p->kind != DP_STRAT_PIPELINE || !s || !p->source || !p->micro ||
	    !g || s->nops != g->nops)
		return NULL;
	int V = s->pipe.virtual_stages > 1 ? s->pipe.virtual_stages : 1;
	int P = s->pipe.nstages / V;
	uint8_t *kd = dpi_pipe_kinds(g);
	uint8_t *w = kd && s->pipe.schedule == DP_SCHED_ZBH1
			     ? dpi_pipe_w_ops(g, s, kd)
			     : NULL;
	dp_pipe_block *b =
		kd ? malloc((p->nops ? p->nops : 1) * sizeof *b) : NULL;
	for (uint32_t i = 0; b && P > 0 && i < p->nops; i++) {
		uint32_t u = p->source[i];
		if (u >= g->nops) {
			b[i] = (dp_pipe_block){0, 'O'};
			continue;
		}
		b[i].chunk = (uint8_t)(s->pipe.stage[u] / P);
		b[i].kind = kd[u] == DPI_PIPE_ONCE || p->micro[i] < 0 ? 'O'
			    : kd[u] == DPI_PIPE_FWD		      ? 'F'
			    : w && w[u]				      ? 'W'
								      : 'B';
	}
	free(kd);
	free(w);
	return b;
}

static const char *const mem_role_names[DP_MEMR_COUNT] = {
	"params", "gradients", "optimizer", "activations", "copies", "temp"};

const char *dp_mem_role_name(dp_mem_role r)
{
	return (unsigned)r < DP_MEMR_COUNT ? mem_role_names[r] : "";
}

dp_mem_role dp_plan_live_role(const dp_graph *g, const dp_live_tensor *t)
{
	dp_role r = t->op < g->nops ? dp_op_role(g, t->op) : DP_ROLE_NONE;
	switch (t->kind) {
	case DP_MEM_COPY:
		return DP_MEMR_COPIES;
	case DP_MEM_TEMP:
		return DP_MEMR_TEMP;
	case DP_MEM_PARAM:
		return r == DP_ROLE_UPDATE ? DP_MEMR_OPTIMIZER : DP_MEMR_PARAMS;
	default:
		return r == DP_ROLE_GRAD     ? DP_MEMR_GRADIENTS
		       : r == DP_ROLE_UPDATE ? DP_MEMR_OPTIMIZER
					     : DP_MEMR_ACTIVATIONS;
	}
}

void dp_plan_peak_by_role(const dp_graph *g, const dp_plan *p, int dev,
			  int64_t out[DP_MEMR_COUNT])
{
	g = dp_plan_graph(p, g);
	for (int i = 0; i < DP_MEMR_COUNT; i++)
		out[i] = 0;
	const dp_sim_result *r = &p->sim;
	if (dev < 0 || dev >= p->k || !r->live || !r->live_off)
		return;
	for (uint32_t i = r->live_off[dev]; i < r->live_off[dev + 1]; i++)
		out[dp_plan_live_role(g, &r->live[i])] += r->live[i].bytes;
}

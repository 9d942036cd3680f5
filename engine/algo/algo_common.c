/* algo_common.c - the options every algorithm starts from and the helpers
 * the algorithms share (see algo.h and internal/algo_int.h). */
#include <string.h>

#include "dnnpart/algo.h"
#include "dnnpart/strategy.h"
#include "internal/algo_int.h"
#include "internal/spmd.h"

void dp_algo_opts_default(dp_algo_opts *o)
{
	o->contention = DP_CONT_PORT;
	o->objective = DP_OBJ_STEP;
	o->polish = true;
	o->microbatches = 0;
	o->tp = 0;
	o->virtual_stages = 0;
	o->sp = false;
	o->schedule = -1;
	o->bucket = DP_BUCKET_DEFAULT;
	o->zero_stage = 0;
	o->time_limit_s = 10.0;
	o->bound = NULL;
	o->budget_s = 0;
	o->origin = NULL;
	o->interim = NULL;
	o->interim_ud = NULL;
	o->shared = NULL;
	o->interim_strategy = NULL;
	o->candidates = NULL;
	o->ncandidates = 0;
	o->placements_only = false;
}

/* Whether sh holds placements for g on m (the same objects). */
static bool shared_for(const dp_algo_shared *sh, const dp_graph *g,
		       const dp_machine *m)
{
	return sh && sh->g == g && sh->m == m;
}

bool dpi_shared_get(const dp_algo_shared *sh, const dp_graph *g,
		    const dp_machine *m, dpi_shared_kind kind, int32_t *pl)
{
	if (!shared_for(sh, g, m) || !sh->has[kind])
		return false;
	memcpy(pl, sh->pl[kind], (size_t)g->nops * sizeof *pl);
	return true;
}

void dpi_shared_put(dp_algo_shared *sh, const dp_graph *g, const dp_machine *m,
		    dpi_shared_kind kind, const int32_t *pl)
{
	if (!shared_for(sh, g, m) || !sh->pl[kind])
		return;
	memcpy(sh->pl[kind], pl, (size_t)g->nops * sizeof *pl);
	sh->has[kind] = true;
}

const dp_algo_opts *dpi_algo_opts_or_default(const dp_algo_opts *o,
					     dp_algo_opts *def)
{
	if (o)
		return o;
	dp_algo_opts_default(def);
	return def;
}

int32_t dpi_algo_group_pin(const dp_graph *g, uint32_t grp)
{
	for (uint32_t i = g->group_off[grp]; i < g->group_off[grp + 1]; i++)
		if (g->ops[g->group_ops[i]].pin >= 0)
			return g->ops[g->group_ops[i]].pin;
	return -1;
}

void dpi_algo_unit_set(const dp_graph *g, int32_t *pl, uint32_t u, int32_t d)
{
	int32_t c = g->ops[u].colocate;
	if (c < 0) {
		pl[u] = d;
		return;
	}
	for (uint32_t i = g->group_off[c]; i < g->group_off[c + 1]; i++)
		pl[g->group_ops[i]] = d;
}

int dpi_algo_spmd_op_start(const dp_graph *g, uint32_t u, int data,
			   dp_strategy *s, dp_dims *d)
{
	if (g->ops[u].pin >= 0) {
		s->spmd.device[u] = g->ops[u].pin;
		return -2;
	}
	if (!dp_op_dims(g, u, d)) {
		if (data > 1 && dpi_spmd_batch_role(dp_op_role(g, u)))
			s->spmd.axes[(size_t)u * DP_MAX_OP_DIMS] = 1;
		return -2;
	}
	const char *bd = dp_graph_batch_dim(g);
	return bd[0] ? dp_op_find_dim(g, u, bd) : -1;
}

dp_status dpi_algo_check_microbatches(const dp_algo_opts *o, const char *name,
				      dp_err *err)
{
	if (o->microbatches < 0 || o->microbatches > DP_MAX_MICROBATCHES)
		return dp_err_set(err, DP_EINPUT, NULL, 0, 0,
				  "%s: a pipeline needs 1 to %d "
				  "micro-batches, got %d",
				  name, DP_MAX_MICROBATCHES, o->microbatches);
	return DP_OK;
}

dp_status dp_algo_check_pins(const dp_graph *g, const dp_machine *m,
			     dp_err *err)
{
	for (uint32_t u = 0; u < g->nops; u++) {
		int32_t pin = g->ops[u].pin;
		if (pin >= m->k)
			return dp_err_set(err, DP_EINPUT, g->source, 0, 0,
					  "op '%s' is pinned to device %d but "
					  "the machine has %d device%s (0..%d)",
					  dp_graph_op_name(g, u), pin, m->k,
					  m->k == 1 ? "" : "s", m->k - 1);
	}
	return DP_OK;
}

void dp_algo_apply_constraints(const dp_graph *g, int32_t *placement)
{
	/* groups: the group's pin, else the first member's device */
	for (uint32_t c = 0; c < g->ngroups; c++) {
		uint32_t lo = g->group_off[c], hi = g->group_off[c + 1];
		if (lo == hi)
			continue;
		int32_t dev = dpi_algo_group_pin(g, c);
		if (dev < 0)
			dev = placement[g->group_ops[lo]];
		for (uint32_t i = lo; i < hi; i++)
			placement[g->group_ops[i]] = dev;
	}
	for (uint32_t u = 0; u < g->nops; u++)
		if (g->ops[u].pin >= 0)
			placement[u] = g->ops[u].pin;
}

int32_t dpi_earliest_input_device(const dp_graph *g, const dp_sim_result *r,
				  int k, const int32_t *pl, uint32_t v,
				  const dpi_input_cost *cost)
{
	int32_t best = -1;
	double best_t = 0;
	for (int32_t e = 0; e < k; e++) {
		if (e == pl[v] ||
		    (cost->allowed && !cost->allowed(cost->ud, e)))
			continue;
		double t = 0;
		for (uint32_t i = g->pred_off[v]; i < g->pred_off[v + 1]; i++) {
			uint32_t ed = g->pred_edge[i];
			double a = r->end[g->edges[ed].from] +
				   cost->comm(cost->ud, ed, e);
			if (a > t)
				t = a;
		}
		if (best < 0 || t < best_t ||
		    (t == best_t && r->dev[e].busy_us < r->dev[best].busy_us)) {
			best = e;
			best_t = t;
		}
	}
	return best;
}

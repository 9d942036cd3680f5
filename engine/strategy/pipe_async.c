/* pipe_async.c - the weight versions of the asynchronous schedules
 * (internal/pipeline.h, docs/pipeline.md "Asynchronous pipelines").
 *
 * Without a flush a stage keeps more than one version of its weights:
 * PipeDream's weight stashing one per micro-batch in flight (S - s on
 * stage s of S), PipeDream-2BW two. The extra versions are weights only:
 * not the optimizer state, not the gradient buffer. An op's weights are
 * its param tensor (product of its `param` dims x elem_bytes, at most its
 * param_bytes) when its dims say which it is, else all its param_bytes;
 * an update op's param bytes are optimizer state and have none.
 *
 * Without a flush the fill and the drain are paid once, not per step: in
 * the steady state one step of M micro-batches takes the busiest
 * resource's time of the simulated step, the largest over devices of
 * their busy time, their time receiving and their time sending. Under
 * stash every micro-batch's backward is followed by the optimizer's
 * update, M updates per step instead of the one simulated: each device's
 * busy time gains M - 1 times its update ops' time.
 */
#include "internal/pipeline.h"

#include "dnnpart/sim.h"

int64_t dpi_pipe_weight_bytes(const dp_graph *g, uint32_t u)
{
	int64_t pb = g->ops[u].param_bytes;
	if (pb <= 0 || dp_op_role(g, u) == DP_ROLE_UPDATE)
		return 0;
	dp_dims d;
	if (!dp_op_dims(g, u, &d) || d.nparam < 0)
		return pb;
	int64_t w = d.elem_bytes;
	for (int32_t k = 0; k < d.nparam; k++)
		w *= d.sizes[d.param[k]];
	return w < pb ? w : pb;
}

int64_t dpi_pipe_stash_bytes(const dp_graph *ug, const dp_strategy *s,
			     uint32_t u, int64_t pb)
{
	const dp_pipeline *pp = &s->pipe;
	int v = dp_schedule_versions(pp->schedule, pp->nstages, pp->stage[u]);
	int64_t all = ug->ops[u].param_bytes;
	if (v <= 1 || pb <= 0 || all <= 0)
		return 0;
	int64_t w = dpi_pipe_weight_bytes(ug, u);
	if (pb != all) /* a shard of u's params: its share of the weights */
		w = (int64_t)((double)pb * (double)w / (double)all);
	return (int64_t)(v - 1) * w;
}

double dpi_pipe_steady_us(const dp_graph *ug, const dp_strategy *s,
			  const uint32_t *source, const int32_t *placement,
			  const dp_sim_result *r)
{
	if (s->kind != DP_STRAT_PIPELINE ||
	    !dp_schedule_is_async(s->pipe.schedule) || !r->dev)
		return 0;
	int extra = s->pipe.schedule == DP_SCHED_STASH
			    ? s->pipe.microbatches - 1
			    : 0;
	double upd[DP_MAX_DEVICES] = {0};
	for (uint32_t x = 0; extra > 0 && x < r->nops; x++) {
		uint32_t u = source ? source[x] : x;
		int d = placement[x];
		if (u < ug->nops && dp_op_role(ug, u) == DP_ROLE_UPDATE &&
		    d >= 0 && d < r->k && d < DP_MAX_DEVICES)
			upd[d] += r->end[x] - r->start[x];
	}
	double step = 0;
	for (int d = 0; d < r->k && d < DP_MAX_DEVICES; d++) {
		const dp_device_stats *ds = &r->dev[d];
		double busy = ds->busy_us + extra * upd[d];
		double t = busy > ds->comm_in_us ? busy : ds->comm_in_us;
		t = t > ds->comm_out_us ? t : ds->comm_out_us;
		step = t > step ? t : step;
	}
	return step;
}

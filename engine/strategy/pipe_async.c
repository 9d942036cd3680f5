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
 */
#include "internal/pipeline.h"

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

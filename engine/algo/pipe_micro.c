/* pipe_micro.c - the micro-batch counts a pipeline can take: the gcd of
 * the batch over the copied ops, the largest count up to a wish that
 * divides it, and the error when no pipeline could be made
 * (internal/pipeline.h; docs/algorithms.md, "gpipe and 1f1b").
 */
#include "internal/intmath.h"
#include "internal/pipeline.h"

#include <stdio.h>
#include <string.h>

int64_t dpi_pipe_batch_gcd(const dp_graph *g, const uint8_t *kd)
{
	const char *bd = dp_graph_batch_dim(g);
	int64_t G = 0;
	for (uint32_t u = 0; bd[0] && u < g->nops; u++) {
		dp_role r = dp_op_role(g, u);
		if (kd ? (dpi_pipe_kind)kd[u] == DPI_PIPE_ONCE
		       : r == DP_ROLE_PARAM || r == DP_ROLE_UPDATE)
			continue;
		int i = dp_op_find_dim(g, u, bd);
		if (i < 0)
			continue;
		dp_dims d;
		dp_op_dims(g, u, &d);
		G = dpi_gcd64(G, d.sizes[i]);
	}
	return G;
}

int dpi_pipe_pick_microbatches(int64_t G, int want, int D)
{
	if (want > DP_MAX_MICROBATCHES)
		want = DP_MAX_MICROBATCHES;
	if (G == 0)
		return want < 1 ? 1 : want;
	for (int M = want; M >= 1; M--)
		if (G % ((int64_t)M * D) == 0)
			return M;
	return 0;
}

dp_status dpi_pipe_none_made(const dp_graph *g, const dp_machine *m,
			     const dp_algo_opts *o, const char *name,
			     dp_err *err)
{
	int64_t G = dpi_pipe_batch_gcd(g, NULL);
	int M = o->microbatches;
	if (M > 0 && G > 0 && G % M) {
		char ms[160];
		size_t n = 0;
		int shown = 0;
		for (int64_t x = 1; x <= G && x <= DP_MAX_MICROBATCHES; x++)
			if (G % x == 0 && n < sizeof ms && shown++ < 12)
				n += (size_t)snprintf(ms + n, sizeof ms - n,
						      "%s%lld", n ? ", " : "",
						      (long long)x);
		return dp_err_set(err, DP_EINPUT, g->source, 0, 0,
				  "%s: -M %d does not divide the batch of "
				  "%lld (dim '%s'): each micro-batch needs "
				  "a whole share of it%s; -M that do: %s%s",
				  name, M, (long long)G, dp_graph_batch_dim(g),
				  strcmp(name, "hybrid") &&
						  strcmp(name, "pipedream")
					  ? ""
					  : " (and with D data-parallel "
					    "groups, M x D must divide it)",
				  ms, shown > 12 ? ", ..." : "");
	}
	if (dp_schedule_is_async(dpi_pipe_schedule(o, DP_SCHED_1F1B)))
		return dp_err_set(err, DP_EINPUT, g->source, 0, 0,
				  "%s: schedule %s needs a pipeline of at "
				  "least 2 stages (one stage has nothing to "
				  "run without a flush) and M >= S "
				  "micro-batches that divide the batch; none "
				  "could be made on %d device%s for this graph",
				  name, dp_schedule_name(dpi_pipe_schedule(
						o, DP_SCHED_1F1B)),
				  m->k, m->k == 1 ? "" : "s");
	return dp_err_set(err, DP_EINPUT, g->source, 0, 0,
			  "%s: no pipeline of stages that divide %d devices "
			  "and micro-batches that divide the batch could be "
			  "made for this graph",
			  name, m->k);
}

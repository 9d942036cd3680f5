/* pipe_case.c - see pipe_case.h. */
#include "pipe_case.h"

#include <string.h>

#include "internal/pipeline.h"

dp_status test_pipe_strategize(const char *algo, const dp_graph *g,
			       const dp_machine *m, const dp_algo_opts *o,
			       dp_strategy *s, dp_err *err)
{
	const dp_algo *a = dp_algo_find(algo);
	dp_strategy_init(s);
	if (!a || !a->strategize)
		return dp_err_set(err, DP_EINTERNAL, NULL, 0, 0,
				  "no algorithm %s", algo);
	bool gp = strcmp(algo, "gpipe") == 0;
	if (!o || o->microbatches <= 0 || (!gp && strcmp(algo, "1f1b")))
		return a->strategize(g, m, o, NULL, s, err);
	dp_schedule sch =
		dpi_pipe_schedule(o, gp ? DP_SCHED_GPIPE : DP_SCHED_1F1B);
	return dpi_pipe_make(g, m, o, NULL, sch, algo, m->k, NULL, s, err);
}

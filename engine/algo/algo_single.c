/* algo_single.c - everything on device 0 (pins still honoured). */
#include <string.h>

#include "dnnpart/algo.h"
#include "internal/algo_int.h"

static dp_status single_run(const dp_graph *g, const dp_machine *m,
			    const dp_algo_opts *o, const dp_progress *p,
			    int32_t *placement, dp_err *err)
{
	(void)o;
	(void)m;
	(void)err;
	memset(placement, 0, (size_t)g->nops * sizeof *placement);
	dp_algo_apply_constraints(g, placement);
	dp_progress_report(p, "single", 1.0);
	return DP_OK;
}

DPI_ALGO_DEFINE(single, "every op on device 0 (the one-device baseline)",
		"baseline", single_run);

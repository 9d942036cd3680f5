/* lower_spmd.c - lowering of spmd strategies (being written: see the
 * strategies issue; until then spmd strategies are refused clearly). */
#include "internal/lower.h"

dp_status dpi_strategy_check_spmd(const dp_graph *g, const dp_machine *m,
				  const dp_strategy *s, dp_err *err)
{
	(void)m;
	(void)s;
	return dp_err_set(err, DP_EINPUT, g->source, 0, 0,
			  "spmd strategies cannot be priced by this build");
}

dp_status dpi_lower_spmd(const dp_graph *g, const dp_machine *m,
			 const dp_strategy *s, const dp_progress *p,
			 dp_lowered *out, dp_err *err)
{
	(void)p;
	(void)out;
	return dpi_strategy_check_spmd(g, m, s, err);
}

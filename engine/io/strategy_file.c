/* strategy_file.c - strategy files (being written: see the strategies
 * issue; until then they are refused clearly). */
#include "dnnpart/strategy.h"

dp_status dp_strategy_read(const char *path, const dp_graph *g,
			   const dp_machine *m, dp_strategy *s, dp_err *err)
{
	(void)g;
	(void)m;
	(void)s;
	return dp_err_set(err, DP_EINPUT, path, 0, 0,
			  "strategy files cannot be read by this build");
}

dp_status dp_strategy_write(const char *path, const dp_graph *g,
			    const dp_strategy *s, bool overwrite, dp_err *err)
{
	(void)g;
	(void)s;
	(void)overwrite;
	return dp_err_set(err, DP_EINPUT, path, 0, 0,
			  "strategy files cannot be written by this build");
}

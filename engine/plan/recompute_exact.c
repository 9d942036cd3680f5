/* recompute_exact.c - the exact yardstick of `--recompute auto`'s DP
 * (recompute.h): the same covering knapsack as a MILP in bytes, solved by
 * COIN-OR CBC in a child process (engine/algo/ilp/ilp_solve.c):
 *   minimise Σ cost_i x_i  subject to  Σ save_i x_i >= need, x_i in {0,1}
 * over the eligible layers; the row in MiB, so its coefficients stay near
 * one.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dnnpart/recompute.h"
#include "internal/ilp.h"
#include "internal/nomem.h"

#define MIB 1048576.0

dp_status dp_recompute_exact(uint32_t n, const int64_t *save,
			     const double *cost, const bool *eligible,
			     int64_t need, double time_limit_s, uint8_t *pick,
			     double *total, bool *optimal, dp_err *err)
{
	memset(pick, 0, n);
	*total = 0;
	*optimal = true;
	if (need <= 0)
		return DP_OK;
	ilp_model md;
	memset(&md, 0, sizeof md);
	ilp_answer ans;
	memset(&ans, 0, sizeof ans);
	int *col = malloc(((size_t)n + 1) * sizeof *col);
	bool ok = col != NULL;
	for (uint32_t i = 0; ok && i < n; i++) {
		col[i] = -1;
		if (!eligible || eligible[i])
			ok = dpi_ilp_lp_col(&md.lp, 0, 1, cost[i], true, &col[i]);
	}
	for (uint32_t i = 0; ok && i < n; i++)
		if (col[i] >= 0)
			ok = dpi_ilp_lp_nz(&md.lp, col[i], (double)save[i] / MIB);
	ok = ok && dpi_ilp_lp_row_end(&md.lp, (double)need / MIB, INFINITY);
	dp_status st = DP_OK;
	if (ok && md.lp.ncols > 0)
		ok = (ans.sol = malloc((size_t)md.lp.ncols * sizeof *ans.sol));
	if (!ok)
		st = dpi_nomem(err, "--recompute auto (exact)");
	else if (md.lp.ncols == 0)
		ans.infeasible = true;
	else
		st = dpi_ilp_solve(&md, NULL, NULL, 0, time_limit_s, NULL, &ans,
				   err);
	if (!st && !ans.has_solution)
		st = dp_err_set(err, DP_EINPUT, NULL, 0, 0,
				"--recompute auto (exact): %s",
				ans.infeasible ? "no set of layers frees enough"
					       : "CBC found no solution in time");
	for (uint32_t i = 0; !st && i < n; i++)
		if (col[i] >= 0 && ans.sol[col[i]] > 0.5) {
			pick[i] = 1;
			*total += cost[i];
		}
	if (!st)
		*optimal = ans.optimal;
	free(ans.sol);
	free(col);
	dpi_ilp_lp_free(&md.lp);
	return st;
}

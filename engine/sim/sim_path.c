/* sim_path.c - the critical path of a simulated schedule (docs/simulator.md,
 * "Critical paths").
 *
 * From the op that ends last, walk back through whatever made each op start
 * when it did: when it started as soon as its inputs were there (and that
 * was after 0), the input that arrived last (cause data on the same device,
 * transfer from another); when it started later, the op that ran on its
 * device just before (cause device). Each hop goes to an op that started
 * earlier in the simulation, so the walk ends, at an op that started at 0
 * with nothing before it.
 */
#include "internal/sim_int.h"

/* When u's output (or control signal) reached v's device (docs/simulator.md,
 * "Scheduling"), recomputed with the same expressions as the event loop so
 * that it compares exactly with avail(v). */
static double arrival(const dp_sim *s, const int32_t *pl,
		      const dp_sim_result *r, const dp_edge *e)
{
	uint32_t u = e->from;
	int32_t b = pl[e->to];
	if (pl[u] == b)
		return r->end[u];
	if (e->control)
		return r->end[u] + s->lat;
	for (uint32_t j = 0; j < s->xnum[u]; j++) {
		const dp_transfer *x = &r->xfers[s->xoff[u] + j];
		if (x->dst == b)
			return x->end;
	}
	return -1; /* cannot happen: every cut data edge has a transfer */
}

dp_status dpi_sim_critical_path(dp_sim *s, const int32_t *pl, dp_sim_result *r,
				dp_err *err)
{
	const dp_graph *g = s->g;
	r->cp_len = 0;
	if (s->n == 0)
		return DP_OK;
	uint32_t v = 0;
	for (uint32_t u = 1; u < s->n; u++)
		if (r->end[u] > r->end[v])
			v = u;
	uint32_t len = 0;
	for (;;) {
		if (len == s->n)
			return dp_err_set(err, DP_EINTERNAL, NULL, 0, 0,
					  "the schedule's critical path does "
					  "not end");
		r->cp_ops[len] = v;
		double st = r->start[v], av = r->avail[v];
		if (st == av && av > 0) {
			uint32_t best = SIM_NONE;
			double ba = -1;
			for (uint32_t i = g->pred_off[v];
			     i < g->pred_off[v + 1]; i++) {
				const dp_edge *e = &g->edges[g->pred_edge[i]];
				double a = arrival(s, pl, r, e);
				if (a > ba || (a == ba && e->from < best)) {
					ba = a;
					best = e->from;
				}
			}
			if (best == SIM_NONE || ba != av)
				return dp_err_set(
					err, DP_EINTERNAL, NULL, 0, 0,
					"op '%s' became available at "
					"%g but no input arrived then",
					dp_graph_op_name(g, v), av);
			r->cp_cause[len++] = pl[best] == pl[v]
						     ? DP_HOP_DATA
						     : DP_HOP_TRANSFER;
			v = best;
		} else if (st > av) {
			uint32_t p = s->prev_on_dev[v];
			if (p == SIM_NONE)
				return dp_err_set(err, DP_EINTERNAL, NULL, 0, 0,
						  "op '%s' waited on an idle "
						  "device",
						  dp_graph_op_name(g, v));
			r->cp_cause[len++] = DP_HOP_DEVICE;
			v = p;
		} else {
			r->cp_cause[len++] = DP_HOP_START;
			break;
		}
	}
	/* first op first */
	for (uint32_t i = 0, j = len - 1; i < j; i++, j--) {
		uint32_t t = r->cp_ops[i];
		r->cp_ops[i] = r->cp_ops[j];
		r->cp_ops[j] = t;
		uint8_t c = r->cp_cause[i];
		r->cp_cause[i] = r->cp_cause[j];
		r->cp_cause[j] = c;
	}
	r->cp_len = len;
	return DP_OK;
}

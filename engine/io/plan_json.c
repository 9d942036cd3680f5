/* plan_json.c - a plan's metrics as JSON, one set of keys for every output
 * (see dnnpart/plan.h). */
#include "dnnpart/plan.h"

static void device_json(dp_json *w, const dp_graph *g, const dp_plan *p, int d)
{
	const dp_device_stats *s = &p->sim.dev[d];
	dp_json_begin_line(w, NULL);
	dp_json_int(w, "index", d);
	dp_json_int(w, "ops", s->ops);
	dp_json_num(w, "busy_us", s->busy_us);
	dp_json_num(w, "speed", s->speed);
	dp_json_int(w, "param_bytes", s->param_bytes);
	dp_json_int(w, "peak_bytes", s->peak_bytes);
	dp_json_num(w, "peak_time_us", s->peak_time);
	if (s->cap_bytes == DP_CAP_UNLIMITED)
		dp_json_null(w, "cap_bytes");
	else
		dp_json_int(w, "cap_bytes", s->cap_bytes);
	/* with a reserve: cap_bytes is what the plan may use, the device's
	 * cap is cap_bytes + reserve_bytes */
	if (s->reserve_bytes > 0)
		dp_json_int(w, "reserve_bytes", s->reserve_bytes);
	dp_json_int(w, "comm_in_bytes", s->comm_in_bytes);
	dp_json_int(w, "comm_out_bytes", s->comm_out_bytes);
	dp_json_num(w, "comm_in_us", s->comm_in_us);
	dp_json_num(w, "comm_out_us", s->comm_out_us);
	dp_json_int(w, "transfers_in", s->xfers_in);
	dp_json_int(w, "transfers_out", s->xfers_out);
	double bubble = dp_plan_bubble(p, d);
	if (bubble >= 0)
		dp_json_num(w, "bubble", bubble);
	int64_t by[DP_MEMR_COUNT];
	dp_plan_peak_by_role(g, p, d, by);
	dp_json_begin_line(w, "peak_by_role");
	for (int i = 0; i < DP_MEMR_COUNT; i++)
		dp_json_int(w, dp_mem_role_name((dp_mem_role)i), by[i]);
	dp_json_end_object(w);
	dp_json_end_object(w);
}

void dp_plan_write_metrics(dp_json *w, const dp_graph *g, const dp_plan *p)
{
	const dp_sim_result *r = &p->sim;
	dp_json_str(w, "algorithm", p->algo);
	if (p->lowered) {
		/* a strategy: what it is and the graph it was lowered to */
		dp_json_str(w, "strategy", p->strategy);
		if (p->strat && p->strat->note[0])
			dp_json_str(w, "strategy_note", p->strat->note);
		dp_json_str(w, "strategy_kind", dp_strategy_kind_name(p->kind));
		dp_json_int(w, "lowered_ops", p->lowered->nops);
		dp_json_int(w, "lowered_edges", p->lowered->nedges);
	}
	dp_json_str(w, "contention", dp_sim_contention_name(p->contention));
	dp_json_num(w, "makespan_us", r->makespan);
	if (p->steady_us > 0)
		dp_json_num(w, "steady_step_us", p->steady_us);
	dp_json_num(w, "lower_bound_us", p->bounds.lb_us);
	dp_json_num(w, "graph_critical_path_us", p->bounds.graph_cp_us);
	dp_json_num(w, "work_bound_us", p->bounds.work_bound_us);
	dp_json_num(w, "xlb", p->xlb);
	dp_json_num(w, "one_device_us", p->bounds.one_device_us);
	dp_json_num(w, "speedup", p->speedup);
	dp_json_num(w, "max_load", p->max_load);
	if (dp_plan_bubble(p, -1) >= 0)
		dp_json_num(w, "bubble", dp_plan_bubble(p, -1));
	dp_json_int(w, "one_device_peak_bytes", p->one_device_peak);
	dp_json_bool(w, "one_device_fits", p->one_device_fits);
	dp_json_bool(w, "feasible", p->feasible);
	double ratio = dp_plan_max_peak_ratio(p);
	if (ratio < 0)
		dp_json_null(w, "max_peak_over_cap");
	else
		dp_json_num(w, "max_peak_over_cap", ratio);
	int worst = dp_plan_worst_device(p);
	if (worst < 0)
		dp_json_null(w, "worst_device");
	else
		dp_json_int(w, "worst_device", worst);
	dp_json_int(w, "cut_bytes", r->cut_bytes);
	dp_json_int(w, "cut_edges", r->cut_edges);
	dp_json_int(w, "transfers", r->nxfers);
	if (p->proof.has_bound) {
		/* ilp's proof, in its own model (docs/algorithms.md) */
		dp_json_bool(w, "optimal", p->proof.optimal);
		dp_json_num(w, "gap", p->proof.gap); /* null when unknown */
		dp_json_num(w, "milp_objective_us", p->proof.objective_us);
		dp_json_num(w, "milp_bound_us", p->proof.bound_us);
	}
	if (p->origin.has_origin) {
		/* best: where its placement came from (docs/algorithms.md) */
		dp_json_str(w, "best_of", p->origin.best_of);
		dp_json_int(w, "best_devices", p->origin.devices);
		dp_json_bool(w, "best_polished", p->origin.polished);
		dp_json_int(w, "best_runs", p->origin.ran);
		dp_json_int(w, "best_skipped", p->origin.skipped);
		dp_json_int(w, "best_enumerated",
			    (int64_t)p->origin.enumerated);
		dp_json_bool(w, "best_relabeled", p->origin.relabeled);
	}
	dp_json_begin_array(w, "devices");
	for (int d = 0; r->dev && d < p->k; d++)
		device_json(w, g, p, d);
	dp_json_end_array(w);
}

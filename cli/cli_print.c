/* cli_print.c - a plan as a human table and as JSON (eval, plan).
 *
 * The table: summary lines, one row per device, then the start of the
 * schedule's critical path. The JSON carries the same numbers unrounded
 * through the engine's one JSON writer (dnnpart/json.h: the shortest
 * decimal that reads back exactly, '.' whatever the locale) and the plan's
 * metrics through dp_plan_write_metrics(), as compare and placement files.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "dnnpart/units.h"

/* Hops of the schedule critical path the table shows. */
#define CP_SHOWN 10

static void print_link(FILE *out, const dp_machine *m)
{
	char bw[32], lat[32];
	fprintf(out, "%s (%s, %s)", m->link_name,
		dp_units_fmt_bandwidth(m->bw, bw, sizeof bw),
		dp_units_fmt_time(m->lat, lat, sizeof lat));
}

static bool uniform_caps(const dp_machine *m)
{
	for (int d = 1; d < m->k; d++)
		if (m->cap[d] != m->cap[0])
			return false;
	return true;
}

static void print_caps(FILE *out, const dp_machine *m)
{
	char b[32];
	if (uniform_caps(m)) {
		if (m->cap[0] == DP_CAP_UNLIMITED)
			fprintf(out, "no memory cap");
		else
			fprintf(out, "%s each",
				dp_units_fmt_bytes(m->cap[0], b, sizeof b));
		return;
	}
	fprintf(out, "caps ");
	for (int d = 0; d < m->k; d++)
		fprintf(out, "%s%s", d ? "," : "",
			m->cap[d] == DP_CAP_UNLIMITED
				? "inf"
				: dp_units_fmt_bytes(m->cap[d], b, sizeof b));
}

/* What an exact algorithm (ilp) proved, in its own model (the simulated
 * makespan above may differ: docs/algorithms.md, "ilp"). */
static void print_proof(FILE *out, const dp_algo_bound *pr)
{
	char a[32], b[32];
	if (!pr->has_bound)
		return;
	dp_units_fmt_time(pr->objective_us, a, sizeof a);
	if (pr->optimal) {
		fprintf(out,
			"optimality   proven optimal in the MILP's model "
			"(its makespan %s)\n",
			a);
	} else if (isnan(pr->gap)) {
		fprintf(out,
			"optimality   not proven: the solver stopped at its "
			"time limit (MILP makespan %s, gap unknown)\n",
			a);
	} else {
		fprintf(out,
			"optimality   not proven: MILP makespan %s, bound %s, "
			"gap %.2f %%\n",
			a, dp_units_fmt_time(pr->bound_us, b, sizeof b),
			100.0 * pr->gap);
	}
}

/* Where best's placement came from (docs/algorithms.md, "best"). */
static void print_origin(FILE *out, const dp_plan *p)
{
	const dp_algo_origin *o = &p->origin;
	if (!o->has_origin)
		return;
	fprintf(out, "best of      %s", o->best_of);
	if (o->devices < p->k)
		fprintf(out, " on %d of the %d devices", o->devices, p->k);
	fprintf(out, "%s; %u run%s", o->polished ? ", polished" : "", o->ran,
		o->ran == 1 ? "" : "s");
	if (o->skipped)
		fprintf(out, ", %u skipped: budget reached", o->skipped);
	if (o->enumerated)
		fprintf(out,
			"; every placement%s simulated (%llu): none is faster",
			o->relabeled ? " up to relabelling the devices" : "",
			(unsigned long long)o->enumerated);
	fprintf(out, "\n");
}

static void print_summary(FILE *out, const dp_graph *g, const dp_machine *m,
			  const dp_plan *p)
{
	char a[32], b[32], c[32], x[40];
	fprintf(out, "graph        %s", g->name);
	if (g->source && g->source[0])
		fprintf(out, "  (%s)", g->source);
	fprintf(out, "\nsize         %u ops, %u edges\n", g->nops, g->nedges);
	if (p->lowered)
		fprintf(out, "lowered      %u ops, %u edges (strategy %s)\n",
			p->lowered->nops, p->lowered->nedges, p->strategy);
	if (p->strat && p->strat->note[0])
		fprintf(out, "pins         %s\n", p->strat->note);
	fprintf(out, "machine      %d device%s, ", m->k, m->k == 1 ? "" : "s");
	print_caps(out, m);
	if (dp_machine_has_reserve(m)) {
		fprintf(out, ", reserve %s%s: the plan may use ",
			dp_machine_reserve_text(m, a, sizeof a),
			m->reserve_frac > 0 ? " of each cap" : " each");
		bool same = true;
		for (int d = 1; d < m->k; d++)
			same = same && dp_machine_usable_cap(m, d) ==
					       dp_machine_usable_cap(m, 0);
		for (int d = 0; d < (same ? 1 : m->k); d++)
			fprintf(out, "%s%s", d ? "," : "",
				m->cap[d] == DP_CAP_UNLIMITED
					? "inf"
					: dp_units_fmt_bytes(
						  dp_machine_usable_cap(m, d),
						  b, sizeof b));
		if (same && m->k > 1)
			fprintf(out, " each");
	}
	fprintf(out, "\nlink         ");
	print_link(out, m);
	fprintf(out, ", contention %s\n",
		dp_sim_contention_name(p->contention));
	char rbuf[8192];
	if (dp_levers_active(&m->levers))
		fprintf(out,
			"levers       precision %s, recompute %s, fuse %s "
			"(docs/memory.md)\n",
			dp_precision_name(m->levers.precision),
			dp_levers_recompute_str(&m->levers, rbuf, sizeof rbuf),
			dp_fuse_name(m->levers.fuse));
	if (m->levers.offload) {
		char hb[32], hm[32];
		fprintf(out, "offload      %s: the host holds %s of %s\n",
			dp_offload_name(m->levers.offload),
			dp_units_fmt_bytes(g->host_bytes, hb, sizeof hb),
			dp_units_fmt_bytes(dp_levers_host_mem(&m->levers),
					      hm, sizeof hm));
	}
	if (!strcmp(p->algo, "eval")) {
		if (p->strat && p->strat->algo[0])
			fprintf(out,
				"algorithm    none (a given strategy, made "
				"by %s)\n",
				p->strat->algo);
		else
			fprintf(out, "algorithm    none (a given %s)\n",
				p->lowered ? "strategy" : "placement");
	} else {
		fprintf(out, "algorithm    %s\n", p->algo);
		print_origin(out, p);
		fprintf(out, "plan time    %.3f ms\n", p->plan_ms);
	}
	fprintf(out, "makespan     %s  (%s us)\n",
		dp_units_fmt_time(p->sim.makespan, a, sizeof a),
		cli_fmt_us(p->sim.makespan, x, sizeof x));
	if (p->steady_us > 0)
		fprintf(out,
			"steady step  %s  (%s us; %s without a flush: fill and "
			"drain paid once)\n",
			dp_units_fmt_time(p->steady_us, a, sizeof a),
			cli_fmt_us(p->steady_us, x, sizeof x),
			p->strat ? dp_schedule_name(p->strat->pipe.schedule)
				 : "");
	fprintf(out,
		"lower bound  %s = max(graph critical path %s, work / speeds "
		"%s); makespan = %.2f x LB\n",
		dp_units_fmt_time(p->bounds.lb_us, a, sizeof a),
		dp_units_fmt_time(p->bounds.graph_cp_us, b, sizeof b),
		dp_units_fmt_time(p->bounds.work_bound_us, c, sizeof c),
		p->xlb);
	fprintf(out, "speedup      %.2f x one device (%s alone", p->speedup,
		dp_units_fmt_time(p->bounds.one_device_us, a, sizeof a));
	if (m->cap[0] == DP_CAP_UNLIMITED)
		fprintf(out, ", peak %s)\n",
			dp_units_fmt_bytes(p->one_device_peak, b, sizeof b));
	else
		fprintf(out, "; it would %s: peak %s, cap %s%s)\n",
			p->one_device_fits ? "fit" : "not fit",
			dp_units_fmt_bytes(p->one_device_peak, b, sizeof b),
			dp_units_fmt_bytes(dp_machine_usable_cap(m, 0), c,
					   sizeof c),
			dp_machine_has_reserve(m) ? " after the reserve" : "");
	print_proof(out, &p->proof);
	if (dp_plan_bubble(p, -1) >= 0)
		fprintf(out,
			"bubble       %.1f%% of the step the devices wait "
			"(fill, gaps, drain)\n",
			100 * dp_plan_bubble(p, -1));
	int worst = dp_plan_worst_device(p);
	if (worst < 0) {
		fprintf(out, "memory       feasible: every device within its "
			     "cap\n");
		return;
	}
	int over = 0;
	for (int d = 0; d < p->k; d++)
		over += p->sim.dev[d].peak_bytes > p->sim.dev[d].cap_bytes;
	const dp_device_stats *w = &p->sim.dev[worst];
	fprintf(out,
		"memory       INFEASIBLE: device %d is over its cap by %s "
		"(peak %s, cap %s)",
		worst,
		dp_units_fmt_bytes(w->peak_bytes - w->cap_bytes, a, sizeof a),
		dp_units_fmt_bytes(w->peak_bytes, b, sizeof b),
		dp_units_fmt_bytes(w->cap_bytes, c, sizeof c));
	if (over > 1)
		fprintf(out, "; %d devices over", over);
	fprintf(out, "\n");
}

static void print_devices(FILE *out, const dp_plan *p)
{
	char busy[32], peak[32], cap[32], in[32], outb[32], use[16];
	fprintf(out, "\n%6s %8s %10s %6s %10s %10s %6s %10s %10s\n", "device",
		"ops", "busy", "busy%", "peak", "cap", "use%", "comm in",
		"comm out");
	for (int d = 0; d < p->k; d++) {
		const dp_device_stats *s = &p->sim.dev[d];
		double frac = p->sim.makespan > 0
				      ? 100.0 * s->busy_us / p->sim.makespan
				      : 0.0;
		if (s->cap_bytes == DP_CAP_UNLIMITED) {
			snprintf(cap, sizeof cap, "none");
			snprintf(use, sizeof use, "-");
		} else {
			dp_units_fmt_bytes(s->cap_bytes, cap, sizeof cap);
			snprintf(use, sizeof use, "%.1f%%",
				 s->cap_bytes > 0
					 ? 100.0 * (double)s->peak_bytes /
						   (double)s->cap_bytes
					 : 0.0);
		}
		fprintf(out, "%6d %8u %10s %5.1f%% %10s %10s %6s %10s %10s%s\n",
			d, s->ops,
			dp_units_fmt_time(s->busy_us, busy, sizeof busy), frac,
			dp_units_fmt_bytes(s->peak_bytes, peak, sizeof peak),
			cap, use,
			dp_units_fmt_bytes(s->comm_in_bytes, in, sizeof in),
			dp_units_fmt_bytes(s->comm_out_bytes, outb,
					   sizeof outb),
			s->peak_bytes > s->cap_bytes ? "  OVER" : "");
	}
}

static void print_critical_path(FILE *out, const dp_graph *g, const dp_plan *p)
{
	const dp_sim_result *r = &p->sim;
	if (!r->cp_len)
		return;
	char st[32], en[32];
	fprintf(out, "\nschedule critical path: %u op%s, ends at %s\n",
		r->cp_len, r->cp_len == 1 ? "" : "s",
		dp_units_fmt_time(r->makespan, st, sizeof st));
	fprintf(out, "%4s %6s %10s %10s  %-9s %s\n", "#", "device", "start",
		"end", "cause", "op");
	uint32_t shown = r->cp_len < CP_SHOWN ? r->cp_len : CP_SHOWN;
	for (uint32_t i = 0; i < shown; i++) {
		uint32_t u = r->cp_ops[i];
		fprintf(out, "%4u %6d %10s %10s  %-9s %s\n", i + 1,
			p->placement[u],
			dp_units_fmt_time(r->start[u], st, sizeof st),
			dp_units_fmt_time(r->end[u], en, sizeof en),
			dp_sim_hop_cause_name((dp_hop_cause)r->cp_cause[i]),
			dp_graph_op_name(g, u));
	}
	if (r->cp_len > shown)
		fprintf(out, "   ... %u more\n", r->cp_len - shown);
}

/* What each device's peak holds, by role (only for graphs with roles:
 * without them it is params and activations, which the table shows). */
static void print_peak_by_role(FILE *out, const dp_graph *g, const dp_plan *p)
{
	if (!g->roles)
		return;
	fprintf(out, "\npeak by role\n");
	for (int d = 0; d < p->k; d++) {
		int64_t by[DP_MEMR_COUNT];
		dp_plan_peak_by_role(g, p, d, by);
		fprintf(out, "%6d ", d);
		const char *sep = "";
		for (int i = 0; i < DP_MEMR_COUNT; i++) {
			char b[32];
			if (!by[i])
				continue;
			fprintf(out, "%s%s %s", sep,
				dp_mem_role_name((dp_mem_role)i),
				dp_units_fmt_bytes(by[i], b, sizeof b));
			sep = ", ";
		}
		fprintf(out, "%s\n", *sep ? "" : "nothing");
	}
}

void cli_print_plan(FILE *out, const dp_graph *g, const dp_machine *m,
		    const dp_plan *plan)
{
	print_summary(out, g, m, plan);
	print_devices(out, plan);
	/* the rest names ops of the graph the plan places */
	g = dp_plan_graph(plan, g);
	print_peak_by_role(out, g, plan);
	print_critical_path(out, g, plan);
}

/* ---- JSON ---- */

/* The graph, machine and link members every JSON report starts with. */
void cli_json_begin(dp_json *w, FILE *out, const dp_graph *g,
		    const char *source)
{
	dp_json_init(w, out);
	dp_json_begin_object(w, NULL);
	dp_json_str(w, "graph", g->name);
	dp_json_str(w, "source", source);
}

void cli_json_head(dp_json *w, FILE *out, const dp_graph *g,
		   const dp_machine *m)
{
	cli_json_begin(w, out, g, g->source ? g->source : "");
	dp_json_int(w, "ops", g->nops);
	dp_json_int(w, "edges", g->nedges);
	dp_json_int(w, "k", m->k);
	dp_json_begin_object(w, "link");
	dp_json_str(w, "name", m->link_name);
	dp_json_num(w, "bandwidth_bytes_per_s", m->bw * 1e6);
	dp_json_num(w, "latency_us", m->lat);
	dp_json_end_object(w);
	if (!dp_levers_active(&m->levers))
		return;
	dp_json_begin_object(w, "levers");
	dp_json_str(w, "precision", dp_precision_name(m->levers.precision));
	dp_json_str(w, "recompute", dp_recompute_name(m->levers.recompute));
	if (m->levers.recompute == DP_RECOMP_AUTO && m->levers.rc_chosen) {
		char rbuf[8192];
		dp_levers_recompute_str(&m->levers, rbuf, sizeof rbuf);
		dp_json_str(w, "recompute_layers", rbuf + 5);
	}
	dp_json_str(w, "fuse", dp_fuse_name(m->levers.fuse));
	if (m->levers.offload) {
		dp_json_str(w, "offload", dp_offload_name(m->levers.offload));
		dp_json_int(w, "host_bytes", g->host_bytes);
		dp_json_int(w, "host_mem_bytes",
			    dp_levers_host_mem(&m->levers));
	}
	dp_json_end_object(w);
}

static void plan_json(FILE *out, const dp_graph *g, const dp_machine *m,
		      const dp_plan *p, const dp_explain *x)
{
	const dp_graph *ug = g;
	const dp_sim_result *r = &p->sim;
	dp_json w;
	cli_json_head(&w, out, g, m);
	dp_json_num(&w, "plan_ms", p->plan_ms);
	g = dp_plan_graph(p, g);
	dp_plan_write_metrics(&w, g, p);
	dp_json_begin_array(&w, "critical_path");
	for (uint32_t i = 0; i < r->cp_len; i++)
		dp_json_str(&w, NULL, dp_graph_op_name(g, r->cp_ops[i]));
	dp_json_end_array(&w);
	dp_json_begin_array(&w, "critical_path_hops");
	for (uint32_t i = 0; i < r->cp_len; i++) {
		uint32_t u = r->cp_ops[i];
		dp_json_begin_line(&w, NULL);
		dp_json_str(&w, "op", dp_graph_op_name(g, u));
		dp_json_int(&w, "device", p->placement[u]);
		dp_json_str(
			&w, "cause",
			dp_sim_hop_cause_name((dp_hop_cause)r->cp_cause[i]));
		dp_json_num(&w, "start_us", r->start[u]);
		dp_json_num(&w, "end_us", r->end[u]);
		dp_json_end_object(&w);
	}
	dp_json_end_array(&w);
	if (x)
		cli_json_explain(&w, ug, p, x);
	dp_json_end_object(&w);
}

void cli_json_cap(dp_json *w, const char *key, int64_t cap)
{
	if (cap == DP_CAP_UNLIMITED)
		dp_json_null(w, key);
	else
		dp_json_int(w, key, cap);
}

void cli_json_caps(dp_json *w, const char *key, const int64_t *caps, int k)
{
	dp_json_begin_array(w, key);
	for (int d = 0; d < k; d++)
		cli_json_cap(w, NULL, caps[d]);
	dp_json_end_array(w);
}

void cli_print_plan_json(FILE *out, const dp_graph *g, const dp_machine *m,
			 const dp_plan *plan, const dp_explain *x)
{
	plan_json(out, g, m, plan, x);
}

void cli_print_max_load(FILE *out, const dp_plan *plan)
{
	char a[32], x[64];
	fprintf(out,
		"max load     %s  (%s us): time per sample in a steady "
		"pipelined stream\n",
		dp_units_fmt_time(plan->max_load, a, sizeof a),
		cli_fmt_us(plan->max_load, x, sizeof x));
}

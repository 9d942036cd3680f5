/* export_trace.c - the schedule as a Chrome / Perfetto trace.
 *
 * Trace Event Format (the JSON object form, {"traceEvents": [...]}), as
 * ui.perfetto.dev and chrome://tracing read it. One process per device
 * (pid = device, named "GPU0", ...), and in each a compute thread (its ops
 * as complete "X" events), send and receive threads (transfers; one thread
 * per lane when transfers overlap, which only the `none` contention model
 * allows), a flow arrow ("s" on the send slice, "f" bound to the enclosing
 * receive slice) per transfer, and a "memory" counter ("C") with the bytes
 * in use and the cap as a second series. Times are the simulator's µs,
 * which is the format's unit. Every op slice's args say its op, type,
 * layer, bytes and whether it is on the schedule's critical path; a
 * pipeline's also its micro-batch, its block (F forward, B backward, W
 * zb-h1's deferred weight gradients, once) and, interleaved, its chunk
 * on the device (dp_plan_pipe_blocks).
 *
 * Perfetto's JSON importer gives up near 900 MB of JSON; a trace of more
 * than DP_EXPORT_TRACE_MAX_EVENTS events is coarsened: memory curves are
 * thinned (each point kept is the highest of its run), then only the
 * largest transfers (and the critical path's) are kept, then each device's
 * ops are drawn as runs of consecutive ops. The report's note says which.
 */
#include <stdlib.h>
#include <string.h>

#include "internal/arrays.h"
#include "internal/export_impl.h"
#include "internal/sort_key.h"

#define TID_COMPUTE 1
#define TID_SEND 100  /* + lane */
#define TID_RECV 200  /* + lane */
#define MAX_LANES 255 /* per direction and device (uint8_t lanes) */

typedef struct trace_ctx {
	const dp_graph *g;
	const dp_plan *plan;
	dp_json w;
	int8_t *crit_cause; /* per op: dp_hop_cause, -1 off the path */
	int32_t *crit_dst;  /* per op: device of its critical transfer */
	uint8_t *keep_xfer; /* per transfer */
	uint8_t *send_lane; /* per transfer */
	uint8_t *recv_lane; /* per transfer */
	int nsend[DP_MAX_DEVICES], nrecv[DP_MAX_DEVICES]; /* lanes used */
	uint32_t run_len;    /* ops per compute slice (1 = every op) */
	uint32_t curve_step; /* memory points merged into one (1 = all) */
	uint32_t xfers_kept;
	uint64_t events;
	dp_pipe_block *blk; /* per op of a pipeline plan, else NULL */
} trace_ctx;

static void meta(trace_ctx *x, const char *what, int pid, int tid,
		 const char *key, const char *name, int64_t num)
{
	dp_json_begin_line(&x->w, NULL);
	dp_json_str(&x->w, "ph", "M");
	dp_json_str(&x->w, "name", what);
	dp_json_int(&x->w, "pid", pid);
	if (tid >= 0)
		dp_json_int(&x->w, "tid", tid);
	dp_json_begin_object(&x->w, "args");
	if (name)
		dp_json_str(&x->w, key, name);
	else
		dp_json_int(&x->w, key, num);
	dp_json_end_object(&x->w);
	dp_json_end_object(&x->w);
	x->events++;
}

static void metadata(trace_ctx *x)
{
	char name[48];
	for (int d = 0; d < x->plan->k; d++) {
		snprintf(name, sizeof name, "GPU%d", d);
		meta(x, "process_name", d, -1, "name", name, 0);
		meta(x, "process_sort_index", d, -1, "sort_index", NULL, d);
		meta(x, "thread_name", d, TID_COMPUTE, "name", "compute", 0);
		meta(x, "thread_sort_index", d, TID_COMPUTE, "sort_index", NULL,
		     0);
		for (int l = 0; l < x->nsend[d]; l++) {
			if (l)
				snprintf(name, sizeof name, "send %d", l + 1);
			meta(x, "thread_name", d, TID_SEND + l, "name",
			     l ? name : "send", 0);
			meta(x, "thread_sort_index", d, TID_SEND + l,
			     "sort_index", NULL, 1 + l);
		}
		for (int l = 0; l < x->nrecv[d]; l++) {
			if (l)
				snprintf(name, sizeof name, "receive %d",
					 l + 1);
			meta(x, "thread_name", d, TID_RECV + l, "name",
			     l ? name : "receive", 0);
			meta(x, "thread_sort_index", d, TID_RECV + l,
			     "sort_index", NULL, 1 + MAX_LANES + l);
		}
	}
}

/* Starts a complete event; the caller writes args and closes it. */
static void slice_begin(trace_ctx *x, const char *name, const char *cat,
			int pid, int tid, double ts, double dur)
{
	dp_json_begin_line(&x->w, NULL);
	dp_json_str(&x->w, "ph", "X");
	dp_json_str(&x->w, "name", name);
	dp_json_str(&x->w, "cat", cat);
	dp_json_int(&x->w, "pid", pid);
	dp_json_int(&x->w, "tid", tid);
	dp_json_num(&x->w, "ts", ts);
	dp_json_num(&x->w, "dur", dur > 0 ? dur : 0);
	dp_json_begin_object(&x->w, "args");
	x->events++;
}

static void slice_end(trace_ctx *x)
{
	dp_json_end_object(&x->w);
	dp_json_end_object(&x->w);
}

static void op_slice(trace_ctx *x, uint32_t u)
{
	const dp_graph *g = x->g;
	const dp_op *op = &g->ops[u];
	const dp_sim_result *s = &x->plan->sim;
	const char *type = op->type ? dp_graph_str(g, op->type) : "op";
	slice_begin(x, dp_graph_op_name(g, u), type, x->plan->placement[u],
		    TID_COMPUTE, s->start[u], s->end[u] - s->start[u]);
	dp_json_str(&x->w, "op", dp_graph_op_name(g, u));
	dp_json_str(&x->w, "type", op->type ? type : "");
	dp_json_str(&x->w, "layer",
		    op->layer ? dp_graph_str(g, op->layer) : "");
	dp_json_int(&x->w, "output_bytes", op->output_bytes);
	dp_json_int(&x->w, "param_bytes", op->param_bytes);
	dp_json_int(&x->w, "temp_bytes", op->temp_bytes);
	dp_json_bool(&x->w, "critical", x->crit_cause[u] >= 0);
	if (x->crit_cause[u] >= 0)
		dp_json_str(
			&x->w, "critical_cause",
			dp_sim_hop_cause_name((dp_hop_cause)x->crit_cause[u]));
	if (x->blk && x->blk[u].kind != 'O') {
		const dp_strategy *st = x->plan->strat;
		char kind[2] = {x->blk[u].kind, 0};
		dp_json_int(&x->w, "micro_batch", x->plan->micro[u]);
		dp_json_str(&x->w, "block", kind);
		if (st->pipe.virtual_stages > 1)
			dp_json_int(&x->w, "chunk", x->blk[u].chunk);
	} else if (x->blk) {
		dp_json_str(&x->w, "block", "once");
	}
	slice_end(x);
}

/* Each device's ops in start order, run_len at a time, as one slice. */
static dp_status op_runs(trace_ctx *x, const dp_progress *p)
{
	const dp_graph *g = x->g;
	const dp_plan *plan = x->plan;
	dpi_sort_key *e = malloc(((size_t)g->nops + 1) * sizeof *e);
	if (!e)
		return DP_ENOMEM;
	char name[200], a[80], b[80];
	for (int d = 0; d < plan->k; d++) {
		uint32_t n = 0;
		for (uint32_t u = 0; u < g->nops; u++)
			if (plan->placement[u] == d)
				e[n++] = (dpi_sort_key){plan->sim.start[u],
							g->topo_pos[u], u};
		qsort(e, n, sizeof *e, dpi_sort_key_asc);
		for (uint32_t i = 0; i < n; i += x->run_len) {
			if (dp_progress_canceled(p)) {
				free(e);
				return DP_ECANCELED;
			}
			uint32_t j = i + x->run_len < n ? i + x->run_len : n;
			uint32_t f = e[i].op, l = e[j - 1].op, crit = 0;
			double busy = 0, end = 0;
			for (uint32_t k = i; k < j; k++) {
				uint32_t u = e[k].op;
				crit += x->crit_cause[u] >= 0;
				busy += plan->sim.end[u] - plan->sim.start[u];
				end = plan->sim.end[u] > end ? plan->sim.end[u]
							     : end;
			}
			snprintf(a, sizeof a, "%s", dp_graph_op_name(g, f));
			snprintf(b, sizeof b, "%s", dp_graph_op_name(g, l));
			snprintf(name, sizeof name, "%s .. %s (%u ops)", a, b,
				 j - i);
			slice_begin(x, name, "ops", d, TID_COMPUTE,
				    plan->sim.start[f],
				    end - plan->sim.start[f]);
			dp_json_str(&x->w, "first_op", dp_graph_op_name(g, f));
			dp_json_str(&x->w, "last_op", dp_graph_op_name(g, l));
			dp_json_int(&x->w, "ops", j - i);
			dp_json_num(&x->w, "busy_us", busy);
			dp_json_bool(&x->w, "critical", crit > 0);
			dp_json_int(&x->w, "critical_ops", crit);
			slice_end(x);
		}
	}
	free(e);
	return DP_OK;
}

static void transfer(trace_ctx *x, uint32_t i)
{
	const dp_transfer *t = &x->plan->sim.xfers[i];
	const char *op = dp_graph_op_name(x->g, t->op);
	bool crit = x->crit_dst[t->op] == t->dst;
	char name[48];
	for (int side = 0; side < 2; side++) {
		int pid = side ? t->dst : t->src;
		int tid = side ? TID_RECV + x->recv_lane[i]
			       : TID_SEND + x->send_lane[i];
		snprintf(name, sizeof name, side ? "from GPU%d" : "to GPU%d",
			 side ? t->src : t->dst);
		slice_begin(x, op, "transfer", pid, tid, t->start,
			    t->end - t->start);
		dp_json_str(&x->w, "op", op);
		dp_json_str(&x->w, "direction", name);
		dp_json_int(&x->w, "bytes", t->bytes);
		dp_json_int(&x->w, "from", t->src);
		dp_json_int(&x->w, "to", t->dst);
		dp_json_bool(&x->w, "critical", crit);
		slice_end(x);
		/* the arrow: from the send slice to the receive slice that
		 * encloses the same instant */
		dp_json_begin_line(&x->w, NULL);
		dp_json_str(&x->w, "ph", side ? "f" : "s");
		if (side)
			dp_json_str(&x->w, "bp", "e");
		dp_json_int(&x->w, "id", i);
		dp_json_str(&x->w, "name", "transfer");
		dp_json_str(&x->w, "cat", "transfer");
		dp_json_int(&x->w, "pid", pid);
		dp_json_int(&x->w, "tid", tid);
		dp_json_num(&x->w, "ts", t->start);
		dp_json_end_object(&x->w);
		x->events++;
	}
}

static void counters(trace_ctx *x)
{
	const dp_sim_result *s = &x->plan->sim;
	if (!s->curve || !s->curve_off)
		return;
	for (int d = 0; d < s->k; d++) {
		uint32_t a = s->curve_off[d], b = s->curve_off[d + 1];
		int64_t cap = s->dev[d].cap_bytes;
		for (uint32_t i = a; i < b; i += x->curve_step) {
			/* the highest point of the run stands for it, so
			 * the peak survives thinning */
			uint32_t end =
				i + x->curve_step < b ? i + x->curve_step : b;
			int64_t used = s->curve[i].bytes;
			for (uint32_t k = i + 1; k < end; k++)
				if (s->curve[k].bytes > used)
					used = s->curve[k].bytes;
			dp_json_begin_line(&x->w, NULL);
			dp_json_str(&x->w, "ph", "C");
			dp_json_str(&x->w, "name", "memory");
			dp_json_int(&x->w, "pid", d);
			dp_json_num(&x->w, "ts", s->curve[i].t);
			dp_json_begin_object(&x->w, "args");
			dp_json_int(&x->w, "used", used);
			if (cap != DP_CAP_UNLIMITED)
				dp_json_int(&x->w, "cap", cap);
			dp_json_end_object(&x->w);
			dp_json_end_object(&x->w);
			x->events++;
		}
	}
}

typedef struct xfer_key {
	int64_t bytes; /* choose_xfers: larger first */
	/* assign_lanes: earlier first */
	double start;
	uint32_t idx;
} xfer_key;

DPI_CMP_DEFINE(cmp_start, xfer_key, DPI_CMP(x->start, y->start),
	       DPI_CMP(x->idx, y->idx))

/* Lanes: in start order, a transfer goes to the first lane of its thread
 * that is free at its start (with port contention, always the first). */
static dp_status assign_lanes(trace_ctx *x)
{
	const dp_sim_result *s = &x->plan->sim;
	/* per device: the end of each send lane, then of each receive lane */
	double *lane_end =
		malloc((size_t)s->k * 2 * MAX_LANES * sizeof *lane_end);
	xfer_key *ord = malloc(((size_t)s->nxfers + 1) * sizeof *ord);
	if (!ord || !lane_end) {
		free(ord);
		free(lane_end);
		return DP_ENOMEM;
	}
	uint32_t n = 0;
	for (uint32_t i = 0; i < s->nxfers; i++)
		if (x->keep_xfer[i])
			ord[n++] = (xfer_key){0, s->xfers[i].start, i};
	qsort(ord, n, sizeof *ord, cmp_start);
	for (int d = 0; d < s->k; d++)
		x->nsend[d] = x->nrecv[d] = 0;
	for (uint32_t o = 0; o < n; o++) {
		uint32_t i = ord[o].idx;
		const dp_transfer *t = &s->xfers[i];
		for (int side = 0; side < 2; side++) {
			int d = side ? t->dst : t->src;
			int *nl = side ? &x->nrecv[d] : &x->nsend[d];
			double *ends =
				lane_end + ((size_t)d * 2 + side) * MAX_LANES;
			int l = 0, best = 0;
			while (l < *nl && ends[l] > t->start)
				l++;
			if (l == *nl && *nl < MAX_LANES)
				(*nl)++;
			else if (l == *nl) { /* all busy: the one free first */
				for (int k = 1; k < MAX_LANES; k++)
					if (ends[k] < ends[best])
						best = k;
				l = best;
			}
			ends[l] = t->end;
			(side ? x->recv_lane : x->send_lane)[i] = (uint8_t)l;
		}
	}
	free(ord);
	free(lane_end);
	return DP_OK;
}

/* larger first, then creation order */
DPI_CMP_DEFINE(cmp_xfer, xfer_key, DPI_CMP(y->bytes, x->bytes),
	       DPI_CMP(x->idx, y->idx))

/* Marks the transfers to write: all of them, or within budget the
 * critical path's and then the largest. */
static dp_status choose_xfers(trace_ctx *x, uint64_t budget)
{
	const dp_sim_result *s = &x->plan->sim;
	x->xfers_kept = s->nxfers;
	memset(x->keep_xfer, 1, s->nxfers);
	if (s->nxfers <= budget)
		return DP_OK;
	xfer_key *k = malloc(((size_t)s->nxfers + 1) * sizeof *k);
	if (!k)
		return DP_ENOMEM;
	uint32_t kept = 0;
	for (uint32_t i = 0; i < s->nxfers; i++) {
		bool crit = x->crit_dst[s->xfers[i].op] == s->xfers[i].dst;
		x->keep_xfer[i] = crit;
		kept += crit;
		k[i] = (xfer_key){s->xfers[i].bytes, 0, i};
	}
	qsort(k, s->nxfers, sizeof *k, cmp_xfer);
	for (uint32_t i = 0; i < s->nxfers && kept < budget; i++)
		if (!x->keep_xfer[k[i].idx]) {
			x->keep_xfer[k[i].idx] = 1;
			kept++;
		}
	free(k);
	x->xfers_kept = kept;
	return DP_OK;
}

/* Splits the event budget: memory points first, then transfers (4 events
 * each), then ops (runs when they do not fit). */
static dp_status plan_budget(trace_ctx *x, uint64_t budget)
{
	const dp_sim_result *s = &x->plan->sim;
	uint64_t points = s->curve_off ? s->curve_off[s->k] : 0;
	uint64_t nops = x->g->nops;
	x->curve_step = 1;
	x->run_len = 1;
	uint64_t xf = s->nxfers;
	if (points + 4 * xf + nops <= budget)
		return choose_xfers(x, xf);
	uint64_t pt_budget = budget / 5;
	if (points > pt_budget)
		x->curve_step =
			(uint32_t)((points + pt_budget - 1) / pt_budget);
	uint64_t used = (points + x->curve_step - 1) / x->curve_step;
	uint64_t xf_budget = (budget - used) / 2 / 4;
	dp_status st = choose_xfers(x, xf < xf_budget ? xf : xf_budget);
	if (st)
		return st;
	used += 4 * (uint64_t)x->xfers_kept;
	uint64_t left = budget > used + 1 ? budget - used : 1;
	if (nops > left) /* one slice per run of run_len ops, per device */
		x->run_len = (uint32_t)((nops + left - 1) / left) + 1;
	return DP_OK;
}

/* --coarsen always: a small trace whatever the size, like a picture of
 * max_nodes nodes: at most about max_nodes op slices (runs), max_nodes
 * transfers and 4 x max_nodes memory points. */
static dp_status plan_small(trace_ctx *x, uint32_t max_nodes)
{
	const dp_sim_result *s = &x->plan->sim;
	uint64_t points = s->curve_off ? s->curve_off[s->k] : 0;
	uint64_t pt_budget = 4 * (uint64_t)max_nodes;
	x->curve_step =
		points > pt_budget
			? (uint32_t)((points + pt_budget - 1) / pt_budget)
			: 1;
	x->run_len = x->g->nops > max_nodes
			     ? (x->g->nops + max_nodes - 1) / max_nodes
			     : 1;
	return choose_xfers(x, s->nxfers < max_nodes ? s->nxfers : max_nodes);
}

static void mark_critical(trace_ctx *x)
{
	const dp_sim_result *s = &x->plan->sim;
	memset(x->crit_cause, -1, (size_t)x->g->nops);
	for (uint32_t u = 0; u < x->g->nops; u++)
		x->crit_dst[u] = -1;
	for (uint32_t i = 0; s->cp_ops && i < s->cp_len; i++) {
		uint32_t u = s->cp_ops[i];
		x->crit_cause[u] = (int8_t)(s->cp_cause ? s->cp_cause[i] : 0);
		/* the path waited for u's transfer to the next op's device */
		if (i + 1 < s->cp_len && s->cp_cause &&
		    s->cp_cause[i + 1] == DP_HOP_TRANSFER)
			x->crit_dst[u] = x->plan->placement[s->cp_ops[i + 1]];
	}
}

/* What was left out, for the report's note; "" when nothing. */
static void describe(const trace_ctx *x, const char *path, bool forced,
		     dp_export_report *rep)
{
	const dp_sim_result *s = &x->plan->sim;
	rep->coarsened = x->run_len > 1 || x->curve_step > 1 ||
			 x->xfers_kept < s->nxfers;
	if (!rep->coarsened)
		return;
	size_t n =
		forced ? (size_t)snprintf(rep->note, sizeof rep->note,
					  "%s: a small trace was asked for "
					  "(coarsen always), so",
					  path)
		       : (size_t)snprintf(rep->note, sizeof rep->note,
					  "%s: more than %u events (Perfetto "
					  "fails near 900 MB of JSON), so",
					  path, DP_EXPORT_TRACE_MAX_EVENTS);
	const char *sep = "";
	if (x->run_len > 1 && n < sizeof rep->note) {
		n += (size_t)snprintf(rep->note + n, sizeof rep->note - n,
				      " %u ops drawn as runs of up to %u "
				      "consecutive ops per device",
				      x->g->nops, x->run_len);
		sep = ";";
	}
	if (x->xfers_kept < s->nxfers && n < sizeof rep->note) {
		n += (size_t)snprintf(rep->note + n, sizeof rep->note - n,
				      "%s %u of %u transfers kept (the "
				      "critical path's, then the largest)",
				      sep, x->xfers_kept, s->nxfers);
		sep = ";";
	}
	if (x->curve_step > 1 && n < sizeof rep->note)
		snprintf(rep->note + n, sizeof rep->note - n,
			 "%s memory counters thinned: each point is the "
			 "highest of %u",
			 sep, x->curve_step);
}

static dp_status write_trace(trace_ctx *x, dp_afile *af, const char *path,
			     const dp_machine *m, const dp_progress *p,
			     dp_err *err)
{
	const dp_plan *plan = x->plan;
	const dp_sim_result *s = &plan->sim;
	dp_json_init(&x->w, af->f);
	dp_json_begin_object(&x->w, NULL);
	dp_json_str(&x->w, "displayTimeUnit", "ms");
	dp_json_begin_array(&x->w, "traceEvents");
	metadata(x);
	dp_progress_report(p, "writing the ops", 0.1);
	if (x->run_len > 1) {
		dp_status st = op_runs(x, p);
		if (st == DP_ECANCELED)
			return dp_err_set(err, DP_ECANCELED, path, 0, 0,
					  "export canceled; no file written");
		if (st)
			return dp_err_set(err, DP_ENOMEM, path, 0, 0,
					  "out of memory writing the trace");
	} else {
		for (uint32_t u = 0; u < x->g->nops; u++) {
			if ((u & 16383u) == 0 && dp_progress_canceled(p))
				return dp_err_set(err, DP_ECANCELED, path, 0, 0,
						  "export canceled; no file "
						  "written");
			op_slice(x, u);
		}
	}
	dp_progress_report(p, "writing the transfers", 0.5);
	for (uint32_t i = 0; i < s->nxfers; i++)
		if (x->keep_xfer[i])
			transfer(x, i);
	dp_progress_report(p, "writing the memory counters", 0.8);
	counters(x);
	dp_json_end_array(&x->w);
	/* what the trace is of, for a person who opens the file */
	dp_json_begin_object(&x->w, "otherData");
	dp_json_str(&x->w, "graph", x->g->name ? x->g->name : "");
	dp_json_str(&x->w, "algorithm", plan->algo);
	dp_json_int(&x->w, "devices", plan->k);
	if (m && m->link_name[0])
		dp_json_str(&x->w, "link", m->link_name);
	dp_json_str(&x->w, "contention",
		    dp_sim_contention_name(plan->contention));
	dp_json_num(&x->w, "makespan_us", s->makespan);
	dp_json_bool(&x->w, "feasible", plan->feasible);
	dp_json_int(&x->w, "transfers", s->nxfers);
	dp_json_int(&x->w, "transfers_drawn", x->xfers_kept);
	dp_json_int(&x->w, "ops_per_slice", x->run_len);
	dp_json_end_object(&x->w);
	dp_json_end_object(&x->w);
	if (dp_progress_canceled(p))
		return dp_err_set(err, DP_ECANCELED, path, 0, 0,
				  "export canceled; no file written");
	return DP_OK;
}

dp_status dpi_export_trace_write(const char *path, const dp_graph *g,
				 const dp_graph *user, const dp_machine *m,
				 const dp_plan *plan, const dp_export_opts *o,
				 const dp_progress *p, dp_export_report *rep,
				 dp_err *err)
{
	trace_ctx x = {.g = g, .plan = plan};
	/* NULL (no block args) for a placement; out of memory: the same */
	x.blk = g != user ? dp_plan_pipe_blocks(plan, user) : NULL;
	size_t n = (size_t)g->nops + 1, nx = (size_t)plan->sim.nxfers + 1;
	x.crit_cause = malloc(n);
	x.crit_dst = malloc(n * sizeof *x.crit_dst);
	x.keep_xfer = malloc(nx);
	x.send_lane = calloc(nx, 1);
	x.recv_lane = calloc(nx, 1);
	dp_status st = DP_OK;
	if (!x.crit_cause || !x.crit_dst || !x.keep_xfer || !x.send_lane ||
	    !x.recv_lane) {
		st = dp_err_set(err, DP_ENOMEM, path, 0, 0,
				"out of memory preparing the trace");
		goto out;
	}
	mark_critical(&x);
	/* --coarsen never keeps every event; always draws a small trace */
	uint64_t budget = o->coarsen == DP_COARSEN_NEVER
				  ? UINT64_MAX
				  : DP_EXPORT_TRACE_MAX_EVENTS;
	st = o->coarsen == DP_COARSEN_ALWAYS ? plan_small(&x, o->max_nodes)
					     : plan_budget(&x, budget);
	if (st) {
		st = dp_err_set(err, DP_ENOMEM, path, 0, 0,
				"out of memory preparing the trace");
		goto out;
	}
	if (assign_lanes(&x)) {
		st = dp_err_set(err, DP_ENOMEM, path, 0, 0,
				"out of memory preparing the trace");
		goto out;
	}
	dp_afile af;
	if ((st = dp_afile_open(&af, path, err)))
		goto out;
	st = write_trace(&x, &af, path, m, p, err);
	if (st)
		dp_afile_abort(&af);
	else
		st = dp_afile_commit(&af, err);
	if (!st) {
		rep->entries = (uint32_t)x.events;
		describe(&x, path, o->coarsen == DP_COARSEN_ALWAYS, rep);
		dp_progress_report(p, "done", 1.0);
	}
out:
	DPI_FREE_ALL(x.crit_cause, x.crit_dst, x.keep_xfer, x.send_lane,
		     x.recv_lane, x.blk);
	return st;
}

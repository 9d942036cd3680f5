/* algo_heft.c - HEFT with insertion and a memory eligibility check.
 *
 * Topcuoglu, Hariri, Wu, IEEE TPDS 2002: upward ranks with average
 * computation and communication costs (section 4.1, eq. 7), tasks in
 * decreasing rank, each on the processor that gives it the earliest finish
 * time, inserted into the earliest idle gap that can hold it (section 4.2).
 * The memory check (listsched.h) is this project's addition, the same one
 * m-ETF uses. The core (dpi_heft_run) is exposed in internal/heft.h so that the
 * paper's 10-task example can be checked with its own cost matrix.
 */
#include <stdlib.h>
#include <string.h>

#include "dnnpart/algo.h"
#include "internal/algo_int.h"
#include "internal/arrays.h"
#include "internal/grow.h"
#include "internal/heft.h"
#include "internal/heft_slots.h"
#include "internal/listsched.h"
#include "internal/sort_key.h"

static double cost(const heft_problem *pb, uint32_t v, int p)
{
	if (pb->w)
		return pb->w[(size_t)v * (size_t)pb->k + (size_t)p];
	return pb->g->ops[v].time_us / pb->speed[p];
}

/* A transfer of a task's output to a processor, shared by every consumer
 * there (ports mode only). */
typedef struct xfer_rec {
	int32_t proc;
	uint32_t next; /* next record of the same task, UINT32_MAX = none */
	double end;
} xfer_rec;

typedef struct heft_work {
	dpi_sort_key *order; /* rank, topological index, op */
	double *wbar;
	double *est, *eft; /* per processor, for the task at hand */
	hs_pos *pos;
	heft_slots *busy;
	ls_cons cons;
	/* ports mode */
	ls_ports ports;
	uint32_t *xfer_head; /* per task */
	uint32_t *in_stamp;  /* per task: handled in this ready_on call */
	double *tmp_end;     /* per task: its tentative arrival there */
	xfer_rec *xfers;
	uint32_t nxfers, xfers_cap;
} heft_work;

static xfer_rec *xfer_find(const heft_work *w, uint32_t u, int p)
{
	for (uint32_t i = w->xfer_head[u]; i != UINT32_MAX;
	     i = w->xfers[i].next)
		if (w->xfers[i].proc == p)
			return &w->xfers[i];
	return NULL;
}

/* Ports mode: when the transfer of u's output over edge e to p, which does
 * not exist yet, would end. With reserve, the ports are taken and the
 * transfer recorded (returns -1 when out of memory); else the ports are
 * only taken in the scratch times of this try (ls_ports). */
static double xfer_new(const heft_problem *pb, const heft_schedule *out,
		       heft_work *w, uint32_t u, uint32_t e, int p,
		       bool reserve)
{
	double end = dpi_ls_ports_xfer(&w->ports, out->proc[u], p,
				       out->finish[u], pb->comm[e], reserve) +
		     pb->comm[e];
	if (!reserve)
		return end;
	if (dpi_grow((void **)&w->xfers, &w->xfers_cap, w->nxfers + 1,
		     sizeof *w->xfers, 256))
		return -1;
	w->xfers[w->nxfers] = (xfer_rec){p, w->xfer_head[u], end};
	w->xfer_head[u] = w->nxfers++;
	return end;
}

/* Earliest time v's inputs are all on processor p: each edge on its own
 * (the paper), or, in ports mode, through one port-reserving transfer per
 * (producer, processor) as the simulator does. reserve: ports mode only,
 * take the ports for real (returns -1 when out of memory). */
static double ready_on(const heft_problem *pb, const heft_schedule *out,
		       heft_work *w, uint32_t v, int p, bool reserve)
{
	const dp_graph *g = pb->g;
	double ready = 0.0;
	if (pb->ports) {
		if (dpi_ls_ports_try(&w->ports, p))
			memset(w->in_stamp, 0,
			       (size_t)g->nops * sizeof *w->in_stamp);
	}
	for (uint32_t i = g->pred_off[v]; i < g->pred_off[v + 1]; i++) {
		uint32_t e = g->pred_edge[i];
		uint32_t u = g->edges[e].from;
		double t;
		if (out->proc[u] == p) {
			t = out->finish[u];
		} else if (!pb->ports || g->edges[e].control) {
			t = out->finish[u] + pb->comm[e];
		} else {
			const xfer_rec *x = xfer_find(w, u, p);
			if (x) {
				t = x->end; /* also a second edge, reserved */
			} else if (w->in_stamp[u] == w->ports.stamp) {
				t = w->tmp_end[u]; /* a second edge of u */
			} else {
				t = xfer_new(pb, out, w, u, e, p, reserve);
				if (t < 0)
					return -1;
				w->in_stamp[u] = w->ports.stamp;
				w->tmp_end[u] = t;
			}
		}
		if (t > ready)
			ready = t;
	}
	return ready;
}

static void work_free(heft_work *w, int k)
{
	DPI_FREE_ALL(w->order, w->wbar, w->est, w->eft, w->pos);
	if (w->busy)
		for (int p = 0; p < k; p++)
			dpi_heft_slots_free(&w->busy[p]);
	free(w->busy);
	dpi_ls_cons_free(&w->cons);
	dpi_ls_ports_free(&w->ports);
	DPI_FREE_ALL(w->xfer_head, w->in_stamp, w->tmp_end, w->xfers);
}

/* Picks v's processor among the allowed ones; fills w->est/eft/pos. */
static int choose(const heft_problem *pb, heft_schedule *out, heft_work *w,
		  uint32_t v)
{
	int k = pb->k;
	int32_t only = ls_cons_device(&w->cons, v);
	int lo = only >= 0 ? only : 0, hi = only >= 0 ? only + 1 : k;
	int best = -1;
	for (int p = lo; p < hi; p++) {
		double dur = cost(pb, v, p);
		double ready = ready_on(pb, out, w, v, p, false);
		w->est[p] = dpi_heft_slots_find(&w->busy[p], ready, dur,
						&w->pos[p]);
		w->eft[p] = w->est[p] + dur;
		if (pb->mem && dpi_ls_mem_over(pb->mem, v, p) > 0)
			continue;
		if (best < 0 || w->eft[p] < w->eft[best])
			best = p;
	}
	if (best >= 0 || !pb->mem)
		return best;
	/* Nothing fits at the clock: count the releases due by each start
	 * (the task may start later than the clock), then the least overflow. */
	for (int p = lo; p < hi; p++) {
		double t =
			w->est[p] > pb->mem->clock ? w->est[p] : pb->mem->clock;
		if (dpi_ls_mem_over_at(pb->mem, v, p, t) > 0)
			continue;
		if (best < 0 || w->eft[p] < w->eft[best])
			best = p;
	}
	if (best >= 0)
		return best;
	int64_t best_over = 0;
	for (int p = lo; p < hi; p++) {
		int64_t ov = dpi_ls_mem_over(pb->mem, v, p);
		if (best < 0 || ov < best_over ||
		    (ov == best_over && w->eft[p] < w->eft[best])) {
			best = p;
			best_over = ov;
		}
	}
	out->overflowed = true;
	return best;
}

static int commit(const heft_problem *pb, heft_schedule *out, heft_work *w,
		  uint32_t v, int p)
{
	const dp_graph *g = pb->g;
	double s = w->est[p], f = w->eft[p];
	if (pb->ports) {
		/* take the ports; same state as the estimate, same times */
		double ready = ready_on(pb, out, w, v, p, true);
		if (ready < 0)
			return -1;
		if (ready > s) {
			s = dpi_heft_slots_find(&w->busy[p], ready, f - s,
						&w->pos[p]);
			f = s + (w->eft[p] - w->est[p]);
		}
	}
	out->proc[v] = p;
	out->start[v] = s;
	out->finish[v] = f;
	if (f > out->makespan)
		out->makespan = f;
	ls_cons_place(&w->cons, v, p);
	if (dpi_heft_slots_insert(&w->busy[p], w->pos[p], s, f))
		return -1;
	if (!pb->mem)
		return 0;
	dpi_ls_mem_advance(pb->mem, s);
	for (uint32_t i = g->pred_off[v]; i < g->pred_off[v + 1]; i++) {
		uint32_t e = g->pred_edge[i];
		const dp_edge *ed = &g->edges[e];
		uint32_t u = ed->from;
		if (ed->control || out->proc[u] == p)
			continue;
		const xfer_rec *x = pb->ports ? xfer_find(w, u, p) : NULL;
		double end = x ? x->end : out->finish[u] + pb->comm[e];
		if (dpi_ls_mem_add_copy(pb->mem, u, p, ed->bytes,
					out->finish[u], end))
			return -1;
	}
	return dpi_ls_mem_place(pb->mem, v, s, f);
}

dp_status dpi_heft_run(const heft_problem *pb, heft_schedule *out, dp_err *err)
{
	const dp_graph *g = pb->g;
	uint32_t n = g->nops;
	int k = pb->k;
	heft_work w;
	memset(&w, 0, sizeof w);
	dp_status st = dpi_ls_cons_init(&w.cons, g, err);
	if (st)
		return st;
	const dpi_arr arrs[] = {
		DPI_ARR(w.order, (size_t)n + 1), DPI_ARR(w.wbar, (size_t)n + 1),
		DPI_ARR(w.est, (size_t)k),	 DPI_ARR(w.eft, (size_t)k),
		DPI_ARR(w.pos, (size_t)k),	 DPI_ARR0(w.busy, (size_t)k),
	};
	if (dpi_arrays_alloc(arrs, DPI_NARR(arrs)))
		goto nomem;
	if (pb->ports) {
		if (dpi_ls_ports_init(&w.ports, k))
			goto nomem;
		const dpi_arr port_arrs[] = {
			DPI_ARR(w.xfer_head, (size_t)n + 1),
			DPI_ARR0(w.in_stamp, (size_t)n + 1),
			DPI_ARR(w.tmp_end, (size_t)n + 1),
		};
		if (dpi_arrays_alloc(port_arrs, DPI_NARR(port_arrs)))
			goto nomem;
		for (uint32_t v = 0; v < n; v++)
			w.xfer_head[v] = UINT32_MAX;
	}

	/* average computation cost of each task over the processors */
	for (uint32_t v = 0; v < n; v++) {
		double sum = 0;
		for (int p = 0; p < k; p++)
			sum += cost(pb, v, p);
		w.wbar[v] = sum / k;
	}
	dpi_ls_upward_ranks(g, w.wbar, pb->rank_comm, out->rank);
	for (uint32_t v = 0; v < n; v++) {
		w.order[v] = (dpi_sort_key){out->rank[v], g->topo_pos[v], v};
		out->proc[v] = -1;
		out->start[v] = out->finish[v] = 0;
	}
	/* decreasing rank is a topological order: rank(u) >= rank(v) for an
	 * edge u->v, and equal ranks fall back on the topological index */
	qsort(w.order, n, sizeof *w.order, dpi_sort_key_desc);
	out->makespan = 0;
	out->overflowed = false;

	for (uint32_t i = 0; i < n; i++) {
		if ((i & 1023) == 0 &&
		    (st = dpi_poll(pb->progress, "heft", "heft",
					(double)i / (n ? n : 1), err))) {
			work_free(&w, k);
			return st;
		}
		uint32_t v = w.order[i].op;
		int p = choose(pb, out, &w, v);
		if (commit(pb, out, &w, v, p))
			goto nomem;
	}
	work_free(&w, k);
	return DP_OK;
nomem:
	work_free(&w, k);
	return dp_err_set(err, DP_ENOMEM, NULL, 0, 0,
			  "out of memory while scheduling %u ops with HEFT", n);
}

/* ---- the registry entry ---- */

typedef struct heft_ctx {
	const dp_graph *g;
	const dp_machine *m;
	const dp_progress *p;
	double *comm;
	bool ports;
	heft_schedule sched;
} heft_ctx;

static dp_status heft_attempt(void *vctx, const int64_t *cap,
			      int32_t *placement, bool *overflowed, dp_err *err)
{
	heft_ctx *c = vctx;
	ls_mem mem;
	dp_status st =
		dpi_ls_mem_init(&mem, c->g, c->m->k, c->sched.proc, cap, err);
	if (st)
		return st;
	heft_problem pb = {
		.g = c->g,
		.k = c->m->k,
		.w = NULL,
		.speed = c->m->speed,
		.comm = c->comm,
		.rank_comm = c->comm,
		.ports = c->ports,
		.mem = &mem,
		.progress = c->p,
	};
	st = dpi_heft_run(&pb, &c->sched, err);
	dpi_ls_mem_free(&mem);
	if (st)
		return st;
	memcpy(placement, c->sched.proc,
	       (size_t)c->g->nops * sizeof *placement);
	*overflowed = c->sched.overflowed;
	return DP_OK;
}

static dp_status heft_algo_run(const dp_graph *g, const dp_machine *m,
			       const dp_algo_opts *o, const dp_progress *p,
			       int32_t *placement, dp_err *err)
{
	dp_status st = DP_OK;
	size_t n = (size_t)g->nops + 1;
	heft_ctx c = {.g = g, .m = m, .p = p};
	c.ports = o && o->contention == DP_CONT_PORT && m->k > 1;
	const dpi_arr arrs[] = {
		DPI_ARR(c.comm, (size_t)g->nedges + 1),
		DPI_ARR(c.sched.proc, n),
		DPI_ARR(c.sched.start, n),
		DPI_ARR(c.sched.finish, n),
		DPI_ARR(c.sched.rank, n),
	};
	if (dpi_arrays_alloc(arrs, DPI_NARR(arrs))) {
		st = dp_err_set(err, DP_ENOMEM, NULL, 0, 0,
				"out of memory for HEFT on %u ops", g->nops);
		goto out;
	}
	/* uniform links: the average over processor pairs of L + data / B
	 * is the cost itself (paper section 3) */
	for (uint32_t e = 0; e < g->nedges; e++)
		c.comm[e] = m->k > 1 ? ls_edge_comm(g, m, e) : 0.0;
	st = dpi_ls_verify("heft", g, m, o ? o->contention : DP_CONT_PORT,
			   heft_attempt, &c, p, placement, err);
	if (!st)
		dp_progress_report(p, "heft", 1.0);
out:
	DPI_FREE_ALL(c.comm, c.sched.proc, c.sched.start, c.sched.finish,
		     c.sched.rank);
	return st;
}

DPI_ALGO_DEFINE(heft,
		"HEFT: rank-ordered earliest finish time with insertion, "
		"memory-checked",
		"Topcuoglu, Hariri, Wu, IEEE TPDS 2002", heft_algo_run);

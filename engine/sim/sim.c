/* sim.c - the discrete-event simulator: the event loop and dp_sim_run()
 * (see sim.h and docs/simulator.md). Setup and priorities
 * are in sim_setup.c, memory accounting in sim_memory.c, the schedule's
 * critical path in sim_path.c.
 *
 * The loop keeps, per op, the number of producers that have not ended yet
 * and the latest arrival time seen so far. Every arrival time is known the
 * moment its producer ends (a transfer's start and end are fixed when it is
 * created, even under port contention), so an op needs one queue entry at
 * most: when its last producer ends, it is either available at once or at
 * its latest arrival. That keeps a run at O((V + E) log V).
 */
#include "dnnpart/sim.h"

#include <stdlib.h>
#include <string.h>

#include "internal/arrays.h"
#include "internal/minheap.h"
#include "internal/nomem.h"
#include "internal/sim_int.h"

/* ---- the event queue: a binary min-heap on (t, key) ---- */

static inline int ev_less(const sim_event *a, const sim_event *b)
{
	return a->t < b->t || (a->t == b->t && a->key < b->key);
}

DPI_HEAP_DEFINE(event_heap, sim_event, ev_less)

static inline void ev_push(dp_sim *s, double t, uint32_t key)
{
	event_heap_push(s->ev, &s->nev, (sim_event){t, key});
}

static inline sim_event ev_pop(dp_sim *s)
{
	return event_heap_pop(s->ev, &s->nev);
}

/* ---- ready heaps: per device, a min-heap of priority indices ---- */

static inline void ready_push(uint32_t *h, uint32_t *len, uint32_t p)
{
	dpi_u32heap_push(h, len, p);
}

static inline uint32_t ready_pop(uint32_t *h, uint32_t *len)
{
	return dpi_u32heap_pop(h, len);
}

/* ---- result buffers ---- */

void dp_sim_result_free(dp_sim_result *r)
{
	if (!r)
		return;
	DPI_FREE_ALL(r->start, r->end, r->avail, r->xfers, r->dev, r->cp_ops,
		     r->cp_cause, r->live, r->live_off, r->curve, r->curve_off);
	memset(r, 0, sizeof *r);
}

static int resize(void **p, size_t count, size_t elem)
{
	void *q = realloc(*p, (count ? count : 1) * elem);
	if (!q)
		return -1;
	*p = q;
	return 0;
}

static dp_status result_reserve(dp_sim_result *r, uint32_t n, int k,
				bool detail, dp_err *err)
{
	if (r->cap_ops < n) {
		if (resize((void **)&r->start, n, sizeof *r->start) ||
		    resize((void **)&r->end, n, sizeof *r->end) ||
		    resize((void **)&r->avail, n, sizeof *r->avail))
			return dpi_nomem(err, "allocating %s for the simulator", "the schedule");
		r->cap_ops = n;
	}
	if (r->cap_k < k) {
		size_t kk = (size_t)k;
		if (resize((void **)&r->dev, kk, sizeof *r->dev) ||
		    resize((void **)&r->live_off, kk + 1,
			   sizeof *r->live_off) ||
		    resize((void **)&r->curve_off, kk + 1,
			   sizeof *r->curve_off))
			return dpi_nomem(err, "allocating %s for the simulator", "device statistics");
		r->cap_k = k;
	}
	if (detail && r->cap_cp < n) {
		if (resize((void **)&r->cp_ops, n, sizeof *r->cp_ops) ||
		    resize((void **)&r->cp_cause, n, sizeof *r->cp_cause))
			return dpi_nomem(err, "allocating %s for the simulator", "the critical path");
		r->cap_cp = n;
	}
	return DP_OK;
}

/* ---- the event loop ---- */

static inline void mark_dirty(dp_sim *s, uint32_t d)
{
	if (!s->dirty_flag[d]) {
		s->dirty_flag[d] = 1;
		s->dirty[s->ndirty++] = d;
	}
}

static inline void make_ready(dp_sim *s, uint32_t v, uint32_t d)
{
	ready_push(s->ready + s->rbase[d], &s->rlen[d], s->prio[v]);
	mark_dirty(s, d);
}

/* Puts the devices of the current op's transfers into increasing order:
 * insertion sort for a few, a scan over all devices for many (bounded by
 * 32 x the op's out-degree since K <= 1024). */
static void order_targets(dp_sim *s, uint32_t nt)
{
	uint32_t *t = s->touched;
	if ((uint64_t)nt * nt <= (uint64_t)s->k) {
		for (uint32_t i = 1; i < nt; i++) {
			uint32_t x = t[i], j = i;
			for (; j > 0 && t[j - 1] > x; j--)
				t[j] = t[j - 1];
			t[j] = x;
		}
		return;
	}
	uint32_t c = 0;
	for (int d = 0; d < s->k; d++)
		if (s->xbytes[d] >= 0)
			t[c++] = (uint32_t)d;
}

/* Op u ended on its device at t: create its transfers (increasing target
 * device, ports reserved in creation order) and deliver its output to every
 * consumer (docs/simulator.md, "Communication" and
 * "Scheduling"). */
static dp_status op_end(dp_sim *s, const int32_t *pl, dp_contention cont,
			uint32_t u, double t, dp_sim_result *r, dp_err *err)
{
	const dp_graph *g = s->g;
	uint32_t d = (uint32_t)pl[u];
	uint32_t lo = g->succ_off[u], hi = g->succ_off[u + 1];
	uint32_t nt = 0;
	for (uint32_t i = lo; i < hi; i++) {
		uint32_t w = s->succ_to[i];
		if (w & SIM_CTRL)
			continue;
		uint32_t b = (uint32_t)s->node[w].dev;
		if (b == d)
			continue;
		double xc = s->xcost ? s->xcost_edge[i] : 0.0;
		if (s->xbytes[b] < 0) {
			s->touched[nt++] = b;
			s->xbytes[b] = s->succ_bytes[i];
			if (s->xcost)
				s->xcost[b] = xc;
		} else {
			if (s->succ_bytes[i] > s->xbytes[b])
				s->xbytes[b] = s->succ_bytes[i];
			if (s->xcost && xc > s->xcost[b])
				s->xcost[b] = xc;
		}
	}
	s->xoff[u] = r->nxfers;
	s->xnum[u] = (uint16_t)nt;
	if (nt) {
		order_targets(s, nt);
		if (dpi_grow((void **)&r->xfers, &r->cap_xfers,
			     (uint64_t)r->nxfers + nt, sizeof *r->xfers, 64))
			return dpi_nomem(err, "allocating %s for the simulator", "transfers");
		for (uint32_t i = 0; i < nt; i++) {
			uint32_t b = s->touched[i];
			int64_t bytes = s->xbytes[b];
			double c = s->xcost ? s->xcost[b]
					    : dp_machine_comm(s->m, (int)d,
							      (int)b, bytes);
			double st = t;
			if (cont == DP_CONT_PORT) {
				if (s->send_free[d] > st)
					st = s->send_free[d];
				if (s->recv_free[b] > st)
					st = s->recv_free[b];
			}
			double en = st + c;
			if (cont == DP_CONT_PORT)
				s->send_free[d] = s->recv_free[b] = en;
			s->xend[b] = en;
			dp_transfer *x = &r->xfers[r->nxfers++];
			memset(x, 0, sizeof *x);
			x->op = u;
			x->src = (int32_t)d;
			x->dst = (int32_t)b;
			x->bytes = bytes;
			x->start = st;
			x->end = en;
			r->cut_bytes += bytes;
			r->dev[d].comm_out_bytes += bytes;
			r->dev[d].comm_out_us += c;
			r->dev[d].xfers_out++;
			r->dev[b].comm_in_bytes += bytes;
			r->dev[b].comm_in_us += c;
			r->dev[b].xfers_in++;
		}
	}
	for (uint32_t i = lo; i < hi; i++) {
		uint32_t w = s->succ_to[i], v = w & ~SIM_CTRL;
		sim_node *nd = &s->node[v];
		uint32_t b = (uint32_t)nd->dev;
		double a = t;
		if (b != d) {
			r->cut_edges++;
			a = (w & SIM_CTRL) ? t + s->lat : s->xend[b];
		}
		if (a > nd->avail)
			nd->avail = a;
		if (--nd->missing == 0) {
			if (nd->avail <= t)
				make_ready(s, v, b);
			else
				ev_push(s, nd->avail, 0x80000000u | v);
		}
	}
	for (uint32_t i = 0; i < nt; i++)
		s->xbytes[s->touched[i]] = -1;
	return DP_OK;
}

/* Every idle device that was touched at this instant starts its
 * highest-priority available op. Starts at one instant do not affect each
 * other, so the order of the dirty list does not matter. */
static uint32_t start_phase(dp_sim *s, double t, dp_sim_result *r)
{
	uint32_t started = 0;
	for (uint32_t i = 0; i < s->ndirty; i++) {
		uint32_t d = s->dirty[i];
		s->dirty_flag[d] = 0;
		if (s->running[d] != SIM_NONE || s->rlen[d] == 0)
			continue;
		uint32_t p = ready_pop(s->ready + s->rbase[d], &s->rlen[d]);
		uint32_t v = s->by_prio[p];
		double dur = s->ptime[p] / s->m->speed[d];
		r->start[v] = t;
		r->end[v] = t + dur;
		s->running[d] = v;
		s->prev_on_dev[v] = s->last[d];
		s->last[d] = v;
		r->dev[d].busy_us += dur;
		ev_push(s, r->end[v], d);
		started++;
	}
	s->ndirty = 0;
	return started;
}

/* Resets the per-run state; fills per-device op counts and params. */
static void run_reset(dp_sim *s, const int32_t *pl, dp_sim_result *r)
{
	const dp_graph *g = s->g;
	int k = s->k;
	memset(r->dev, 0, (size_t)k * sizeof *r->dev);
	for (uint32_t u = 0; u < s->n; u++) {
		dp_device_stats *ds = &r->dev[pl[u]];
		ds->ops++;
		ds->param_bytes += g->ops[u].param_bytes;
		s->node[u] = (sim_node){0, s->indeg[u], pl[u]};
		s->prev_on_dev[u] = SIM_NONE;
		s->xnum[u] = 0;
		s->xoff[u] = 0;
		r->start[u] = 0;
		r->end[u] = 0;
	}
	uint32_t base = 0;
	for (int d = 0; d < k; d++) {
		s->rbase[d] = base;
		base += r->dev[d].ops;
		s->rlen[d] = 0;
		s->running[d] = SIM_NONE;
		s->last[d] = SIM_NONE;
		s->send_free[d] = 0;
		s->recv_free[d] = 0;
		r->dev[d].cap_bytes = dp_machine_usable_cap(s->m, d);
		r->dev[d].reserve_bytes = dp_machine_reserve(s->m, d);
		r->dev[d].speed = s->m->speed[d];
	}
	s->nev = 0;
	s->ndirty = 0;
	r->nops = s->n;
	r->k = k;
	r->nxfers = 0;
	r->makespan = 0;
	r->cut_bytes = 0;
	r->cut_edges = 0;
	r->cp_len = 0;
	r->feasible = true;
	for (uint32_t u = 0; u < s->n; u++)
		if (s->indeg[u] == 0)
			make_ready(s, u, (uint32_t)pl[u]);
}

static dp_status run_schedule(dp_sim *s, const int32_t *pl, dp_contention c,
			      dp_sim_result *r, dp_err *err)
{
	uint32_t started = 0;
	double t = 0;
	for (;;) {
		/* One instant: ends (by device), then arrivals, then starts;
		 * again while zero-duration ops end at the same instant. */
		do {
			while (s->nev && s->ev[0].t == t) {
				sim_event e = ev_pop(s);
				if (e.key & 0x80000000u) {
					uint32_t v = e.key & 0x7fffffffu;
					make_ready(s, v, (uint32_t)pl[v]);
					continue;
				}
				uint32_t u = s->running[e.key];
				s->running[e.key] = SIM_NONE;
				mark_dirty(s, e.key);
				dp_status st = op_end(s, pl, c, u, t, r, err);
				if (st)
					return st;
			}
			started += start_phase(s, t, r);
		} while (s->nev && s->ev[0].t == t);
		if (!s->nev)
			break;
		t = s->ev[0].t;
	}
	if (started != s->n)
		return dp_err_set(err, DP_EINTERNAL, NULL, 0, 0,
				  "simulation stalled: %u of %u ops never "
				  "started",
				  s->n - started, s->n);
	double ms = 0;
	for (uint32_t u = 0; u < s->n; u++) {
		r->avail[u] = s->node[u].avail;
		if (r->end[u] > ms)
			ms = r->end[u];
	}
	r->makespan = ms;
	return DP_OK;
}

/* Computes the parts of the last run's result that o asks for and that are
 * not there yet (s->done). Live tensors and curves come out of one memory
 * sweep: when either is missing, the sweep runs again for everything asked
 * for so far (peaks are deterministic, so nothing already there changes). */
static dp_status finish_parts(dp_sim *s, const int32_t *pl,
			      const dp_sim_opts *o, dp_sim_result *r,
			      dp_err *err)
{
	bool mem = !o->skip_memory;
	bool live = mem && o->detail && !o->skip_live;
	bool curves = mem && o->detail && !o->skip_curves;
	dp_status st = DP_OK;
	if (o->detail && (st = result_reserve(r, s->n, s->k, true, err)))
		return st;
	if (mem && (!(s->done & SIM_DONE_MEMORY) ||
		    (live && !(s->done & SIM_DONE_LIVE)) ||
		    (curves && !(s->done & SIM_DONE_CURVES)))) {
		live = live || (s->done & SIM_DONE_LIVE);
		curves = curves || (s->done & SIM_DONE_CURVES);
		s->done &= ~(SIM_DONE_MEMORY | SIM_DONE_LIVE | SIM_DONE_CURVES);
		if ((st = dpi_sim_memory(s, pl, live, curves, r, err)))
			return st;
		s->done |= SIM_DONE_MEMORY | (live ? SIM_DONE_LIVE : 0u) |
			   (curves ? SIM_DONE_CURVES : 0u);
	}
	if (o->detail && !(s->done & SIM_DONE_PATH)) {
		if ((st = dpi_sim_critical_path(s, pl, r, err)))
			return st;
		s->done |= SIM_DONE_PATH;
	}
	return DP_OK;
}

/* *o, or the defaults (port contention, no detail) in *def when *o is
 * NULL; DP_EINTERNAL for a contention model that does not exist. */
static dp_status check_opts(const dp_sim_opts **op, dp_sim_opts *def,
			    dp_err *err)
{
	*def = (dp_sim_opts){.contention = DP_CONT_PORT};
	if (!*op)
		*op = def;
	const dp_sim_opts *o = *op;
	if (o->contention != DP_CONT_PORT && o->contention != DP_CONT_NONE)
		return dp_err_set(err, DP_EINTERNAL, NULL, 0, 0,
				  "unknown contention model %d",
				  (int)o->contention);
	return DP_OK;
}

dp_status dp_sim_run(dp_sim *s, const int32_t *placement, const dp_sim_opts *o,
		     dp_sim_result *r, dp_err *err)
{
	dp_sim_opts def;
	dp_status st = check_opts(&o, &def, err);
	if (st)
		return st;
	for (uint32_t u = 0; u < s->n; u++)
		if (placement[u] < 0 || placement[u] >= s->k)
			return dp_err_set(err, DP_EINPUT, s->g->source, 0, 0,
					  "op '%s' is placed on device %d; "
					  "expected a device in 0..%d",
					  dp_graph_op_name(s->g, u),
					  placement[u], s->k - 1);
	s->last_res = NULL;
	s->done = 0;
	st = result_reserve(r, s->n, s->k, o->detail, err);
	if (st)
		return st;
	run_reset(s, placement, r);
	st = run_schedule(s, placement, o->contention, r, err);
	if (st)
		return st;
	s->last_res = r;
	dpi_sim_memory_skipped(s, r); /* until the memory pass replaces it */
	return finish_parts(s, placement, o, r, err);
}

dp_status dp_sim_finish(dp_sim *s, const int32_t *placement,
			const dp_sim_opts *o, dp_sim_result *r, dp_err *err)
{
	dp_sim_opts def;
	dp_status st = check_opts(&o, &def, err);
	if (st)
		return st;
	if (!r || r != s->last_res)
		return dp_err_set(err, DP_EINTERNAL, NULL, 0, 0,
				  "dp_sim_finish: the result is not the one of "
				  "the simulator's last run");
	return finish_parts(s, placement, o, r, err);
}

/* algo_metf.c - Baechi's m-ETF: memory-constrained earliest task first.
 *
 * Jeon et al., "Baechi: fast device placement of machine learning graphs",
 * SoCC 2020, section 4.2: ETF (Hwang et al., SIAM J. Comput. 1989) repeatedly
 * schedules, among all (ready op, device) pairs, the one that can start the
 * earliest; m-ETF makes a device eligible for an op only when the op's
 * memory fits there at that moment. Here "fits" follows the simulator's
 * liveness rules (internal/listsched.h: params for the whole step, outputs
 * until their last consumer or transfer ends, received copies, temp while
 * running). An op that fits nowhere waits until memory is released; when
 * nothing is pending any more, the highest-priority ready op goes where it
 * overflows least (the plan then reports the overflow).
 *
 * Data structures, so that a step costs O(K log n) rather than a scan of
 * every ready pair: per device, a heap of ready ops whose inputs are not on
 * the device yet, keyed by their arrival time there, and a heap of ops that
 * could start as soon as the device is free, keyed by priority (upward
 * rank, docs/simulator.md). Keys are lower bounds that only grow (port
 * contention can delay an arrival), so stale entries are re-keyed when they
 * surface.
 */
#include <stdlib.h>
#include <string.h>

#include "dnnpart/algo.h"
#include "internal/algo_int.h"
#include "internal/arrays.h"
#include "internal/grow.h"
#include "internal/listsched.h"
#include "internal/nomem.h"

typedef struct oplist {
	uint32_t *a;
	uint32_t len, cap;
} oplist;

typedef struct cand {
	bool ok;
	bool in_ready; /* the op is the top of rdy[d] (else of arr[d]) */
	double est;
	uint32_t op;
} cand;

typedef struct metf {
	const dp_graph *g;
	const dp_machine *m;
	dp_contention cont;
	const dp_progress *p;
	uint32_t n;
	int k;
	double *rank; /* upward rank, computed once */
	/* per attempt */
	int32_t *dev;
	double *start, *end;
	uint32_t *npred; /* predecessors not placed yet */
	double *dev_free;
	ls_ports ports;
	ls_heap *arr, *rdy, all;
	oplist *blocked;
	cand *c;
	ls_cons cons;
	ls_mem mem;
	bool overflowed;
} metf;

static int oplist_push(oplist *l, uint32_t v)
{
	if (dpi_grow((void **)&l->a, &l->cap, l->len + 1, sizeof *l->a, 16))
		return -1;
	l->a[l->len++] = v;
	return 0;
}

/* Transfer of u's output (bytes) to device d: start and end, using and, when
 * reserve is set, reserving the ports (docs/simulator.md, contention
 * `port`). */
static double xfer(metf *s, uint32_t u, int32_t d, int64_t bytes, bool reserve,
		   double *xstart)
{
	int32_t src = s->dev[u];
	double dur = dp_machine_comm(s->m, src, d, bytes);
	double t = s->end[u];
	if (s->cont == DP_CONT_PORT)
		t = dpi_ls_ports_xfer(&s->ports, src, d, t, dur, reserve);
	*xstart = t;
	return t + dur;
}

/* When every input of v would be on device d (without reserving ports). */
static double arrival(metf *s, uint32_t v, int32_t d)
{
	dpi_ls_mem_inputs(&s->mem, v);
	dpi_ls_ports_try(&s->ports, d);
	double arr = 0.0;
	for (uint32_t i = 0; i < s->mem.nin; i++) {
		const ls_input *in = &s->mem.in[i];
		uint32_t u = in->u;
		double t, xs;
		if (s->dev[u] == d) {
			t = s->end[u];
		} else if (!in->data) {
			t = s->end[u] + s->m->lat;
		} else {
			ls_copy *c = dpi_ls_mem_copy(&s->mem, u, d);
			t = c ? c->xfer_end
			      : xfer(s, u, d, in->bytes, false, &xs);
		}
		if (t > arr)
			arr = t;
	}
	return arr;
}

static bool allowed(const metf *s, uint32_t v, int32_t d)
{
	int32_t only = ls_cons_device(&s->cons, v);
	return only < 0 || only == d;
}

static ls_entry entry(const metf *s, uint32_t v, double key)
{
	return (ls_entry){key, s->rank[v], s->g->topo_pos[v], v};
}

/* v became ready: offer it to every device it may use. */
static int make_ready(metf *s, uint32_t v)
{
	if (dpi_ls_heap_push(&s->all, entry(s, v, 0)))
		return -1;
	for (int d = 0; d < s->k; d++)
		if (allowed(s, v, d) &&
		    dpi_ls_heap_push(&s->arr[d], entry(s, v, arrival(s, v, d))))
			return -1;
	return 0;
}

/* The op device d would start next, with its start time: the highest-
 * priority op whose inputs are there when d is free, else the op whose
 * inputs arrive first. Ops that do not fit go to d's blocked list. */
static int candidate(metf *s, int32_t d, cand *c)
{
	ls_heap *ah = &s->arr[d], *rh = &s->rdy[d];
	double free_at = s->dev_free[d];
	c->ok = false;
	for (;;) {
		ls_entry e;
		while (ah->len && ls_heap_top(ah)->key <= free_at) {
			dpi_ls_heap_pop(ah, &e);
			if (s->dev[e.op] < 0 &&
			    dpi_ls_heap_push(rh, entry(s, e.op, 0)))
				return -1;
		}
		bool in_ready = rh->len > 0;
		ls_heap *h = in_ready ? rh : ah;
		if (!h->len)
			return 0;
		e = *ls_heap_top(h);
		uint32_t v = e.op;
		if (s->dev[v] >= 0 || !allowed(s, v, d)) {
			dpi_ls_heap_pop(h, &e);
			continue;
		}
		double arr = arrival(s, v, d);
		if ((in_ready && arr > free_at) || (!in_ready && arr > e.key)) {
			dpi_ls_heap_pop(h, &e);
			if (dpi_ls_heap_push(ah, entry(s, v, arr)))
				return -1;
			continue;
		}
		double est = arr > free_at ? arr : free_at;
		if (dpi_ls_mem_never(&s->mem, v, d)) {
			dpi_ls_heap_pop(h,
					&e); /* only the fallback can take it */
			continue;
		}
		if (dpi_ls_mem_over(&s->mem, v, d) > 0 &&
		    (est <= s->mem.clock ||
		     dpi_ls_mem_over_at(&s->mem, v, d, est) > 0)) {
			dpi_ls_heap_pop(h, &e);
			if (oplist_push(&s->blocked[d], v))
				return -1;
			continue;
		}
		*c = (cand){true, in_ready, est, v};
		return 0;
	}
}

static bool cand_before(const metf *s, const cand *a, int32_t da, const cand *b,
			int32_t db)
{
	if (a->est != b->est)
		return a->est < b->est;
	if (s->rank[a->op] != s->rank[b->op])
		return s->rank[a->op] > s->rank[b->op];
	if (a->op != b->op)
		return s->g->topo_pos[a->op] < s->g->topo_pos[b->op];
	return da < db;
}

/* Puts the blocked ops of devices that released memory back in play. */
static int unblock(metf *s)
{
	for (int d = 0; d < s->k; d++) {
		if (!s->mem.freed[d])
			continue;
		s->mem.freed[d] = false;
		oplist *b = &s->blocked[d];
		for (uint32_t i = 0; i < b->len; i++)
			if (s->dev[b->a[i]] < 0 &&
			    dpi_ls_heap_push(&s->arr[d], entry(s, b->a[i], 0)))
				return -1;
		b->len = 0;
	}
	return 0;
}

static int place(metf *s, uint32_t v, int32_t d, double at)
{
	const dp_graph *g = s->g;
	dpi_ls_mem_advance(&s->mem, at);
	dpi_ls_mem_inputs(&s->mem, v);
	double st = at;
	for (uint32_t i = 0; i < s->mem.nin; i++) {
		const ls_input *in = &s->mem.in[i];
		if (!in->data || s->dev[in->u] == d)
			continue;
		ls_copy *c = dpi_ls_mem_copy(&s->mem, in->u, d);
		double xs, xe;
		if (c) {
			xs = c->xfer_start;
			xe = c->xfer_end;
		} else {
			xe = xfer(s, in->u, d, in->bytes, true, &xs);
		}
		if (dpi_ls_mem_add_copy(&s->mem, in->u, d, in->bytes, xs, xe))
			return -1;
		if (xe > st) /* ports reserved since the estimate */
			st = xe;
	}
	double f = st + g->ops[v].time_us / s->m->speed[d];
	s->dev[v] = d;
	s->start[v] = st;
	s->end[v] = f;
	s->dev_free[d] = f;
	ls_cons_place(&s->cons, v, d);
	if (dpi_ls_mem_place(&s->mem, v, st, f))
		return -1;
	for (uint32_t i = g->succ_off[v]; i < g->succ_off[v + 1]; i++) {
		uint32_t w = g->edges[g->succ_edge[i]].to;
		if (--s->npred[w] == 0 && make_ready(s, w))
			return -1;
	}
	return unblock(s);
}

/* Nothing fits anywhere and no release is pending: the highest-priority
 * ready op goes where it overflows least (then where it starts first). */
static int place_overflow(metf *s)
{
	ls_entry e;
	while (dpi_ls_heap_pop(&s->all, &e))
		if (s->dev[e.op] < 0)
			break;
	uint32_t v = e.op;
	int32_t best = -1;
	int64_t best_over = 0;
	double best_est = 0;
	for (int d = 0; d < s->k; d++) {
		if (!allowed(s, v, d))
			continue;
		int64_t ov = dpi_ls_mem_over(&s->mem, v, d);
		double arr = arrival(s, v, d);
		double est = arr > s->dev_free[d] ? arr : s->dev_free[d];
		if (best < 0 || ov < best_over ||
		    (ov == best_over && est < best_est)) {
			best = d;
			best_over = ov;
			best_est = est;
		}
	}
	s->overflowed = true;
	return place(s, v, best,
		     best_est > s->mem.clock ? best_est : s->mem.clock);
}

static void attempt_free(metf *s)
{
	for (int d = 0; d < s->k; d++) {
		if (s->arr)
			dpi_ls_heap_free(&s->arr[d]);
		if (s->rdy)
			dpi_ls_heap_free(&s->rdy[d]);
		if (s->blocked)
			free(s->blocked[d].a);
	}
	dpi_ls_heap_free(&s->all);
	DPI_FREE_ALL(s->arr, s->rdy, s->blocked, s->c, s->dev, s->start, s->end,
		     s->npred, s->dev_free);
	dpi_ls_ports_free(&s->ports);
	dpi_ls_cons_free(&s->cons);
	dpi_ls_mem_free(&s->mem);
	s->arr = s->rdy = NULL;
	s->blocked = NULL;
	s->c = NULL;
	s->dev = NULL;
	s->start = s->end = s->dev_free = NULL;
	s->npred = NULL;
}

static dp_status metf_attempt(void *ctx, const int64_t *cap, int32_t *placement,
			      bool *overflowed, dp_err *err)
{
	metf *s = ctx;
	const dp_graph *g = s->g;
	uint32_t n = s->n;
	size_t nn = (size_t)n + 1, kk = (size_t)s->k + 1;
	dp_status st = DP_OK;
	s->overflowed = false;
	s->dev = malloc(nn * sizeof *s->dev);
	s->start = calloc(nn, sizeof *s->start);
	s->end = calloc(nn, sizeof *s->end);
	s->npred = malloc(nn * sizeof *s->npred);
	s->dev_free = calloc(kk, sizeof *s->dev_free);
	s->arr = calloc(kk, sizeof *s->arr);
	s->rdy = calloc(kk, sizeof *s->rdy);
	s->blocked = calloc(kk, sizeof *s->blocked);
	s->c = calloc(kk, sizeof *s->c);
	if (!s->dev || !s->start || !s->end || !s->npred || !s->dev_free ||
	    dpi_ls_ports_init(&s->ports, s->k) || !s->arr || !s->rdy ||
	    !s->blocked || !s->c) {
		attempt_free(s);
		return dpi_nomem(err, "scheduling %u ops with m-ETF", n);
	}
	if ((st = dpi_ls_cons_init(&s->cons, g, err)) ||
	    (st = dpi_ls_mem_init(&s->mem, g, s->k, s->dev, cap, err))) {
		attempt_free(s);
		return st;
	}
	for (uint32_t v = 0; v < n; v++) {
		s->dev[v] = -1;
		s->npred[v] = g->pred_off[v + 1] - g->pred_off[v];
	}
	for (uint32_t i = 0; i < n; i++)
		if (s->npred[g->topo[i]] == 0 && make_ready(s, g->topo[i]))
			goto oom;
	for (uint32_t placed = 0; placed < n; placed++) {
		dp_status st;
		if ((placed & 1023) == 0 &&
		    (st = dpi_poll(s->p, "metf", "metf",
					(double)placed / n, err))) {
			attempt_free(s);
			return st;
		}
		for (;;) {
			int32_t best = -1;
			for (int d = 0; d < s->k; d++) {
				if (candidate(s, d, &s->c[d]))
					goto oom;
				if (s->c[d].ok &&
				    (best < 0 ||
				     cand_before(s, &s->c[d], d, &s->c[best],
						 best)))
					best = d;
			}
			if (best >= 0) {
				cand *c = &s->c[best];
				ls_entry e;
				dpi_ls_heap_pop(c->in_ready ? &s->rdy[best]
							    : &s->arr[best],
						&e);
				double at = c->est > s->mem.clock
						    ? c->est
						    : s->mem.clock;
				if (place(s, c->op, best, at))
					goto oom;
				break;
			}
			/* nothing fits now: wait for the next release */
			double t = dpi_ls_mem_next_release(&s->mem);
			if (t >= 0) {
				dpi_ls_mem_advance(&s->mem, t);
				if (unblock(s))
					goto oom;
				continue;
			}
			if (place_overflow(s))
				goto oom;
			break;
		}
	}
	memcpy(placement, s->dev, (size_t)n * sizeof *placement);
	*overflowed = s->overflowed;
	attempt_free(s);
	return DP_OK;
oom:
	attempt_free(s);
	return dpi_nomem(err, "scheduling %u ops with m-ETF", n);
}

static dp_status metf_run(const dp_graph *g, const dp_machine *m,
			  const dp_algo_opts *o, const dp_progress *p,
			  int32_t *placement, dp_err *err)
{
	dp_status st = DP_OK;
	metf s;
	memset(&s, 0, sizeof s);
	s.g = g;
	s.m = m;
	s.cont = o ? o->contention : DP_CONT_PORT;
	s.p = p;
	s.n = g->nops;
	s.k = m->k;
	size_t nn = (size_t)g->nops + 1;
	s.rank = malloc(nn * sizeof *s.rank);
	double *wbar = malloc(nn * sizeof *wbar);
	double *cbar = malloc(((size_t)g->nedges + 1) * sizeof *cbar);
	if (!s.rank || !wbar || !cbar) {
		st = dpi_nomem(err, "scheduling %u ops with m-ETF", g->nops);
		goto out;
	}
	/* the simulator's priority (docs/simulator.md), used to break ties */
	double mean_speed = dp_machine_sum_speed(m) / m->k;
	for (uint32_t v = 0; v < g->nops; v++)
		wbar[v] = g->ops[v].time_us / mean_speed;
	for (uint32_t e = 0; e < g->nedges; e++)
		cbar[e] = m->k > 1 ? (m->k - 1.0) / m->k * ls_edge_comm(g, m, e)
				   : 0.0;
	dpi_ls_upward_ranks(g, wbar, cbar, s.rank);
	st = dpi_ls_verify("metf", g, m, s.cont, metf_attempt, &s, p, placement,
			   err);
	if (!st)
		dp_progress_report(p, "metf", 1.0);
out:
	free(s.rank);
	free(wbar);
	free(cbar);
	return st;
}

DPI_ALGO_DEFINE(metf,
		"Baechi m-ETF: earliest-start (op, device) pairs, only "
		"where the op's memory fits",
		"Jeon et al., Baechi, SoCC 2020", metf_run);

/* listsched.c - heap, constraints, memory liveness and the verify loop shared
 * by the list-scheduling placers (see internal/listsched.h). */
#include "internal/listsched.h"
#include "internal/arrays.h"

#include "internal/algo_int.h"
#include "internal/grow.h"
#include "internal/minheap.h"

#include <stdlib.h>
#include <string.h>

#define NONE UINT32_MAX

/* ---- heap ---- */

static bool entry_less(const ls_entry *a, const ls_entry *b)
{
	if (a->key != b->key)
		return a->key < b->key;
	if (a->rank != b->rank)
		return a->rank > b->rank;
	if (a->tie != b->tie)
		return a->tie < b->tie;
	return a->op < b->op;
}

DPI_HEAP_DEFINE(entry_heap, ls_entry, entry_less)

int dpi_ls_ports_init(ls_ports *pt, int k)
{
	memset(pt, 0, sizeof *pt);
	pt->k = k;
	/* the three arrays of times in one block */
	pt->send_free = calloc(3 * (size_t)k + 1, sizeof *pt->send_free);
	pt->send_stamp = calloc((size_t)k, sizeof *pt->send_stamp);
	if (pt->send_free && pt->send_stamp) {
		pt->recv_free = pt->send_free + k;
		pt->send_tmp = pt->recv_free + k;
		return 0;
	}
	dpi_ls_ports_free(pt);
	return -1;
}

void dpi_ls_ports_free(ls_ports *pt)
{
	free(pt->send_free); /* with recv_free and send_tmp */
	free(pt->send_stamp);
	memset(pt, 0, sizeof *pt);
}

bool dpi_ls_ports_try(ls_ports *pt, int d)
{
	bool wrapped = ++pt->stamp == 0;
	if (wrapped) {
		memset(pt->send_stamp, 0,
		       (size_t)pt->k * sizeof *pt->send_stamp);
		pt->stamp = 1;
	}
	pt->send_tmp[pt->k] = pt->recv_free[d];
	return wrapped;
}

double dpi_ls_ports_xfer(ls_ports *pt, int src, int dst, double t, double dur,
			 bool reserve)
{
	double sf = pt->send_free[src];
	if (!reserve && pt->send_stamp[src] == pt->stamp)
		sf = pt->send_tmp[src];
	double rf = reserve ? pt->recv_free[dst] : pt->send_tmp[pt->k];
	if (sf > t)
		t = sf;
	if (rf > t)
		t = rf;
	if (reserve) {
		pt->send_free[src] = pt->recv_free[dst] = t + dur;
	} else {
		pt->send_tmp[src] = pt->send_tmp[pt->k] = t + dur;
		pt->send_stamp[src] = pt->stamp;
	}
	return t;
}

int dpi_ls_heap_push(ls_heap *h, ls_entry e)
{
	if (dpi_grow((void **)&h->a, &h->cap, h->len + 1, sizeof *h->a, 64))
		return -1;
	entry_heap_push(h->a, &h->len, e);
	return 0;
}

bool dpi_ls_heap_pop(ls_heap *h, ls_entry *out)
{
	if (!h->len)
		return false;
	*out = entry_heap_pop(h->a, &h->len);
	return true;
}

void dpi_ls_heap_free(ls_heap *h)
{
	free(h->a);
	h->a = NULL;
	h->len = h->cap = 0;
}

/* ---- constraints ---- */

dp_status dpi_ls_cons_init(ls_cons *c, const dp_graph *g, dp_err *err)
{
	c->g = g;
	c->forced = malloc(((size_t)g->nops + 1) * sizeof *c->forced);
	c->group_dev = malloc(((size_t)g->ngroups + 1) * sizeof *c->group_dev);
	if (!c->forced || !c->group_dev) {
		dpi_ls_cons_free(c);
		return dp_err_set(err, DP_ENOMEM, NULL, 0, 0,
				  "out of memory for the placement constraints "
				  "of %u ops",
				  g->nops);
	}
	for (uint32_t u = 0; u < g->nops; u++)
		c->forced[u] = g->ops[u].pin;
	/* a pin on any member pins the whole group */
	for (uint32_t grp = 0; grp < g->ngroups; grp++) {
		c->group_dev[grp] = -1;
		uint32_t lo = g->group_off[grp], hi = g->group_off[grp + 1];
		int32_t pin = dpi_algo_group_pin(g, grp);
		if (pin < 0)
			continue;
		for (uint32_t i = lo; i < hi; i++)
			if (c->forced[g->group_ops[i]] < 0)
				c->forced[g->group_ops[i]] = pin;
	}
	return DP_OK;
}

void dpi_ls_cons_free(ls_cons *c)
{
	free(c->forced);
	free(c->group_dev);
	c->forced = c->group_dev = NULL;
}

/* ---- memory liveness ---- */

static int64_t sat_add(int64_t a, int64_t b)
{
	if (b > 0 && a > INT64_MAX - b)
		return INT64_MAX;
	return a + b;
}

dp_status dpi_ls_mem_init(ls_mem *m, const dp_graph *g, int k,
			  const int32_t *dev, const int64_t *cap, dp_err *err)
{
	memset(m, 0, sizeof *m);
	m->g = g;
	m->k = k;
	m->dev = dev;
	m->cap = cap;
	m->in_op = NONE;
	size_t n = (size_t)g->nops + 1;
	uint32_t maxin = 1;
	for (uint32_t v = 0; v < g->nops; v++) {
		uint32_t d = g->pred_off[v + 1] - g->pred_off[v];
		if (d > maxin)
			maxin = d;
	}
	const dpi_arr arrs[] = {
		DPI_ARR0(m->params, (size_t)k), DPI_ARR0(m->cur, (size_t)k),
		DPI_ARR0(m->peak, (size_t)k),	DPI_ARR0(m->freed, (size_t)k),
		DPI_ARR0(m->open_cons, n),	DPI_ARR0(m->out_free, n),
		DPI_ARR(m->copy_head, n),	DPI_ARR0(m->stamp, n),
		DPI_ARR(m->in, (size_t)maxin),
	};
	if (dpi_arrays_alloc(arrs, DPI_NARR(arrs))) {
		dpi_ls_mem_free(m);
		return dp_err_set(err, DP_ENOMEM, NULL, 0, 0,
				  "out of memory for memory tracking of %u ops",
				  g->nops);
	}
	for (uint32_t e = 0; e < g->nedges; e++)
		if (!g->edges[e].control)
			m->open_cons[g->edges[e].from]++;
	for (uint32_t v = 0; v < g->nops; v++)
		m->copy_head[v] = NONE;
	return DP_OK;
}

void dpi_ls_mem_free(ls_mem *m)
{
	DPI_FREE_ALL(m->params, m->cur, m->peak, m->freed, m->open_cons,
		     m->out_free, m->copy_head, m->copies, m->stamp, m->in,
		     m->ev);
	memset(m, 0, sizeof *m);
}

void dpi_ls_mem_inputs(ls_mem *m, uint32_t v)
{
	if (m->in_op == v)
		return;
	const dp_graph *g = m->g;
	if (++m->stamp_gen == 0) {
		memset(m->stamp, 0, (size_t)g->nops * sizeof *m->stamp);
		m->stamp_gen = 1;
	}
	m->nin = 0;
	for (uint32_t i = g->pred_off[v]; i < g->pred_off[v + 1]; i++) {
		const dp_edge *e = &g->edges[g->pred_edge[i]];
		uint32_t u = e->from;
		ls_input *in;
		if (m->stamp[u] == m->stamp_gen) {
			/* a parallel edge: find its entry (rare) */
			in = m->in;
			while (in->u != u)
				in++;
		} else {
			m->stamp[u] = m->stamp_gen;
			in = &m->in[m->nin++];
			in->u = u;
			in->data = false;
			in->bytes = 0;
		}
		if (!e->control) {
			in->data = true;
			if (e->bytes > in->bytes)
				in->bytes = e->bytes;
		}
	}
	m->in_op = v;
}

ls_copy *dpi_ls_mem_copy(ls_mem *m, uint32_t u, int32_t d)
{
	for (uint32_t c = m->copy_head[u]; c != NONE; c = m->copies[c].next)
		if (m->copies[c].dev == d)
			return &m->copies[c];
	return NULL;
}

/* Overflow of placing v on d given the device's current other bytes cur. */
static int64_t over_with(ls_mem *m, uint32_t v, int32_t d, int64_t cur)
{
	if (m->cap[d] == DP_CAP_UNLIMITED)
		return -((int64_t)1 << 62);
	const dp_op *op = &m->g->ops[v];
	int64_t need = sat_add(op->output_bytes, op->temp_bytes);
	dpi_ls_mem_inputs(m, v);
	for (uint32_t i = 0; i < m->nin; i++) {
		const ls_input *in = &m->in[i];
		if (!in->data || m->dev[in->u] == d)
			continue;
		ls_copy *c = dpi_ls_mem_copy(m, in->u, d);
		if (!c)
			need = sat_add(need, in->bytes);
		else if (c->bytes < in->bytes)
			need = sat_add(need, in->bytes - c->bytes);
	}
	int64_t nonparam = sat_add(cur, need);
	if (m->peak[d] > nonparam)
		nonparam = m->peak[d];
	int64_t total =
		sat_add(sat_add(m->params[d], op->param_bytes), nonparam);
	return total - m->cap[d];
}

int64_t dpi_ls_mem_over(ls_mem *m, uint32_t v, int32_t d)
{
	return over_with(m, v, d, m->cur[d]);
}

int64_t dpi_ls_mem_over_at(ls_mem *m, uint32_t v, int32_t d, double t)
{
	int64_t cur = m->cur[d];
	for (uint32_t i = 0; i < m->nev; i++)
		if (m->ev[i].dev == d && m->ev[i].t <= t)
			cur -= m->ev[i].bytes;
	return over_with(m, v, d, cur);
}

bool dpi_ls_mem_never(const ls_mem *m, uint32_t v, int32_t d)
{
	if (m->cap[d] == DP_CAP_UNLIMITED)
		return false;
	int64_t base = sat_add(m->params[d], m->g->ops[v].param_bytes);
	return sat_add(base, m->peak[d]) > m->cap[d];
}

static bool ev_less(const ls_free_ev *a, const ls_free_ev *b)
{
	return a->t < b->t || (a->t == b->t && a->dev < b->dev);
}

DPI_HEAP_DEFINE(ev_heap, ls_free_ev, ev_less)

static void ev_pop(ls_mem *m)
{
	(void)ev_heap_pop(m->ev, &m->nev);
}

/* Releases bytes on dev at time t: now when t <= clock, else later. */
static int release(ls_mem *m, int32_t dev, int64_t bytes, double t)
{
	if (bytes <= 0)
		return 0;
	if (t <= m->clock) {
		m->cur[dev] -= bytes;
		m->freed[dev] = true;
		return 0;
	}
	if (dpi_grow((void **)&m->ev, &m->ev_cap, m->nev + 1, sizeof *m->ev,
		     64))
		return -1;
	ls_free_ev e = {t, dev, bytes};
	ev_heap_push(m->ev, &m->nev, e);
	return 0;
}

void dpi_ls_mem_advance(ls_mem *m, double t)
{
	if (t > m->clock)
		m->clock = t;
	while (m->nev && m->ev[0].t <= m->clock) {
		m->cur[m->ev[0].dev] -= m->ev[0].bytes;
		m->freed[m->ev[0].dev] = true;
		ev_pop(m);
	}
}

double dpi_ls_mem_next_release(const ls_mem *m)
{
	return m->nev ? m->ev[0].t : -1.0;
}

static void alloc_bytes(ls_mem *m, int32_t d, int64_t bytes)
{
	m->cur[d] = sat_add(m->cur[d], bytes);
	if (m->cur[d] > m->peak[d])
		m->peak[d] = m->cur[d];
}

int dpi_ls_mem_add_copy(ls_mem *m, uint32_t u, int32_t d, int64_t bytes,
			double xfer_start, double xfer_end)
{
	if (xfer_end > m->out_free[u])
		m->out_free[u] = xfer_end;
	ls_copy *c = dpi_ls_mem_copy(m, u, d);
	if (c) {
		if (bytes > c->bytes) {
			alloc_bytes(m, d, bytes - c->bytes);
			c->bytes = bytes;
		}
		return 0;
	}
	if (dpi_grow((void **)&m->copies, &m->copies_cap, m->ncopies + 1,
		     sizeof *m->copies, 64))
		return -1;
	uint32_t id = m->ncopies++;
	m->copies[id] = (ls_copy){.dev = d,
				  .next = m->copy_head[u],
				  .bytes = bytes,
				  .xfer_start = xfer_start,
				  .xfer_end = xfer_end,
				  .free_at = xfer_end};
	m->copy_head[u] = id;
	alloc_bytes(m, d, bytes);
	return 0;
}

/* u's last consumer is placed: its output and copies get release times. */
static int close_output(ls_mem *m, uint32_t u)
{
	if (release(m, m->dev[u], m->g->ops[u].output_bytes, m->out_free[u]))
		return -1;
	for (uint32_t c = m->copy_head[u]; c != NONE; c = m->copies[c].next)
		if (release(m, m->copies[c].dev, m->copies[c].bytes,
			    m->copies[c].free_at))
			return -1;
	return 0;
}

int dpi_ls_mem_place(ls_mem *m, uint32_t v, double s, double f)
{
	const dp_graph *g = m->g;
	const dp_op *op = &g->ops[v];
	int32_t d = m->dev[v];
	dpi_ls_mem_advance(m, s);
	m->params[d] = sat_add(m->params[d], op->param_bytes);
	/* docs/simulator.md, "Memory": the output lives from the op's start
	 * until its last local consumer and its last outgoing transfer end (a
	 * graph output until its own end); temp while it runs. An interval that
	 * ends by the clock is empty and allocates nothing. */
	m->out_free[v] = f;
	if (m->open_cons[v] > 0) {
		alloc_bytes(m, d, op->output_bytes);
	} else if (f > m->clock) {
		alloc_bytes(m, d, op->output_bytes);
		if (release(m, d, op->output_bytes, f))
			return -1;
	}
	if (f > m->clock) {
		alloc_bytes(m, d, op->temp_bytes);
		if (release(m, d, op->temp_bytes, f))
			return -1;
	}
	for (uint32_t i = g->pred_off[v]; i < g->pred_off[v + 1]; i++) {
		const dp_edge *e = &g->edges[g->pred_edge[i]];
		if (e->control)
			continue;
		uint32_t u = e->from;
		if (m->dev[u] == d) {
			if (f > m->out_free[u])
				m->out_free[u] = f;
		} else {
			ls_copy *c = dpi_ls_mem_copy(m, u, d);
			if (c && f > c->free_at)
				c->free_at = f;
		}
		if (--m->open_cons[u] == 0 && close_output(m, u))
			return -1;
	}
	return 0;
}

/* ---- helpers ---- */

void dpi_ls_upward_ranks(const dp_graph *g, const double *wbar,
			 const double *cbar, double *rank)
{
	for (uint32_t i = g->nops; i-- > 0;) {
		uint32_t u = g->topo[i];
		double best = 0.0;
		for (uint32_t j = g->succ_off[u]; j < g->succ_off[u + 1]; j++) {
			uint32_t e = g->succ_edge[j];
			double r = cbar[e] + rank[g->edges[e].to];
			if (r > best)
				best = r;
		}
		rank[u] = wbar[u] + best;
	}
}

/* ---- verify ---- */

typedef struct attempt_score {
	bool feasible;
	double makespan;
	int64_t overflow; /* sum over devices of peak - cap where positive */
} attempt_score;

static bool score_better(const attempt_score *a, const attempt_score *b)
{
	if (a->feasible != b->feasible)
		return a->feasible;
	if (!a->feasible && a->overflow != b->overflow)
		return a->overflow < b->overflow;
	return a->makespan < b->makespan;
}

#define VERIFY_ROUNDS 5

dp_status dpi_ls_verify(const char *algo, const dp_graph *g,
			const dp_machine *m, dp_contention c,
			ls_attempt_fn attempt, void *ctx, const dp_progress *p,
			int32_t *placement, dp_err *err)
{
	dp_status st = DP_OK;
	int k = m->k;
	int64_t *budget = malloc((size_t)k * sizeof *budget);
	int32_t *try = malloc(((size_t)g->nops + 1) * sizeof *try);
	dp_sim_result r;
	memset(&r, 0, sizeof r);
	dp_sim *sim = NULL;
	if (!budget || !try) {
		st = dp_err_set(err, DP_ENOMEM, NULL, 0, 0,
				"out of memory for a placement of %u ops",
				g->nops);
		goto out;
	}
	memcpy(budget, m->cap, (size_t)k * sizeof *budget);
	sim = dp_sim_new(g, m, err);
	if (!sim) {
		st = err ? err->code : DP_ENOMEM;
		goto out;
	}
	dp_sim_opts so = {.contention = c, .detail = false};
	attempt_score best = {false, 0, INT64_MAX};
	bool have = false;
	for (int round = 0; round < VERIFY_ROUNDS; round++) {
		bool overflowed = false;
		st = attempt(ctx, budget, try, &overflowed, err);
		if (st)
			goto out;
		if (dp_progress_canceled(p)) {
			st = dpi_canceled(err, algo);
			goto out;
		}
		st = dp_sim_run(sim, try, &so, &r, err);
		if (st)
			goto out;
		attempt_score sc = {r.feasible, r.makespan, 0};
		for (int d = 0; d < k; d++)
			if (r.dev[d].peak_bytes > m->cap[d])
				sc.overflow = sat_add(sc.overflow,
						      r.dev[d].peak_bytes -
							      m->cap[d]);
		if (!have || score_better(&sc, &best)) {
			best = sc;
			have = true;
			memcpy(placement, try, (size_t)g->nops * sizeof *try);
		}
		if (sc.feasible || overflowed)
			break;
		/* The attempt found room for every op in its own order, but the
		 * simulator's order (by upward rank) peaks higher: ask the
		 * attempt to leave that much more room on those devices. */
		bool changed = false;
		for (int d = 0; d < k; d++) {
			int64_t ov = r.dev[d].peak_bytes - m->cap[d];
			if (ov <= 0 || budget[d] == DP_CAP_UNLIMITED)
				continue;
			budget[d] = budget[d] > ov ? budget[d] - ov : 0;
			changed = true;
		}
		if (!changed)
			break;
		dp_progress_report(p, "verify", (round + 1.0) / VERIFY_ROUNDS);
	}
out:
	dp_sim_result_free(&r);
	if (sim)
		dp_sim_free(sim);
	free(budget);
	free(try);
	return st;
}

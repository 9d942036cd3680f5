/* sim.c - the discrete-event simulator: setup, priorities and the event loop
 * (see sim.h, DESIGN.md 3.1 and docs/simulator.md). Memory accounting is in
 * sim_memory.c, the schedule's critical path in sim_path.c.
 *
 * The loop keeps, per op, the number of producers that have not ended yet
 * and the latest arrival time seen so far. Every arrival time is known the
 * moment its producer ends (a transfer's start and end are fixed when it is
 * created, even under port contention), so an op needs one queue entry at
 * most: when its last producer ends, it is either available at once or at
 * its latest arrival. That keeps a run at O((V + E) log V).
 */
#include "sim.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "internal/sim_int.h"

static dp_status nomem(dp_err *err, const char *what)
{
	return dp_err_set(err, DP_ENOMEM, NULL, 0, 0,
			  "out of memory while allocating %s for the simulator",
			  what);
}

int sim_grow(void **p, uint32_t *cap, uint64_t need, size_t elem)
{
	if (need <= *cap)
		return 0;
	if (need > UINT32_MAX)
		return -1;
	uint64_t nc = *cap ? (uint64_t)*cap + *cap / 2 : 64;
	if (nc < need)
		nc = need;
	if (nc > UINT32_MAX)
		nc = UINT32_MAX;
	void *q = realloc(*p, (size_t)nc * elem);
	if (!q)
		return -1;
	*p = q;
	*cap = (uint32_t)nc;
	return 0;
}

/* ---- the event queue: a binary min-heap on (t, key) ---- */

static inline int ev_less(const sim_event *a, const sim_event *b)
{
	return a->t < b->t || (a->t == b->t && a->key < b->key);
}

static inline void ev_push(dp_sim *s, double t, uint32_t key)
{
	sim_event e = {t, key};
	uint32_t i = s->nev++;
	while (i > 0) {
		uint32_t p = (i - 1) / 2;
		if (!ev_less(&e, &s->ev[p]))
			break;
		s->ev[i] = s->ev[p];
		i = p;
	}
	s->ev[i] = e;
}

static inline sim_event ev_pop(dp_sim *s)
{
	sim_event top = s->ev[0], e = s->ev[--s->nev];
	uint32_t i = 0, n = s->nev;
	for (;;) {
		uint32_t c = 2 * i + 1;
		if (c >= n)
			break;
		if (c + 1 < n && ev_less(&s->ev[c + 1], &s->ev[c]))
			c++;
		if (!ev_less(&s->ev[c], &e))
			break;
		s->ev[i] = s->ev[c];
		i = c;
	}
	s->ev[i] = e;
	return top;
}

/* ---- ready heaps: per device, a min-heap of priority indices ---- */

static inline void ready_push(uint32_t *h, uint32_t *len, uint32_t p)
{
	uint32_t i = (*len)++;
	while (i > 0) {
		uint32_t q = (i - 1) / 2;
		if (h[q] <= p)
			break;
		h[i] = h[q];
		i = q;
	}
	h[i] = p;
}

static inline uint32_t ready_pop(uint32_t *h, uint32_t *len)
{
	uint32_t top = h[0], v = h[--(*len)], i = 0, n = *len;
	for (;;) {
		uint32_t c = 2 * i + 1;
		if (c >= n)
			break;
		if (c + 1 < n && h[c + 1] < h[c])
			c++;
		if (v <= h[c])
			break;
		h[i] = h[c];
		i = c;
	}
	h[i] = v;
	return top;
}

/* ---- setup ---- */

void sim_free(dp_sim *s)
{
	if (!s)
		return;
	free(s->rank);
	free(s->prio);
	free(s->by_prio);
	free(s->ptime);
	free(s->indeg);
	free(s->succ_to);
	free(s->succ_bytes);
	free(s->out_bytes);
	free(s->node);
	free(s->prev_on_dev);
	free(s->xoff);
	free(s->xnum);
	free(s->outfree);
	free(s->ready);
	free(s->ev);
	free(s->rbase);
	free(s->rlen);
	free(s->running);
	free(s->last);
	free(s->send_free);
	free(s->recv_free);
	free(s->xend);
	free(s->xbytes);
	free(s->xidx);
	free(s->touched);
	free(s->dirty_flag);
	free(s->dirty);
	free(s->level);
	free(s->last_t);
	free(s->dcount);
	free(s->copyfree);
	free(s->mev);
	free(s->mtmp);
	free(s->hist);
	free(s);
}

static dp_status check_machine(const dp_machine *m, dp_err *err)
{
	if (m->k < 1 || m->k > DP_MAX_DEVICES)
		return dp_err_set(err, DP_EINPUT, NULL, 0, 0,
				  "the machine has %d devices; expected 1..%d",
				  m->k, DP_MAX_DEVICES);
	if (!m->cap || !m->speed)
		return dp_err_set(err, DP_EINTERNAL, NULL, 0, 0,
				  "the machine has no cap or speed array");
	for (int d = 0; d < m->k; d++)
		if (!(m->speed[d] > 0) || !isfinite(m->speed[d]))
			return dp_err_set(err, DP_EINPUT, NULL, 0, 0,
					  "device %d has speed %g; expected a "
					  "finite number > 0",
					  d, m->speed[d]);
	if (!(m->bw > 0) || !isfinite(m->bw))
		return dp_err_set(err, DP_EINPUT, NULL, 0, 0,
				  "link bandwidth is %g bytes/us; expected a "
				  "finite number > 0",
				  m->bw);
	if (!(m->lat >= 0) || !isfinite(m->lat))
		return dp_err_set(err, DP_EINPUT, NULL, 0, 0,
				  "link latency is %g us; expected a finite "
				  "number >= 0",
				  m->lat);
	return DP_OK;
}

/* The memory sweep packs a device number and a byte count into one word and
 * adds sizes in int64: refuse graphs whose sizes could overflow either. */
static dp_status check_sizes(const dp_sim *s, dp_err *err)
{
	const dp_graph *g = s->g;
	double total = 0;
	for (uint32_t u = 0; u < s->n; u++) {
		const dp_op *op = &g->ops[u];
		int64_t big = s->out_bytes[u];
		const char *what = "output";
		if (op->temp_bytes > big) {
			big = op->temp_bytes;
			what = "temp";
		}
		if (op->param_bytes > big) {
			big = op->param_bytes;
			what = "param";
		}
		if (big >= SIM_MAX_TENSOR)
			return dp_err_set(err, DP_EINPUT, g->source, 0, 0,
					  "op '%s' has %s of %lld bytes; the "
					  "simulator handles tensors below 2^53 "
					  "bytes (8 PiB)",
					  graph_op_name(g, u), what,
					  (long long)big);
		total += (double)op->param_bytes + (double)op->temp_bytes +
			 (double)s->k * (double)s->out_bytes[u];
	}
	if (total > 4e18)
		return dp_err_set(err, DP_EINPUT, g->source, 0, 0,
				  "the graph's tensors add up to %.3g bytes; "
				  "the simulator adds sizes up to 4e18 bytes",
				  total);
	return DP_OK;
}

typedef struct prio_key {
	double rank;
	uint32_t pos, op;
} prio_key;

/* Higher rank first; equal ranks: smaller topological index first. */
static int prio_cmp(const void *a, const void *b)
{
	const prio_key *x = a, *y = b;
	if (x->rank != y->rank)
		return x->rank > y->rank ? -1 : 1;
	return x->pos < y->pos ? -1 : x->pos > y->pos;
}

/* Upward rank (DESIGN 3.1, after HEFT, Topcuoglu et al. 2002):
 * rank(u) = time_us(u) / mean_speed + max over successors v of
 * (cbar(u,v) + rank(v)), cbar = (K-1)/K * (lat + bytes/bw) with uniform
 * links (lat alone for control edges). Then each op gets its position in
 * the priority order, so ready heaps compare plain integers. */
static dp_status compute_priorities(dp_sim *s, dp_err *err)
{
	const dp_graph *g = s->g;
	const dp_machine *m = s->m;
	double sum_speed = 0;
	for (int d = 0; d < s->k; d++)
		sum_speed += m->speed[d];
	double mean_speed = sum_speed / s->k;
	double f = (double)(s->k - 1) / (double)s->k;
	for (uint32_t i = s->n; i-- > 0;) {
		uint32_t u = g->topo[i];
		double best = 0;
		for (uint32_t j = g->succ_off[u]; j < g->succ_off[u + 1]; j++) {
			uint32_t v = s->succ_to[j] & ~SIM_CTRL;
			double c = 0;
			if (s->k > 1)
				c = (s->succ_to[j] & SIM_CTRL)
					    ? f * s->lat
					    : f * (s->lat + (double)s->succ_bytes[j] /
								    s->bw);
			if (c + s->rank[v] > best)
				best = c + s->rank[v];
		}
		s->rank[u] = g->ops[u].time_us / mean_speed + best;
	}
	prio_key *keys = malloc((size_t)(s->n ? s->n : 1) * sizeof *keys);
	if (!keys)
		return nomem(err, "priorities");
	for (uint32_t u = 0; u < s->n; u++)
		keys[u] = (prio_key){s->rank[u], g->topo_pos[u], u};
	qsort(keys, s->n, sizeof *keys, prio_cmp);
	for (uint32_t p = 0; p < s->n; p++) {
		s->by_prio[p] = keys[p].op;
		s->prio[keys[p].op] = p;
		s->ptime[p] = g->ops[keys[p].op].time_us;
	}
	free(keys);
	return DP_OK;
}

dp_sim *sim_new(const dp_graph *g, const dp_machine *m, dp_err *err)
{
	if (!g || !g->finalized) {
		dp_err_set(err, DP_EINTERNAL, NULL, 0, 0,
			   "the simulator needs a finalized graph");
		return NULL;
	}
	if (!m || check_machine(m, err) != DP_OK) {
		if (!m)
			dp_err_set(err, DP_EINTERNAL, NULL, 0, 0,
				   "the simulator needs a machine");
		return NULL;
	}
	dp_sim *s = calloc(1, sizeof *s);
	if (!s) {
		nomem(err, "its state");
		return NULL;
	}
	s->g = g;
	s->m = m;
	s->k = m->k;
	s->n = g->nops;
	s->lat = m->lat;
	s->bw = m->bw;
	size_t n = s->n ? s->n : 1, ne = g->nedges ? g->nedges : 1;
	size_t k = (size_t)s->k;
	s->rank = malloc(n * sizeof *s->rank);
	s->prio = malloc(n * sizeof *s->prio);
	s->by_prio = malloc(n * sizeof *s->by_prio);
	s->ptime = malloc(n * sizeof *s->ptime);
	s->indeg = malloc(n * sizeof *s->indeg);
	s->succ_to = malloc(ne * sizeof *s->succ_to);
	s->succ_bytes = malloc(ne * sizeof *s->succ_bytes);
	s->out_bytes = malloc(n * sizeof *s->out_bytes);
	s->node = malloc(n * sizeof *s->node);
	s->prev_on_dev = malloc(n * sizeof *s->prev_on_dev);
	s->xoff = malloc(n * sizeof *s->xoff);
	s->xnum = malloc(n * sizeof *s->xnum);
	s->outfree = malloc(n * sizeof *s->outfree);
	s->ready = malloc(n * sizeof *s->ready);
	s->ev = malloc((n + k) * sizeof *s->ev);
	s->rbase = malloc(k * sizeof *s->rbase);
	s->rlen = malloc(k * sizeof *s->rlen);
	s->running = malloc(k * sizeof *s->running);
	s->last = malloc(k * sizeof *s->last);
	s->send_free = malloc(k * sizeof *s->send_free);
	s->recv_free = malloc(k * sizeof *s->recv_free);
	s->xend = malloc(k * sizeof *s->xend);
	s->xbytes = malloc(k * sizeof *s->xbytes);
	s->xidx = malloc(k * sizeof *s->xidx);
	s->touched = malloc(k * sizeof *s->touched);
	s->dirty_flag = calloc(k, sizeof *s->dirty_flag);
	s->dirty = malloc(k * sizeof *s->dirty);
	s->level = malloc(k * sizeof *s->level);
	s->last_t = malloc(k * sizeof *s->last_t);
	s->dcount = malloc((k + 1) * sizeof *s->dcount);
	s->hist = malloc(6 * 2048 * sizeof *s->hist);
	if (!s->rank || !s->prio || !s->by_prio || !s->ptime || !s->indeg ||
	    !s->succ_to || !s->succ_bytes || !s->out_bytes || !s->node ||
	    !s->prev_on_dev || !s->xoff || !s->xnum || !s->outfree ||
	    !s->ready || !s->ev || !s->rbase || !s->rlen || !s->running ||
	    !s->last || !s->send_free || !s->recv_free || !s->xend ||
	    !s->xbytes || !s->xidx || !s->touched || !s->dirty_flag ||
	    !s->dirty || !s->level || !s->last_t || !s->dcount || !s->hist) {
		nomem(err, "per-op buffers");
		sim_free(s);
		return NULL;
	}
	/* compact successor lists: one sequential walk per ending op */
	for (uint32_t u = 0; u < s->n; u++) {
		int64_t ob = g->ops[u].output_bytes;
		for (uint32_t j = g->succ_off[u]; j < g->succ_off[u + 1]; j++) {
			const dp_edge *e = &g->edges[g->succ_edge[j]];
			s->succ_to[j] = e->to | (e->control ? SIM_CTRL : 0);
			s->succ_bytes[j] = e->control ? 0 : e->bytes;
			if (!e->control && e->bytes > ob)
				ob = e->bytes;
		}
		s->out_bytes[u] = ob;
		s->indeg[u] = g->pred_off[u + 1] - g->pred_off[u];
	}
	for (int d = 0; d < s->k; d++)
		s->xbytes[d] = -1;
	if (check_sizes(s, err) != DP_OK || compute_priorities(s, err) != DP_OK) {
		sim_free(s);
		return NULL;
	}
	return s;
}

const double *sim_ranks(const dp_sim *s)
{
	return s->rank;
}

/* ---- result buffers ---- */

void sim_result_free(dp_sim_result *r)
{
	if (!r)
		return;
	free(r->start);
	free(r->end);
	free(r->avail);
	free(r->xfers);
	free(r->dev);
	free(r->cp_ops);
	free(r->cp_cause);
	free(r->live);
	free(r->live_off);
	free(r->curve);
	free(r->curve_off);
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
			return nomem(err, "the schedule");
		r->cap_ops = n;
	}
	if (r->cap_k < k) {
		size_t kk = (size_t)k;
		if (resize((void **)&r->dev, kk, sizeof *r->dev) ||
		    resize((void **)&r->live_off, kk + 1, sizeof *r->live_off) ||
		    resize((void **)&r->curve_off, kk + 1, sizeof *r->curve_off))
			return nomem(err, "device statistics");
		r->cap_k = k;
	}
	if (detail && r->cap_cp < n) {
		if (resize((void **)&r->cp_ops, n, sizeof *r->cp_ops) ||
		    resize((void **)&r->cp_cause, n, sizeof *r->cp_cause))
			return nomem(err, "the critical path");
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
 * consumer (DESIGN 3.1, "Transfers" and "Arrival"). */
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
		if (s->xbytes[b] < 0) {
			s->touched[nt++] = b;
			s->xbytes[b] = s->succ_bytes[i];
		} else if (s->succ_bytes[i] > s->xbytes[b]) {
			s->xbytes[b] = s->succ_bytes[i];
		}
	}
	s->xoff[u] = r->nxfers;
	s->xnum[u] = (uint16_t)nt;
	if (nt) {
		order_targets(s, nt);
		if (sim_grow((void **)&r->xfers, &r->cap_xfers,
			     (uint64_t)r->nxfers + nt, sizeof *r->xfers))
			return nomem(err, "transfers");
		for (uint32_t i = 0; i < nt; i++) {
			uint32_t b = s->touched[i];
			int64_t bytes = s->xbytes[b];
			double c = machine_comm(s->m, (int)d, (int)b, bytes);
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
		r->dev[d].cap_bytes = s->m->cap[d];
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

dp_status sim_run(dp_sim *s, const int32_t *placement, const dp_sim_opts *o,
		  dp_sim_result *r, dp_err *err)
{
	dp_sim_opts def = {DP_CONT_PORT, false};
	if (!o)
		o = &def;
	if (o->contention != DP_CONT_PORT && o->contention != DP_CONT_NONE)
		return dp_err_set(err, DP_EINTERNAL, NULL, 0, 0,
				  "unknown contention model %d",
				  (int)o->contention);
	for (uint32_t u = 0; u < s->n; u++)
		if (placement[u] < 0 || placement[u] >= s->k)
			return dp_err_set(err, DP_EINPUT, s->g->source, 0, 0,
					  "op '%s' is placed on device %d; "
					  "expected a device in 0..%d",
					  graph_op_name(s->g, u), placement[u],
					  s->k - 1);
	dp_status st = result_reserve(r, s->n, s->k, o->detail, err);
	if (st)
		return st;
	run_reset(s, placement, r);
	st = run_schedule(s, placement, o->contention, r, err);
	if (!st)
		st = sim_memory(s, placement, o->detail, r, err);
	if (!st && o->detail)
		st = sim_critical_path(s, placement, r, err);
	return st;
}

/* ---- bounds and names ---- */

dp_status sim_bounds_checked(const dp_graph *g, const dp_machine *m,
			     dp_bounds *b, dp_err *err)
{
	double sum = 0, max = 0;
	for (int d = 0; d < m->k; d++) {
		sum += m->speed[d];
		if (m->speed[d] > max)
			max = m->speed[d];
	}
	memset(b, 0, sizeof *b);
	uint32_t len = 0;
	double cp = graph_critical_path(g, max, NULL, &len);
	dp_status st = DP_OK;
	if (cp < 0) {
		cp = 0;
		st = nomem(err, "the graph critical path");
	}
	b->graph_cp_us = cp;
	b->work_bound_us = sum > 0 ? g->total_time_us / sum : 0;
	b->lb_us = b->graph_cp_us > b->work_bound_us ? b->graph_cp_us
						     : b->work_bound_us;
	b->one_device_us = m->k > 0 ? g->total_time_us / m->speed[0] : 0;
	return st;
}

void sim_bounds(const dp_graph *g, const dp_machine *m, dp_bounds *b)
{
	sim_bounds_checked(g, m, b, NULL);
}

const char *sim_contention_name(dp_contention c)
{
	return c == DP_CONT_NONE ? "none" : "port";
}

dp_status sim_contention_parse(const char *s, dp_contention *c, dp_err *err)
{
	if (s && strcmp(s, "port") == 0) {
		*c = DP_CONT_PORT;
		return DP_OK;
	}
	if (s && strcmp(s, "none") == 0) {
		*c = DP_CONT_NONE;
		return DP_OK;
	}
	return dp_err_set(err, DP_EINPUT, NULL, 0, 0,
			  "unknown contention model '%s'; expected 'port' "
			  "(one send and one receive at a time per device) or "
			  "'none' (transfers never wait)",
			  s ? s : "");
}

const char *sim_hop_cause_name(dp_hop_cause c)
{
	switch (c) {
	case DP_HOP_START:
		return "start";
	case DP_HOP_DATA:
		return "data";
	case DP_HOP_TRANSFER:
		return "transfer";
	case DP_HOP_DEVICE:
		return "device";
	}
	return "?";
}

const char *sim_mem_kind_name(dp_mem_kind k)
{
	switch (k) {
	case DP_MEM_PARAM:
		return "param";
	case DP_MEM_OUTPUT:
		return "output";
	case DP_MEM_COPY:
		return "copy";
	case DP_MEM_TEMP:
		return "temp";
	}
	return "?";
}

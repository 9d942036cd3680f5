/* sim_memory.c - time-resolved memory per device (docs/simulator.md,
 * "Memory"): peaks always; when asked, the tensors live at each peak and
 * the memory curves. A run with skip_memory calls dpi_sim_memory_skipped()
 * instead.
 *
 * Every tensor is a half-open interval [alloc, free) of bytes on a device:
 *   output of u on dev(u): [start(u), max(end(u), ends of its local data
 *     consumers, ends of its outgoing transfers)), of out_bytes(u) bytes;
 *   copy of u on b:   [transfer start, max(transfer end, ends of u's data
 *     consumers on b)), of the transfer's bytes;
 *   temp of u:        [start(u), end(u)), of temp_bytes(u);
 *   params:           the whole step, the base level of the device.
 * Empty intervals count nothing. The allocations and frees are sorted once
 * (radix sort on the time's bit pattern, frees first at one instant) and
 * swept; the peak is the highest level, its time the first instant reached.
 */
#include <stdlib.h>
#include <string.h>

#include "internal/nomem.h"
#include "internal/sim_int.h"

/* Non-negative doubles order like their bit patterns. */
static inline uint64_t time_bits(double t)
{
	uint64_t b;
	if (t == 0)
		t = 0; /* no -0 */
	memcpy(&b, &t, sizeof b);
	return b;
}

static inline double key_time(uint64_t key)
{
	uint64_t b = key >> 1;
	double t;
	memcpy(&t, &b, sizeof t);
	return t;
}

static inline void add_event(sim_mem_event *ev, size_t *n, double t, bool alloc,
			     uint32_t dev, int64_t bytes)
{
	ev[*n].key = time_bits(t) << 1 | (alloc ? 1u : 0u);
	ev[*n].val = (uint64_t)dev << 53 | (uint64_t)bytes;
	(*n)++;
}

#define RADIX_BITS 11
#define RADIX_SIZE (1u << RADIX_BITS)
#define RADIX_PASSES 6 /* 6 x 11 bits cover the 64-bit key */

/* LSD radix sort of n events by key (stable); returns the buffer that holds
 * the sorted events (a or tmp). Passes where every key has the same digit
 * are skipped. */
static sim_mem_event *radix_sort(sim_mem_event *a, sim_mem_event *tmp, size_t n,
				 uint32_t *hist)
{
	if (n < 2)
		return a;
	memset(hist, 0, RADIX_PASSES * RADIX_SIZE * sizeof *hist);
	for (size_t i = 0; i < n; i++) {
		uint64_t k = a[i].key;
		for (int p = 0; p < RADIX_PASSES; p++)
			hist[p * RADIX_SIZE +
			     ((k >> (p * RADIX_BITS)) & (RADIX_SIZE - 1))]++;
	}
	for (int p = 0; p < RADIX_PASSES; p++) {
		uint32_t *h = hist + p * RADIX_SIZE;
		int sh = p * RADIX_BITS;
		if (h[(a[0].key >> sh) & (RADIX_SIZE - 1)] == n)
			continue;
		uint32_t sum = 0;
		for (uint32_t b = 0; b < RADIX_SIZE; b++) {
			uint32_t c = h[b];
			h[b] = sum;
			sum += c;
		}
		for (size_t i = 0; i < n; i++)
			tmp[h[(a[i].key >> sh) & (RADIX_SIZE - 1)]++] = a[i];
		sim_mem_event *x = a;
		a = tmp;
		tmp = x;
	}
	return a;
}

/* When each output and each received copy is freed. */
static dp_status free_times(dp_sim *s, const int32_t *pl, dp_sim_result *r,
			    dp_err *err)
{
	const dp_graph *g = s->g;
	if (dpi_grow((void **)&s->copyfree, &s->cap_copyfree, r->nxfers,
		     sizeof *s->copyfree, 64))
		return dpi_nomem(err, "allocating %s for the simulator", "transfer free times");
	for (uint32_t u = 0; u < s->n; u++) {
		uint32_t d = (uint32_t)pl[u];
		uint32_t x0 = s->xoff[u], xn = s->xnum[u];
		double f = r->end[u];
		for (uint32_t j = 0; j < xn; j++) {
			const dp_transfer *x = &r->xfers[x0 + j];
			s->xidx[x->dst] = x0 + j;
			s->copyfree[x0 + j] = x->end;
			if (x->end > f)
				f = x->end;
		}
		for (uint32_t i = g->succ_off[u]; i < g->succ_off[u + 1]; i++) {
			uint32_t w = s->succ_to[i];
			if (w & SIM_CTRL)
				continue;
			uint32_t b = (uint32_t)pl[w];
			double e = r->end[w];
			if (b == d) {
				if (e > f)
					f = e;
			} else if (e > s->copyfree[s->xidx[b]]) {
				s->copyfree[s->xidx[b]] = e;
			}
		}
		s->outfree[u] = f;
	}
	return DP_OK;
}

/* Collects the non-empty intervals as events; returns their count. The
 * output and temp of an op are allocated at the same instant on the same
 * device, so they share one allocation event. */
static size_t collect_events(dp_sim *s, const int32_t *pl,
			     const dp_sim_result *r)
{
	const dp_graph *g = s->g;
	sim_mem_event *ev = s->mev;
	size_t n = 0;
	for (uint32_t u = 0; u < s->n; u++) {
		uint32_t d = (uint32_t)pl[u];
		double st = r->start[u], en = r->end[u], f = s->outfree[u];
		int64_t ob = s->out_bytes[u], tb = g->ops[u].temp_bytes;
		int64_t a = 0;
		if (ob > 0 && f > st) {
			a += ob;
			add_event(ev, &n, f, false, d, ob);
		}
		if (tb > 0 && en > st) {
			a += tb;
			add_event(ev, &n, en, false, d, tb);
		}
		if (a > 0)
			add_event(ev, &n, st, true, d, a);
	}
	for (uint32_t i = 0; i < r->nxfers; i++) {
		const dp_transfer *x = &r->xfers[i];
		if (x->bytes > 0 && s->copyfree[i] > x->start) {
			add_event(ev, &n, x->start, true, (uint32_t)x->dst,
				  x->bytes);
			add_event(ev, &n, s->copyfree[i], false,
				  (uint32_t)x->dst, x->bytes);
		}
	}
	return n;
}

/* Memory curves: per device, (0, params) and then the level after each
 * instant at which it changes; params leave at the makespan. */
static dp_status build_curves(dp_sim *s, const sim_mem_event *ev, size_t n,
			      dp_sim_result *r, dp_err *err)
{
	int k = s->k;
	for (int d = 0; d < k; d++) {
		s->dcount[d] = 1;
		s->last_t[d] = 0;
	}
	for (size_t i = 0; i < n; i++) {
		uint32_t d = (uint32_t)(ev[i].val >> 53);
		double t = key_time(ev[i].key);
		if (t != s->last_t[d]) {
			s->dcount[d]++;
			s->last_t[d] = t;
		}
	}
	uint64_t total = 0;
	for (int d = 0; d < k; d++) {
		if (r->makespan > 0 && s->last_t[d] != r->makespan)
			s->dcount[d]++;
		r->curve_off[d] = (uint32_t)total;
		total += s->dcount[d];
	}
	r->curve_off[k] = (uint32_t)total;
	if (dpi_grow((void **)&r->curve, &r->cap_curve, total, sizeof *r->curve,
		     64))
		return dpi_nomem(err, "allocating %s for the simulator", "memory curves");
	/* dcount[d] becomes the index of d's current point */
	for (int d = 0; d < k; d++) {
		uint32_t p = r->curve_off[d];
		s->dcount[d] = p;
		s->last_t[d] = 0;
		s->level[d] = r->dev[d].param_bytes;
		r->curve[p] = (dp_mem_point){0, s->level[d]};
	}
	for (size_t i = 0; i < n; i++) {
		uint32_t d = (uint32_t)(ev[i].val >> 53);
		int64_t b = (int64_t)(ev[i].val & (SIM_MAX_TENSOR - 1));
		double t = key_time(ev[i].key);
		s->level[d] += (ev[i].key & 1) ? b : -b;
		if (t != s->last_t[d]) {
			s->dcount[d]++;
			s->last_t[d] = t;
			r->curve[s->dcount[d]].t = t;
		}
		r->curve[s->dcount[d]].bytes = s->level[d];
	}
	for (int d = 0; d < k; d++) {
		if (r->makespan <= 0)
			continue;
		if (s->last_t[d] != r->makespan)
			r->curve[++s->dcount[d]].t = r->makespan;
		r->curve[s->dcount[d]].bytes = 0;
	}
	return DP_OK;
}

static inline bool live_at(double alloc, double free, double p)
{
	return alloc < free && alloc <= p && p < free;
}

/* The tensors live at each device's peak: per device, ops in id order
 * (param, output, temp), then received copies in transfer order. The
 * first pass counts, the second fills. */
static dp_status build_live(dp_sim *s, const int32_t *pl, dp_sim_result *r,
			    dp_err *err)
{
	const dp_graph *g = s->g;
	int k = s->k;
	dp_live_tensor *out = NULL;
	for (int pass = 0; pass < 2; pass++) {
		memset(s->dcount, 0, (size_t)k * sizeof *s->dcount);
		for (uint32_t u = 0; u < s->n; u++) {
			uint32_t d = (uint32_t)pl[u];
			double p = r->dev[d].peak_time;
			const dp_op *op = &g->ops[u];
			double st = r->start[u], en = r->end[u];
			dp_live_tensor e[3];
			int ne = 0;
			if (op->param_bytes > 0)
				e[ne++] = (dp_live_tensor){u, DP_MEM_PARAM,
							   op->param_bytes, 0,
							   r->makespan};
			if (s->out_bytes[u] > 0 &&
			    live_at(st, s->outfree[u], p))
				e[ne++] = (dp_live_tensor){u, DP_MEM_OUTPUT,
							   s->out_bytes[u], st,
							   s->outfree[u]};
			if (op->temp_bytes > 0 && live_at(st, en, p))
				e[ne++] = (dp_live_tensor){
					u, DP_MEM_TEMP, op->temp_bytes, st, en};
			for (int i = 0; i < ne; i++, s->dcount[d]++)
				if (out)
					out[r->live_off[d] + s->dcount[d]] =
						e[i];
		}
		for (uint32_t i = 0; i < r->nxfers; i++) {
			const dp_transfer *x = &r->xfers[i];
			uint32_t d = (uint32_t)x->dst;
			if (x->bytes <= 0 || !live_at(x->start, s->copyfree[i],
						      r->dev[d].peak_time))
				continue;
			if (out)
				out[r->live_off[d] + s->dcount[d]] =
					(dp_live_tensor){x->op, DP_MEM_COPY,
							 x->bytes, x->start,
							 s->copyfree[i]};
			s->dcount[d]++;
		}
		if (pass == 0) {
			uint64_t total = 0;
			for (int d = 0; d < k; d++) {
				r->live_off[d] = (uint32_t)total;
				total += s->dcount[d];
			}
			r->live_off[k] = (uint32_t)total;
			if (dpi_grow((void **)&r->live, &r->cap_live, total,
				     sizeof *r->live, 64))
				return dpi_nomem(err, "allocating %s for the simulator", "live tensors");
			out = r->live;
		}
	}
	return DP_OK;
}

static void set_feasible(const dp_sim *s, dp_sim_result *r)
{
	r->feasible = true;
	for (int d = 0; d < s->k; d++)
		if (r->dev[d].peak_bytes > r->dev[d].cap_bytes)
			r->feasible = false;
}

void dpi_sim_memory_skipped(dp_sim *s, dp_sim_result *r)
{
	int k = s->k;
	for (int d = 0; d < k; d++) {
		r->dev[d].peak_bytes = r->dev[d].param_bytes;
		r->dev[d].peak_time = 0;
	}
	set_feasible(s, r);
	r->has_memory = false;
	memset(r->live_off, 0, ((size_t)k + 1) * sizeof *r->live_off);
	memset(r->curve_off, 0, ((size_t)k + 1) * sizeof *r->curve_off);
}

dp_status dpi_sim_memory(dp_sim *s, const int32_t *pl, bool live, bool curves,
			 dp_sim_result *r, dp_err *err)
{
	dp_status st = free_times(s, pl, r, err);
	if (st)
		return st;
	size_t need = 3 * (size_t)s->n + 2 * (size_t)r->nxfers;
	if (need > s->cap_mev) {
		size_t nc = need + need / 4;
		sim_mem_event *a = realloc(s->mev, nc * sizeof *a);
		if (!a)
			return dpi_nomem(err, "allocating %s for the simulator", "memory events");
		s->mev = a;
		sim_mem_event *b = realloc(s->mtmp, nc * sizeof *b);
		if (!b)
			return dpi_nomem(err, "allocating %s for the simulator", "memory events");
		s->mtmp = b;
		s->cap_mev = nc;
	}
	size_t n = collect_events(s, pl, r);
	const sim_mem_event *ev = radix_sort(s->mev, s->mtmp, n, s->hist);
	int k = s->k;
	for (int d = 0; d < k; d++) {
		s->level[d] = r->dev[d].param_bytes;
		r->dev[d].peak_bytes = s->level[d];
		r->dev[d].peak_time = 0;
	}
	for (size_t i = 0; i < n; i++) {
		uint32_t d = (uint32_t)(ev[i].val >> 53);
		int64_t b = (int64_t)(ev[i].val & (SIM_MAX_TENSOR - 1));
		if (!(ev[i].key & 1)) {
			s->level[d] -= b;
			continue;
		}
		s->level[d] += b;
		if (s->level[d] > r->dev[d].peak_bytes) {
			r->dev[d].peak_bytes = s->level[d];
			r->dev[d].peak_time = key_time(ev[i].key);
		}
	}
	set_feasible(s, r);
	r->has_memory = true;
	/* no stale detail from an earlier run: lists not asked for are empty */
	if (!live)
		memset(r->live_off, 0, ((size_t)k + 1) * sizeof *r->live_off);
	if (!curves)
		memset(r->curve_off, 0, ((size_t)k + 1) * sizeof *r->curve_off);
	if (curves)
		st = build_curves(s, ev, n, r, err);
	if (!st && live)
		st = build_live(s, pl, r, err);
	return st;
}

/* sim_check.c - memory by brute force for tests/test_sim_random.c: every
 * interval a tensor is live, from the rules alone, summed per device. */
#include "sim_check.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void sim_seed_fail(sim_ctx *cx, const char *file, int line, const char *fmt,
		   ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	cx->failed = true;
	test_fail(file, line, "seed %llu: %s", (unsigned long long)cx->seed,
		  msg);
}

typedef struct ival {
	int32_t dev, kind;
	uint32_t op;
	int64_t bytes;
	double alloc, free;
} ival;

/* Every non-empty interval, from the rules, without the simulator's help. */
static uint32_t intervals(const sim_ctx *cx, ival *iv)
{
	const dp_graph *g = cx->g;
	const dp_sim_result *r = cx->r;
	uint32_t n = 0;
	for (uint32_t u = 0; u < g->nops; u++) {
		int32_t d = cx->pl[u];
		int64_t ob = g->ops[u].output_bytes;
		double f = r->end[u];
		for (uint32_t j = 0; j < g->nedges; j++) {
			const dp_edge *e = &g->edges[j];
			if (e->from != u || e->control)
				continue;
			if (e->bytes > ob)
				ob = e->bytes;
			if (cx->pl[e->to] == d && r->end[e->to] > f)
				f = r->end[e->to];
		}
		for (uint32_t i = 0; i < r->nxfers; i++)
			if (r->xfers[i].op == u && r->xfers[i].end > f)
				f = r->xfers[i].end;
		if (ob > 0 && f > r->start[u])
			iv[n++] =
				(ival){d, DP_MEM_OUTPUT, u, ob, r->start[u], f};
		if (g->ops[u].temp_bytes > 0 && r->end[u] > r->start[u])
			iv[n++] = (ival){d,	      DP_MEM_TEMP,
					 u,	      g->ops[u].temp_bytes,
					 r->start[u], r->end[u]};
	}
	for (uint32_t i = 0; i < r->nxfers; i++) {
		const dp_transfer *x = &r->xfers[i];
		double f = x->end;
		for (uint32_t j = 0; j < g->nedges; j++) {
			const dp_edge *e = &g->edges[j];
			if (e->from == x->op && !e->control &&
			    cx->pl[e->to] == x->dst && r->end[e->to] > f)
				f = r->end[e->to];
		}
		if (x->bytes > 0 && f > x->start)
			iv[n++] = (ival){x->dst,   DP_MEM_COPY, x->op,
					 x->bytes, x->start,	f};
	}
	return n;
}

static int64_t level_at(const ival *iv, uint32_t n, int32_t d, int64_t par,
			double t, double makespan)
{
	if (makespan > 0 && t >= makespan)
		return 0;
	int64_t s = par;
	for (uint32_t i = 0; i < n; i++)
		if (iv[i].dev == d && iv[i].alloc <= t && t < iv[i].free)
			s += iv[i].bytes;
	return s;
}

void sim_check_memory(sim_ctx *cx, bool detail)
{
	const dp_graph *g = cx->g;
	const dp_sim_result *r = cx->r;
	ival *iv = malloc((3 * g->nops + r->nxfers + 1) * sizeof *iv);
	uint32_t n = intervals(cx, iv);
	bool feasible = true;
	for (int d = 0; d < cx->m->k && !cx->failed; d++) {
		const dp_device_stats *s = &r->dev[d];
		int64_t peak = s->param_bytes;
		double pt = 0;
		for (uint32_t i = 0; i < n; i++) {
			if (iv[i].dev != d)
				continue;
			int64_t l = level_at(iv, n, d, s->param_bytes,
					     iv[i].alloc, r->makespan);
			if (l > peak || (l == peak && iv[i].alloc < pt)) {
				peak = l;
				pt = iv[i].alloc;
			}
		}
		if (s->peak_bytes != peak || s->peak_time != pt) {
			SEED_FAIL(cx,
				  "device %d peak %lld at %g, brute force %lld "
				  "at %g",
				  d, (long long)s->peak_bytes, s->peak_time,
				  (long long)peak, pt);
			break;
		}
		feasible = feasible && peak <= cx->m->cap[d];
		if (!detail)
			continue;
		/* live tensors add up to the peak and are live then */
		int64_t sum = 0;
		for (uint32_t i = r->live_off[d]; i < r->live_off[d + 1]; i++) {
			const dp_live_tensor *t = &r->live[i];
			sum += t->bytes;
			bool ok = t->kind == DP_MEM_PARAM
					  ? cx->pl[t->op] == d
					  : t->alloc <= pt && pt < t->free;
			if (!ok) {
				SEED_FAIL(cx,
					  "live tensor %u of device %d is not "
					  "live at %g",
					  i, d, pt);
			}
		}
		if (sum != peak) {
			SEED_FAIL(cx,
				  "live tensors of device %d add up to %lld, "
				  "peak %lld",
				  d, (long long)sum, (long long)peak);
		}
		/* the curve: increasing times from 0, right level at every
		 * interval end point (where the level can change) */
		uint32_t c0 = r->curve_off[d], c1 = r->curve_off[d + 1];
		if (c1 <= c0 || r->curve[c0].t != 0) {
			SEED_FAIL(cx, "curve of device %d does not start at 0",
				  d);
			break;
		}
		for (uint32_t i = c0 + 1; i < c1; i++)
			if (r->curve[i].t <= r->curve[i - 1].t)
				FAIL(cx,
				     "seed %llu: curve times not increasing",
				     (unsigned long long)cx->seed);
		for (uint32_t i = 0; i <= 2 * n; i++) {
			double t = i == 2 * n ? 0
				   : i % 2    ? iv[i / 2].free
					      : iv[i / 2].alloc;
			if (i < 2 * n && iv[i / 2].dev != d)
				continue;
			uint32_t p = c0;
			while (p + 1 < c1 && r->curve[p + 1].t <= t)
				p++;
			int64_t want = level_at(iv, n, d, s->param_bytes, t,
						r->makespan);
			if (r->curve[p].bytes != want)
				FAIL(cx,
				     "seed %llu: device %d curve says %lld "
				     "at %g, brute force %lld",
				     (unsigned long long)cx->seed, d,
				     (long long)r->curve[p].bytes, t,
				     (long long)want);
		}
	}
	if (!cx->failed && feasible != r->feasible)
		test_fail(__FILE__, __LINE__, "seed %llu: feasible %d, want %d",
			  (unsigned long long)cx->seed, r->feasible, feasible);
	free(iv);
}

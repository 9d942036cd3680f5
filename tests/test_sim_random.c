/* test_sim_random.c - simulator invariants on seeded random DAGs.
 *
 * Every case is checked against the rules of docs/simulator.md recomputed
 * independently: durations, arrivals and availability, one transfer per
 * (op, target device) with the right size and timing, device exclusivity,
 * work conservation, priority order, port exclusivity, bounds, cut counts,
 * device statistics, memory peaks / live tensors / curves by brute force,
 * the critical path's hops, and bit-for-bit determinism.
 */
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "dnnpart/graph.h"
#include "dnnpart/load.h"
#include "dnnpart/machine.h"
#include "dnnpart/sim.h"
#include "lib/fixtures.h"
#include "lib/sim_check.h"
#include "lib/testlib.h"

static uint64_t rng;

static uint32_t rndn(uint32_t n)
{
	return test_randn(&rng, n);
}

/* ---- independent recomputation ---- */

static const dp_transfer *find_xfer(const sim_ctx *cx, uint32_t u, int32_t b)
{
	const dp_transfer *found = NULL;
	for (uint32_t i = 0; i < cx->r->nxfers; i++)
		if (cx->r->xfers[i].op == u && cx->r->xfers[i].dst == b) {
			if (found)
				return NULL; /* two: as bad as none */
			found = &cx->r->xfers[i];
		}
	return found;
}

/* -1 when a cut data edge has no (or two) transfers */
static double arrival(const sim_ctx *cx, const dp_edge *e)
{
	const dp_sim_result *r = cx->r;
	if (cx->pl[e->from] == cx->pl[e->to])
		return r->end[e->from];
	if (e->control)
		return r->end[e->from] + cx->m->lat;
	const dp_transfer *x = find_xfer(cx, e->from, cx->pl[e->to]);
	return x ? x->end : -1;
}

static void check_ops_and_transfers(sim_ctx *cx)
{
	const dp_graph *g = cx->g;
	const dp_sim_result *r = cx->r;
	const int32_t *pl = cx->pl;
	double ms = 0;
	for (uint32_t u = 0; u < g->nops; u++) {
		double dur = g->ops[u].time_us / cx->m->speed[pl[u]];
		if (r->end[u] != r->start[u] + dur || r->start[u] < 0)
			FAIL(cx, "seed %llu: op %u runs [%g,%g), duration %g",
			     (unsigned long long)cx->seed, u, r->start[u],
			     r->end[u], dur);
		if (r->end[u] > ms)
			ms = r->end[u];
	}
	if (r->makespan != ms)
		FAIL(cx, "seed %llu: makespan %g, last end %g",
		     (unsigned long long)cx->seed, r->makespan, ms);
	int64_t cut_bytes = 0;
	double prev_t = 0;
	for (uint32_t i = 0; i < r->nxfers; i++) {
		const dp_transfer *x = &r->xfers[i];
		uint32_t u = x->op;
		int64_t want = -1;
		for (uint32_t j = 0; j < g->nedges; j++) {
			const dp_edge *e = &g->edges[j];
			if (e->from == u && !e->control &&
			    pl[e->to] == x->dst && e->bytes > want)
				want = e->bytes;
		}
		if (x->src != pl[u] || x->dst == x->src || want < 0 ||
		    x->bytes != want)
			FAIL(cx,
			     "seed %llu: transfer %u of op %u %d->%d with "
			     "%lld bytes, want %lld",
			     (unsigned long long)cx->seed, i, u, x->src, x->dst,
			     (long long)x->bytes, (long long)want);
		double c = cx->m->lat + (double)x->bytes / cx->m->bw;
		if (x->end != x->start + c || x->start < r->end[u] ||
		    (cx->c == DP_CONT_NONE && x->start != r->end[u]))
			FAIL(cx,
			     "seed %llu: transfer %u [%g,%g) of op ending "
			     "%g, cost %g",
			     (unsigned long long)cx->seed, i, x->start, x->end,
			     r->end[u], c);
		/* created when the producer ends: in time order; per op in
		 * increasing target device */
		if (r->end[u] < prev_t)
			FAIL(cx, "seed %llu: transfers out of time order",
			     (unsigned long long)cx->seed);
		prev_t = r->end[u];
		if (i > 0 && r->xfers[i - 1].op == u &&
		    r->xfers[i - 1].dst >= x->dst)
			FAIL(cx,
			     "seed %llu: op %u's transfers not in device "
			     "order",
			     (unsigned long long)cx->seed, u);
		cut_bytes += x->bytes;
	}
	/* one transfer per cut (op, device) pair, and a cut count */
	uint32_t pairs = 0, cut = 0;
	for (uint32_t u = 0; u < g->nops; u++)
		for (int b = 0; b < cx->m->k; b++) {
			if (b == pl[u])
				continue;
			bool need = false;
			for (uint32_t i = g->succ_off[u];
			     i < g->succ_off[u + 1]; i++) {
				const dp_edge *e = &g->edges[g->succ_edge[i]];
				if (!e->control && pl[e->to] == b)
					need = true;
			}
			if (need && !find_xfer(cx, u, b))
				FAIL(cx,
				     "seed %llu: op %u feeds device %d "
				     "without exactly one transfer",
				     (unsigned long long)cx->seed, u, b);
			pairs += need;
		}
	for (uint32_t j = 0; j < g->nedges; j++)
		cut += pl[g->edges[j].from] != pl[g->edges[j].to];
	if (pairs != r->nxfers || cut != r->cut_edges ||
	    cut_bytes != r->cut_bytes)
		FAIL(cx,
		     "seed %llu: %u transfers for %u pairs; cut %u/%u; "
		     "bytes %lld/%lld",
		     (unsigned long long)cx->seed, r->nxfers, pairs,
		     r->cut_edges, cut, (long long)r->cut_bytes,
		     (long long)cut_bytes);
}

static void check_precedence(sim_ctx *cx)
{
	const dp_graph *g = cx->g;
	const dp_sim_result *r = cx->r;
	for (uint32_t v = 0; v < g->nops; v++) {
		double av = 0;
		for (uint32_t i = g->pred_off[v]; i < g->pred_off[v + 1]; i++) {
			double a = arrival(cx, &g->edges[g->pred_edge[i]]);
			if (a < 0)
				FAIL(cx,
				     "seed %llu: input of op %u never "
				     "arrives",
				     (unsigned long long)cx->seed, v);
			if (a > av)
				av = a;
		}
		if (r->avail[v] != av || r->start[v] < av)
			FAIL(cx,
			     "seed %llu: op %u available %g (want %g), "
			     "starts %g",
			     (unsigned long long)cx->seed, v, r->avail[v], av,
			     r->start[v]);
	}
}

/* Per device: no overlap, no idling while an op is available, and the
 * highest-priority available op goes first. */
static void check_devices(sim_ctx *cx)
{
	const dp_graph *g = cx->g;
	const dp_sim_result *r = cx->r;
	uint32_t n = g->nops;
	uint32_t *ops = malloc((n ? n : 1) * sizeof *ops);
	for (int d = 0; d < cx->m->k && !cx->failed; d++) {
		uint32_t cnt = 0;
		for (uint32_t u = 0; u < n; u++)
			if (cx->pl[u] == d)
				ops[cnt++] = u;
		/* insertion sort by (start, end) */
		for (uint32_t i = 1; i < cnt; i++) {
			uint32_t x = ops[i], j = i;
			for (; j > 0 && (r->start[ops[j - 1]] > r->start[x] ||
					 (r->start[ops[j - 1]] == r->start[x] &&
					  r->end[ops[j - 1]] > r->end[x]));
			     j--)
				ops[j] = ops[j - 1];
			ops[j] = x;
		}
		for (uint32_t i = 0; i + 1 < cnt; i++)
			if (r->end[ops[i]] > r->start[ops[i + 1]]) {
				SEED_FAIL(cx,
					  "ops %u and %u overlap on device %d",
					  ops[i], ops[i + 1], d);
			}
		for (uint32_t i = 0; i < cnt && !cx->failed; i++) {
			uint32_t v = ops[i];
			/* idle gaps: before the first op and between ops */
			for (uint32_t j = 0; j <= i; j++) {
				double x = j ? r->end[ops[j - 1]] : 0;
				double y = r->start[ops[j]];
				if (x < y && x < r->start[v] &&
				    r->avail[v] < y) {
					SEED_FAIL(cx,
						  "device %d idles on [%g,%g) "
						  "while op %u is available",
						  d, x, y, v);
					break;
				}
			}
			for (uint32_t j = 0; j < cnt; j++) {
				uint32_t w = ops[j];
				if (!(r->avail[v] < r->start[w] &&
				      r->start[w] < r->start[v]))
					continue;
				bool before = cx->rank[w] > cx->rank[v] ||
					      (cx->rank[w] == cx->rank[v] &&
					       g->topo_pos[w] < g->topo_pos[v]);
				if (!before) {
					SEED_FAIL(cx,
						  "op %u started before op %u "
						  "of higher priority",
						  w, v);
					break;
				}
			}
		}
	}
	free(ops);
}

static void check_ports_and_stats(sim_ctx *cx)
{
	const dp_graph *g = cx->g;
	const dp_sim_result *r = cx->r;
	for (int d = 0; d < cx->m->k; d++) {
		uint32_t ops = 0, xin = 0, xout = 0;
		double busy = 0;
		int64_t in = 0, out = 0, par = 0;
		for (uint32_t u = 0; u < g->nops; u++)
			if (cx->pl[u] == d) {
				ops++;
				busy += r->end[u] - r->start[u];
				par += g->ops[u].param_bytes;
			}
		for (uint32_t i = 0; i < r->nxfers; i++) {
			const dp_transfer *x = &r->xfers[i];
			if (x->src == d) {
				xout++;
				out += x->bytes;
			}
			if (x->dst == d) {
				xin++;
				in += x->bytes;
			}
			if (cx->c != DP_CONT_PORT)
				continue;
			/* port: no two sends (receives) of d overlap */
			for (uint32_t j = i + 1; j < r->nxfers; j++) {
				const dp_transfer *y = &r->xfers[j];
				bool same = (x->src == d && y->src == d) ||
					    (x->dst == d && y->dst == d);
				if (same && x->start < y->end &&
				    y->start < x->end)
					FAIL(cx,
					     "seed %llu: transfers %u and "
					     "%u share a port of device %d",
					     (unsigned long long)cx->seed, i, j,
					     d);
			}
		}
		const dp_device_stats *s = &r->dev[d];
		if (s->ops != ops || s->xfers_in != xin ||
		    s->xfers_out != xout || s->comm_in_bytes != in ||
		    s->comm_out_bytes != out || s->param_bytes != par ||
		    s->cap_bytes != cx->m->cap[d] ||
		    fabs(s->busy_us - busy) > 1e-9 * (1 + busy))
			FAIL(cx, "seed %llu: device %d statistics differ",
			     (unsigned long long)cx->seed, d);
	}
	dp_bounds b;
	dp_sim_bounds(g, cx->m, &b);
	if (r->makespan < b.lb_us * (1 - 1e-12) - 1e-9)
		FAIL(cx, "seed %llu: makespan %g below the lower bound %g",
		     (unsigned long long)cx->seed, r->makespan, b.lb_us);
}

/* ---- critical path ---- */

static void check_critical_path(sim_ctx *cx)
{
	const dp_graph *g = cx->g;
	const dp_sim_result *r = cx->r;
	if (g->nops == 0)
		return;
	uint32_t last = 0;
	for (uint32_t u = 1; u < g->nops; u++)
		if (r->end[u] > r->end[last])
			last = u;
	if (r->cp_len == 0 || r->cp_ops[r->cp_len - 1] != last ||
	    r->cp_cause[0] != DP_HOP_START || r->start[r->cp_ops[0]] != 0)
		FAIL(cx,
		     "seed %llu: critical path does not run from a start "
		     "at 0 to the last op",
		     (unsigned long long)cx->seed);
	for (uint32_t i = 1; i < r->cp_len; i++) {
		uint32_t u = r->cp_ops[i - 1], v = r->cp_ops[i];
		int cause = r->cp_cause[i];
		if (cause == DP_HOP_DEVICE) {
			if (cx->pl[u] != cx->pl[v] ||
			    !(r->start[v] > r->avail[v]) ||
			    r->end[u] != r->start[v] ||
			    r->start[u] > r->start[v])
				FAIL(cx, "seed %llu: bad device hop %u -> %u",
				     (unsigned long long)cx->seed, u, v);
			continue;
		}
		/* data or transfer: the input that arrived last */
		uint32_t best = UINT32_MAX;
		double ba = -1;
		for (uint32_t j = g->pred_off[v]; j < g->pred_off[v + 1]; j++) {
			const dp_edge *e = &g->edges[g->pred_edge[j]];
			double a = arrival(cx, e);
			if (a > ba || (a == ba && e->from < best)) {
				ba = a;
				best = e->from;
			}
		}
		int want =
			cx->pl[u] == cx->pl[v] ? DP_HOP_DATA : DP_HOP_TRANSFER;
		if (best != u || cause != want || r->start[v] != r->avail[v] ||
		    !(r->avail[v] > 0))
			FAIL(cx, "seed %llu: bad hop %u -> %u (cause %d)",
			     (unsigned long long)cx->seed, u, v, cause);
	}
}

/* Upward ranks recomputed from docs/simulator.md (same expression order, so
 * they must agree to the bit). */
static bool ranks_match(const dp_graph *g, const dp_machine *m,
			const double *rank)
{
	double *want = malloc((g->nops + 1) * sizeof *want);
	double sum = 0;
	for (int d = 0; d < m->k; d++)
		sum += m->speed[d];
	double mean = sum / m->k, f = (double)(m->k - 1) / m->k;
	bool ok = true;
	for (uint32_t i = g->nops; i-- > 0;) {
		uint32_t u = g->topo[i];
		double best = 0;
		for (uint32_t j = 0; j < g->nedges; j++) {
			const dp_edge *e = &g->edges[j];
			if (e->from != u)
				continue;
			double c = m->k == 1 ? 0
				   : e->control
					   ? f * m->lat
					   : f * (m->lat +
						  (double)e->bytes / m->bw);
			if (c + want[e->to] > best)
				best = c + want[e->to];
		}
		want[u] = g->ops[u].time_us / mean + best;
		ok = ok && want[u] == rank[u];
	}
	free(want);
	return ok;
}

/* ---- determinism ---- */

/* Reruns agree on everything, the detail too when it was asked for. */
static bool same_result(const dp_sim_result *a, const dp_sim_result *b,
			bool detail)
{
	if (!test_sim_same_schedule(a, b) || !test_sim_same_peaks(a, b))
		return false;
	return !detail ||
	       (test_sim_same_path(a, b) && test_sim_same_live(a, b) &&
		test_sim_same_curves(a, b));
}

/* One case on g: a random machine of up to kmax devices and a placement
 * (all on one device, contiguous stages of the topological order, or
 * random); both contention models, with and without detail, checked and
 * re-run. */
static void check_graph(uint64_t seed, const dp_graph *g, int kmax)
{
	uint32_t n = g->nops;
	test_machine tm;
	int k = 1 + (int)rndn((uint32_t)kmax);
	test_random_machine(&tm, k, &rng);
	int32_t *pl = malloc((n ? n : 1) * sizeof *pl);
	int mode = (int)rndn(5);
	for (uint32_t u = 0; u < n; u++)
		pl[u] = mode == 0 ? k - 1
			: mode == 1
				? (int32_t)((uint64_t)g->topo_pos[u] * k / n)
				: (int32_t)rndn((uint32_t)k);
	dp_err err;
	dp_sim *s = dp_sim_new(g, &tm.m, &err);
	if (!s) {
		test_fail(__FILE__, __LINE__, "seed %llu: dp_sim_new: %s",
			  (unsigned long long)seed, err.msg);
		free(pl);
		return;
	}
	if (!ranks_match(g, &tm.m, dp_sim_ranks(s)))
		test_fail(__FILE__, __LINE__, "seed %llu: ranks differ",
			  (unsigned long long)seed);
	dp_sim_result r, r2, r3;
	memset(&r, 0, sizeof r);
	memset(&r2, 0, sizeof r2);
	memset(&r3, 0, sizeof r3);
	for (int c = 0; c < 2; c++) {
		for (int detail = 1; detail >= 0; detail--) {
			dp_sim_opts o = {.contention = (dp_contention)c,
					 .detail = detail};
			if (dp_sim_run(s, pl, &o, &r, &err) != DP_OK) {
				test_fail(__FILE__, __LINE__,
					  "seed %llu: dp_sim_run: %s",
					  (unsigned long long)seed, err.msg);
				goto out;
			}
			sim_ctx cx = {.seed = seed,
				      .g = g,
				      .m = &tm.m,
				      .pl = pl,
				      .c = (dp_contention)c,
				      .r = &r,
				      .rank = dp_sim_ranks(s)};
			check_ops_and_transfers(&cx);
			if (!cx.failed)
				check_precedence(&cx);
			if (!cx.failed)
				check_devices(&cx);
			if (!cx.failed)
				check_ports_and_stats(&cx);
			if (!cx.failed)
				sim_check_memory(&cx, detail);
			if (!cx.failed && detail)
				check_critical_path(&cx);
			if (!cx.failed && !detail &&
			    (r.cp_len || r.live_off[k] || r.curve_off[k])) {
				test_fail(__FILE__, __LINE__,
					  "seed %llu: detail left over from an "
					  "earlier run",
					  (unsigned long long)seed);
				cx.failed = true;
			}
			if (cx.failed)
				goto out;
			/* the same again, and with a fresh simulator */
			dp_sim *s2 = dp_sim_new(g, &tm.m, &err);
			if (!s2 || dp_sim_run(s, pl, &o, &r2, &err) != DP_OK ||
			    dp_sim_run(s2, pl, &o, &r3, &err) != DP_OK ||
			    !same_result(&r, &r2, detail) ||
			    !same_result(&r, &r3, detail)) {
				test_fail(__FILE__, __LINE__,
					  "seed %llu: runs differ",
					  (unsigned long long)seed);
				dp_sim_free(s2);
				goto out;
			}
			dp_sim_free(s2);
		}
	}
out:
	dp_sim_result_free(&r);
	dp_sim_result_free(&r2);
	dp_sim_result_free(&r3);
	dp_sim_free(s);
	free(pl);
}

static void run_case(uint64_t seed, uint32_t n, int kmax)
{
	rng = seed * 0x2545f4914f6cdd1dull + 1;
	dp_graph *g = test_random_dag(&rng, n, "rand");
	if (!g) {
		test_fail(__FILE__, __LINE__, "seed %llu: bad graph",
			  (unsigned long long)seed);
		return;
	}
	check_graph(seed, g, kmax);
	dp_graph_free(g);
}

static void test_sim_random_small_graphs(void)
{
	for (uint64_t seed = 1; seed <= 500 && !test_failed(); seed++)
		run_case(seed, 1 + (uint32_t)(seed % 50), 5);
}

static void test_sim_random_many_devices(void)
{
	for (uint64_t seed = 1000; seed < 1100 && !test_failed(); seed++)
		run_case(seed, 20 + (uint32_t)(seed % 60), 8);
}

/* Real profiled training graphs (PipeDream's profiles, loaded as forward,
 * backward and parameter ops), several machines and placements each. */
static void test_sim_invariants_on_real_graphs(void)
{
	static const char *const models[] = {"resnet18", "gnmt", "vgg16"};
	for (size_t i = 0; i < 3; i++) {
		char path[1024];
		snprintf(path, sizeof path, "%s/pipedream/%s/graph.txt",
			 test_data_dir(), models[i]);
		dp_graph *g = NULL;
		dp_err err;
		if (dp_graph_load(path, DP_FMT_AUTO, &g, &err) != DP_OK) {
			test_fail(__FILE__, __LINE__, "%s: %s", path, err.msg);
			continue;
		}
		CHECK(g->nops > 20);
		for (uint64_t seed = 1; seed <= 6 && !test_failed(); seed++) {
			rng = seed * 7919 + i;
			check_graph(seed, g, 6);
		}
		dp_graph_free(g);
	}
}

static void test_sim_random_larger_graphs(void)
{
	for (uint64_t seed = 5000; seed < 5003 && !test_failed(); seed++)
		run_case(seed, 400, 8);
}

TEST_MAIN(TEST(test_sim_random_small_graphs),
	  TEST(test_sim_random_many_devices),
	  TEST(test_sim_invariants_on_real_graphs),
	  TEST(test_sim_random_larger_graphs))

/* test_sim.c - the simulator on small graphs with hand-computed schedules,
 * peaks and critical paths (rules: DESIGN.md 3.1, docs/simulator.md).
 *
 * Machines are filled by hand (k, caps, speeds, bw in bytes/us, lat in us)
 * so that these tests depend on the simulator only.
 */
#include <string.h>

#include "dnnpart/graph.h"
#include "lib/testlib.h"
#include "dnnpart/machine.h"
#include "dnnpart/sim.h"

typedef struct tmach {
	dp_machine m;
	int64_t cap[8];
	double speed[8];
} tmach;

/* tm must not be copied afterwards: m points into it. */
static void tmach_init(tmach *tm, int k, double bw, double lat)
{
	memset(tm, 0, sizeof *tm);
	tm->m.k = k;
	tm->m.cap = tm->cap;
	tm->m.speed = tm->speed;
	tm->m.bw = bw;
	tm->m.lat = lat;
	for (int d = 0; d < 8; d++) {
		tm->cap[d] = DP_CAP_UNLIMITED;
		tm->speed[d] = 1.0;
	}
}

static uint32_t op(dp_graph *g, const char *name, double t, int64_t out,
		   int64_t param, int64_t temp)
{
	uint32_t id = UINT32_MAX;
	dp_graph_add_op(g, name, &id, NULL);
	g->ops[id].time_us = t;
	g->ops[id].output_bytes = out;
	g->ops[id].param_bytes = param;
	g->ops[id].temp_bytes = temp;
	return id;
}

static void edge(dp_graph *g, uint32_t a, uint32_t b)
{
	dp_graph_add_edge(g, a, b, -1, false, NULL);
}

/* Runs the simulator once with detail; returns false (and records a
 * failure) when it does not return DP_OK. */
static bool run(const dp_graph *g, const dp_machine *m, const int32_t *pl,
		dp_contention c, dp_sim_result *r)
{
	dp_err err;
	dp_err_clear(&err);
	dp_sim *s = dp_sim_new(g, m, &err);
	if (!s) {
		test_fail(__FILE__, __LINE__, "dp_sim_new: %s", err.msg);
		return false;
	}
	dp_sim_opts o = {.contention = c, .detail = true};
	dp_status st = dp_sim_run(s, pl, &o, r, &err);
	dp_sim_free(s);
	if (st) {
		test_fail(__FILE__, __LINE__, "dp_sim_run: %s", err.msg);
		return false;
	}
	return true;
}

/* The worked example of docs/simulator.md.
 * a(10us, out 1000, param 100) -> b(20us, out 500) -> c(5us, param 50);
 * a, b on device 0, c on device 1; link 100 bytes/us, latency 2 us.
 *   a [0,10), b [10,30); b ends: transfer of 500 bytes to device 1,
 *   2 + 500/100 = 7 us: [30,37); c [37,42). makespan 42.
 * Device 0: param 100; a's output 1000 on [0,30) (until b ends);
 *   b's output 500 on [10,37) (until its transfer ends).
 *   Level: 0: 1100, 10: 1600, 30: 600, 37: 100, 42: 0. Peak 1600 at 10.
 * Device 1: param 50; copy of b, 500 on [30,42) (until c ends).
 *   Level: 0: 50, 30: 550, 42: 0. Peak 550 at 30.
 * Critical path: c (transfer from b), b (data from a), a (start).
 * Ranks (K=2: cbar = 1/2 (2 + bytes/100)): c 5; b 20 + 3.5 + 5 = 28.5;
 *   a 10 + 6 + 28.5 = 44.5. */
static dp_graph *chain_example(void)
{
	dp_graph *g = dp_graph_new("chain");
	uint32_t a = op(g, "a", 10, 1000, 100, 0);
	uint32_t b = op(g, "b", 20, 500, 0, 0);
	uint32_t c = op(g, "c", 5, 0, 50, 0);
	edge(g, a, b);
	edge(g, b, c);
	dp_graph_finalize(g, NULL);
	return g;
}

static void test_sim_chain_across_two_devices(void)
{
	dp_graph *g = chain_example();
	tmach tm;
	tmach_init(&tm, 2, 100, 2);
	int32_t pl[] = {0, 0, 1};
	dp_sim_result r;
	memset(&r, 0, sizeof r);
	for (int c = 0; c < 2; c++) {
		REQUIRE(run(g, &tm.m, pl, (dp_contention)c, &r));
		CHECK_NEAR(r.start[0], 0, 0);
		CHECK_NEAR(r.start[1], 10, 0);
		CHECK_NEAR(r.end[1], 30, 0);
		CHECK_NEAR(r.avail[2], 37, 0);
		CHECK_NEAR(r.start[2], 37, 0);
		CHECK_NEAR(r.makespan, 42, 0);
		REQUIRE(r.nxfers == 1);
		CHECK_INT(r.xfers[0].op, 1);
		CHECK_INT(r.xfers[0].src, 0);
		CHECK_INT(r.xfers[0].dst, 1);
		CHECK_INT(r.xfers[0].bytes, 500);
		CHECK_NEAR(r.xfers[0].start, 30, 0);
		CHECK_NEAR(r.xfers[0].end, 37, 0);
		CHECK_INT(r.cut_edges, 1);
		CHECK_INT(r.cut_bytes, 500);
		CHECK_INT(r.dev[0].peak_bytes, 1600);
		CHECK_NEAR(r.dev[0].peak_time, 10, 0);
		CHECK_INT(r.dev[1].peak_bytes, 550);
		CHECK_NEAR(r.dev[1].peak_time, 30, 0);
		CHECK_INT(r.dev[0].ops, 2);
		CHECK_NEAR(r.dev[0].busy_us, 30, 0);
		CHECK_NEAR(r.dev[1].busy_us, 5, 0);
		CHECK_INT(r.dev[0].comm_out_bytes, 500);
		CHECK_NEAR(r.dev[0].comm_out_us, 7, 0);
		CHECK_INT(r.dev[1].comm_in_bytes, 500);
		CHECK_INT(r.dev[1].xfers_in, 1);
		CHECK_INT(r.dev[0].param_bytes, 100);
		CHECK(r.feasible);
	}
	/* memory curves */
	static const dp_mem_point want0[] = {
		{0, 1100}, {10, 1600}, {30, 600}, {37, 100}, {42, 0}};
	static const dp_mem_point want1[] = {{0, 50}, {30, 550}, {42, 0}};
	CHECK_INT(r.curve_off[1] - r.curve_off[0], 5);
	CHECK_INT(r.curve_off[2] - r.curve_off[1], 3);
	for (int i = 0; i < 5 && r.curve_off[0] + i < r.curve_off[1]; i++) {
		CHECK_NEAR(r.curve[r.curve_off[0] + i].t, want0[i].t, 0);
		CHECK_INT(r.curve[r.curve_off[0] + i].bytes, want0[i].bytes);
	}
	for (int i = 0; i < 3 && r.curve_off[1] + i < r.curve_off[2]; i++) {
		CHECK_NEAR(r.curve[r.curve_off[1] + i].t, want1[i].t, 0);
		CHECK_INT(r.curve[r.curve_off[1] + i].bytes, want1[i].bytes);
	}
	/* live at device 0's peak (t = 10): a's param, a's output, b's output */
	REQUIRE(r.live_off[1] - r.live_off[0] == 3);
	CHECK_INT(r.live[0].kind, DP_MEM_PARAM);
	CHECK_INT(r.live[1].kind, DP_MEM_OUTPUT);
	CHECK_INT(r.live[1].op, 0);
	CHECK_NEAR(r.live[1].free, 30, 0);
	CHECK_INT(r.live[2].op, 1);
	CHECK_INT(r.live[2].bytes, 500);
	CHECK_NEAR(r.live[2].alloc, 10, 0);
	CHECK_NEAR(r.live[2].free, 37, 0);
	/* live at device 1's peak (t = 30): c's param and the copy of b */
	REQUIRE(r.live_off[2] - r.live_off[1] == 2);
	CHECK_INT(r.live[3].kind, DP_MEM_PARAM);
	CHECK_INT(r.live[4].kind, DP_MEM_COPY);
	CHECK_INT(r.live[4].op, 1);
	CHECK_NEAR(r.live[4].free, 42, 0);
	/* critical path */
	REQUIRE(r.cp_len == 3);
	CHECK_INT(r.cp_ops[0], 0);
	CHECK_INT(r.cp_cause[0], DP_HOP_START);
	CHECK_INT(r.cp_ops[1], 1);
	CHECK_INT(r.cp_cause[1], DP_HOP_DATA);
	CHECK_INT(r.cp_ops[2], 2);
	CHECK_INT(r.cp_cause[2], DP_HOP_TRANSFER);
	/* a cap below a peak makes the result infeasible */
	tm.cap[1] = 549;
	REQUIRE(run(g, &tm.m, pl, DP_CONT_PORT, &r));
	CHECK(!r.feasible);
	CHECK_INT(r.dev[1].cap_bytes, 549);
	dp_sim_result_free(&r);
	dp_graph_free(g);
}

static void test_sim_ranks_follow_upward_rank(void)
{
	dp_graph *g = chain_example();
	tmach tm;
	tmach_init(&tm, 2, 100, 2);
	dp_sim *s = dp_sim_new(g, &tm.m, NULL);
	REQUIRE(s);
	const double *rk = dp_sim_ranks(s);
	CHECK_NEAR(rk[2], 5, 0);
	CHECK_NEAR(rk[1], 28.5, 0);
	CHECK_NEAR(rk[0], 44.5, 0);
	dp_sim_free(s);
	/* one device: no communication term */
	tmach_init(&tm, 1, 100, 2);
	s = dp_sim_new(g, &tm.m, NULL);
	REQUIRE(s);
	CHECK_NEAR(dp_sim_ranks(s)[0], 35, 0);
	dp_sim_free(s);
	dp_graph_free(g);
}

/* Diamond a -> {b, c} -> d; a, b, d on device 0, c on device 1;
 * times a 10, b 30, c 20, d 5; outputs a 200, b 100, c 400; link 100 B/us,
 * latency 1 us.
 *   a [0,10); transfer a->1 (200 B, 3 us) [10,13); b [10,40); c [13,33);
 *   transfer c->0 (400 B, 5 us) [33,38); d waits for b: [40,45).
 * Device 0: a's output [0,40) 200 (b ends last of its local consumers),
 *   b's output [10,45) 100, copy of c [33,45) 400.
 *   Level 0: 200, 10: 300, 33: 700, 40: 500, 45: 0. Peak 700 at 33.
 * Device 1: copy of a [10,33) 200, c's output [13,38) 400.
 *   Level 10: 200, 13: 600, 33: 400, 38: 0. Peak 600 at 13.
 * Critical path: d (data from b, arrived 40 > c's 38), b (data), a. */
static void test_sim_diamond(void)
{
	dp_graph *g = dp_graph_new("diamond");
	uint32_t a = op(g, "a", 10, 200, 0, 0);
	uint32_t b = op(g, "b", 30, 100, 0, 0);
	uint32_t c = op(g, "c", 20, 400, 0, 0);
	uint32_t d = op(g, "d", 5, 0, 0, 0);
	edge(g, a, b);
	edge(g, a, c);
	edge(g, b, d);
	edge(g, c, d);
	REQUIRE(dp_graph_finalize(g, NULL) == DP_OK);
	tmach tm;
	tmach_init(&tm, 2, 100, 1);
	int32_t pl[] = {0, 0, 1, 0};
	dp_sim_result r;
	memset(&r, 0, sizeof r);
	REQUIRE(run(g, &tm.m, pl, DP_CONT_PORT, &r));
	CHECK_NEAR(r.start[b], 10, 0);
	CHECK_NEAR(r.start[c], 13, 0);
	CHECK_NEAR(r.avail[d], 40, 0);
	CHECK_NEAR(r.start[d], 40, 0);
	CHECK_NEAR(r.makespan, 45, 0);
	REQUIRE(r.nxfers == 2);
	CHECK_NEAR(r.xfers[1].start, 33, 0);
	CHECK_NEAR(r.xfers[1].end, 38, 0);
	CHECK_INT(r.dev[0].peak_bytes, 700);
	CHECK_NEAR(r.dev[0].peak_time, 33, 0);
	CHECK_INT(r.dev[1].peak_bytes, 600);
	CHECK_NEAR(r.dev[1].peak_time, 13, 0);
	CHECK_INT(r.cut_edges, 2);
	CHECK_INT(r.cut_bytes, 600);
	REQUIRE(r.cp_len == 3);
	CHECK_INT(r.cp_ops[0], a);
	CHECK_INT(r.cp_ops[1], b);
	CHECK_INT(r.cp_ops[2], d);
	CHECK_INT(r.cp_cause[2], DP_HOP_DATA);
	dp_sim_result_free(&r);
	dp_graph_free(g);
}

/* One producer, two consumers on the other device: a single transfer of the
 * larger edge (1000 B, not 600 B), and the received copy counted on the
 * receiver until its last consumer there ends.
 * a(5us, out 1000) on 0; b(10us) and c(10us) on 1, edge a->c of 600 B;
 * link 100 B/us, no latency: transfer [5,15); b [15,25), c [25,35) (equal
 * ranks, b first by topological index). Device 1: copy 1000 on [5,35),
 * peak 1000 at 5. Device 0: a's output [0,15) (until the transfer ends). */
static void test_sim_received_copy_counted_on_receiver(void)
{
	dp_graph *g = dp_graph_new("copy");
	uint32_t a = op(g, "a", 5, 1000, 0, 0);
	uint32_t b = op(g, "b", 10, 0, 0, 0);
	uint32_t c = op(g, "c", 10, 0, 0, 0);
	edge(g, a, b);
	dp_graph_add_edge(g, a, c, 600, false, NULL);
	REQUIRE(dp_graph_finalize(g, NULL) == DP_OK);
	tmach tm;
	tmach_init(&tm, 2, 100, 0);
	int32_t pl[] = {0, 1, 1};
	dp_sim_result r;
	memset(&r, 0, sizeof r);
	REQUIRE(run(g, &tm.m, pl, DP_CONT_PORT, &r));
	REQUIRE(r.nxfers == 1);
	CHECK_INT(r.xfers[0].bytes, 1000);
	CHECK_NEAR(r.xfers[0].end, 15, 0);
	CHECK_NEAR(r.start[b], 15, 0);
	CHECK_NEAR(r.start[c], 25, 0);
	CHECK_INT(r.cut_edges, 2);
	CHECK_INT(r.cut_bytes, 1000);
	CHECK_INT(r.dev[1].peak_bytes, 1000);
	CHECK_NEAR(r.dev[1].peak_time, 5, 0);
	REQUIRE(r.live_off[2] - r.live_off[1] == 1);
	CHECK_INT(r.live[r.live_off[1]].kind, DP_MEM_COPY);
	CHECK_NEAR(r.live[r.live_off[1]].free, 35, 0);
	CHECK_INT(r.dev[0].peak_bytes, 1000);
	CHECK_NEAR(r.dev[0].peak_time, 0, 0);
	REQUIRE(r.live_off[1] - r.live_off[0] == 1);
	CHECK_NEAR(r.live[0].free, 15, 0);
	dp_sim_result_free(&r);
	dp_graph_free(g);
}

/* Temp memory lives while its op runs; an output until its consumer ends.
 * One device: a(10us, out 100, temp 500) -> b(10us, temp 800).
 * Level 0: 100 + 500 = 600; 10: a's temp freed, b's allocated: 100 + 800 =
 * 900; 20: 0. Peak 900 at 10 (frees before allocations at 10). */
static void test_sim_temp_memory(void)
{
	dp_graph *g = dp_graph_new("temp");
	uint32_t a = op(g, "a", 10, 100, 0, 500);
	uint32_t b = op(g, "b", 10, 0, 0, 800);
	edge(g, a, b);
	REQUIRE(dp_graph_finalize(g, NULL) == DP_OK);
	tmach tm;
	tmach_init(&tm, 1, 100, 0);
	int32_t pl[] = {0, 0};
	dp_sim_result r;
	memset(&r, 0, sizeof r);
	REQUIRE(run(g, &tm.m, pl, DP_CONT_PORT, &r));
	CHECK_INT(r.dev[0].peak_bytes, 900);
	CHECK_NEAR(r.dev[0].peak_time, 10, 0);
	REQUIRE(r.live_off[1] == 2);
	CHECK_INT(r.live[0].op, a);
	CHECK_INT(r.live[0].kind, DP_MEM_OUTPUT);
	CHECK_INT(r.live[1].op, b);
	CHECK_INT(r.live[1].kind, DP_MEM_TEMP);
	/* a larger temp of a moves the peak to time 0 */
	g->ops[a].temp_bytes = 1000;
	REQUIRE(run(g, &tm.m, pl, DP_CONT_PORT, &r));
	CHECK_INT(r.dev[0].peak_bytes, 1100);
	CHECK_NEAR(r.dev[0].peak_time, 0, 0);
	dp_sim_result_free(&r);
	dp_graph_free(g);
}

/* Colocated ops (a variable and its update) sit on one device: their edge is
 * not cut, no transfer, and the variable's params count there for the
 * whole step. var(1us, out 64, param 4096) -> upd(2us), group "v", both on
 * device 1; x(3us) on device 0 alone. */
static void test_sim_colocated_ops_share_device(void)
{
	dp_graph *g = dp_graph_new("coloc");
	uint32_t var = op(g, "var", 1, 64, 4096, 0);
	uint32_t upd = op(g, "upd", 2, 0, 0, 0);
	op(g, "x", 3, 0, 0, 0);
	dp_graph_set_colocate(g, var, "v", NULL);
	dp_graph_set_colocate(g, upd, "v", NULL);
	edge(g, var, upd);
	REQUIRE(dp_graph_finalize(g, NULL) == DP_OK);
	REQUIRE(g->ngroups == 1);
	tmach tm;
	tmach_init(&tm, 2, 100, 5);
	int32_t pl[] = {1, 1, 0};
	dp_sim_result r;
	memset(&r, 0, sizeof r);
	REQUIRE(run(g, &tm.m, pl, DP_CONT_PORT, &r));
	CHECK_INT(r.nxfers, 0);
	CHECK_INT(r.cut_edges, 0);
	CHECK_NEAR(r.start[upd], 1, 0);
	CHECK_NEAR(r.makespan, 3, 0);
	CHECK_INT(r.dev[1].param_bytes, 4096);
	CHECK_INT(r.dev[1].peak_bytes, 4096 + 64);
	CHECK_INT(r.dev[0].peak_bytes, 0);
	dp_sim_result_free(&r);
	dp_graph_free(g);
}

/* Ports conflict: K=3, a on 0 and b on 1 (10us each) both send 1000 B to
 * device 2 at t=10 (c needs a, d needs b, 5us each); link 100 B/us, no
 * latency, so a transfer takes 10 us. Also a sends to e on device 1.
 * port: a's transfers are created first (device 0 < 1): a->1 [10,20),
 *   a->2 [20,30) (a's send port busy), then b->2 waits for device 2's
 *   receive port: [30,40). c [30,35), d [40,45), e [20,25). makespan 45.
 * none: every transfer [10,20); c [20,25), d [25,30) (device 2 busy;
 *   equal ranks, c first), e [20,25). makespan 30. */
static void test_sim_contention_models_differ(void)
{
	dp_graph *g = dp_graph_new("ports");
	uint32_t a = op(g, "a", 10, 1000, 0, 0);
	uint32_t b = op(g, "b", 10, 1000, 0, 0);
	uint32_t c = op(g, "c", 5, 0, 0, 0);
	uint32_t d = op(g, "d", 5, 0, 0, 0);
	uint32_t e = op(g, "e", 5, 0, 0, 0);
	edge(g, a, c);
	edge(g, b, d);
	edge(g, a, e);
	REQUIRE(dp_graph_finalize(g, NULL) == DP_OK);
	tmach tm;
	tmach_init(&tm, 3, 100, 0);
	int32_t pl[] = {0, 1, 2, 2, 1};
	dp_sim_result r;
	memset(&r, 0, sizeof r);
	REQUIRE(run(g, &tm.m, pl, DP_CONT_PORT, &r));
	REQUIRE(r.nxfers == 3);
	CHECK_INT(r.xfers[0].dst, 1);
	CHECK_NEAR(r.xfers[0].start, 10, 0);
	CHECK_INT(r.xfers[1].dst, 2);
	CHECK_NEAR(r.xfers[1].start, 20, 0);
	CHECK_INT(r.xfers[2].op, b);
	CHECK_NEAR(r.xfers[2].start, 30, 0);
	CHECK_NEAR(r.start[c], 30, 0);
	CHECK_NEAR(r.start[d], 40, 0);
	CHECK_NEAR(r.start[e], 20, 0);
	CHECK_NEAR(r.makespan, 45, 0);
	/* d waited for b's transfer, which waited for device 2's port */
	REQUIRE(r.cp_len == 2);
	CHECK_INT(r.cp_ops[0], b);
	CHECK_INT(r.cp_cause[1], DP_HOP_TRANSFER);
	REQUIRE(run(g, &tm.m, pl, DP_CONT_NONE, &r));
	for (uint32_t i = 0; i < r.nxfers; i++)
		CHECK_NEAR(r.xfers[i].start, 10, 0);
	CHECK_NEAR(r.start[c], 20, 0);
	CHECK_NEAR(r.start[d], 25, 0);
	CHECK_NEAR(r.makespan, 30, 0);
	/* d waited for c on device 2 */
	REQUIRE(r.cp_len == 3);
	CHECK_INT(r.cp_ops[1], c);
	CHECK_INT(r.cp_cause[2], DP_HOP_DEVICE);
	dp_sim_result_free(&r);
	dp_graph_free(g);
}

/* Control edges carry no data: across devices they arrive after the
 * latency, use no port and make no transfer; on one device at the end.
 * x(10us, out 1000) on 0 -control-> y(1us) on 1, -control-> z(2us) on 0,
 * -data (100 B)-> q(4us) on 1. Link 10 B/us, latency 5 us.
 *   x [0,10); transfer x->1 of 100 B: 5 + 10 = 15 us, [10,25); z [10,12);
 *   y's signal arrives at 15 although the receive port is busy: y [15,16);
 *   q [25,29). x's output lives [0,25) (control consumers do not hold it);
 *   its size is max(output 1000, edge 100) = 1000. */
static void test_sim_control_edges(void)
{
	dp_graph *g = dp_graph_new("ctl");
	uint32_t x = op(g, "x", 10, 1000, 0, 0);
	uint32_t y = op(g, "y", 1, 0, 0, 0);
	uint32_t z = op(g, "z", 2, 0, 0, 0);
	uint32_t q = op(g, "q", 4, 0, 0, 0);
	dp_graph_add_edge(g, x, y, -1, true, NULL);
	dp_graph_add_edge(g, x, z, -1, true, NULL);
	dp_graph_add_edge(g, x, q, 100, false, NULL);
	REQUIRE(dp_graph_finalize(g, NULL) == DP_OK);
	tmach tm;
	tmach_init(&tm, 2, 10, 5);
	int32_t pl[] = {0, 1, 0, 1};
	dp_sim_result r;
	memset(&r, 0, sizeof r);
	REQUIRE(run(g, &tm.m, pl, DP_CONT_PORT, &r));
	REQUIRE(r.nxfers == 1);
	CHECK_INT(r.xfers[0].bytes, 100);
	CHECK_NEAR(r.xfers[0].end, 25, 0);
	CHECK_NEAR(r.start[z], 10, 0);
	CHECK_NEAR(r.avail[y], 15, 0);
	CHECK_NEAR(r.start[y], 15, 0);
	CHECK_NEAR(r.start[q], 25, 0);
	CHECK_NEAR(r.makespan, 29, 0);
	CHECK_INT(r.cut_edges, 2);
	CHECK_INT(r.cut_bytes, 100);
	CHECK_INT(r.dev[0].peak_bytes, 1000);
	REQUIRE(r.live_off[1] - r.live_off[0] == 1);
	CHECK_NEAR(r.live[0].free, 25, 0);
	/* the copy on device 1 is the transfer's 100 B, [10,29) */
	CHECK_INT(r.dev[1].peak_bytes, 100);
	CHECK_NEAR(r.dev[1].peak_time, 10, 0);
	dp_sim_result_free(&r);
	dp_graph_free(g);
}

/* Zero-duration ops end at the instant they start, and the instant's
 * phases repeat. A zero-byte transfer still costs the latency.
 * a(0us) on 0 -> b(4us) on 1; latency 3: transfer [0,3), b [3,7).
 * c(0us) -> d(0us) -> e(1us), all on 0: after a [0,0) (highest rank),
 * each ends at the instant it starts, so c [0,0), d [0,0) and e [0,1) all
 * start at time 0, one after another. */
static void test_sim_zero_duration_ops(void)
{
	dp_graph *g = dp_graph_new("zero");
	uint32_t a = op(g, "a", 0, 0, 0, 0);
	uint32_t b = op(g, "b", 4, 0, 0, 0);
	uint32_t c = op(g, "c", 0, 0, 0, 0);
	uint32_t d = op(g, "d", 0, 0, 0, 0);
	uint32_t e = op(g, "e", 1, 0, 0, 0);
	edge(g, a, b);
	edge(g, c, d);
	edge(g, d, e);
	REQUIRE(dp_graph_finalize(g, NULL) == DP_OK);
	tmach tm;
	tmach_init(&tm, 2, 10, 3);
	int32_t pl[] = {0, 1, 0, 0, 0};
	dp_sim_result r;
	memset(&r, 0, sizeof r);
	REQUIRE(run(g, &tm.m, pl, DP_CONT_PORT, &r));
	REQUIRE(r.nxfers == 1);
	CHECK_INT(r.xfers[0].bytes, 0);
	CHECK_NEAR(r.xfers[0].start, 0, 0);
	CHECK_NEAR(r.xfers[0].end, 3, 0);
	CHECK_NEAR(r.start[b], 3, 0);
	CHECK_NEAR(r.makespan, 7, 0);
	CHECK_NEAR(r.start[d], 0, 0);
	CHECK_NEAR(r.end[d], 0, 0);
	CHECK_NEAR(r.start[e], 0, 0);
	CHECK_NEAR(r.end[e], 1, 0);
	dp_sim_result_free(&r);
	dp_graph_free(g);
}

/* Priorities decide the order on a device.
 * One device. p(5us) and q(5us) are sources, q -> r(10us). Ranks: p 5,
 * q 15, r 10: q [0,5), then r (10 > 5) [5,15), then p [15,20), although p
 * has the smallest op number. Critical path: p waited for the device
 * behind r, r for its input q. */
static void test_sim_priorities_decide_order(void)
{
	dp_graph *g = dp_graph_new("prio");
	uint32_t p = op(g, "p", 5, 0, 0, 0);
	uint32_t q = op(g, "q", 5, 0, 0, 0);
	uint32_t r_ = op(g, "r", 10, 0, 0, 0);
	edge(g, q, r_);
	REQUIRE(dp_graph_finalize(g, NULL) == DP_OK);
	tmach tm;
	tmach_init(&tm, 1, 10, 0);
	int32_t pl[] = {0, 0, 0};
	dp_sim_result r;
	memset(&r, 0, sizeof r);
	REQUIRE(run(g, &tm.m, pl, DP_CONT_PORT, &r));
	CHECK_NEAR(r.start[q], 0, 0);
	CHECK_NEAR(r.start[r_], 5, 0);
	CHECK_NEAR(r.start[p], 15, 0);
	REQUIRE(r.cp_len == 3);
	CHECK_INT(r.cp_ops[0], q);
	CHECK_INT(r.cp_cause[0], DP_HOP_START);
	CHECK_INT(r.cp_ops[1], r_);
	CHECK_INT(r.cp_cause[1], DP_HOP_DATA);
	CHECK_INT(r.cp_ops[2], p);
	CHECK_INT(r.cp_cause[2], DP_HOP_DEVICE);
	dp_sim_result_free(&r);
	dp_graph_free(g);
}

/* Equal ranks: the smaller topological index goes first, not the smaller op
 * number. u0(5us) <- u3(0us); u1(5us) <- u2(0us); one device. Kahn's order
 * is u2, u1, u3, u0. All ranks are 5. t=0: u2 (topo 0) runs [0,0); then
 * u1 (topo 1) beats u3 (topo 2): u1 [0,5); u3 [5,5); u0 [5,10). */
static void test_sim_equal_ranks_by_topological_index(void)
{
	dp_graph *g = dp_graph_new("ties");
	uint32_t u0 = op(g, "u0", 5, 0, 0, 0);
	uint32_t u1 = op(g, "u1", 5, 0, 0, 0);
	uint32_t u2 = op(g, "u2", 0, 0, 0, 0);
	uint32_t u3 = op(g, "u3", 0, 0, 0, 0);
	edge(g, u3, u0);
	edge(g, u2, u1);
	REQUIRE(dp_graph_finalize(g, NULL) == DP_OK);
	CHECK_INT(g->topo_pos[u1], 1);
	tmach tm;
	tmach_init(&tm, 1, 10, 0);
	int32_t pl[] = {0, 0, 0, 0};
	dp_sim_result r;
	memset(&r, 0, sizeof r);
	REQUIRE(run(g, &tm.m, pl, DP_CONT_PORT, &r));
	CHECK_NEAR(r.start[u2], 0, 0);
	CHECK_NEAR(r.start[u1], 0, 0);
	CHECK_NEAR(r.start[u3], 5, 0);
	CHECK_NEAR(r.start[u0], 5, 0);
	CHECK_NEAR(r.makespan, 10, 0);
	dp_sim_result_free(&r);
	dp_graph_free(g);
}

/* Device speeds divide op times; the ranks use the mean speed. */
static void test_sim_speeds_scale_durations(void)
{
	dp_graph *g = chain_example();
	tmach tm;
	tmach_init(&tm, 2, 100, 2);
	tm.speed[1] = 0.5;
	int32_t pl[] = {0, 0, 1};
	dp_sim_result r;
	memset(&r, 0, sizeof r);
	REQUIRE(run(g, &tm.m, pl, DP_CONT_PORT, &r));
	CHECK_NEAR(r.end[2] - r.start[2], 10, 0);
	CHECK_NEAR(r.makespan, 47, 0);
	dp_sim *s = dp_sim_new(g, &tm.m, NULL);
	REQUIRE(s);
	CHECK_NEAR(dp_sim_ranks(s)[2], 5 / 0.75, 1e-12);
	dp_sim_free(s);
	dp_bounds b;
	dp_sim_bounds(g, &tm.m, &b);
	CHECK_NEAR(b.graph_cp_us, 35, 0);
	CHECK_NEAR(b.work_bound_us, 35 / 1.5, 1e-12);
	CHECK_NEAR(b.lb_us, 35, 0);
	CHECK_NEAR(b.one_device_us, 35, 0);
	dp_sim_result_free(&r);
	dp_graph_free(g);
}

static void test_sim_rejects_bad_placement_and_machine(void)
{
	dp_graph *g = chain_example();
	tmach tm;
	tmach_init(&tm, 2, 100, 2);
	dp_err err;
	dp_sim *s = dp_sim_new(g, &tm.m, &err);
	REQUIRE(s);
	int32_t pl[] = {0, 2, 1};
	dp_sim_result r;
	memset(&r, 0, sizeof r);
	CHECK_INT(dp_sim_run(s, pl, NULL, &r, &err), DP_EINPUT);
	CHECK_CONTAINS(err.msg, "op 'b' is placed on device 2");
	CHECK_CONTAINS(err.msg, "0..1");
	pl[1] = -1;
	CHECK_INT(dp_sim_run(s, pl, NULL, &r, &err), DP_EINPUT);
	dp_sim_free(s);
	dp_sim_result_free(&r);
	tm.m.bw = 0;
	CHECK(dp_sim_new(g, &tm.m, &err) == NULL);
	CHECK_INT(err.code, DP_EINPUT);
	CHECK_CONTAINS(err.msg, "bandwidth");
	tmach_init(&tm, 2, 100, 2);
	tm.speed[1] = 0;
	CHECK(dp_sim_new(g, &tm.m, &err) == NULL);
	CHECK_CONTAINS(err.msg, "device 1 has speed 0");
	dp_graph_free(g);
}

static void test_sim_names_and_parse(void)
{
	dp_contention c = DP_CONT_PORT;
	dp_err err;
	CHECK_INT(dp_sim_contention_parse("none", &c, &err), DP_OK);
	CHECK_INT(c, DP_CONT_NONE);
	CHECK_INT(dp_sim_contention_parse("port", &c, &err), DP_OK);
	CHECK_INT(c, DP_CONT_PORT);
	CHECK_INT(dp_sim_contention_parse("fifo", &c, &err), DP_EINPUT);
	CHECK_CONTAINS(err.msg, "'fifo'");
	CHECK_CONTAINS(err.msg, "expected 'port'");
	CHECK_STR(dp_sim_contention_name(DP_CONT_NONE), "none");
	CHECK_STR(dp_sim_hop_cause_name(DP_HOP_TRANSFER), "transfer");
	CHECK_STR(dp_sim_mem_kind_name(DP_MEM_COPY), "copy");
}

/* A result reused across runs and graphs gives the same numbers as a fresh
 * one, and an empty graph simulates to nothing. */
static void test_sim_result_reuse_and_empty_graph(void)
{
	dp_graph *g = chain_example();
	tmach tm;
	tmach_init(&tm, 2, 100, 2);
	int32_t pl[] = {0, 0, 1};
	dp_sim_result r;
	memset(&r, 0, sizeof r);
	dp_graph *e = dp_graph_new("empty");
	REQUIRE(dp_graph_finalize(e, NULL) == DP_OK);
	REQUIRE(run(e, &tm.m, pl, DP_CONT_PORT, &r));
	CHECK_NEAR(r.makespan, 0, 0);
	CHECK_INT(r.cp_len, 0);
	CHECK_INT(r.dev[0].peak_bytes, 0);
	REQUIRE(run(g, &tm.m, pl, DP_CONT_PORT, &r));
	CHECK_NEAR(r.makespan, 42, 0);
	CHECK_INT(r.dev[0].peak_bytes, 1600);
	REQUIRE(run(g, &tm.m, pl, DP_CONT_PORT, &r));
	CHECK_INT(r.nxfers, 1);
	CHECK_INT(r.cut_edges, 1);
	CHECK_INT(r.dev[0].comm_out_bytes, 500);
	dp_sim_result_free(&r);
	dp_graph_free(e);
	dp_graph_free(g);
}

TEST_MAIN(TEST(test_sim_chain_across_two_devices),
	  TEST(test_sim_ranks_follow_upward_rank), TEST(test_sim_diamond),
	  TEST(test_sim_received_copy_counted_on_receiver),
	  TEST(test_sim_temp_memory), TEST(test_sim_colocated_ops_share_device),
	  TEST(test_sim_contention_models_differ), TEST(test_sim_control_edges),
	  TEST(test_sim_zero_duration_ops),
	  TEST(test_sim_priorities_decide_order),
	  TEST(test_sim_equal_ranks_by_topological_index),
	  TEST(test_sim_speeds_scale_durations),
	  TEST(test_sim_rejects_bad_placement_and_machine),
	  TEST(test_sim_names_and_parse),
	  TEST(test_sim_result_reuse_and_empty_graph))

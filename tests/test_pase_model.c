/* test_pase_model.c - pase's cost model (engine/algo/pase_model.c,
 * pase_ports.c) against what the lowering moves and what the simulator
 * takes: an edge's cost is the bytes the lowering sends, the port replay
 * of an all-gather, and model = simulated step on a producer/consumer pair
 * at K=4 and K=8 (moved from tests/test_pase.c). */
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dnnpart/load.h"
#include "dnnpart/plan.h"
#include "dnnpart/strategy.h"
#include "internal/pase.h"
#include "lib/pase_case.h"
#include "lib/testlib.h"

/* The model's edge is what the lowering moves, priced as the simulator
 * reserves ports: on the test_pase_mlp at K=4 with no latency and 1 byte/µs, for
 * every pair of configs of mm1 (no partial sums) and mm2, the edge's cost
 * equals the port replay of the bytes each device sends each other in the
 * lowered graph. */
static void test_edge_cost_is_what_the_lowering_moves(void)
{
	dp_graph *g = test_json_text(test_pase_mlp);
	REQUIRE(g);
	dp_machine m;
	REQUIRE(test_pase_machine(&m, 4, NULL));
	m.lat = 0;
	m.bw = 1;
	dp_err err;
	dpi_pase_model pm;
	REQUIRE(dpi_pase_model_build(&pm, g, &m, NULL, &err) == DP_OK);
	uint32_t u = dp_graph_find(g, "mm1"), v = dp_graph_find(g, "mm2");
	int k = dp_op_find_dim(g, u, "k");
	uint32_t e = UINT32_MAX;
	for (uint32_t j = 0; j < g->nedges; j++)
		if (g->edges[j].from == u && g->edges[j].to == v)
			e = j;
	REQUIRE(e != UINT32_MAX && k >= 0);
	int pairs = 0, moving = 0;
	for (uint32_t cu = pm.off[u]; cu < pm.off[u + 1]; cu++)
		for (uint32_t cv = pm.off[v]; cv < pm.off[v + 1]; cv++) {
			if (pm.cfg[cu].mask[k])
				continue; /* partial sums: priced, not exact */
			dp_strategy s;
			dp_strategy_init(&s);
			REQUIRE(dp_strategy_alloc(&s, DP_STRAT_SPMD, g, 0,
						  &err) == DP_OK);
			s.k = pm.size;
			s.spmd.naxes = pm.naxes;
			memcpy(s.spmd.mesh, pm.mesh, sizeof pm.mesh);
			memcpy(&s.spmd.axes[(size_t)u * DP_MAX_OP_DIMS],
			       pm.cfg[cu].mask, DP_MAX_OP_DIMS);
			memcpy(&s.spmd.axes[(size_t)v * DP_MAX_OP_DIMS],
			       pm.cfg[cv].mask, DP_MAX_OP_DIMS);
			dp_lowered l;
			dp_status st =
				dp_strategy_lower(g, &m, &s, NULL, &l, &err);
			if (st) {
				test_fail(__FILE__, __LINE__, "lower: %s",
					  err.msg);
				dp_strategy_free(&s);
				break;
			}
			double mat[16] = {0}, sf[4], rf[4];
			for (uint32_t j = 0; j < l.g->nedges; j++) {
				const dp_edge *le = &l.g->edges[j];
				if (le->control || l.source[le->from] != u ||
				    l.source[le->to] != v ||
				    l.placement[le->from] ==
					    l.placement[le->to])
					continue;
				mat[l.placement[le->from] * 4 +
				    l.placement[le->to]] += (double)le->bytes;
			}
			double worst =
				dpi_pase_ports_time(mat, 4, 0, 1, sf, rf);
			CHECK_NEAR(dpi_pase_edge_cost(&pm, e, cu, cv), worst,
				   1e-9);
			pairs++;
			moving += worst > 0;
			dp_lowered_free(&l);
			dp_strategy_free(&s);
		}
	CHECK(pairs >= 4);
	CHECK(moving >= 2 && moving < pairs);
	dpi_pase_model_free(&pm);
	dp_machine_free(&m);
	dp_graph_free(g);
}

/* The port replay by hand: an all-gather of 1-byte blocks over 4 devices
 * (no latency, 1 byte/µs). Device 0 sends to 1, 2, 3 at 0, 1, 2; device
 * 1 to 0 at 0, to 2 at 2 (2's port is busy until then), to 3 at 3; device
 * 2 to 0 at 1, to 1 at 2, to 3 at 4; device 3 to 0 at 2, to 1 at 3, to 2
 * at 4: the last ends at 5, not the 3 that bytes / bandwidth says. */
static void test_ports_replay_an_all_gather(void)
{
	double mat[16], sf[4], rf[4];
	for (int i = 0; i < 16; i++)
		mat[i] = i / 4 == i % 4 ? 0 : 1;
	CHECK_NEAR(dpi_pase_ports_time(mat, 4, 0, 1, sf, rf), 5, 1e-12);
	/* with latency 10 each message takes 11 */
	CHECK_NEAR(dpi_pase_ports_time(mat, 4, 10, 1, sf, rf), 55, 1e-9);
	mat[1] = 0; /* one message fewer: 0 sends to 2, 3 at 0, 1 */
	CHECK(dpi_pase_ports_time(mat, 4, 0, 1, sf, rf) <= 5);
}

/* The model agrees with the simulator where nothing overlaps: a producer
 * and its consumer, every pair of configs at K=4 (pardnn link): the
 * simulated step of the lowered pair equals the model's total, the
 * shards' times plus the edge's port replay. */
static void test_model_equals_simulator_on_a_pair(void)
{
	static const char *const pair =
		"{\"name\":\"pair\",\"batch_dim\":\"b\",\"ops\":[\n"
		"{\"name\":\"p\",\"role\":\"forward\",\"time_us\":400,"
		"\"dims\":{\"b\":4,\"n\":8192},\"out\":[\"b\",\"n\"],"
		"\"output_bytes\":131072},\n"
		"{\"name\":\"c\",\"role\":\"forward\",\"time_us\":800,"
		"\"dims\":{\"b\":4,\"n\":8192,\"o\":64},\"out\":[\"b\","
		"\"o\"],\"output_bytes\":1024}\n"
		"],\"edges\":[{\"from\":\"p\",\"to\":\"c\",\"dims\":[\"b\","
		"\"n\"]}]}\n";
	dp_graph *g;
	dp_machine m;
	dpi_pase_model pm;
	dp_err err;
	REQUIRE(test_pase_model_of(pair, 4, NULL, &g, &m, &pm));
	int n = 0, moving = 0;
	for (uint32_t cu = pm.off[0]; cu < pm.off[1]; cu++)
		for (uint32_t cv = pm.off[1]; cv < pm.off[2]; cv++) {
			if (pm.cfg[cv].mask[1])
				continue; /* c's partial sums: no consumer */
			uint32_t ch[2] = {cu, cv};
			double ms = 0, over = 0;
			bool fits = false;
			REQUIRE(dpi_pase_simulate(&pm, ch, DP_CONT_PORT, &ms,
						  &fits, &over, &err) == DP_OK);
			CHECK_NEAR(dpi_pase_total(&pm, ch), ms, 1e-6);
			moving += dpi_pase_edge_cost(&pm, 0, cu, cv) > 0;
			n++;
		}
	CHECK(n >= 4 && moving >= 2);
	dpi_pase_model_free(&pm);
	dp_machine_free(&m);
	dp_graph_free(g);
}

/* The port queue inside one resharding, by hand, at K=8 (mesh [2,2,2]):
 * p {b:8, n:8} -> c {b:8, n:8}, 800 µs each, the tensor 8 x 8 floats
 * (256 bytes). In an all-to-all over 8 devices the simulator reserves
 * ports in creation order (senders by device, each to its targets by
 * device): device 0's port receives from 1..6 in slots 0..5 (their first
 * messages), so 7's first message starts at slot 6 and its seven end at
 * 13, where bytes / bandwidth says 7. Per row: p's and c's masks of b and
 * n (axes 0-2 = 1, 2, 4), the shards' parts, and the messages' bytes and
 * slots; the step is 800 / p parts + 800 / c parts + slots x (latency +
 * bytes), for latency 0 and 10 µs at 1 byte/µs. The model must say it,
 * and the simulator must run it. */
static void test_model_equals_simulator_on_a_pair_k8(void)
{
	static const char *const pair =
		"{\"name\":\"pair8\",\"batch_dim\":\"b\",\"ops\":[\n"
		"{\"name\":\"p\",\"role\":\"forward\",\"time_us\":800,"
		"\"dims\":{\"b\":8,\"n\":8},\"out\":[\"b\",\"n\"],"
		"\"output_bytes\":256},\n"
		"{\"name\":\"c\",\"role\":\"forward\",\"time_us\":800,"
		"\"dims\":{\"b\":8,\"n\":8},\"out\":[\"b\",\"n\"],"
		"\"output_bytes\":256}\n"
		"],\"edges\":[{\"from\":\"p\",\"to\":\"c\",\"dims\":[\"b\","
		"\"n\"]}]}\n";
	static const struct {
		uint8_t pb, pn, cb, cn;
		int pparts, cparts, bytes, slots;
	} rows[] = {
		{7, 0, 7, 0, 8, 8, 0, 0},   /* the same rows: nothing moves */
		{7, 0, 0, 7, 8, 8, 4, 13},  /* rows to columns: all-to-all */
		{0, 7, 7, 0, 8, 8, 4, 13},  /* columns to rows */
		{7, 0, 0, 0, 8, 1, 32, 13}, /* all-gather to a replica */
		{0, 0, 0, 7, 1, 8, 0, 0},   /* from a replica: all local */
		/* 2 x 4 blocks to rows: an all-to-all in each half */
		{1, 6, 7, 0, 8, 8, 8, 5},
	};
	for (int lat = 0; lat <= 10; lat += 10) {
		dp_graph *g = test_json_text(pair);
		REQUIRE(g);
		dp_machine m;
		REQUIRE(test_pase_machine(&m, 8, NULL));
		m.lat = lat;
		m.bw = 1;
		dp_err err;
		dpi_pase_model pm;
		REQUIRE(dpi_pase_model_build(&pm, g, &m, NULL, &err) == DP_OK);
		CHECK_INT(pm.size, 8);
		for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
			uint32_t ch[2] = {UINT32_MAX, UINT32_MAX};
			for (uint32_t c = pm.off[0]; c < pm.off[1]; c++)
				if (pm.cfg[c].mask[0] == rows[i].pb &&
				    pm.cfg[c].mask[1] == rows[i].pn)
					ch[0] = c;
			for (uint32_t c = pm.off[1]; c < pm.off[2]; c++)
				if (pm.cfg[c].mask[0] == rows[i].cb &&
				    pm.cfg[c].mask[1] == rows[i].cn)
					ch[1] = c;
			if (ch[0] == UINT32_MAX || ch[1] == UINT32_MAX) {
				test_fail(__FILE__, __LINE__,
					  "row %zu: no such config", i);
				continue;
			}
			double want = 800.0 / rows[i].pparts +
				      800.0 / rows[i].cparts +
				      rows[i].slots * (lat + rows[i].bytes);
			double ms = 0, over = 0;
			bool fits = false;
			REQUIRE(dpi_pase_simulate(&pm, ch, DP_CONT_PORT, &ms,
						  &fits, &over, &err) == DP_OK);
			CHECK_NEAR(ms, want, 1e-6);
			CHECK_NEAR(dpi_pase_total(&pm, ch), want, 1e-6);
		}
		dpi_pase_model_free(&pm);
		dp_machine_free(&m);
		dp_graph_free(g);
	}
}

TEST_MAIN(TEST(test_edge_cost_is_what_the_lowering_moves),
	  TEST(test_ports_replay_an_all_gather),
	  TEST(test_model_equals_simulator_on_a_pair),
	  TEST(test_model_equals_simulator_on_a_pair_k8))

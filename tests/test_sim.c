/* test_sim.c - the simulator's interface: bad placements and machines,
 * names, result reuse and the empty graph. The hand-computed schedules,
 * peaks and critical paths are data: the files in tests/sim/, read by
 * test_sim_cases.c.
 *
 * Machines are filled by hand (k, caps, speeds, bw in bytes/us, lat in us)
 * so that these tests depend on the simulator only.
 */
#include <string.h>

#include "dnnpart/graph.h"
#include "dnnpart/machine.h"
#include "dnnpart/sim.h"
#include "lib/fixtures.h"
#include "lib/testlib.h"

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

static void test_sim_rejects_bad_placement_and_machine(void)
{
	test_machine tm;
	dp_graph *g = test_abc_chain(&tm);
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
	test_machine_init(&tm, 2, 100, 2);
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
	test_machine tm;
	dp_graph *g = test_abc_chain(&tm);
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

TEST_MAIN(TEST(test_sim_rejects_bad_placement_and_machine),
	  TEST(test_sim_names_and_parse),
	  TEST(test_sim_result_reuse_and_empty_graph))

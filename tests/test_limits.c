/* test_limits.c - the supported limits (docs/reliability.md) hold at their
 * edges: a value just inside is accepted, one just outside is a clear
 * DP_EINPUT, and nothing in between overflows. Several of these were found
 * by fuzzing (fuzz/) and are kept here as regression tests.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dnnpart/load.h"
#include "dnnpart/machine.h"
#include "dnnpart/plan.h"
#include "dnnpart/units.h"
#include "lib/fixtures.h"
#include "lib/testlib.h"

/* Loads native JSON text and finalizes it; returns the status. */
static dp_status load_text(const char *text, dp_err *err)
{
	dp_graph *g = NULL;
	dp_err_clear(err);
	dp_status s = dp_load_json("t.json", text, strlen(text), &g, err);
	if (!s) {
		dp_graph_set_source(g, "t.json", err);
		s = dp_graph_finalize(g, err);
	}
	dp_graph_free(g);
	return s;
}

/* Found by fuzz_json: two ops of 2^62 bytes each made dp_graph_finalize's
 * int64 totals overflow (UBSan: signed integer overflow). */
static void test_graph_sizes_over_4_pib_are_an_error(void)
{
	dp_err err;
	CHECK_INT(load_text("{\"ops\":[{\"name\":\"a\",\"output_bytes\":"
			    "4611686018427387904},{\"name\":\"b\","
			    "\"output_bytes\":4611686018427387904}]}",
			    &err),
		  DP_EINPUT);
	CHECK_STR(err.msg, "the sizes in the graph add up to more than 4 PiB "
			   "(2^52 bytes) at op 'a': the output, param and "
			   "temp bytes of every op and the bytes of every "
			   "edge must stay under that in total");
	CHECK_STR(err.file, "t.json");
	/* exactly 2^52 in all is still fine: 2^51 output + 2^51 param */
	CHECK_INT(load_text("{\"ops\":[{\"name\":\"a\",\"output_bytes\":"
			    "2251799813685248,\"param_bytes\":"
			    "2251799813685248}]}",
			    &err),
		  DP_OK);
}

/* A transfer carries an edge's bytes, so edges count in the total. */
static void test_graph_edge_bytes_count_in_the_total(void)
{
	dp_err err;
	CHECK_INT(load_text("{\"ops\":[{\"name\":\"a\",\"output_bytes\":"
			    "2251799813685248},{\"name\":\"b\"}],"
			    "\"edges\":[{\"from\":\"a\",\"to\":\"b\"}]}",
			    &err),
		  DP_OK); /* 2^51 + an edge of 2^51 = 2^52 */
	CHECK_INT(load_text("{\"ops\":[{\"name\":\"a\",\"output_bytes\":"
			    "2251799813685248},{\"name\":\"b\"}],"
			    "\"edges\":[{\"from\":\"a\",\"to\":\"b\"},"
			    "{\"from\":\"a\",\"to\":\"b\",\"bytes\":1}]}",
			    &err),
		  DP_EINPUT);
	CHECK_CONTAINS(err.msg, "at the edge from 'a'");
}

/* The same through the building API, where no loader bounds a value. */
static void test_graph_api_sizes_cannot_overflow(void)
{
	dp_err err;
	dp_graph *g = dp_graph_new("api");
	REQUIRE(g);
	uint32_t a, b;
	REQUIRE(dp_graph_add_op(g, "a", &a, &err) == DP_OK);
	REQUIRE(dp_graph_add_op(g, "b", &b, &err) == DP_OK);
	g->ops[a].output_bytes = INT64_MAX;
	g->ops[b].param_bytes = INT64_MAX;
	CHECK_INT(dp_graph_finalize(g, &err), DP_EINPUT);
	CHECK_CONTAINS(err.msg, "more than 4 PiB");
	dp_graph_free(g);

	g = dp_graph_new("api2");
	REQUIRE(g);
	REQUIRE(dp_graph_add_op(g, "a", &a, &err) == DP_OK);
	REQUIRE(dp_graph_add_op(g, "b", &b, &err) == DP_OK);
	REQUIRE(dp_graph_add_edge(g, a, b, INT64_MAX, false, &err) == DP_OK);
	CHECK_INT(dp_graph_finalize(g, &err), DP_EINPUT);
	CHECK_CONTAINS(err.msg, "at the edge from 'a'");
	dp_graph_free(g);
}

/* Op times of 1e308 made every total infinite: the CLI printed "inf",
 * "-nan%" and a 31-digit busy time. */
static void test_graph_times_over_1e15_us_are_an_error(void)
{
	dp_err err;
	CHECK_INT(load_text("{\"ops\":[{\"name\":\"a\",\"time_us\":1e308},"
			    "{\"name\":\"b\",\"time_us\":1e308}]}",
			    &err),
		  DP_EINPUT);
	CHECK_STR(err.msg, "the op times add up to more than 1e15 us (about "
			   "31 years) at op 'a' (time_us 1e+308): times this "
			   "large are not supported");
	CHECK_INT(load_text("{\"ops\":[{\"name\":\"a\",\"time_us\":6e14},"
			    "{\"name\":\"b\",\"time_us\":6e14}]}",
			    &err),
		  DP_EINPUT);
	CHECK_CONTAINS(err.msg, "at op 'b'");
	CHECK_INT(load_text("{\"ops\":[{\"name\":\"a\",\"time_us\":5e14},"
			    "{\"name\":\"b\",\"time_us\":5e14}]}",
			    &err),
		  DP_OK);
}

static void test_units_bandwidth_range_is_1_b_to_1_eb_per_second(void)
{
	dp_err err;
	double bw = -1;
	CHECK_INT(dp_units_parse_bandwidth("1B/s", &bw, &err), DP_OK);
	CHECK_NEAR(bw, 1e-6, 1e-18);
	CHECK_INT(dp_units_parse_bandwidth("1000000TB/s", &bw, &err), DP_OK);
	CHECK_INT(dp_units_parse_bandwidth("1e-300", &bw, &err), DP_EINPUT);
	CHECK_STR(err.msg, "bad bandwidth '1e-300': out of range (expected "
			   "from 1 B/s to 1 EB/s)");
	CHECK_INT(dp_units_parse_bandwidth("0.5/s", &bw, &err), DP_EINPUT);
	CHECK_INT(dp_units_parse_bandwidth("1000001TB/s", &bw, &err),
		  DP_EINPUT);
	CHECK_INT(dp_units_parse_bandwidth("1e20", &bw, &err), DP_EINPUT);
	CHECK_CONTAINS(err.msg, "out of range");
}

static void test_units_time_is_at_most_1e15_us(void)
{
	dp_err err;
	double us = -1;
	CHECK_INT(dp_units_parse_time("1e15", &us, &err), DP_OK);
	CHECK_NEAR(us, 1e15, 0);
	CHECK_INT(dp_units_parse_time("1e9s", &us, &err), DP_OK);
	CHECK_INT(dp_units_parse_time("1.1e9s", &us, &err), DP_EINPUT);
	CHECK_STR(err.msg, "bad time '1.1e9s': too large (at most 1e15 us, "
			   "about 31 years)");
	CHECK_INT(dp_units_parse_time("1e300", &us, &err), DP_EINPUT);
}

static void test_machine_speed_range_is_1e_minus6_to_1e6(void)
{
	dp_machine m;
	dp_err err;
	REQUIRE(dp_machine_init(&m, 2, &err) == DP_OK);
	CHECK_INT(dp_machine_set_speeds(&m, "1e-6,1e6", &err), DP_OK);
	CHECK_NEAR(m.speed[0], 1e-6, 0);
	CHECK_NEAR(m.speed[1], 1e6, 0);
	CHECK_INT(dp_machine_set_speeds(&m, "1e-300,1", &err), DP_EINPUT);
	CHECK_CONTAINS(err.msg, "a speed must be from 1e-6 to 1e6");
	CHECK_INT(dp_machine_set_speeds(&m, "1,2e6", &err), DP_EINPUT);
	CHECK_NEAR(m.speed[0], 1e-6, 0); /* untouched on error */
	dp_machine_free(&m);
}

/* At every limit at once the simulator's numbers stay finite: the
 * slowest device, the slowest link, the most time and the most bytes. */
static void test_plan_at_the_limits_is_finite(void)
{
	dp_err err;
	dp_graph *g = NULL;
	static const char text[] =
		"{\"ops\":[{\"name\":\"a\",\"time_us\":4e14,\"output_bytes\":"
		"1125899906842624},{\"name\":\"b\",\"time_us\":3e14},"
		"{\"name\":\"c\",\"time_us\":3e14}],\"edges\":[{\"from\":\"a\","
		"\"to\":\"b\"},{\"from\":\"a\",\"to\":\"c\"}]}";
	REQUIRE(dp_load_json("t.json", text, strlen(text), &g, &err) == DP_OK);
	REQUIRE(dp_graph_finalize(g, &err) == DP_OK);
	dp_machine m;
	REQUIRE(dp_machine_init(&m, 3, &err) == DP_OK);
	REQUIRE(dp_machine_set_speeds(&m, "1e-6,1e-6,1e6", &err) == DP_OK);
	REQUIRE(dp_units_parse_bandwidth("1B/s", &m.bw, &err) == DP_OK);
	REQUIRE(dp_units_parse_time("1e15", &m.lat, &err) == DP_OK);
	int32_t pl[3] = {0, 1, 2};
	dp_plan plan;
	memset(&plan, 0, sizeof plan);
	REQUIRE(dp_plan_evaluate(g, &m, pl, DP_CONT_PORT, &plan, &err) ==
		DP_OK);
	CHECK(isfinite(plan.sim.makespan) && plan.sim.makespan > 1e20);
	CHECK(isfinite(plan.xlb) && isfinite(plan.speedup));
	dp_plan_free(&plan);
	const dp_algo *a = dp_algo_find("pardnn");
	REQUIRE(a);
	REQUIRE(dp_plan_run(g, &m, a, NULL, NULL, &plan, &err) == DP_OK);
	CHECK(isfinite(plan.sim.makespan));
	test_free(g, &m, &plan);
}

TEST_MAIN(TEST(test_graph_sizes_over_4_pib_are_an_error),
	  TEST(test_graph_edge_bytes_count_in_the_total),
	  TEST(test_graph_api_sizes_cannot_overflow),
	  TEST(test_graph_times_over_1e15_us_are_an_error),
	  TEST(test_units_bandwidth_range_is_1_b_to_1_eb_per_second),
	  TEST(test_units_time_is_at_most_1e15_us),
	  TEST(test_machine_speed_range_is_1e_minus6_to_1e6),
	  TEST(test_plan_at_the_limits_is_finite))

/* test_placement.c - placement files: JSON and .place, round trips,
 * omitted and CPU-pinned ops, errors with lines. */
#include <cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dnnpart/load.h"
#include "dnnpart/machine.h"
#include "dnnpart/placement.h"
#include "lib/fixtures.h"
#include "lib/testlib.h"

#define D "tests/data/"

/* a b c d e f g iso: a->b (100), c->b (300), b->d (50), d->e (10),
 * f->g (5); iso has no edges. */
static dp_graph *small_graph(void)
{
	static const char *const names[] = {"a", "b", "c", "d",
					    "e", "f", "g", "iso"};
	dp_graph *g = dp_graph_new("t");
	for (int i = 0; i < 8; i++) {
		uint32_t id;
		if (dp_graph_add_op(g, names[i], &id, NULL))
			return NULL;
	}
	dp_graph_add_edge(g, 0, 1, 100, false, NULL);
	dp_graph_add_edge(g, 2, 1, 300, false, NULL);
	dp_graph_add_edge(g, 1, 3, 50, false, NULL);
	dp_graph_add_edge(g, 3, 4, 10, false, NULL);
	dp_graph_add_edge(g, 5, 6, 5, false, NULL);
	return test_finalized(g);
}

static char *temp_path(const char *suffix)
{
	static char path[64];
	snprintf(path, sizeof path, "/tmp/dnnpart-place-XXXXXX%s", suffix);
	int fd = mkstemps(path, (int)strlen(suffix));
	if (fd < 0)
		return NULL;
	close(fd);
	return path;
}

/* small_graph() with the placement file at path read into pl and info;
 * NULL (a recorded failure) when either cannot be. */
static dp_graph *read_small(const char *path, int32_t *pl,
			    dp_placement_info *info)
{
	dp_graph *g = small_graph();
	dp_err err;
	if (!g) {
		test_fail(__FILE__, __LINE__, "cannot build the small graph");
		return NULL;
	}
	if (dp_placement_read(path, g, pl, info, &err) == DP_OK)
		return g;
	FAIL_ERR(path, &err);
	dp_graph_free(g);
	return NULL;
}

static void test_placement_json_omitted_and_cpu_ops(void)
{
	int32_t pl[8];
	dp_placement_info info;
	dp_graph *g = read_small(D "placement_ok.json", pl, &info);
	REQUIRE(g);
	CHECK_INT(info.devices, 4);
	CHECK(info.devices_stated);	   /* "devices": 4 */
	CHECK_STR(info.algorithm, "hand"); /* named in export titles */
	CHECK_INT(info.cpu_pinned, 1);	   /* b: -1 */
	CHECK_INT(info.omitted, 4);	   /* d f g iso */
	/* a c e as written; b: heaviest placed neighbour is c (300); d: its
	 * only placed neighbour is e; f, g, iso: nothing placed nearby */
	CHECK_PLACEMENT(pl, (const int32_t[]){1, 2, 2, 3, 3, 0, 0, 0}, 8);
	dp_graph_free(g);
}

static void test_placement_place_with_crlf_and_tabs(void)
{
	int32_t pl[8];
	dp_placement_info info;
	dp_graph *g = read_small(D "place_crlf.place", pl, &info);
	REQUIRE(g);
	CHECK_INT(info.devices, 4); /* 1 + the largest device */
	CHECK(!info.devices_stated);
	CHECK_STR(info.algorithm, "");
	CHECK_INT(info.omitted, 5);
	CHECK_INT(info.cpu_pinned, 0);
	CHECK_INT(pl[0], 1);
	CHECK_INT(pl[1], 2);
	CHECK_INT(pl[4], 3);
	dp_graph_free(g);
}

/* Chains of omitted ops follow their placed ends; ties go to the
 * neighbour with the smaller op id. */
static void test_placement_omitted_chains_and_ties(void)
{
	static const char *const names[] = {"x",  "y", "z",  "w",  "s0", "s1",
					    "s2", "u", "p1", "t1", "p2"};
	dp_graph *g = dp_graph_new("chains");
	for (int i = 0; i < 11; i++) {
		uint32_t id;
		REQUIRE(dp_graph_add_op(g, names[i], &id, NULL) == DP_OK);
	}
	dp_graph_add_edge(g, 0, 1, 1, false, NULL);
	dp_graph_add_edge(g, 1, 2, 1, false, NULL);
	dp_graph_add_edge(g, 2, 3, 1, false, NULL);
	dp_graph_add_edge(g, 4, 5, 1, false, NULL);
	dp_graph_add_edge(g, 5, 6, 1, false, NULL);
	dp_graph_add_edge(g, 6, 7, 1, false, NULL);
	dp_graph_add_edge(g, 8, 9, 7, false, NULL);
	dp_graph_add_edge(g, 9, 10, 7, false, NULL);
	REQUIRE(dp_graph_finalize(g, NULL) == DP_OK);
	char *path = temp_path(".place");
	REQUIRE(path);
	REQUIRE(test_write_file(path, "x 1\nu 2\np1 3\np2 1\n"));
	int32_t pl[11];
	dp_placement_info info;
	dp_err err;
	dp_status st = dp_placement_read(path, g, pl, &info, &err);
	unlink(path);
	REQUIRE(st == DP_OK);
	CHECK_INT(info.omitted, 7);
	/* x -> y -> z -> w: all follow x (1); s0 -> s1 -> s2 -> u: all follow
	 * u (2), even the source s0; t1 between p1 (dev 3) and p2 (dev 1),
	 * equal bytes: p1 wins */
	CHECK_PLACEMENT(pl, (const int32_t[]){1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 1},
			11);
	dp_graph_free(g);
}

static void test_placement_errors_name_the_line(void)
{
	dp_graph *g = small_graph();
	REQUIRE(g);
	int32_t pl[8];
	size_t n;
	char *text;
	test_bad_input *cases =
		test_read_bad_inputs(D "placement_bad.cases", &n, &text);
	REQUIRE(cases);
	CHECK_INT(n, 10);
	for (size_t i = 0; i < n; i++) {
		char path[256];
		snprintf(path, sizeof path, D "%s", cases[i].file);
		dp_err err;
		dp_err_clear(&err);
		dp_status st = dp_placement_read(path, g, pl, NULL, &err);
		CHECK_INPUT_ERROR(st, &err, path, &cases[i], true);
	}
	free(cases);
	free(text);
	dp_err err;
	char *path = temp_path(".place");
	REQUIRE(path);
	CHECK_INT(dp_placement_read(path, g, pl, NULL, &err), DP_EINPUT);
	CHECK_CONTAINS(err.msg, "empty file");
	unlink(path);
	dp_graph_free(g);
}

/* A plan filled by hand: the writer reads only its fields. */
static void fill_plan(dp_plan *p, int32_t *pl, dp_device_stats *dev)
{
	memset(p, 0, sizeof *p);
	p->nops = 8;
	p->k = 3;
	p->placement = pl;
	snprintf(p->algo, sizeof p->algo, "mtopo");
	p->contention = DP_CONT_PORT;
	p->sim.k = 3;
	p->sim.makespan = 123.5;
	p->sim.dev = dev;
	p->bounds.lb_us = 100;
	p->xlb = 1.235;
	p->speedup = 2.5;
	p->feasible = false;
	for (int d = 0; d < 3; d++) {
		memset(&dev[d], 0, sizeof dev[d]);
		dev[d].ops = (uint32_t)(d + 2);
		dev[d].busy_us = 10.25 * (d + 1);
		dev[d].peak_bytes = 1000 * (d + 1);
		dev[d].cap_bytes = d == 2 ? DP_CAP_UNLIMITED : 1500;
		dev[d].speed = d == 1 ? 2.5 : 1;
		dev[d].comm_in_bytes = 7 * d;
		dev[d].comm_out_bytes = 11 * d;
	}
}

static void test_placement_json_round_trip_with_metrics(void)
{
	dp_graph *g = small_graph();
	REQUIRE(g);
	int32_t pl[8] = {0, 1, 2, 0, 1, 2, 0, 1};
	dp_device_stats dev[3];
	dp_plan plan;
	fill_plan(&plan, pl, dev);
	char *path = temp_path(".json");
	REQUIRE(path);
	dp_err err;
	REQUIRE(dp_placement_write_json(path, g, &plan, &err) == DP_OK);
	int32_t back[8];
	dp_placement_info info;
	REQUIRE(dp_placement_read(path, g, back, &info, &err) == DP_OK);
	CHECK(memcmp(back, pl, sizeof pl) == 0);
	CHECK_INT(info.devices, 3);
	CHECK_INT(info.omitted, 0);
	/* the metrics, read with an independent JSON parser */
	char *text;
	size_t len;
	REQUIRE(dp_load_read_file(path, 0, &text, &len, &err) == DP_OK);
	unlink(path);
	cJSON *j = cJSON_Parse(text);
	free(text);
	REQUIRE(j);
	CHECK_STR(cJSON_GetObjectItem(j, "format")->valuestring,
		  "dnnpart-placement");
	CHECK_STR(cJSON_GetObjectItem(j, "graph")->valuestring, "t");
	CHECK_STR(cJSON_GetObjectItem(j, "algorithm")->valuestring, "mtopo");
	CHECK_INT(cJSON_GetObjectItem(j, "devices")->valueint, 3);
	cJSON *m = cJSON_GetObjectItem(j, "metrics");
	REQUIRE(m);
	CHECK_NEAR(cJSON_GetObjectItem(m, "makespan_us")->valuedouble, 123.5,
		   0);
	CHECK_NEAR(cJSON_GetObjectItem(m, "lower_bound_us")->valuedouble, 100,
		   0);
	CHECK_NEAR(cJSON_GetObjectItem(m, "xlb")->valuedouble, 1.235, 0);
	CHECK_NEAR(cJSON_GetObjectItem(m, "speedup")->valuedouble, 2.5, 0);
	CHECK(cJSON_IsFalse(cJSON_GetObjectItem(m, "feasible")));
	CHECK_STR(cJSON_GetObjectItem(m, "contention")->valuestring, "port");
	cJSON *devs = cJSON_GetObjectItem(m, "devices");
	REQUIRE(cJSON_GetArraySize(devs) == 3);
	cJSON *d1 = cJSON_GetArrayItem(devs, 1);
	CHECK_INT(cJSON_GetObjectItem(d1, "index")->valueint, 1);
	CHECK_INT(cJSON_GetObjectItem(d1, "ops")->valueint, 3);
	CHECK_NEAR(cJSON_GetObjectItem(d1, "busy_us")->valuedouble, 20.5, 0);
	/* the speed the plan was simulated with, as in plan --json */
	CHECK_NEAR(cJSON_GetObjectItem(d1, "speed")->valuedouble, 2.5, 0);
	CHECK_INT(cJSON_GetObjectItem(d1, "peak_bytes")->valuedouble, 2000);
	CHECK_INT(cJSON_GetObjectItem(d1, "cap_bytes")->valuedouble, 1500);
	CHECK_INT(cJSON_GetObjectItem(d1, "comm_in_bytes")->valuedouble, 7);
	CHECK_INT(cJSON_GetObjectItem(d1, "comm_out_bytes")->valuedouble, 11);
	CHECK(cJSON_IsNull(
		cJSON_GetObjectItem(cJSON_GetArrayItem(devs, 2), "cap_bytes")));
	cJSON *map = cJSON_GetObjectItem(j, "placement");
	CHECK_INT(cJSON_GetArraySize(map), 8);
	CHECK_INT(cJSON_GetObjectItem(map, "iso")->valueint, 1);
	cJSON_Delete(j);
	dp_graph_free(g);
}

static void test_placement_place_round_trip(void)
{
	dp_graph *g = small_graph();
	REQUIRE(g);
	int32_t pl[8] = {3, 2, 1, 0, 0, 1, 2, 3};
	char *path = temp_path(".place");
	REQUIRE(path);
	dp_err err;
	REQUIRE(dp_placement_write_place(path, g, pl, &err) == DP_OK);
	char *text;
	size_t len;
	REQUIRE(dp_load_read_file(path, 0, &text, &len, &err) == DP_OK);
	CHECK_STR(text, "a 3\nb 2\nc 1\nd 0\ne 0\nf 1\ng 2\niso 3\n");
	free(text);
	int32_t back[8];
	dp_placement_info info;
	REQUIRE(dp_placement_read(path, g, back, &info, &err) == DP_OK);
	unlink(path);
	CHECK(memcmp(back, pl, sizeof pl) == 0);
	CHECK_INT(info.devices, 4);
	CHECK_INT(info.omitted, 0);
	/* a failed write leaves nothing behind */
	CHECK_INT(dp_placement_write_place("/tmp/dnnpart-no-such-dir/p.place",
					   g, pl, &err),
		  DP_EIO);
	CHECK_CONTAINS(err.msg, "does not exist");
	dp_graph_free(g);
}

/* A placement in the ParDNN reference's output format read against the
 * folder's edges file loaded as plain DOT: our folder's layers-K4.place
 * (tests/data/pardnn-resnet50), or the authors' own where present. */
static void check_pardnn_reference(const char *dir, const char *place)
{
	char gpath[1200], ppath[1200];
	snprintf(gpath, sizeof gpath, "%s/crn_src_sink_low.dot", dir);
	snprintf(ppath, sizeof ppath, "%s/reference/%s", dir, place);
	dp_graph *g = NULL;
	dp_err err;
	REQUIRE(dp_graph_load(gpath, DP_FMT_DOT, &g, &err) == DP_OK);
	int32_t *pl = malloc(g->nops * sizeof *pl);
	REQUIRE(pl);
	dp_placement_info info;
	dp_status st = dp_placement_read(ppath, g, pl, &info, &err);
	CHECK_INT(st, DP_OK);
	CHECK_INT(info.devices, 4);
	CHECK_INT(info.omitted + info.cpu_pinned > 0, 1);
	int used[4] = {0, 0, 0, 0};
	for (uint32_t u = 0; u < g->nops; u++) {
		CHECK(pl[u] >= 0 && pl[u] < 4);
		if (pl[u] >= 0 && pl[u] < 4)
			used[pl[u]]++;
	}
	CHECK(used[0] && used[1] && used[2] && used[3]);
	free(pl);
	dp_graph_free(g);
}

static void test_placement_pardnn_reference_format(void)
{
	check_pardnn_reference("tests/data/pardnn-resnet50", "layers-K4.place");
}

static void test_placement_real_pardnn_reference(void)
{
	const char *dir = test_pardnn_resnet();
	if (dir)
		check_pardnn_reference(dir, "pardnn-cpp-K4.place");
}

TEST_MAIN(TEST(test_placement_json_omitted_and_cpu_ops),
	  TEST(test_placement_place_with_crlf_and_tabs),
	  TEST(test_placement_omitted_chains_and_ties),
	  TEST(test_placement_errors_name_the_line),
	  TEST(test_placement_json_round_trip_with_metrics),
	  TEST(test_placement_place_round_trip),
	  TEST(test_placement_pardnn_reference_format),
	  TEST(test_placement_real_pardnn_reference))

/* test_load_fiddle.c - msr-fiddle (NeurIPS'20) JSON graphs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dnnpart/graph.h"
#include "dnnpart/load.h"
#include "lib/fixtures.h"
#include "lib/testlib.h"

static dp_graph *load_file(const char *path, dp_err *err)
{
	return test_load_with(dp_load_fiddle, path, NULL, err);
}

/* A graph of the msr-fiddle inputs (tests/data/msr-fiddle); NULL is a recorded failure. */
static dp_graph *load_copied(const char *rel)
{
	char path[512];
	snprintf(path, sizeof path, "msr-fiddle/throughput-inputs/%s", rel);
	return test_load_data(dp_load_fiddle, path);
}

static int64_t edge_bytes_sum(const dp_graph *g)
{
	int64_t s = 0;
	for (uint32_t e = 0; e < g->nedges; e++)
		s += g->edges[e].bytes;
	return s;
}

static uint32_t group_members(const dp_graph *g)
{
	return g->ngroups ? g->group_off[g->ngroups] : 0;
}

/* Expected numbers from Python's json module, independently of the loader:
 *   d = json.load(f); ns = d['nodes']
 *   len(ns), len(d['edges']), sum(fpgaLatency) * 1000, sum(round(size)),
 *   colorClasses used by >= 2 nodes and their members, sum of edge sizes
 * LayerGraphs/resnet50_training.json: 354 386 462381.000 38821912904
 *   177 groups / 354 members, edge bytes 44245176328
 * OperatorGraphs/bert_L-12_training.json: 2012 2751 1891742.322
 *   23270902776, 417 groups / 1973 members, edge bytes 35996798256 */
static void test_fiddle_resnet50_layer_training(void)
{
	dp_graph *g = load_copied("LayerGraphs/resnet50_training.json");
	REQUIRE(g);
	CHECK_STR(g->name, "resnet50_training");
	CHECK_TOTALS(g, 354, 386, 462381.0, 1e-3, 38821912904, 177);
	CHECK_INT(g->total_output_bytes, 0);
	CHECK_INT(group_members(g), 354);
	CHECK_INT(edge_bytes_sum(g), 44245176328);
	CHECK_INT(g->hint.devices, 6);
	CHECK_INT(g->hint.memory_bytes, 17185374208);
	CHECK_INT(g->cpu_pinned, 0);
	/* node77 (fw) and node77grad (bw) share colorClass 77 */
	uint32_t f = dp_graph_find(g, "node77"),
		 b = dp_graph_find(g, "node77grad");
	REQUIRE(f != UINT32_MAX && b != UINT32_MAX);
	CHECK_INT(g->ops[f].colocate, g->ops[b].colocate);
	CHECK_STR(dp_graph_str(g, g->group_label[g->ops[f].colocate]),
		  "color77");
	CHECK_NEAR(g->ops[f].time_us, 1236.0, 1e-9);
	CHECK_INT(g->ops[f].param_bytes, 205524992);
	CHECK_STR(dp_graph_str(g, g->ops[f].type), "forward");
	CHECK_STR(dp_graph_str(g, g->ops[b].type), "backward");
	CHECK_STR(dp_graph_str(g, g->ops[b].layer), "class77");
	/* isBackwardNode gives the role */
	CHECK_INT(dp_op_role(g, f), DP_ROLE_FORWARD);
	CHECK_INT(dp_op_role(g, b), DP_ROLE_BACKWARD);
	dp_graph_free(g);
}

static void test_fiddle_bert_operator_training(void)
{
	dp_graph *g = load_copied("OperatorGraphs/bert_L-12_training.json");
	REQUIRE(g);
	CHECK_TOTALS(g, 2012, 2751, 1891742.322, 1e-3, 23270902776, 417);
	CHECK_INT(group_members(g), 1973);
	CHECK_INT(edge_bytes_sum(g), 35996798256);
	dp_graph_free(g);
}

/* Every msr-fiddle file loads and is acyclic. */
static void test_fiddle_every_file_loads(void)
{
	static const char *files[] = {
		"LayerGraphs/bert24_inference.json",
		"LayerGraphs/bert24_training.json",
		"LayerGraphs/gnmt_inference.json",
		"LayerGraphs/gnmt_training.json",
		"LayerGraphs/inceptionv3_inference.json",
		"LayerGraphs/inceptionv3_training.json",
		"LayerGraphs/resnet50_inference.json",
		"LayerGraphs/resnet50_training.json",
		"OperatorGraphs/bert_L-12_training.json",
		"OperatorGraphs/bert_l-12_inference.json",
		"OperatorGraphs/bert_l-3_inference.json",
		"OperatorGraphs/bert_l-3_training.json",
		"OperatorGraphs/bert_l-6_inference.json",
		"OperatorGraphs/bert_l-6_training.json",
		"OperatorGraphs/resnet50_inference.json",
		"OperatorGraphs/resnet50_training.json",
	};
	for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
		dp_graph *g = load_copied(files[i]);
		if (!g)
			continue;
		CHECK(g->nops > 0 && g->hint.devices > 0);
		dp_graph_free(g);
	}
}

/* fiddle_host.json: "lookup" is not supported on an accelerator. */
static void test_fiddle_host_node_left_out(void)
{
	dp_err err;
	dp_graph *g = load_file("tests/data/real/fiddle_host.json", &err);
	REQUIRE(g);
	CHECK_INT(g->nops, 4); /* embed dense dense_grad node14 */
	CHECK_INT(g->cpu_pinned, 1);
	CHECK(dp_graph_find(g, "lookup") == UINT32_MAX);
	uint32_t e = dp_graph_find(g, "embed"), d = dp_graph_find(g, "dense"),
		 dg = dp_graph_find(g, "dense_grad"),
		 n14 = dp_graph_find(g, "node14");
	REQUIRE(e != UINT32_MAX && d != UINT32_MAX && dg != UINT32_MAX &&
		n14 != UINT32_MAX);
	/* dense->dense_grad 128, dense_grad->node14 (no size: producer's
	 * 500), embed->dense through the host op: control */
	CHECK_INT(g->nedges, 3);
	bool bypass = false;
	for (uint32_t i = 0; i < g->nedges; i++) {
		const dp_edge *ed = &g->edges[i];
		if (ed->from == d && ed->to == dg)
			CHECK_INT(ed->bytes, 128);
		else if (ed->from == dg && ed->to == n14)
			CHECK_INT(ed->bytes, 500);
		else if (ed->from == e && ed->to == d)
			bypass = ed->control;
		else
			test_fail(__FILE__, __LINE__, "unexpected edge %u", i);
	}
	CHECK(bypass);
	CHECK_NEAR(g->total_time_us, 6500.0, 1e-9);
	CHECK_INT(g->total_param_bytes, 2000);
	CHECK_INT(g->ngroups, 1); /* color2; color1 has one node */
	CHECK_INT(g->ops[d].colocate, g->ops[dg].colocate);
	CHECK_INT(g->ops[e].colocate, -1);
	CHECK_STR(dp_graph_str(g, g->ops[d].layer), "layer3");
	CHECK_STR(dp_graph_str(g, g->ops[dg].layer), "class2");
	CHECK_INT(g->hint.devices, 3);
	CHECK_INT(g->hint.memory_bytes, 4096);
	dp_graph_free(g);
}

static void expect_error(const char *file, int line, int col,
			 const char *needle)
{
	char path[512];
	snprintf(path, sizeof path, "tests/data/real/%s", file);
	dp_err err;
	dp_graph *g = load_file(path, &err);
	CHECK_LOAD_FAILS(g, &err, path,
			 &(test_bad_input){file, line, col ? col : -1, needle});
}

static void test_fiddle_malformed_files_name_file_line_and_column(void)
{
	/* line 3: `           {"id": 2, "fpgaLatency": "fast", ...`: the
	 * value starts at column 37 */
	expect_error("fiddle_bad_latency.json", 3, 37,
		     "nodes[1]: \"fpgaLatency\" must be a number");
	expect_error("fiddle_unknown_id.json", 5, 0,
		     "edges[1]: \"destId\" 7 names no node");
	expect_error("fiddle_syntax.json", 4, 0, "JSON syntax error");
	expect_error("fiddle_duplicate_id.json", 3, 0,
		     "nodes[1]: duplicate \"id\" 1");
	expect_error("fiddle_missing_size.json", 2, 12,
		     "nodes[0]: missing \"size\"");
	expect_error("fiddle_bad_devices.json", 1, 14,
		     "\"maxFPGAs\" must be an integer from 1 to 1024");
}

static void test_fiddle_rejects_trailing_text_and_non_objects(void)
{
	dp_graph *g = NULL;
	dp_err err;
	const char *t1 = "{\"nodes\": [], \"edges\": []} x";
	CHECK_INT(dp_load_fiddle("t1.json", t1, strlen(t1), &g, &err),
		  DP_EINPUT);
	CHECK_CONTAINS(err.msg, "unexpected text after the JSON object");
	CHECK_INT(err.col, 28);
	const char *t2 = "[1, 2]";
	CHECK_INT(dp_load_fiddle("t2.json", t2, strlen(t2), &g, &err),
		  DP_EINPUT);
	CHECK_CONTAINS(err.msg, "expected a JSON object");
	const char *t3 = "{\"nodes\": [], \"edges\": {}}";
	CHECK_INT(dp_load_fiddle("t3.json", t3, strlen(t3), &g, &err),
		  DP_EINPUT);
	CHECK_CONTAINS(err.msg, "\"edges\" holding an array");
	CHECK_INT(err.col, 24);
}

/* dp_graph_load recognises the format by content. */
static void test_fiddle_graph_load_detects_format(void)
{
	char path[512];
	snprintf(path, sizeof path,
		 "%s/msr-fiddle/throughput-inputs/OperatorGraphs/"
		 "bert_l-3_inference.json",
		 test_data_dir());
	dp_err err;
	dp_format f = DP_FMT_AUTO;
	CHECK_INT(dp_load_detect(path, &f, &err), DP_OK);
	CHECK_INT(f, DP_FMT_FIDDLE);
	dp_graph *g = NULL;
	REQUIRE(dp_graph_load(path, DP_FMT_AUTO, &g, &err) == DP_OK);
	CHECK_INT(g->nops, 235); /* python: len(d['nodes']) */
	CHECK_INT(g->nedges, 250);
	CHECK_INT(g->hint.devices, 3);
	CHECK_STR(g->name, "bert_l-3_inference");
	dp_graph_free(g);
}

TEST_MAIN(TEST(test_fiddle_resnet50_layer_training),
	  TEST(test_fiddle_graph_load_detects_format),
	  TEST(test_fiddle_bert_operator_training),
	  TEST(test_fiddle_every_file_loads),
	  TEST(test_fiddle_host_node_left_out),
	  TEST(test_fiddle_malformed_files_name_file_line_and_column),
	  TEST(test_fiddle_rejects_trailing_text_and_non_objects))

/* test_load_pipedream.c - PipeDream graph.txt as a training graph. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dnnpart/graph.h"
#include "dnnpart/load.h"
#include "lib/fixtures.h"
#include "lib/testlib.h"

/* Loads and finalizes; NULL (and err filled) on failure. */
static dp_graph *load_file(const char *path, dp_err *err)
{
	return test_load_with(dp_load_pipedream, path, NULL, err);
}

static dp_graph *load_text(const char *text, dp_err *err)
{
	return test_load_with(dp_load_pipedream, "mem/graph.txt", text, err);
}

/* A PipeDream profile (tests/data/pipedream); NULL is a recorded failure. */
static dp_graph *load_copied(const char *model)
{
	char path[512];
	snprintf(path, sizeof path, "pipedream/%s/graph.txt", model);
	return test_load_data(dp_load_pipedream, path);
}

static uint32_t op(const dp_graph *g, const char *name)
{
	return dp_graph_find(g, name);
}

static bool has_edge(const dp_graph *g, const char *a, const char *b,
		     int64_t *bytes)
{
	uint32_t u = op(g, a), v = op(g, b);
	if (u == UINT32_MAX || v == UINT32_MAX)
		return false;
	for (uint32_t i = g->succ_off[u]; i < g->succ_off[u + 1]; i++) {
		const dp_edge *e = &g->edges[g->succ_edge[i]];
		if (e->to == v) {
			if (bytes)
				*bytes = e->bytes;
			return true;
		}
	}
	return false;
}

/* Expected numbers computed from the file with awk, independently of the
 * loader (layers L, input layers I, edge lines E, edges leaving an input
 * Ein; ops = 2L - I; edges = E fw + (E - Ein) mirrored + E saved inputs +
 * (L - I) saved outputs; time = fw + bw of non-input layers; groups =
 * layers with parameters):
 *   awk -F' -- ' '/^\t/{gsub(/^\t/,"");e++;if($1 in inp)ein++;next}
 *     NF>=3{L++;split($NF,kv,", ");for(i in kv){split(kv[i],p,"=");
 *     v[p[1]]=p[2]}; if($2~/^Input[0-9]*$/){I++;inp[$1]=1} else
 *     t+=v["forward_compute_time"]+v["backward_compute_time"];
 *     par+=v["parameter_size"]; if(v["parameter_size"]+0>0)grp++}
 *     END{print L,I,e,ein,t,par,grp}' graph.txt
 * resnet50: 177 1 193 1 443.419 102228128 107 */
static void test_pipedream_resnet50_counts_and_totals(void)
{
	dp_graph *g = load_copied("resnet50");
	REQUIRE(g);
	CHECK_STR(g->name, "resnet50");
	CHECK_TOTALS(g, 2 * 177 - 1, 193 + (193 - 1) + 193 + (177 - 1),
		     443419.0, 0.01, 102228128, 107);
	/* the input layer: data loading, forward time 0, no backward op */
	uint32_t in = op(g, "node1");
	REQUIRE(in != UINT32_MAX);
	CHECK_NEAR(g->ops[in].time_us, 0.0, 0);
	CHECK_STR(dp_graph_str(g, g->ops[in].type), "Input");
	CHECK(op(g, "node1_bw") == UINT32_MAX);
	CHECK_INT(g->cpu_pinned, 0);
	dp_graph_free(g);
}

/* node76 -- Conv2d(128, 512, ...) -- forward_compute_time=1.318,
 * backward_compute_time=2.796, activation_size=205520896.000,
 * parameter_size=262144.000; edges node75 -- node76, node76 -- node77. */
static void test_pipedream_layer_becomes_forward_and_backward(void)
{
	dp_graph *g = load_copied("resnet50");
	REQUIRE(g);
	uint32_t f = op(g, "node76"), b = op(g, "node76_bw");
	REQUIRE(f != UINT32_MAX && b != UINT32_MAX);
	CHECK_NEAR(g->ops[f].time_us, 1318.0, 1e-6);
	CHECK_NEAR(g->ops[b].time_us, 2796.0, 1e-6);
	CHECK_INT(g->ops[f].output_bytes, 205520896);
	CHECK_INT(g->ops[f].param_bytes, 0);
	CHECK_INT(g->ops[b].param_bytes, 262144);
	CHECK_STR(dp_graph_str(g, g->ops[f].type), "Conv2d");
	CHECK_STR(dp_graph_str(g, g->ops[b].type), "Conv2dBackward");
	CHECK_STR(dp_graph_str(g, g->ops[b].layer), "node76");
	/* parameters: forward and backward share a device */
	CHECK(g->ops[f].colocate >= 0);
	CHECK_INT(g->ops[f].colocate, g->ops[b].colocate);
	/* ReLU node75 has no parameters: no group */
	CHECK_INT(g->ops[op(g, "node75")].colocate, -1);
	int64_t bytes = 0;
	CHECK(has_edge(g, "node75", "node76", &bytes));
	CHECK_INT(bytes, 51380224); /* activation of node75 */
	CHECK(has_edge(g, "node76_bw", "node75_bw", &bytes));
	CHECK_INT(bytes, 51380224); /* gradient of node75's output */
	CHECK(has_edge(g, "node75", "node76_bw", &bytes)); /* saved input */
	CHECK_INT(bytes, 51380224);
	CHECK(has_edge(g, "node76", "node76_bw", &bytes)); /* saved output */
	CHECK_INT(bytes, 205520896);
	CHECK(!has_edge(g, "node75_bw", "node76_bw", NULL));
	dp_graph_free(g);
}

/* gnmt: three input layers (Input0..2) and list-valued activation sizes
 * "[6291456.0; 131072.0; 131072.0]" (summed). awk as above:
 * 48 3 58 4 89.416 775063808 11 */
static void test_pipedream_gnmt_lists_and_several_inputs(void)
{
	dp_graph *g = load_copied("gnmt");
	REQUIRE(g);
	CHECK_TOTALS(g, 2 * 48 - 3, 58 + (58 - 4) + 58 + (48 - 3), 89416.0,
		     0.01, 775063808, 11);
	uint32_t lstm = op(g, "node7");
	REQUIRE(lstm != UINT32_MAX);
	CHECK_INT(g->ops[lstm].output_bytes, 6291456 + 131072 + 131072);
	dp_graph_free(g);
}

/* Every PipeDream profile loads and is acyclic. */
static void test_pipedream_every_profile_loads(void)
{
	static const char *models[] = {
		"alexnet",   "vgg16",	      "resnet18",      "resnet50",
		"resnext50", "squeezenet1_0", "nasnetamobile", "gnmt"};
	for (size_t i = 0; i < sizeof models / sizeof models[0]; i++) {
		dp_graph *g = load_copied(models[i]);
		if (!g)
			continue;
		CHECK(g->nops > 0 && g->total_time_us > 0);
		dp_graph_free(g);
	}
}

static void test_pipedream_small_graph_by_hand(void)
{
	dp_err err;
	dp_graph *g =
		load_text("node1 -- Input -- forward_compute_time=7.0, "
			  "backward_compute_time=0.0, activation_size=100.0, "
			  "parameter_size=0.0\n"
			  "node2 -- Linear(4, 4) -- forward_compute_time=0.5, "
			  "backward_compute_time=1.5, activation_size=200.0, "
			  "parameter_size=64.0\n"
			  "\tnode1 -- node2\n",
			  &err);
	REQUIRE(g);
	CHECK_STR(g->name, "mem");
	CHECK_INT(g->nops, 3);
	/* node1->node2, node1->node2_bw (saved input), node2->node2_bw */
	CHECK_INT(g->nedges, 3);
	CHECK_NEAR(g->total_time_us, 2000.0, 1e-9);
	int64_t b = 0;
	CHECK(has_edge(g, "node1", "node2_bw", &b));
	CHECK_INT(b, 100);
	CHECK_INT(g->ops[op(g, "node2_bw")].output_bytes, 0);
	/* the profile says which layers are inputs; forward and backward
	 * ops are the loader's own */
	CHECK_INT(dp_op_role(g, op(g, "node1")), DP_ROLE_INPUT);
	CHECK_INT(dp_op_role(g, op(g, "node2")), DP_ROLE_FORWARD);
	CHECK_INT(dp_op_role(g, op(g, "node2_bw")), DP_ROLE_BACKWARD);
	dp_graph_free(g);
}

static void expect_error(const char *file, int line, const char *needle)
{
	char path[512];
	snprintf(path, sizeof path, "tests/data/real/%s", file);
	dp_err err;
	dp_err_clear(&err);
	dp_graph *g = load_file(path, &err);
	CHECK_LOAD_FAILS(g, &err, path,
			 &(test_bad_input){file, line, -1, needle});
}

static void test_pipedream_malformed_files_name_file_and_line(void)
{
	expect_error("pipedream_bad_number.txt", 2, "not a number or a list");
	expect_error("pipedream_missing_attr.txt", 3,
		     "no parameter_size= attribute");
	expect_error("pipedream_unknown_edge.txt", 4,
		     "'node9', which no layer line declares");
	expect_error("pipedream_no_separator.txt", 2, "expected a layer line");
	expect_error("pipedream_negative_time.txt", 1,
		     "backward_compute_time must be a finite number >= 0");
	expect_error("pipedream_duplicate_layer.txt", 2,
		     "duplicate op name 'node1'");
}

static void test_pipedream_empty_file_is_an_error(void)
{
	dp_err err;
	CHECK(load_text("\n\n", &err) == NULL);
	CHECK_CONTAINS(err.msg, "no layer lines");
}

/* dp_graph_load recognises graph.txt by content and builds the same graph. */
static void test_pipedream_graph_load_detects_format(void)
{
	char path[512];
	snprintf(path, sizeof path, "%s/pipedream/vgg16/graph.txt",
		 test_data_dir());
	dp_err err;
	dp_format f = DP_FMT_AUTO;
	CHECK_INT(dp_load_detect(path, &f, &err), DP_OK);
	CHECK_INT(f, DP_FMT_PIPEDREAM);
	dp_graph *g = NULL, *h = load_file(path, &err);
	REQUIRE(h);
	REQUIRE(dp_graph_load(path, DP_FMT_AUTO, &g, &err) == DP_OK);
	CHECK_INT(g->nops, h->nops);
	CHECK_INT(g->nedges, h->nedges);
	CHECK_NEAR(g->total_time_us, h->total_time_us, 0);
	CHECK_STR(g->name, "vgg16");
	dp_graph_free(g);
	dp_graph_free(h);
}

TEST_MAIN(TEST(test_pipedream_resnet50_counts_and_totals),
	  TEST(test_pipedream_graph_load_detects_format),
	  TEST(test_pipedream_layer_becomes_forward_and_backward),
	  TEST(test_pipedream_gnmt_lists_and_several_inputs),
	  TEST(test_pipedream_every_profile_loads),
	  TEST(test_pipedream_small_graph_by_hand),
	  TEST(test_pipedream_malformed_files_name_file_and_line),
	  TEST(test_pipedream_empty_file_is_an_error))

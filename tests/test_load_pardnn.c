/* test_load_pardnn.c - the ParDNN reference's input folder. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dnnpart/graph.h"
#include "dnnpart/load.h"
#include "dnnpart/machine.h"
#include "dnnpart/placement.h"
#include "dnnpart/plan.h"
#include "lib/fixtures.h"
#include "lib/testlib.h"

static dp_graph *load_dir(const char *dir, dp_err *err)
{
	dp_graph *g = NULL;
	dp_err_clear(err);
	dp_status st = dp_load_pardnn(dir, &g, err);
	return test_loaded(st, g, err);
}

static dp_graph *load_resnet(dp_err *err)
{
	char dir[512];
	snprintf(dir, sizeof dir, "%s/pardnn-resnet", test_shared_dir());
	return load_dir(dir, err);
}

static uint32_t op(const dp_graph *g, const char *name)
{
	return dp_graph_find(g, name);
}

static const dp_edge *edge(const dp_graph *g, const char *a, const char *b)
{
	uint32_t u = op(g, a), v = op(g, b);
	if (u == UINT32_MAX || v == UINT32_MAX)
		return NULL;
	for (uint32_t i = g->succ_off[u]; i < g->succ_off[u + 1]; i++)
		if (g->edges[g->succ_edge[i]].to == v)
			return &g->edges[g->succ_edge[i]];
	return NULL;
}

static uint32_t group_size(const dp_graph *g, uint32_t u)
{
	int32_t c = g->ops[u].colocate;
	return c < 0 ? 1 : g->group_off[c + 1] - g->group_off[c];
}

/* Expected numbers computed from the files, independently of the loader
 * (short Python over the same files, see the commit message):
 * - ops: distinct names in crn_src_sink_low.dot:
 *     sed 's/"\([^"]*\)"->"\([^"]*\)"/\1\n\2/' crn_src_sink_low.dot |
 *     grep -v '[{}]' | sort -u | wc -l                        -> 6094
 * - edges: lines without src/snk: awk -F'->' 'NF==2{gsub(/"/,"");
 *     if($1!="src"&&$2!="src"&&$1!="snk"&&$2!="snk")n++}END{print n}'
 *                                                             -> 10593
 *   of which touch a no-op (control)                          -> 1079
 * - time: sum of durations + 1 us per op without one (4588) -> 69781
 * - param: memory.txt values of var_nodes.txt entries         -> 1044
 * - output: memory of every other op but no-ops              -> 73174124
 * - unknown names: 39 in tensors_sz_32_low.txt + 39 in memory.txt
 * - colocation by union-find (ref op + var predecessors): 166 groups of
 *   two or more, 2546 ops in them, the largest has 18 ops. */
static void test_pardnn_resnet_counts_and_totals(void)
{
	dp_err err;
	dp_graph *g = load_resnet(&err);
	REQUIRE(g);
	CHECK_STR(g->name, "pardnn-resnet");
	CHECK_INT(g->nops, 6094);
	CHECK_INT(g->nedges, 10593);
	uint32_t control = 0;
	for (uint32_t e = 0; e < g->nedges; e++)
		control += g->edges[e].control;
	CHECK_INT(control, 1079);
	CHECK_NEAR(g->total_time_us, 69781.0, 1e-6);
	CHECK_INT(g->total_param_bytes, 1044);
	CHECK_INT(g->total_output_bytes, 73174124);
	CHECK_INT(g->unknown_names, 78);
	CHECK_INT(g->cpu_pinned, 0); /* vanilla_cleaned.place has no -1 */
	CHECK_INT(g->ngroups, 166);
	uint32_t members = 0, largest = 0;
	for (uint32_t c = 0; c < g->ngroups; c++) {
		uint32_t sz = g->group_off[c + 1] - g->group_off[c];
		members += sz;
		if (sz > largest)
			largest = sz;
	}
	CHECK_INT(members, 2546);
	CHECK_INT(largest, 18);
	dp_graph_free(g);
}

static void test_pardnn_resnet_variables_and_refs(void)
{
	dp_err err;
	dp_graph *g = load_resnet(&err);
	REQUIRE(g);
	uint32_t k = op(g, "resnet_model/conv2d/kernel");
	uint32_t mom = op(g, "resnet_model/conv2d/kernel/momentum");
	uint32_t apply = op(g, "momentum/update_resnet_model/conv2d/kernel/"
			       "resourceapplymomentum");
	uint32_t read = op(g, "resnet_model/conv2d/conv2d/readvariableop");
	REQUIRE(k != UINT32_MAX && mom != UINT32_MAX && apply != UINT32_MAX &&
		read != UINT32_MAX);
	CHECK_STR(dp_graph_str(g, g->ops[k].type), "Variable");
	CHECK_STR(dp_graph_str(g, g->ops[read].type), "RefOp");
	/* "resnet_model/conv2d/kernel":: 4 (a resource handle) */
	CHECK_INT(g->ops[k].param_bytes, 4);
	CHECK_INT(g->ops[k].output_bytes, 0);
	/* the apply op joins the weight and its momentum slot */
	CHECK(g->ops[k].colocate >= 0);
	CHECK_INT(g->ops[mom].colocate, g->ops[k].colocate);
	CHECK_INT(g->ops[apply].colocate, g->ops[k].colocate);
	CHECK_INT(g->ops[read].colocate, g->ops[k].colocate);
	CHECK_STR(dp_graph_str(g, g->group_label[g->ops[k].colocate]),
		  "resnet_model/conv2d/kernel");
	CHECK_INT(group_size(g, k), 18);
	/* src and snk: kept as isolated zero-time ops */
	uint32_t src = op(g, "src"), snk = op(g, "snk");
	REQUIRE(src != UINT32_MAX && snk != UINT32_MAX);
	CHECK_NEAR(g->ops[src].time_us, 0, 0);
	CHECK_INT(g->succ_off[src + 1] - g->succ_off[src], 0);
	CHECK_INT(g->pred_off[snk + 1] - g->pred_off[snk], 0);
	/* layer: name scope, gradients/ stripped, two levels */
	uint32_t gr = op(g, "gradients/resnet_model/conv2d_8/conv2d_grad/"
			    "conv2dbackpropinput");
	if (gr != UINT32_MAX)
		CHECK_STR(dp_graph_str(g, g->ops[gr].layer),
			  "resnet_model/conv2d_8");
	CHECK_STR(dp_graph_str(g, g->ops[k].layer), "resnet_model/conv2d");
	/* roles where the input says them: variables hold weights, ops
	 * under gradients* are the backward pass, the rest is not said */
	CHECK_INT(dp_op_role(g, k), DP_ROLE_PARAM);
	CHECK_INT(dp_op_role(g, mom), DP_ROLE_PARAM);
	CHECK_INT(dp_op_role(g, read), DP_ROLE_NONE);
	CHECK_INT(dp_op_role(g, apply), DP_ROLE_NONE);
	uint32_t nbw = 0;
	for (uint32_t u = 0; u < g->nops; u++)
		if (dp_op_role(g, u) == DP_ROLE_BACKWARD) {
			nbw++;
			CHECK(strncmp(dp_graph_op_name(g, u), "gradients", 9) ==
			      0);
		}
	CHECK_INT(nbw, 802); /* the other 365 of the 1,167 ops under
			      * gradients* are no-ops: ordering only */
	dp_graph_free(g);
}

static void test_pardnn_tiny_folder_by_hand(void)
{
	dp_err err;
	dp_graph *g = load_dir("tests/data/real/pardnn_tiny", &err);
	REQUIRE(g);
	CHECK_STR(g->name, "pardnn_tiny");
	/* src w x w/read mm noop out snk; cpu_op (device -1) left out */
	CHECK_INT(g->nops, 8);
	CHECK_INT(g->cpu_pinned, 1);
	CHECK(op(g, "cpu_op") == UINT32_MAX);
	CHECK_INT(g->unknown_names, 1); /* ghost::5 */
	/* w->w/read, w/read->mm, mm->noop, noop->out, mm->out, and x->mm
	 * through the host op */
	CHECK_INT(g->nedges, 6);
	const dp_edge *e = edge(g, "x", "mm");
	REQUIRE(e);
	CHECK(e->control);
	e = edge(g, "w", "w/read");
	REQUIRE(e);
	CHECK_INT(e->bytes, 400);
	CHECK(!e->control);
	e = edge(g, "mm", "noop");
	REQUIRE(e);
	CHECK(e->control);
	e = edge(g, "mm", "out");
	REQUIRE(e);
	CHECK_INT(e->bytes, 1000);
	/* 2 + 1 + 100 + 10 listed, x and noop default to 1 us */
	CHECK_NEAR(g->total_time_us, 115.0, 1e-9);
	CHECK_INT(g->total_param_bytes, 400);
	CHECK_INT(g->total_output_bytes, 400 + 1000 + 64 + 8);
	CHECK_INT(g->ngroups, 2);
	CHECK_INT(g->ops[op(g, "w")].colocate,
		  g->ops[op(g, "w/read")].colocate);
	CHECK_INT(g->ops[op(g, "mm")].colocate, g->ops[op(g, "out")].colocate);
	CHECK(g->ops[op(g, "mm")].colocate != g->ops[op(g, "w")].colocate);
	CHECK_INT(g->ops[op(g, "x")].colocate, -1);
	dp_graph_free(g);
}

static void expect_error(const char *dir, const char *file, int line,
			 const char *needle)
{
	char path[512], want[600];
	snprintf(path, sizeof path, "tests/data/real/%s", dir);
	if (file)
		snprintf(want, sizeof want, "%s/%s", path, file);
	else
		snprintf(want, sizeof want, "%s", path);
	dp_err err;
	dp_graph *g = load_dir(path, &err);
	CHECK_LOAD_FAILS(g, &err, want,
			 &(test_bad_input){dir, line, -1, needle});
}

static void test_pardnn_malformed_folders_name_file_and_line(void)
{
	expect_error("pardnn_bad_edge", "tiny_src_sink.dot", 3,
		     "expected an edge line");
	expect_error("pardnn_bad_duration", "nodes_average_durations.txt", 2,
		     "the value must be a number >= 0, got 'abc'");
	expect_error("pardnn_bad_size", "tensors_sz.txt", 2,
		     "expected a size line");
	expect_error("pardnn_bad_place", "vanilla_cleaned.place", 2,
		     "the device must be an integer >= -1");
	expect_error("pardnn_no_durations", NULL, 0,
		     "no durations file (*durations*.txt)");
	expect_error("pardnn_two_graphs", NULL, 0,
		     "several files could be the edges file (*.dot): a.dot, "
		     "b.dot");
	expect_error("pardnn_cycle", NULL, 0, "cycle of 3 ops");
}

static void test_pardnn_bad_edge_has_column(void)
{
	dp_err err;
	CHECK(load_dir("tests/data/real/pardnn_bad_edge", &err) == NULL);
	CHECK_INT(err.col, 5); /* "w" "w/read": the second name, not "->" */
}

static void test_pardnn_not_a_folder(void)
{
	dp_err err;
	CHECK(load_dir("tests/data/real/no_such_folder", &err) == NULL);
	CHECK_INT(err.code, DP_EIO);
	CHECK_STR(err.file, "tests/data/real/no_such_folder");
}

/* dp_graph_load detects a folder as a ParDNN folder. */
static void test_pardnn_graph_load_detects_folder(void)
{
	char dir[512];
	snprintf(dir, sizeof dir, "%s/pardnn-resnet", test_shared_dir());
	dp_format f = DP_FMT_AUTO;
	dp_err err;
	CHECK_INT(dp_load_detect(dir, &f, &err), DP_OK);
	CHECK_INT(f, DP_FMT_PARDNN);
	dp_graph *g = NULL;
	REQUIRE(dp_graph_load(dir, DP_FMT_AUTO, &g, &err) == DP_OK);
	CHECK(g->finalized);
	CHECK_INT(g->nops, 6094);
	dp_graph_free(g);
}

/* The reference's own K=4 placements evaluate on 4 devices with the
 * pardnn link, in both contention models. They list src and snk but not
 * the no-ops: comm -23 of the graph's names and the file's names gives
 * 368 for pardnn-cpp-K4.place (all in no_ops.txt) and 327 for
 * pardnn-python-K4.place. */
static void test_pardnn_reference_placements_evaluate(void)
{
	static const struct {
		const char *file;
		uint32_t omitted;
	} refs[] = {{"pardnn-cpp-K4.place", 368},
		    {"pardnn-python-K4.place", 327}};
	dp_err err;
	dp_graph *g = load_resnet(&err);
	REQUIRE(g);
	dp_machine m;
	REQUIRE(dp_machine_init(&m, 4, &err) == DP_OK);
	REQUIRE(dp_machine_set_link(&m, "pardnn", &err) == DP_OK);
	int32_t *pl = calloc(g->nops, sizeof *pl);
	REQUIRE(pl);
	for (size_t i = 0; i < 2; i++) {
		char path[600];
		snprintf(path, sizeof path, "%s/pardnn-resnet/reference/%s",
			 test_shared_dir(), refs[i].file);
		dp_placement_info info;
		if (dp_placement_read(path, g, pl, &info, &err)) {
			FAIL_ERR(NULL, &err);
			continue;
		}
		CHECK_INT(info.omitted, refs[i].omitted);
		CHECK_INT(info.cpu_pinned, 0);
		uint32_t per[4] = {0, 0, 0, 0};
		for (uint32_t u = 0; u < g->nops; u++)
			if (pl[u] >= 0 && pl[u] < 4)
				per[pl[u]]++;
		CHECK_INT(per[0] + per[1] + per[2] + per[3], g->nops);
		for (int c = 0; c < 2; c++) {
			dp_plan p;
			memset(&p, 0, sizeof p);
			dp_status st = dp_plan_evaluate(
				g, &m, pl, c ? DP_CONT_NONE : DP_CONT_PORT, &p,
				&err);
			CHECK_INT(st, DP_OK);
			if (!st) {
				CHECK(p.sim.makespan >= p.bounds.lb_us);
				CHECK(p.feasible); /* no caps */
				CHECK(p.sim.cut_edges > 0);
			}
			dp_plan_free(&p);
		}
	}
	free(pl);
	test_free(g, &m, NULL);
}

TEST_MAIN(TEST(test_pardnn_resnet_counts_and_totals),
	  TEST(test_pardnn_graph_load_detects_folder),
	  TEST(test_pardnn_reference_placements_evaluate),
	  TEST(test_pardnn_resnet_variables_and_refs),
	  TEST(test_pardnn_tiny_folder_by_hand),
	  TEST(test_pardnn_malformed_folders_name_file_and_line),
	  TEST(test_pardnn_bad_edge_has_column), TEST(test_pardnn_not_a_folder))

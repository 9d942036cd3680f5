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

/* Our own ParDNN folder (tools/pardnn_folder.py, from the ResNet-50
 * sample graph). */
#define OWN_DIR "tests/data/pardnn-resnet50"

/* The ParDNN authors' ResNet folder loaded, where present. NULL where not
 * (the test marked skipped) or when it does not load (a recorded
 * failure). */
static dp_graph *load_resnet(void)
{
	const char *dir = test_pardnn_resnet();
	dp_err err;
	dp_graph *g = dir ? load_dir(dir, &err) : NULL;
	if (dir && !g)
		FAIL_ERR(dir, &err);
	return g;
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

/* What a ParDNN folder loads as: name, ops, edges (control ones), work,
 * param and output bytes, side-file names that named no op, host ops left
 * out, colocation groups, the ops in them and the largest group's size. */
struct folder_counts {
	const char *name;
	uint32_t nops, nedges, control;
	double time_us;
	int64_t param, output;
	uint32_t unknown, cpu, groups, members, largest;
};

static void check_counts(const dp_graph *g, const struct folder_counts *w)
{
	CHECK_STR(g->name, w->name);
	CHECK_INT(g->nops, w->nops);
	CHECK_INT(g->nedges, w->nedges);
	uint32_t control = 0;
	for (uint32_t e = 0; e < g->nedges; e++)
		control += g->edges[e].control;
	CHECK_INT(control, w->control);
	CHECK_NEAR(g->total_time_us, w->time_us, 1e-6);
	CHECK_INT(g->total_param_bytes, w->param);
	CHECK_INT(g->total_output_bytes, w->output);
	CHECK_INT(g->unknown_names, w->unknown);
	CHECK_INT(g->cpu_pinned, w->cpu);
	CHECK_INT(g->ngroups, w->groups);
	uint32_t members = 0, largest = 0;
	for (uint32_t c = 0; c < g->ngroups; c++) {
		uint32_t sz = g->group_off[c + 1] - g->group_off[c];
		members += sz;
		if (sz > largest)
			largest = sz;
	}
	CHECK_INT(members, w->members);
	CHECK_INT(largest, w->largest);
}

/* Expected numbers of our own folder, computed from its files
 * independently of the loader (Python over the same files):
 * - ops: the distinct names of crn_src_sink_low.dot (806) but the two
 *   that vanilla_cleaned.place puts on the host (-1: images, labels) -> 804
 * - edges: lines without src, snk or a host op                  -> 1417
 *   of which touch the no-op train_op (control)                  -> 108
 * - time: durations + 1 us per op without a line (219 of them) -> 273706
 * - param: memory.txt values of var_nodes.txt entries      -> 204456256
 * - output: memory.txt values of the other ops but the host's
 *                                                         -> 22312870724
 * - unknown names: none (every side-file entry names an op of the edges
 *   file; those of the host ops are skipped, not counted)        -> 0
 * - colocation: each of the 108 variables with its read and its update
 *   (a ref op named after it): 324 ops, 3 in each group. */
static void test_pardnn_own_counts_and_totals(void)
{
	dp_err err;
	dp_graph *g = load_dir(OWN_DIR, &err);
	REQUIRE(g);
	static const struct folder_counts want = {
		"pardnn-resnet50", 804, 1417, 108, 273706.0, 204456256,
		22312870724, 0, 2, 108, 324, 3};
	check_counts(g, &want);
	CHECK(op(g, "images") == UINT32_MAX);
	dp_graph_free(g);
}

/* One variable of our folder: its read (a predecessor) and its update (a
 * ref op without one, joined by name) are colocated with it; roles and
 * layers as the input says them. */
static void test_pardnn_own_variables_refs_and_roles(void)
{
	dp_err err;
	dp_graph *g = load_dir(OWN_DIR, &err);
	REQUIRE(g);
	uint32_t w = op(g, "block2/unit1/conv2/weights");
	uint32_t rd = op(g, "block2/unit1/conv2/weights/read");
	uint32_t up = op(g, "block2/unit1/conv2/weights/momentum");
	uint32_t gr = op(g, "gradients/block2/unit1/conv2/Conv2D/grad");
	REQUIRE(w != UINT32_MAX && rd != UINT32_MAX && up != UINT32_MAX &&
		gr != UINT32_MAX);
	CHECK_STR(dp_graph_str(g, g->ops[w].type), "Variable");
	CHECK_STR(dp_graph_str(g, g->ops[rd].type), "RefOp");
	CHECK_STR(dp_graph_str(g, g->ops[up].type), "RefOp");
	/* block2/unit1/conv2/weights::1179648 in memory.txt (3x3x128x128
	 * fp32 and its momentum), its tensor 589824 bytes */
	CHECK_INT(g->ops[w].param_bytes, 1179648);
	CHECK_INT(g->ops[w].output_bytes, 0);
	const dp_edge *e = edge(g, "block2/unit1/conv2/weights/read",
				"block2/unit1/conv2/Conv2D");
	REQUIRE(e);
	CHECK_INT(e->bytes, 589824);
	CHECK(g->ops[w].colocate >= 0);
	CHECK_INT(g->ops[rd].colocate, g->ops[w].colocate);
	CHECK_INT(g->ops[up].colocate, g->ops[w].colocate);
	CHECK_STR(dp_graph_str(g, g->group_label[g->ops[w].colocate]),
		  "block2/unit1/conv2/weights");
	/* no line in the durations file: 1 us; a listed one rounded */
	CHECK_NEAR(g->ops[rd].time_us, 1, 0);
	CHECK_NEAR(g->ops[op(g, "conv1/Conv2D")].time_us, 1927, 0);
	/* the update waits for train_op's control edge, not data */
	e = edge(g, "block2/unit1/conv2/weights/momentum", "train_op");
	REQUIRE(e);
	CHECK(e->control);
	CHECK_STR(dp_graph_str(g, g->ops[gr].layer), "block2/unit1");
	CHECK_INT(dp_op_role(g, w), DP_ROLE_PARAM);
	CHECK_INT(dp_op_role(g, gr), DP_ROLE_BACKWARD);
	CHECK_INT(dp_op_role(g, up), DP_ROLE_NONE);
	uint32_t nbw = 0;
	for (uint32_t u = 0; u < g->nops; u++)
		nbw += dp_op_role(g, u) == DP_ROLE_BACKWARD;
	CHECK_INT(nbw, 300); /* the sample's 192 backward + 108 grad ops */
	dp_graph_free(g);
}

/* The real ParDNN ResNet (where present). Expected numbers computed from
 * the files, independently of the loader
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
	dp_graph *g = load_resnet();
	if (!g)
		return;
	/* vanilla_cleaned.place has no -1 */
	static const struct folder_counts want = {
		"pardnn-resnet", 6094, 10593, 1079, 69781.0, 1044, 73174124, 78,
		0, 166, 2546, 18};
	check_counts(g, &want);
	dp_graph_free(g);
}

static void test_pardnn_resnet_variables_and_refs(void)
{
	dp_graph *g = load_resnet();
	if (!g)
		return;
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
	dp_format f = DP_FMT_AUTO;
	dp_err err;
	CHECK_INT(dp_load_detect(OWN_DIR, &f, &err), DP_OK);
	CHECK_INT(f, DP_FMT_PARDNN);
	dp_graph *g = NULL;
	REQUIRE(dp_graph_load(OWN_DIR, DP_FMT_AUTO, &g, &err) == DP_OK);
	CHECK(g->finalized);
	CHECK_INT(g->nops, 804);
	dp_graph_free(g);
}

/* A K=4 placement in the reference's output format (it lists src and snk
 * but not the no-ops, `omitted` of them) evaluates on 4 devices with the
 * pardnn link, in both contention models, every op on a device. */
static void check_reference_placement(const dp_graph *g, const char *path,
				      uint32_t omitted)
{
	dp_err err;
	dp_machine m;
	REQUIRE(dp_machine_init(&m, 4, &err) == DP_OK);
	REQUIRE(dp_machine_set_link(&m, "pardnn", &err) == DP_OK);
	int32_t *pl = calloc(g->nops, sizeof *pl);
	dp_placement_info info;
	if (!pl || dp_placement_read(path, g, pl, &info, &err)) {
		FAIL_ERR(path, &err);
		free(pl);
		dp_machine_free(&m);
		return;
	}
	CHECK_INT(info.omitted, omitted);
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
			g, &m, pl, c ? DP_CONT_NONE : DP_CONT_PORT, &p, &err);
		CHECK_INT(st, DP_OK);
		if (!st) {
			CHECK(p.sim.makespan >= p.bounds.lb_us);
			CHECK(p.feasible); /* no caps */
			CHECK(p.sim.cut_edges > 0);
		}
		dp_plan_free(&p);
	}
	free(pl);
	dp_machine_free(&m);
}

/* Our folder's layers-K4.place leaves out its one no-op, train_op. */
static void test_pardnn_own_reference_placement_evaluates(void)
{
	dp_err err;
	dp_graph *g = load_dir(OWN_DIR, &err);
	REQUIRE(g);
	check_reference_placement(g, OWN_DIR "/reference/layers-K4.place", 1);
	dp_graph_free(g);
}

/* The ParDNN authors' own K=4 placements (where present): comm -23 of the
 * graph's names and the file's names gives 368 for pardnn-cpp-K4.place
 * (all in no_ops.txt) and 327 for pardnn-python-K4.place. */
static void test_pardnn_resnet_reference_placements_evaluate(void)
{
	static const struct {
		const char *file;
		uint32_t omitted;
	} refs[] = {{"pardnn-cpp-K4.place", 368},
		    {"pardnn-python-K4.place", 327}};
	dp_graph *g = load_resnet();
	if (!g)
		return;
	for (size_t i = 0; i < 2; i++) {
		char path[1200];
		snprintf(path, sizeof path, "%s/reference/%s",
			 test_pardnn_resnet(), refs[i].file);
		check_reference_placement(g, path, refs[i].omitted);
	}
	dp_graph_free(g);
}

TEST_MAIN(TEST(test_pardnn_own_counts_and_totals),
	  TEST(test_pardnn_own_variables_refs_and_roles),
	  TEST(test_pardnn_graph_load_detects_folder),
	  TEST(test_pardnn_own_reference_placement_evaluates),
	  TEST(test_pardnn_resnet_counts_and_totals),
	  TEST(test_pardnn_resnet_reference_placements_evaluate),
	  TEST(test_pardnn_resnet_variables_and_refs),
	  TEST(test_pardnn_tiny_folder_by_hand),
	  TEST(test_pardnn_malformed_folders_name_file_and_line),
	  TEST(test_pardnn_bad_edge_has_column), TEST(test_pardnn_not_a_folder))

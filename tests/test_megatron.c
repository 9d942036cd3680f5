/* test_megatron.c - the `megatron` strategy (engine/algo/algo_megatron.c):
 * on a hand-made transformer MLP block with its backward, the lowering moves
 * exactly one all-reduce of the block's output in the forward and one of
 * its input gradient in the backward (ring all-reduce's 2(T-1)/T x the
 * activation per device), plus, with data parallelism, the weight
 * gradients' all-reduce over K/T; --tp, the default T, pins, cancel. */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dnnpart/load.h"
#include "dnnpart/strategy.h"
#include "lib/fixtures.h"
#include "lib/testlib.h"

extern const dp_algo dpi_algo_megatron;

enum { B = 8, S = 4, H = 16 };

/* x -> fc1 {b,s,h,f} -> act -> fc2 {b,s,f,h} -> loss (its output: the
 * gradient dy) -> fc2_grad -> act_grad -> fc1_grad -> x_grad, weight
 * gradients into the updates of w1 [h,f] and w2 [f,h]; with param_edges
 * the variables also feed their updates, without they are joined by their
 * colocation group alone, as in the sample graphs. */
static dp_graph *block(bool param_edges, const char *fdim, int F)
{
	static char text[8192], named[12288];
	const int Y = B * S * H * 4, A = B * S * F * 4, W = H * F * 4;
	snprintf(
		text, sizeof text,
		"{\"name\":\"block\",\"batch_dim\":\"b\",\"ops\":[\n"
#define BSH "{\"b\":%d,\"s\":%d,\"h\":%d}"
#define BSF "{\"b\":%d,\"s\":%d,\"f\":%d}"
#define BSHF "{\"b\":%d,\"s\":%d,\"h\":%d,\"f\":%d}"
		"{\"name\":\"x\",\"role\":\"input\",\"time_us\":1,\"dims\":" BSH
		",\"out\":[\"b\",\"s\",\"h\"],\"output_bytes\":%d},\n"
		"{\"name\":\"w1\",\"role\":\"param\",\"dims\":{\"h\":%d,\"f\":%"
		"d},"
		"\"out\":[\"h\",\"f\"],\"param\":[\"h\",\"f\"],\"param_bytes\":"
		"%d,"
		"\"colocate\":\"w1\"},\n"
		"{\"name\":\"w2\",\"role\":\"param\",\"dims\":{\"f\":%d,\"h\":%"
		"d},"
		"\"out\":[\"f\",\"h\"],\"param\":[\"f\",\"h\"],\"param_bytes\":"
		"%d,"
		"\"colocate\":\"w2\"},\n"
		"{\"name\":\"fc1\",\"role\":\"forward\",\"time_us\":40,"
		"\"dims\":" BSHF
		",\"out\":[\"b\",\"s\",\"f\"],\"param\":[\"h\",\"f\"],"
		"\"output_bytes\":%d},\n"
		"{\"name\":\"act\",\"role\":\"forward\",\"time_us\":4,"
		"\"dims\":" BSF
		",\"out\":[\"b\",\"s\",\"f\"],\"output_bytes\":%d},\n"
		"{\"name\":\"fc2\",\"role\":\"forward\",\"time_us\":40,"
		"\"dims\":" BSHF
		",\"out\":[\"b\",\"s\",\"h\"],\"param\":[\"f\",\"h\"],"
		"\"output_bytes\":%d},\n"
		"{\"name\":\"loss\",\"role\":\"loss\",\"time_us\":2,"
		"\"dims\":" BSH
		",\"out\":[\"b\",\"s\",\"h\"],\"output_bytes\":%d},\n"
		"{\"name\":\"fc2_grad\",\"role\":\"backward\",\"time_us\":40,"
		"\"dims\":" BSHF
		",\"out\":[\"b\",\"s\",\"f\"],\"output_bytes\":%d},\n"
		"{\"name\":\"act_grad\",\"role\":\"backward\",\"time_us\":4,"
		"\"dims\":" BSF
		",\"out\":[\"b\",\"s\",\"f\"],\"output_bytes\":%d},\n"
		"{\"name\":\"fc1_grad\",\"role\":\"backward\",\"time_us\":40,"
		"\"dims\":" BSHF
		",\"out\":[\"b\",\"s\",\"h\"],\"output_bytes\":%d},\n"
		"{\"name\":\"x_grad\",\"role\":\"backward\",\"time_us\":2,"
		"\"dims\":" BSH
		",\"out\":[\"b\",\"s\",\"h\"],\"output_bytes\":%d},\n"
		"{\"name\":\"grad_w1\",\"role\":\"grad\",\"time_us\":40,"
		"\"dims\":" BSHF
		",\"out\":[\"h\",\"f\"],\"output_bytes\":%d},\n"
		"{\"name\":\"grad_w2\",\"role\":\"grad\",\"time_us\":40,"
		"\"dims\":" BSHF
		",\"out\":[\"f\",\"h\"],\"output_bytes\":%d},\n"
		"{\"name\":\"upd1\",\"role\":\"update\",\"time_us\":1,\"dims\":"
		"{"
		"\"h\":%d,\"f\":%d},\"param\":[\"h\",\"f\"],\"colocate\":"
		"\"w1\"},\n"
		"{\"name\":\"upd2\",\"role\":\"update\",\"time_us\":1,\"dims\":"
		"{"
		"\"f\":%d,\"h\":%d},\"param\":[\"f\",\"h\"],\"colocate\":"
		"\"w2\"}\n"
		"],\"edges\":[\n"
		"{\"from\":\"x\",\"to\":\"fc1\",\"dims\":[\"b\",\"s\",\"h\"]},"
		"\n"
		"{\"from\":\"w1\",\"to\":\"fc1\",\"dims\":[\"h\",\"f\"],"
		"\"bytes\":%d},\n"
		"{\"from\":\"fc1\",\"to\":\"act\",\"dims\":[\"b\",\"s\",\"f\"]}"
		",\n"
		"{\"from\":\"act\",\"to\":\"fc2\",\"dims\":[\"b\",\"s\",\"f\"]}"
		",\n"
		"{\"from\":\"w2\",\"to\":\"fc2\",\"dims\":[\"f\",\"h\"],"
		"\"bytes\":%d},\n"
		"{\"from\":\"fc2\",\"to\":\"loss\",\"dims\":[\"b\",\"s\",\"h\"]"
		"},\n"
		"{\"from\":\"loss\",\"to\":\"fc2_grad\",\"dims\":[\"b\",\"s\","
		"\"h\"]},\n"
		"{\"from\":\"w2\",\"to\":\"fc2_grad\",\"dims\":[\"f\",\"h\"],"
		"\"bytes\":%d},\n"
		"{\"from\":\"fc2_grad\",\"to\":\"act_grad\",\"dims\":[\"b\","
		"\"s\","
		"\"f\"]},\n"
		"{\"from\":\"fc1\",\"to\":\"act_grad\",\"dims\":[\"b\",\"s\","
		"\"f\"]},\n"
		"{\"from\":\"act_grad\",\"to\":\"fc1_grad\",\"dims\":[\"b\","
		"\"s\","
		"\"f\"]},\n"
		"{\"from\":\"w1\",\"to\":\"fc1_grad\",\"dims\":[\"h\",\"f\"],"
		"\"bytes\":%d},\n"
		"{\"from\":\"fc1_grad\",\"to\":\"x_grad\",\"dims\":[\"b\","
		"\"s\","
		"\"h\"]},\n"
		"{\"from\":\"x\",\"to\":\"grad_w1\",\"dims\":[\"b\",\"s\","
		"\"h\"]},\n"
		"{\"from\":\"act_grad\",\"to\":\"grad_w1\",\"dims\":[\"b\","
		"\"s\","
		"\"f\"]},\n"
		"{\"from\":\"act\",\"to\":\"grad_w2\",\"dims\":[\"b\",\"s\","
		"\"f\"]},\n"
		"{\"from\":\"loss\",\"to\":\"grad_w2\",\"dims\":[\"b\",\"s\","
		"\"h\"]},\n"
		"{\"from\":\"grad_w1\",\"to\":\"upd1\",\"dims\":[\"h\",\"f\"]},"
		"\n"
		"{\"from\":\"grad_w2\",\"to\":\"upd2\",\"dims\":[\"f\",\"h\"]},"
		"\n"
		"{\"from\":\"w1\",\"to\":\"upd1\",\"dims\":[\"h\",\"f\"],"
		"\"bytes\":%d},\n"
		"{\"from\":\"w2\",\"to\":\"upd2\",\"dims\":[\"f\",\"h\"],"
		"\"bytes\":%d}\n"
		"]}\n",
		B, S, H, Y, H, F, 3 * W, F, H, 3 * W, B, S, H, F, A, B, S, F, A,
		B, S, H, F, Y, B, S, H, Y, B, S, H, F, A, B, S, F, A, B, S, H,
		F, Y, B, S, H, Y, B, S, H, F, W, B, S, H, F, W, H, F, F, H, W,
		W, W, W, W, W);
	char *cut = strstr(text, ",\n{\"from\":\"w1\",\"to\":\"upd1\"");
	if (!param_edges && cut)
		strcpy(cut, "\n]}\n");
	/* the width's dim named fdim ("heads": an attention block's stand-in,
	 * its projections split by heads) */
	char *o = named;
	for (const char *c = text; *c; c++)
		if (strncmp(c, "\"f\"", 3) == 0) {
			o += sprintf(o, "\"%s\"", fdim);
			c += 2;
		} else {
			*o++ = *c;
		}
	*o = '\0';
	return test_json_text(named);
}

static bool strategize(const dp_graph *g, const dp_machine *m, int tp,
		       dp_strategy *s, dp_err *err)
{
	dp_algo_opts o;
	dp_algo_opts_default(&o);
	o.tp = tp;
	dp_strategy_init(s);
	return dpi_algo_megatron.strategize(g, m, &o, NULL, s, err) == DP_OK;
}

/* megatron with --tp t on k devices of g into *s, lowered into *l (the
 * caller frees both); false, failing the test, when it cannot. */
static bool lowered(const dp_graph *g, int k, int t, dp_strategy *s,
		    dp_lowered *l)
{
	test_machine tm;
	test_machine_init(&tm, k, 1000, 1);
	dp_err err;
	if (!strategize(g, &tm.m, t, s, &err)) {
		test_fail(__FILE__, __LINE__, "megatron: %s", err.msg);
		return false;
	}
	if (dp_strategy_lower(g, &tm.m, s, NULL, l, &err)) {
		test_fail(__FILE__, __LINE__, "lower: %s", err.msg);
		dp_strategy_free(s);
		return false;
	}
	return true;
}

/* Cross-device bytes: per all-reduce of the activation Y among T devices,
 * 2(T-1)/T x Y per device and T devices, so 2(T-1) x Y in all, in each of
 * the D data-parallel groups, which hold Y/D each: 2 all-reduces per step
 * move 4(T-1) x Y; the weight gradients, each device's 1/T of them, are
 * all-reduced over D: 2(D-1) x (W1 + W2). */
static void check_block(bool param_edges, const char *fdim, int F)
{
	dp_graph *g = block(param_edges, fdim, F);
	REQUIRE(g);
	const int64_t Y = B * S * H * 4, W = H * F * 4;
	static const int cases[][2] = {{2, 2}, {4, 4}, {4, 2}, {8, 2}, {8, 4}};
	for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
		int k = cases[c][0], t = cases[c][1], d = k / t;
		test_machine tm;
		test_machine_init(&tm, k, 1000, 1);
		dp_strategy s;
		dp_err err;
		REQUIRE(strategize(g, &tm.m, t, &s, &err));
		CHECK_INT(s.spmd.mesh[0], d);
		CHECK_INT(s.spmd.mesh[1], t);
		CHECK(!dp_strategy_check(g, &tm.m, &s, &err));
		dp_lowered l;
		if (dp_strategy_lower(g, &tm.m, &s, NULL, &l, &err)) {
			test_fail(__FILE__, __LINE__, "lower: %s", err.msg);
		} else {
			int64_t want = 4 * (t - 1) * Y + 2 * (d - 1) * 2 * W;
			if (test_cross_bytes(&l) != want)
				test_fail(__FILE__, __LINE__,
					  "K=%d T=%d (%s): %lld bytes cross, "
					  "want %lld",
					  k, t,
					  param_edges ? "edges" : "groups",
					  (long long)test_cross_bytes(&l),
					  (long long)want);
			/* one reduce per device for each all-reduce of Y:
			 * fc2's and fc1_grad's, nothing else is partial
			 * across the tensor axis */
			int fc2 = 0, fc1g = 0;
			for (uint32_t i = 0; i < l.g->nops; i++) {
				const char *n = dp_graph_op_name(l.g, i);
				fc2 += strncmp(n, "fc2/rs#", 7) == 0;
				fc1g += strncmp(n, "fc1_grad/rs#", 12) == 0;
			}
			CHECK_INT(fc2, k);
			CHECK_INT(fc1g, k);
			dp_lowered_free(&l);
		}
		dp_strategy_free(&s);
	}
	dp_graph_free(g);
}

/* The weights split T ways stay split after the update (no all-gather of
 * the updated weights, as ZeRO would need), whether the update knows its
 * variable by an edge or by its colocation group. */
static void test_block_two_allreduces(void)
{
	check_block(true, "f", 64);
	check_block(false, "f", 64);
}

/* Five heads, which T = 2 and T = 4 do not divide: blocks of 2, 3 and of
 * 1, 1, 1, 2 heads (floor(q x 5 / T)). The all-reduces move what they move
 * for equal blocks (the activations are whole on every device); each
 * instance does its block's share of the work and holds its share of the
 * weights, so the devices with more heads set the step's time. */
static void test_five_heads_split_unevenly(void)
{
	check_block(true, "heads", 5);
	dp_graph *g = block(true, "heads", 5);
	REQUIRE(g);
	const int64_t W3 = 3 * H * 5 * 4; /* w1's param bytes */
	static const struct {
		int t;
		const char *op;
		double time;
		int64_t param;
	} want[] = {
		{2, "fc1#d0", 40.0 * 2 / 5, 0},
		{2, "fc1#d1", 40.0 * 3 / 5, 0},
		{2, "w1#d0", 0, W3 * 2 / 5},
		{2, "w1#d1", 0, W3 - W3 * 2 / 5},
		{4, "fc2_grad#d0", 40.0 / 5, 0},
		{4, "fc2_grad#d3", 40.0 * 2 / 5, 0},
		{4, "w2#d2", 0, W3 * 3 / 5 - W3 * 2 / 5},
		{4, "w2#d3", 0, W3 - W3 * 3 / 5},
	};
	for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
		dp_strategy s;
		dp_lowered l;
		if (!lowered(g, want[i].t, want[i].t, &s, &l))
			continue;
		uint32_t u = dp_graph_find(l.g, want[i].op);
		REQUIRE(u != UINT32_MAX);
		CHECK_NEAR(l.g->ops[u].time_us, want[i].time, 1e-12);
		CHECK_INT(l.g->ops[u].param_bytes, want[i].param);
		dp_lowered_free(&l);
		dp_strategy_free(&s);
	}
	dp_graph_free(g);
}

/* Cross-device bytes of the transfers into or out of ops whose name starts
 * with prefix: one per (producer, device), as the simulator moves them
 * (docs/simulator.md), so a reduce feeding three consumers on a device counts
 * once. */
static int64_t bytes_around(const dp_lowered *l, const char *prefix)
{
	int64_t sum = 0;
	size_t n = strlen(prefix);
	const dp_graph *g = l->g;
	for (uint32_t e = 0; e < g->nedges; e++) {
		const dp_edge *ed = &g->edges[e];
		int32_t to = l->placement[ed->to];
		if (ed->control || l->placement[ed->from] == to ||
		    (strncmp(dp_graph_op_name(g, ed->from), prefix, n) &&
		     strncmp(dp_graph_op_name(g, ed->to), prefix, n)))
			continue;
		bool first = true;
		for (uint32_t f = 0; f < e; f++)
			if (g->edges[f].from == ed->from &&
			    !g->edges[f].control &&
			    l->placement[g->edges[f].to] == to)
				first = false;
		sum += first ? ed->bytes : 0;
	}
	return sum;
}

/* The PyTorch bridge's export of two GPT blocks (tests/data/torch_gpt.sh):
 * the bridge names the fused projection's output [qkv, heads, dh], the
 * attention ops' dims after it (heads) and each MLP's width f, as the
 * sample graphs do. K = 4, T = 2: attention split by heads and the MLPs by
 * f, with their weights, gradients and updates; per block one all-reduce
 * forward after each of proj and fc2 (output Y = 8 x 32 x 64 x 4 bytes)
 * and one backward after each of fc1's and qkv's input gradients (Y
 * each), each 2(T-1) x Y across the D = 2 groups (Y/D each); the
 * embedding split over its vocabulary v (Megatron's VocabParallelEmbedding)
 * all-reduces its output forward, as much again; no other
 * activation is reduced (every other reduce is a weight gradient's, over
 * the data-parallel groups). */
static void test_pytorch_export_splits_heads_and_mlps(void)
{
	dp_graph *g = test_load_ok("tests/data/torch_gpt.json");
	REQUIRE(g);
	dp_strategy s;
	dp_lowered l;
	if (!lowered(g, 4, 2, &s, &l)) {
		dp_graph_free(g);
		return;
	}
	CHECK_STR(s.label, "megatron 2x2");
	static const char *const split[][2] = {
		{"emb", "v"},
		{"emb.weight", "v"},
		{"blocks_0_fc1", "f"},
		{"gelu", "f"},
		{"blocks_0_fc2", "f"},
		{"blocks.0.fc1.weight", "f"},
		{"blocks.1.fc2.weight/adam", "f"},
		{"blocks_1_fc1/grad", "f"},
		{"blocks_1_fc2/grad_blocks.1.fc2.weight", "f"},
		{"blocks_0_qkv", "heads"},
		{"blocks.0.qkv.bias", "heads"},
		{"getitem_2", "heads"},
		{"matmul", "heads"},
		{"softmax", "heads"},
		{"matmul_1", "heads"},
		{"blocks_0_proj", "heads"},
		{"blocks.1.proj.weight/adam", "heads"},
		{"blocks_1_qkv/grad_sum", "heads"},
		{"blocks_1_qkv/grad", "heads"}};
	for (size_t i = 0; i < sizeof split / sizeof split[0]; i++) {
		uint32_t u = dp_graph_find(g, split[i][0]);
		REQUIRE(u != UINT32_MAX);
		int n = dp_op_find_dim(g, u, split[i][1]);
		REQUIRE(n >= 0);
		CHECK_INT(
			s.spmd.axes[(size_t)u * DP_MAX_OP_DIMS + (uint32_t)n] &
				2,
			2);
	}
	/* a bias gradient sums dy: it loops over proj's output only, so it
	 * is not split by heads (no all-reduce over the tensor axis) */
	static const char *const whole[] = {
		"blocks_0_ln1",
		"add_1",
		"blocks.0.proj.bias",
		"head",
		"blocks_0_proj/grad_blocks.0.proj.bias",
		"blocks_1_fc2/grad_blocks.1.fc2.bias"};
	for (size_t k = 0; k < sizeof whole / sizeof whole[0]; k++) {
		uint32_t u = dp_graph_find(g, whole[k]);
		REQUIRE(u != UINT32_MAX);
		for (uint32_t i = 0; i < DP_MAX_OP_DIMS; i++)
			CHECK_INT(s.spmd.axes[(size_t)u * DP_MAX_OP_DIMS + i] &
					  2,
				  0);
	}
	const int64_t Y = 8 * 32 * 64 * 4;
	static const char *const reduced[] = {
		"emb/rs#", /* the vocab-parallel embedding's */
		"blocks_0_proj/rs#",	 "blocks_0_fc2/rs#",
		"blocks_0_fc1/grad/rs#", "blocks_0_qkv/grad/rs#",
		"blocks_1_proj/rs#",	 "blocks_1_fc2/rs#",
		"blocks_1_fc1/grad/rs#", "blocks_1_qkv/grad/rs#"};
	for (size_t k = 0; k < sizeof reduced / sizeof reduced[0]; k++)
		CHECK_INT(bytes_around(&l, reduced[k]), 2 * Y);
	for (uint32_t u = 0; u < l.g->nops; u++) {
		const char *n = dp_graph_op_name(l.g, u);
		bool act = false;
		for (size_t k = 0; k < sizeof reduced / sizeof reduced[0]; k++)
			act |= strncmp(n, reduced[k], strlen(reduced[k])) == 0;
		if (strstr(n, "/rs#") && !act && !strstr(n, "/grad_"))
			test_fail(__FILE__, __LINE__, "unexpected reduce %s",
				  n);
	}
	dp_lowered_free(&l);
	dp_strategy_free(&s);
	dp_graph_free(g);
}

static void test_default_tp_pins_cancel(void)
{
	dp_graph *g = block(true, "f", 64);
	REQUIRE(g);
	test_machine tm;
	test_machine_init(&tm, 4, 1000, 1);
	dp_strategy s;
	dp_err err;
	/* no cap, batch 8 divisible by 4: plain data parallelism */
	REQUIRE(strategize(g, &tm.m, 0, &s, &err));
	CHECK_INT(s.spmd.mesh[1], 1);
	CHECK_STR(s.label, "megatron 4x1");
	dp_strategy_free(&s);
	/* --tp 3 does not divide 4 */
	dp_strategy_init(&s);
	CHECK(!strategize(g, &tm.m, 3, &s, &err));
	CHECK_CONTAINS(err.msg, "--tp 3");
	/* a pinned op stays whole on its pin */
	g->ops[dp_graph_find(g, "loss")].pin = 1;
	REQUIRE(strategize(g, &tm.m, 2, &s, &err));
	CHECK_INT(s.spmd.device[dp_graph_find(g, "loss")], 1);
	CHECK(!dp_strategy_check(g, &tm.m, &s, &err));
	dp_strategy_free(&s);
	CHECK_STRATEGY_CANCELED(&dpi_algo_megatron, g, &tm.m);
	dp_graph_free(g);
}

TEST_MAIN(TEST(test_block_two_allreduces), TEST(test_five_heads_split_unevenly),
	  TEST(test_pytorch_export_splits_heads_and_mlps),
	  TEST(test_default_tp_pins_cancel))

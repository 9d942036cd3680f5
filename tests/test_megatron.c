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

enum { B = 8, S = 4, H = 16, F = 64 };

/* x -> fc1 {b,s,h,f} -> act -> fc2 {b,s,f,h} -> loss (its output: the
 * gradient dy) -> fc2_grad -> act_grad -> fc1_grad -> x_grad, weight
 * gradients into the updates of w1 [h,f] and w2 [f,h]; with param_edges
 * the variables also feed their updates, without they are joined by their
 * colocation group alone, as in the sample graphs. */
static dp_graph *block(bool param_edges)
{
	static char text[8192];
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
	return test_json_text(text);
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

/* Cross-device bytes: per all-reduce of the activation Y among T devices,
 * 2(T-1)/T x Y per device and T devices, so 2(T-1) x Y in all, in each of
 * the D data-parallel groups, which hold Y/D each: 2 all-reduces per step
 * move 4(T-1) x Y; the weight gradients, each device's 1/T of them, are
 * all-reduced over D: 2(D-1) x (W1 + W2). */
static void check_block(bool param_edges)
{
	dp_graph *g = block(param_edges);
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
	check_block(true);
	check_block(false);
}

static void test_default_tp_pins_cancel(void)
{
	dp_graph *g = block(true);
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

TEST_MAIN(TEST(test_block_two_allreduces), TEST(test_default_tp_pins_cancel))

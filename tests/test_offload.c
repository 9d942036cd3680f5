/* test_offload.c - `--offload optimizer|params` (levers.h,
 * docs/memory.md): DeepSpeed ZeRO-Offload's closed form on GPT-2 small
 * worked out by hand (2 B per parameter on the GPU and 16 on the host in
 * mixed precision; 4 and 12 in fp32; the working weights too with params),
 * the update's host time and the weights' fetches on levers_tiny, and the
 * host memory refusal. */
#include <string.h>

#include "dnnpart/levers.h"
#include "dnnpart/load.h"
#include "lib/testlib.h"

static dp_graph *offloaded(const dp_graph *g, dp_precision p, dp_offload o)
{
	dp_levers lv = {.precision = p, .offload = o};
	dp_graph *t = NULL;
	dp_err err;
	if (dp_levers_apply(g, &lv, &t, &err))
		FAIL_ERR("dp_levers_apply", &err);
	return t;
}

/* Σ param_bytes of the params of t (the ops of g, in their order). */
static int64_t gpu_params(const dp_graph *g, const dp_graph *t)
{
	int64_t s = 0;
	for (uint32_t u = 0; u < g->nops; u++)
		if (dp_op_role(g, u) == DP_ROLE_PARAM)
			s += t->ops[u].param_bytes;
	return s;
}

/* DeepSpeed's estimate_zero2_model_states_mem_needs with cpu_offload
 * counts 2 B per parameter on the GPU (the fp16 weights) and 16 on the
 * host (fp32 master weight 4, Adam's m 4 and v 4, the fp32 gradient 4),
 * before its buffer factor. GPT-2 small: Ψ = 124,439,808. */
static void test_zero_offload_closed_form(void)
{
	dp_graph *g = test_load_ok("sample_graphs/gpt2-small.json");
	REQUIRE(g);
	const int64_t psi = 124439808;
	dp_graph *t = offloaded(g, DP_PREC_BF16, DP_OFFLOAD_OPTIMIZER);
	REQUIRE(t);
	CHECK_INT(gpu_params(g, t), 2 * psi);
	CHECK_INT(t->host_bytes, 16 * psi);
	dp_graph_free(t);
	/* fp32: the weights stay on the GPU (4 B), m, v and the gradient
	 * go (12 B) */
	t = offloaded(g, DP_PREC_FP32, DP_OFFLOAD_OPTIMIZER);
	REQUIRE(t);
	CHECK_INT(gpu_params(g, t), 4 * psi);
	CHECK_INT(t->host_bytes, 12 * psi);
	dp_graph_free(t);
	/* params: nothing persistent on the GPU, the 2-byte working weights
	 * on the host too (18 B) */
	t = offloaded(g, DP_PREC_BF16, DP_OFFLOAD_PARAMS);
	REQUIRE(t);
	CHECK_INT(gpu_params(g, t), 0);
	CHECK_INT(t->host_bytes, 18 * psi);
	uint32_t u = dp_graph_find(t, "model/h0/attn/c_attn/w");
	REQUIRE(u != UINT32_MAX);
	CHECK_INT(t->ops[u].output_bytes, 768 * 3 * 12 * 64 * 2);
	CHECK(dp_graph_find(t, "model/h0/attn/c_attn/w@rc") != UINT32_MAX);
	dp_graph_free(t);
	dp_graph_free(g);
}

static const dp_op *op(const dp_graph *g, const char *name)
{
	uint32_t u = dp_graph_find(g, name);
	return u == UINT32_MAX ? NULL : &g->ops[u];
}

/* levers_tiny: w holds 100 weights (dims k = n = 10, 400 B in fp32), its
 * update w_upd reads the 400-byte fp32 gradient w_g: 100 parameters. In
 * bf16 with the optimizer offloaded, the update costs the 2-byte
 * gradient's copy to the host (200 B at 25000 B/µs), Adam on the CPU (100
 * at 1000 per µs) and the 2-byte weights' copy back, each copy with the
 * link's 10 µs. With params the weights are fetched (200 B + 10 µs) before
 * the forward and again (w@rc) before the backward that reads them, and
 * not copied back. */
static void test_times_by_hand(void)
{
	dp_graph *g = test_load_ok("tests/data/levers_tiny.json");
	REQUIRE(g);
	dp_graph *t = offloaded(g, DP_PREC_BF16, DP_OFFLOAD_OPTIMIZER);
	REQUIRE(t);
	CHECK_NEAR(op(t, "w_upd")->time_us,
		   200 / 25000.0 + 100 / 1000.0 + 10 + 200 / 25000.0 + 10,
		   1e-9);
	CHECK_INT(op(t, "w")->param_bytes, 200);
	CHECK_INT(t->host_bytes, 4 * 400);
	dp_graph_free(t);
	t = offloaded(g, DP_PREC_BF16, DP_OFFLOAD_PARAMS);
	REQUIRE(t);
	CHECK_NEAR(op(t, "w_upd")->time_us, 200 / 25000.0 + 100 / 1000.0 + 10,
		   1e-9);
	CHECK_INT(op(t, "w")->param_bytes, 0);
	CHECK_INT(op(t, "w")->output_bytes, 200);
	CHECK_NEAR(op(t, "w")->time_us, 200 / 25000.0 + 10, 1e-9);
	REQUIRE(op(t, "w@rc"));
	CHECK_INT(op(t, "w@rc")->output_bytes, 200);
	CHECK_INT(op(t, "w@rc")->param_bytes, 0);
	CHECK_INT(t->host_bytes, 4 * 400 + 200);
	dp_graph_free(t);
	dp_graph_free(g);
}

static void test_host_memory_and_names(void)
{
	dp_graph *g = test_load_ok("tests/data/levers_tiny.json");
	REQUIRE(g);
	dp_levers lv = {.precision = DP_PREC_BF16,
			.offload = DP_OFFLOAD_OPTIMIZER,
			.host_mem = 1000};
	dp_graph *t = NULL;
	dp_err err;
	CHECK_INPUT_MSG(dp_levers_apply(g, &lv, &t, &err), &err,
			"--offload optimizer: the host would hold 1.56 KiB of "
			"model states, more than its 1000 B (--host-mem)");
	CHECK(t == NULL);
	lv.host_mem = 1600;
	CHECK_INT(dp_levers_apply(g, &lv, &t, &err), DP_OK);
	dp_graph_free(t);
	dp_graph_free(g);
	static const char *names[][2] = {
		{"none", "none"}, {"optimizer", "optimizer"}, {"params", "params"}};
	CHECK_PARSE_NAMES(names, dp_offload, dp_offload_parse, dp_offload_name);
	CHECK_PARSE_REFUSES(dp_offload, dp_offload_parse, "cpu",
			    "unknown offload 'cpu': expected none, "
			    "optimizer or params");
	char buf[64];
	CHECK_INT(dp_levers_parse_set("bf16+offload-params", &lv, &err), DP_OK);
	CHECK(lv.offload == DP_OFFLOAD_PARAMS && dp_levers_active(&lv));
	CHECK_STR(dp_levers_set_name(&lv, buf, sizeof buf),
		  "bf16+offload-params");
	CHECK_INT(dp_levers_parse_set("offload-optimizer", &lv, &err), DP_OK);
	CHECK_STR(dp_levers_set_name(&lv, buf, sizeof buf),
		  "offload-optimizer");
}

TEST_MAIN(TEST(test_zero_offload_closed_form), TEST(test_times_by_hand),
	  TEST(test_host_memory_and_names))

/* test_levers.c - the levers' transform (levers.h, docs/memory.md): bytes
 * and times by role under mixed precision, the re-run copies of
 * recomputation with their edges and gates, fused attention's dropped
 * scores, the refusals. Expected numbers are worked out by hand from
 * tests/data/levers_tiny.json and the formulas. */
#include <string.h>

#include "dnnpart/levers.h"
#include "dnnpart/load.h"
#include "lib/testlib.h"

/* levers_tiny: x -> a (MatMul, L1) -> s (Softmax, L1) -> q (BatchMatMul,
 * L2, scores 1600 B) -> e (Mul) -> v (BatchMatMul) -> loss; the backward
 * gl, v_g (2000 B: a scores gradient and 400 more), e_g (1600), q_g,
 * s_g (L1), a_g, w_g (weight gradient) and w's Adam update; w holds
 * 1200 B: 100 weights x 4 B x 3 (weight, m, v). */
#define TINY "tests/data/levers_tiny.json"

static dp_graph *levered(const dp_graph *g, dp_precision p, dp_recompute r,
			 unsigned fuse, double ratio)
{
	dp_levers lv = {.precision = p, .recompute = r, .fuse = fuse,
			 .gemm_ratio = ratio};
	dp_graph *t = NULL;
	dp_err err;
	if (dp_levers_apply(g, &lv, &t, &err))
		FAIL_ERR("dp_levers_apply", &err);
	return t;
}

/* levers_tiny in *g and transformed in the result (NULL after a failure
 * is recorded; *g is then freed and NULL). */
static dp_graph *tiny(dp_graph **g, dp_precision p, dp_recompute r,
		      unsigned fuse, double ratio)
{
	dp_graph *t = NULL;
	*g = test_load_ok(TINY);
	if (*g && !(t = levered(*g, p, r, fuse, ratio))) {
		dp_graph_free(*g);
		*g = NULL;
	}
	return t;
}

static void free_both(dp_graph *g, dp_graph *t)
{
	dp_graph_free(t);
	dp_graph_free(g);
}

static const dp_op *op(const dp_graph *g, const char *name)
{
	uint32_t u = dp_graph_find(g, name);
	return u == UINT32_MAX ? NULL : &g->ops[u];
}

/* The edge a -> b (data or control as asked), or NULL. */
static const dp_edge *edge(const dp_graph *g, const char *a, const char *b,
			   bool control)
{
	uint32_t u = dp_graph_find(g, a), v = dp_graph_find(g, b);
	for (uint32_t e = 0; e < g->nedges; e++)
		if (g->edges[e].from == u && g->edges[e].to == v &&
		    g->edges[e].control == control)
			return &g->edges[e];
	return NULL;
}

static void test_precision_by_role(void)
{
	dp_graph *g, *t = tiny(&g, DP_PREC_BF16, DP_RECOMP_NONE, 0, 16.0);
	REQUIRE(t);
	CHECK_INT(t->nops, g->nops);
	/* weight: 1200 + a 2-byte working copy of 100 weights */
	CHECK_INT(op(t, "w")->param_bytes, 1200 + 100 * 2);
	/* a GEMM: half the bytes, time / the GEMM ratio */
	CHECK_INT(op(t, "a")->output_bytes, 200);
	CHECK_NEAR(op(t, "a")->time_us, 80.0 / 16.0, 1e-12);
	/* softmax and its gradient stay fp32 */
	CHECK_INT(op(t, "s")->output_bytes, 400);
	CHECK_NEAR(op(t, "s")->time_us, 10, 0);
	CHECK_INT(op(t, "s_g")->output_bytes, 400);
	/* an element-wise op: half the bytes, half the time */
	CHECK_INT(op(t, "e")->output_bytes, 800);
	CHECK_NEAR(op(t, "e")->time_us, 10, 1e-12);
	CHECK_INT(op(t, "v_g")->output_bytes, 1000);
	/* the weight gradient in 2 bytes; input, loss and update unchanged */
	CHECK_INT(op(t, "w_g")->output_bytes, 200);
	CHECK_INT(op(t, "x")->output_bytes, 1000);
	CHECK_INT(op(t, "loss")->output_bytes, 4);
	CHECK_NEAR(op(t, "w_upd")->time_us, 5, 0);
	/* communicated tensors follow their producer */
	CHECK_INT(edge(t, "a", "s", false)->bytes, 200);
	CHECK_INT(edge(t, "x", "a", false)->bytes, 1000);
	/* the default ratio is the V100's fp16 tensor-core one */
	dp_graph *d = levered(g, DP_PREC_FP16, DP_RECOMP_NONE, 0, 0);
	REQUIRE(d);
	CHECK_NEAR(op(d, "a")->time_us, 80.0 * 15.7 / 125.0, 1e-9);
	dp_graph_free(d);
	free_both(g, t);
}

/* GPT-2 small in bf16: 16 bytes per parameter, as ZeRO counts (2 working
 * weight + 4 master + 8 Adam moments in the params, 2 gradient). */
static void test_gpt2_16_bytes_per_param(void)
{
	dp_graph *g = test_load_ok("sample_graphs/gpt2-small.json");
	REQUIRE(g);
	dp_graph *t = levered(g, DP_PREC_BF16, DP_RECOMP_NONE, 0, 0);
	REQUIRE(t);
	int64_t psi = 0, params = 0, grads = 0, grads32 = 0;
	for (uint32_t u = 0; u < g->nops; u++) {
		dp_dims d;
		if (dp_op_role(g, u) == DP_ROLE_PARAM && dp_op_dims(g, u, &d)) {
			int64_t n = 1;
			for (int32_t i = 0; i < d.nparam; i++)
				n *= d.sizes[d.param[i]];
			psi += n;
			params += t->ops[u].param_bytes;
		}
		if (dp_op_role(g, u) == DP_ROLE_GRAD) {
			grads += t->ops[u].output_bytes;
			grads32 += g->ops[u].output_bytes;
		}
	}
	CHECK_INT(psi, 124439808); /* GPT-2 124M, tied embedding */
	CHECK_INT(params, 14 * psi);
	CHECK_INT(2 * grads, grads32);
	free_both(g, t);
}

static void test_full_recompute(void)
{
	dp_graph *g, *t = tiny(&g, DP_PREC_FP32, DP_RECOMP_FULL, 0, 0);
	REQUIRE(t);
	/* L1 is re-run; L2 feeds the loss, so its backward follows its
	 * forward at once: not re-run */
	CHECK_INT(t->nops, g->nops + 2);
	REQUIRE(op(t, "a@rc") && op(t, "s@rc"));
	CHECK(op(t, "q@rc") == NULL);
	CHECK_NEAR(op(t, "a@rc")->time_us, 80, 0);
	CHECK_INT(op(t, "s@rc")->output_bytes, 400);
	CHECK_INT(op(t, "a@rc")->param_bytes, 0);
	/* the copy reads the layer's inputs, its own layer's copies */
	CHECK(edge(t, "x", "a@rc", false) && edge(t, "w", "a@rc", false));
	CHECK(edge(t, "a@rc", "s@rc", false));
	/* the layer's backward reads the copy; other layers the original */
	CHECK(edge(t, "s@rc", "s_g", false) && !edge(t, "s", "s_g", false));
	CHECK(edge(t, "s", "q_g", false) && edge(t, "s", "v", false));
	/* gated by L2's whole backward */
	const char *gates[] = {"gl", "v_g", "e_g", "q_g"};
	for (int i = 0; i < 4; i++)
		CHECK(edge(t, gates[i], "a@rc", true));
	CHECK_INT(t->nedges, g->nedges + 3 + 4);
	free_both(g, t);
}

static void test_selective_and_fused_attention(void)
{
	dp_graph *g, *t = tiny(&g, DP_PREC_FP32, DP_RECOMP_SELECTIVE, 0, 0);
	REQUIRE(t);
	/* the attention core: the scores q and e, up to the product v */
	CHECK_INT(t->nops, g->nops + 2);
	CHECK(op(t, "q@rc") && op(t, "e@rc") && !op(t, "v@rc"));
	CHECK(edge(t, "e@rc", "v_g", false) && edge(t, "q@rc", "e_g", false));
	CHECK(edge(t, "s", "q@rc", false));
	CHECK(edge(t, "gl", "q@rc", true));
	dp_graph_free(t);
	t = levered(g, DP_PREC_FP32, DP_RECOMP_NONE, DP_FUSE_ATTENTION, 0);
	REQUIRE(t);
	/* no scores stored, forward or backward; v_g keeps its 400 B */
	CHECK_INT(op(t, "q")->output_bytes, 0);
	CHECK_INT(op(t, "e")->output_bytes, 0);
	CHECK_INT(op(t, "e@rc")->output_bytes, 0);
	CHECK_INT(op(t, "v_g")->output_bytes, 2000 - 1600);
	CHECK_INT(op(t, "e_g")->output_bytes, 0);
	CHECK_INT(op(t, "q_g")->output_bytes, 400);
	CHECK_INT(edge(t, "e", "v", false)->bytes, 0);
	/* a fused element-wise op: its 400 elements at 7.85e6 per µs; the
	 * GEMM keeps its time, and runs again before the backward */
	CHECK_NEAR(op(t, "e")->time_us, 400 / 7.85e6, 1e-15);
	CHECK_NEAR(op(t, "q")->time_us, 40, 0);
	CHECK_NEAR(op(t, "q@rc")->time_us, 40, 0);
	free_both(g, t);
}

/* levers_ew: m (MatMul, 400 B) -> the chain b (BiasAdd), t (Tanh), mu
 * (Mean, 16 B: a statistic), y (Mul, read by L2's o) of L1; backward y_g
 * (800 B, reads t and mu), t_g (reads y_g and b), b_g (reads t_g only).
 * Fused: b and t are intermediates (0 B stored); mu (16 x 16 < 400) and
 * the output y keep theirs; y_g and t_g read an intermediate, so they are
 * the fused backward kernel and read the chain's input m (400 B each);
 * y_g, read by t_g only, stores nothing; t_g, read by b_g, keeps 400 B.
 * A fused op that stores nothing takes its elements (the larger of its
 * output and largest input, 4 bytes each) at 7.85e6 per µs; one that
 * writes its output keeps its time. */
static void test_fused_elementwise(void)
{
	dp_graph *g = test_load_ok("tests/data/levers_ew.json");
	REQUIRE(g);
	dp_graph *t = levered(g, DP_PREC_FP32, DP_RECOMP_NONE,
			      DP_FUSE_ELEMENTWISE, 0);
	REQUIRE(t);
	CHECK_INT(t->nops, g->nops);
	CHECK_INT(op(t, "b")->output_bytes, 0);
	CHECK_INT(op(t, "t")->output_bytes, 0);
	CHECK_INT(op(t, "mu")->output_bytes, 16);
	CHECK_INT(op(t, "y")->output_bytes, 400);
	CHECK_INT(op(t, "y_g")->output_bytes, 0);
	CHECK_INT(op(t, "t_g")->output_bytes, 400);
	CHECK_INT(op(t, "b_g")->output_bytes, 400);
	CHECK_INT(op(t, "m")->output_bytes, 400);
	CHECK_INT(edge(t, "b", "t", false)->bytes, 0);
	CHECK_INT(edge(t, "t", "y_g", false)->bytes, 0);
	CHECK_INT(edge(t, "mu", "y", false)->bytes, 16);
	CHECK_INT(edge(t, "y", "o", false)->bytes, 400);
	/* the saved input, to each fused backward op: 2 more edges */
	CHECK_INT(edge(t, "m", "y_g", false)->bytes, 400);
	CHECK_INT(edge(t, "m", "t_g", false)->bytes, 400);
	CHECK(!edge(t, "m", "b_g", false));
	CHECK_INT(t->nedges, g->nedges + 2);
	CHECK_NEAR(op(t, "b")->time_us, 100 / 7.85e6, 1e-15);
	CHECK_NEAR(op(t, "t")->time_us, 100 / 7.85e6, 1e-15);
	CHECK_NEAR(op(t, "y_g")->time_us, 200 / 7.85e6, 1e-15);
	/* what writes its output keeps its time */
	CHECK_NEAR(op(t, "mu")->time_us, 4, 0);
	CHECK_NEAR(op(t, "y")->time_us, 10, 0);
	CHECK_NEAR(op(t, "t_g")->time_us, 10, 0);
	CHECK_NEAR(op(t, "b_g")->time_us, 10, 0);
	CHECK_NEAR(op(t, "m")->time_us, 80, 0);
	dp_graph_free(t);
	/* bf16: y and m in 2 bytes, mu's Mean stays fp32 */
	t = levered(g, DP_PREC_BF16, DP_RECOMP_NONE, DP_FUSE_ELEMENTWISE, 0);
	REQUIRE(t);
	CHECK_INT(op(t, "y")->output_bytes, 200);
	CHECK_INT(op(t, "mu")->output_bytes, 16);
	CHECK_INT(edge(t, "m", "t_g", false)->bytes, 200);
	free_both(g, t);
}

static void test_refusals(void)
{
	dp_graph *g = dp_graph_new("plain");
	REQUIRE(g);
	test_add_op(g, "a", 1, 4, NULL);
	test_add_op(g, "b", 1, 4, NULL);
	dp_err err;
	REQUIRE(dp_graph_add_edge(g, 0, 1, -1, false, &err) == DP_OK);
	REQUIRE(dp_graph_finalize(g, &err) == DP_OK);
	dp_graph *t = NULL;
	dp_levers lv = {.recompute = DP_RECOMP_FULL};
	CHECK_INPUT_MSG(dp_levers_apply(g, &lv, &t, &err), &err,
			"--recompute full: graph 'plain' has no forward ops "
			"with `layer` labels (docs/memory.md)");
	lv.recompute = DP_RECOMP_SELECTIVE;
	CHECK_INT(dp_levers_apply(g, &lv, &t, &err), DP_EINPUT);
	CHECK_CONTAINS(err.msg, "--recompute selective: graph 'plain' has no "
				"attention core");
	lv = (dp_levers){.precision = DP_PREC_BF16};
	CHECK_INT(dp_levers_apply(g, &lv, &t, &err), DP_EINPUT);
	CHECK_CONTAINS(err.msg, "--precision bf16: graph 'plain' has no op "
				"roles");
	lv = (dp_levers){.fuse = DP_FUSE_ATTENTION};
	CHECK_INT(dp_levers_apply(g, &lv, &t, &err), DP_EINPUT);
	CHECK_CONTAINS(err.msg, "--fuse attention: graph 'plain' has no");
	lv = (dp_levers){.fuse = DP_FUSE_ELEMENTWISE};
	CHECK_INPUT_MSG(dp_levers_apply(g, &lv, &t, &err), &err,
			"--fuse elementwise: graph 'plain' has no element-wise "
			"chain (two or more forward element-wise ops of one "
			"layer linked by a data edge; docs/memory.md)");
	CHECK(t == NULL);
	dp_graph_free(g);
}

static void test_names(void)
{
	static const char *prec[][2] = {
		{"fp32", "fp32"}, {"bf16", "bf16"}, {"fp16", "fp16"}};
	CHECK_PARSE_NAMES(prec, dp_precision, dp_precision_parse,
			  dp_precision_name);
	static const char *rc[][2] = {{"none", "none"},
				      {"selective", "selective"},
				      {"full", "full"},
				      {"auto", "auto"}};
	CHECK_PARSE_NAMES(rc, dp_recompute, dp_recompute_parse,
			  dp_recompute_name);
	CHECK_PARSE_REFUSES(dp_precision, dp_precision_parse, "fp8",
			    "unknown precision 'fp8': expected fp32, bf16 or "
			    "fp16");
	dp_err err;
	unsigned f = 9;
	CHECK_INT(dp_fuse_parse("attention", &f, &err), DP_OK);
	CHECK_INT(f, DP_FUSE_ATTENTION);
	CHECK_INPUT_MSG(dp_fuse_parse("attention,gelu", &f, &err), &err,
			"unknown fusion 'gelu': expected attention, "
			"elementwise or none");
	CHECK_INT(dp_fuse_parse("elementwise,attention", &f, &err), DP_OK);
	CHECK_INT(f, DP_FUSE_ATTENTION | DP_FUSE_ELEMENTWISE);
	CHECK_STR(dp_fuse_name(f), "attention,elementwise");
	CHECK(dp_levers_keeps_fp32("Softmax") && dp_levers_keeps_fp32("ExpGrad"));
	CHECK(!dp_levers_keeps_fp32("MatMul") &&
	      !dp_levers_keeps_fp32("MatMulGradWeight"));
	CHECK(dp_gpu_find("a100") && !dp_gpu_find("tpu"));
	/* lever sets, as compare --levers reads them */
	dp_levers lv;
	char buf[64];
	CHECK_INT(dp_levers_parse_set("bf16+full+attention", &lv, &err), DP_OK);
	CHECK(lv.precision == DP_PREC_BF16 && lv.recompute == DP_RECOMP_FULL &&
	      lv.fuse == DP_FUSE_ATTENTION);
	CHECK_STR(dp_levers_set_name(&lv, buf, sizeof buf),
		  "bf16+full+attention");
	CHECK_INT(dp_levers_parse_set("none", &lv, &err), DP_OK);
	CHECK(!dp_levers_active(&lv));
	CHECK_STR(dp_levers_set_name(&lv, buf, sizeof buf), "none");
	CHECK_INT(dp_levers_parse_set("selective+attention", &lv, &err), DP_OK);
	CHECK_STR(dp_levers_set_name(&lv, buf, sizeof buf),
		  "selective+attention");
	CHECK_INT(dp_levers_parse_set("bf16+elementwise+attention", &lv, &err),
		  DP_OK);
	CHECK_STR(dp_levers_set_name(&lv, buf, sizeof buf),
		  "bf16+attention+elementwise");
	CHECK_INPUT_MSG(dp_levers_parse_set("bf16+flash", &lv, &err), &err,
			"unknown lever 'flash' in 'bf16+flash': expected levers "
			"joined by '+' (fp32, bf16, fp16, selective, full, "
			"auto, auto:LAYERS, attention, elementwise, "
			"offload-optimizer, offload-params, none)");
}

TEST_MAIN(TEST(test_precision_by_role), TEST(test_gpt2_16_bytes_per_param),
	  TEST(test_full_recompute), TEST(test_selective_and_fused_attention),
	  TEST(test_fused_elementwise), TEST(test_refusals), TEST(test_names))

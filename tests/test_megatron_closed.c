/* test_megatron_closed.c - `megatron` against Megatron-LM's closed forms
 * (docs/spmd.md, "Megatron-LM's closed form"), every number computed here
 * from the formula, on the sample graphs' GPT-2 and BERT at a tiny size
 * (tests/data/transformers_tiny.sh: L = 2 layers, batch b = 2, sequence
 * s = 16, hidden h = 64, vocabulary V = 128; BERT's masked LM reads p = 4
 * positions per sequence), K = T devices, fp32:
 *
 *   - bytes sent per device: ring all-reduces, 2(T-1)/T x n each, of
 *     n = b s h x 4 bytes: per layer 2 forward (after attention's and the
 *     MLP's row-parallel projections) and 2 backward (the input gradients
 *     of QKV, summed with the residual's once, and of the first MLP GEMM);
 *     the vocab-parallel embedding's forward one; the output layer's
 *     backward one of its input (b s h; BERT's LM head: b p h); and the
 *     parallel cross-entropy's one of a value per position;
 *   - the reduces behind them, counted per layer and role;
 *   - parameters per device: 12 bytes (weight, Adam's m and v) per
 *     parameter, every GEMM weight, column-parallel bias and the word
 *     embedding / T, the rest whole;
 *   - --sp: the same all-reduces as reduce-scatter + all-gather (the same
 *     bytes), plus the small tensors the sequence split adds (the layer
 *     norms' and row-parallel biases' gradients all-reduced over T, the
 *     position table's gradient and the loss gradient gathered); the
 *     sequence-split ops hold 1/T of their activations. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dnnpart/strategy.h"
#include "lib/fixtures.h"
#include "lib/testlib.h"

extern const dp_algo dpi_algo_megatron;

enum { L = 2, Bs = 2, Sq = 16, Hd = 64, Voc = 128, Ctx = 16, Pr = 4 };
static const int64_t N = (int64_t)Bs * Sq * Hd * 4; /* b s h x 4 bytes */

/* 2(T-1)/T x bytes, exactly: the bytes a ring all-reduce sends. */
static int64_t ring(int t, int64_t bytes)
{
	return 2 * (t - 1) * bytes / t;
}

static bool megatron(const dp_graph *g, int t, bool sp, dp_lowered *l)
{
	test_machine tm;
	test_machine_init(&tm, t, 1000, 1);
	dp_algo_opts o;
	dp_algo_opts_default(&o);
	o.tp = t;
	o.sp = sp;
	dp_strategy s;
	dp_err err;
	dp_strategy_init(&s);
	bool ok = dpi_algo_megatron.strategize(g, &tm.m, &o, NULL, &s, &err) ==
		  DP_OK;
	if (!ok)
		test_fail(__FILE__, __LINE__, "megatron: %s", err.msg);
	CHECK_INT(s.sp, sp);
	ok = ok && test_lower(g, &s, t, l);
	dp_strategy_free(&s);
	return ok;
}

/* Reduces (lowered "X/rs#dD", or "X/psum_rs#dD" after a local sum) by
 * their source op's role, counted once per source op whose name starts
 * with prefix ("" for all). */
static int reduces(const dp_graph *g, const dp_lowered *l, const char *prefix,
		   dp_role role)
{
	int n = 0;
	bool *seen = calloc(g->nops, 1);
	if (!seen)
		return -1;
	for (uint32_t u = 0; u < l->g->nops; u++) {
		uint32_t s = l->source[u];
		const char *nm = dp_graph_op_name(l->g, u);
		if ((!strstr(nm, "/rs#") && !strstr(nm, "/psum_rs#")) ||
		    seen[s] ||
		    dp_op_role(g, s) != role ||
		    strncmp(dp_graph_op_name(g, s), prefix, strlen(prefix)))
			continue;
		seen[s] = true;
		n++;
	}
	free(seen);
	return n;
}

static bool has_reduce(const dp_lowered *l, const char *src)
{
	char name[200];
	snprintf(name, sizeof name, "%s/rs#d0", src);
	return dp_graph_find(l->g, name) != UINT32_MAX;
}

/* The largest param bytes a device holds. */
static int64_t params_per_device(const dp_lowered *l, int t)
{
	int64_t most = 0;
	for (int d = 0; d < t; d++) {
		int64_t p = 0;
		for (uint32_t u = 0; u < l->g->nops; u++)
			if (l->placement[u] == d)
				p += l->g->ops[u].param_bytes;
		most = p > most ? p : most;
	}
	return most;
}

static void test_gpt2_bytes_reduces_and_params(void)
{
	dp_graph *g = test_load_ok("tests/data/gpt2_tiny.json");
	REQUIRE(g);
	const int64_t h = Hd;
	const int64_t split = L * (3 * h * h + 3 * h + h * h + 4 * h * h +
				   4 * h + 4 * h * h) +
			      (int64_t)Voc * h;
	const int64_t whole = L * 6 * h + Ctx * h + 2 * h;
	for (int t = 2; t <= 4; t *= 2) {
		dp_lowered l;
		if (!megatron(g, t, false, &l))
			continue;
		CHECK_COMM_EACH(&l, t,
				ring(t, (4 * L + 2) * N) +
					ring(t, (int64_t)Bs * Sq * 4));
		CHECK_INT(reduces(g, &l, "", DP_ROLE_FORWARD), 2 * L + 2);
		CHECK_INT(reduces(g, &l, "", DP_ROLE_BACKWARD), 2 * L + 1);
		for (int i = 0; i < L; i++) {
			char p[32];
			snprintf(p, sizeof p, "model/h%d/", i);
			CHECK_INT(reduces(g, &l, p, DP_ROLE_FORWARD), 2);
			CHECK_INT(reduces(g, &l, p, DP_ROLE_BACKWARD), 2);
		}
		/* the word lookup's partial sums plus the position
		 * embedding: reduced once, at their sum */
		CHECK(has_reduce(&l, "model/embed_add"));
		CHECK(has_reduce(&l, "model/logits/grad"));
		CHECK(has_reduce(&l, "loss/xent"));
		CHECK_INT(params_per_device(&l, t), 12 * (split / t + whole));
		dp_lowered_free(&l);
	}
	dp_graph_free(g);
}

/* Output bytes of lowered op NAME#d0. */
static int64_t out0(const dp_lowered *l, const char *name)
{
	char n[200];
	snprintf(n, sizeof n, "%s#d0", name);
	uint32_t u = dp_graph_find(l->g, n);
	if (u == UINT32_MAX) {
		test_fail(__FILE__, __LINE__, "no lowered op %s", n);
		return -1;
	}
	return l->g->ops[u].output_bytes;
}

static void test_gpt2_sequence_parallel(void)
{
	dp_graph *g = test_load_ok("tests/data/gpt2_tiny.json");
	REQUIRE(g);
	const int64_t h = Hd, norms = 2 * L + 1, row_biases = 2 * L;
	for (int t = 2; t <= 4; t *= 2) {
		dp_lowered l;
		if (!megatron(g, t, true, &l))
			continue;
		int64_t tp = ring(t, (4 * L + 2) * N) +
			     ring(t, (int64_t)Bs * Sq * 4);
		int64_t small = ring(t, (2 * norms + row_biases) * h * 4) +
				(t - 1) * (Ctx * h * 4 + Bs * Sq * 4) / t;
		CHECK_COMM_EACH(&l, t, tp + small);
		static const char *const seq[] = {
			"model/h0/ln_1/shift", "model/h0/add_1",
			"model/h1/ln_2/normalize", "model/h1/add_2",
			"model/embed_add"};
		for (size_t i = 0; i < sizeof seq / sizeof *seq; i++)
			CHECK_INT(out0(&l, seq[i]), N / t);
		/* attention stays split by heads, the MLP by its width */
		CHECK_INT(out0(&l, "model/h0/mlp/c_fc/matmul"), 4 * N / t);
		dp_lowered_free(&l);
	}
	dp_graph_free(g);
}

/* Q, K and V are three GEMMs: their input gradients, summed with the
 * residual's gradient, are reduced once per layer, not each alone (under
 * --sp: added on each device, then reduce-scattered once). */
static void test_bert_qkv_reduced_once(void)
{
	dp_graph *g = test_load_ok("tests/data/bert_tiny.json");
	REQUIRE(g);
	for (int t = 2; t <= 4; t *= 2)
		for (int sp = 0; sp <= 1; sp++) {
			dp_lowered l;
			if (!megatron(g, t, sp, &l))
				continue;
			/* per layer 2 + the embedding's + the
			 * cross-entropy's; 2 + the output layer's */
			CHECK_INT(reduces(g, &l, "", DP_ROLE_FORWARD),
				  2 * L + 2);
			CHECK_INT(reduces(g, &l, "", DP_ROLE_BACKWARD),
				  2 * L + 1);
			for (int i = 0; i < L; i++)
				for (int q = 0; q < 3; q++) {
					static const char *const qkv[] = {
						"query", "key", "value"};
					char n[100];
					snprintf(n, sizeof n,
						 "bert/encoder/layer_%d/"
						 "attention/self/%s/matmul/"
						 "grad",
						 i, qkv[q]);
					CHECK(!has_reduce(&l, n));
				}
			if (!sp)
				CHECK_COMM_EACH(
					&l, t,
					ring(t, (4 * L + 1) * N) +
						ring(t, (int64_t)Bs * Pr * Hd *
								4 +
							Bs * Pr * 4));
			dp_lowered_free(&l);
		}
	dp_graph_free(g);
}

TEST_MAIN(TEST(test_gpt2_bytes_reduces_and_params),
	  TEST(test_gpt2_sequence_parallel), TEST(test_bert_qkv_reduced_once))

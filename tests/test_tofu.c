/* test_tofu.c - the `tofu` strategy search (engine/algo/algo_tofu.c, its
 * cost model in internal/tofu.h): a single MatMul split the way a hand
 * computation says is cheapest (and its lowering moving those bytes), a
 * 2-layer MLP equal to a brute force over every per-level choice, checks
 * and lowering of its strategies, memory caps, pins, cancel, determinism. */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dnnpart/load.h"
#include "dnnpart/plan.h"
#include "dnnpart/strategy.h"
#include "internal/tofu.h"
#include "lib/fixtures.h"
#include "lib/testlib.h"

extern const dp_algo dpi_algo_tofu;

static bool run(const dp_graph *g, const dp_machine *m, const dp_progress *p,
		dp_strategy *s)
{
	dp_err err;
	dp_err_clear(&err);
	dp_strategy_init(s);
	dp_status st = dpi_algo_tofu.strategize(g, m, NULL, p, s, &err);
	if (st)
		test_fail(__FILE__, __LINE__, "tofu: %s", err.msg);
	return st == DP_OK;
}

/* The mesh axes that split dim `dim` of op `op` (a bit mask). */
static int axes_of(const dp_graph *g, const dp_strategy *s, const char *op,
		   const char *dim)
{
	uint32_t u = dp_graph_find(g, op);
	int i = dp_op_find_dim(g, u, dim);
	if (u == UINT32_MAX || i < 0)
		return -1;
	return s->spmd.axes[(size_t)u * DP_MAX_OP_DIMS + (uint32_t)i];
}

/* x[b,k] -> mm{b,k,n} <- w[k,n]; mm -> y{b,n} (a scalar). No batch dim and
 * no roles; every op takes long enough that repeating it costs more than
 * any split moves (1 ms: 1 MB at the tests' 1000 bytes/us), so every op
 * is split, as in the paper. */
static dp_graph *matmul(int b, int k, int n)
{
	char text[2048];
	snprintf(text, sizeof text,
		 "{\"name\":\"mm\",\"ops\":[\n"
		 "{\"name\":\"x\",\"time_us\":1e3,\"dims\":{\"b\":%d,\"k\":%d},"
		 "\"out\":[\"b\",\"k\"],\"output_bytes\":%d},\n"
		 "{\"name\":\"w\",\"time_us\":1e3,\"dims\":{\"k\":%d,\"n\":%d},"
		 "\"out\":[\"k\",\"n\"],\"output_bytes\":%d},\n"
		 "{\"name\":\"mm\",\"time_us\":1e4,\"dims\":{\"b\":%d,\"k\":%d,"
		 "\"n\":%d},\"out\":[\"b\",\"n\"],\"output_bytes\":%d},\n"
		 "{\"name\":\"y\",\"time_us\":1e3,\"dims\":{\"b\":%d,\"n\":%d},"
		 "\"out\":[],\"output_bytes\":4}\n"
		 "],\"edges\":[\n"
		 "{\"from\":\"x\",\"to\":\"mm\",\"dims\":[\"b\",\"k\"]},\n"
		 "{\"from\":\"w\",\"to\":\"mm\",\"dims\":[\"k\",\"n\"]},\n"
		 "{\"from\":\"mm\",\"to\":\"y\",\"dims\":[\"b\",\"n\"]}\n"
		 "]}\n",
		 b, k, b * k * 4, k, n, k * n * 4, b, k, n, b * n * 4, b, n);
	return test_json_text(text);
}

/* By hand, per level of 2 parts: splitting mm's b moves w (an all-gather
 * of W bytes in all), its n moves x (X), its k the partial sums into y
 * (Y, a reduce-scatter); x, w and y follow mm for free. The cheapest is
 * the smallest of X, W, Y, at both levels of K=4, where each of the two
 * groups of the second level moves it again for a tensor the first level
 * did not divide: 3 x it in all, which is what the lowering moves on 4
 * devices ((K-1) x the tensor for a gather or a reduce-scatter). */
static void test_single_matmul_picks_the_hand_computed_split(void)
{
	static const struct {
		int b, k, n;
		const char *dim;
	} cases[] = {
		{64, 1024, 256, "k"}, /* X 256K, W 1M, Y 64K */
		{8, 64, 1024, "n"},   /* X 2K, W 256K, Y 32K */
		{1024, 64, 64, "b"},  /* X 256K, W 16K, Y 256K */
	};
	for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
		dp_graph *g = matmul(cases[c].b, cases[c].k, cases[c].n);
		REQUIRE(g);
		double X = 4.0 * cases[c].b * cases[c].k;
		double W = 4.0 * cases[c].k * cases[c].n;
		double Y = 4.0 * cases[c].b * cases[c].n;
		double best = X < W ? X : W;
		best = best < Y ? best : Y;
		test_machine tm;
		test_machine_init(&tm, 4, 1000, 0);
		dp_strategy s;
		if (run(g, &tm.m, NULL, &s)) {
			CHECK_INT(s.spmd.naxes, 2);
			CHECK_INT(axes_of(g, &s, "mm", cases[c].dim), 3);
			CHECK_NEAR(dpi_tofu_cost(g, &s, 0, 0), 3 * best, 1e-6);
			dp_lowered l;
			dp_err err;
			REQUIRE(!dp_strategy_lower(g, &tm.m, &s, NULL, &l,
						   &err));
			CHECK_INT(test_cross_bytes(&l), 3 * (int64_t)best);
			dp_lowered_free(&l);
		}
		dp_strategy_free(&s);
		/* one level on 2 devices: the lowering moves exactly that */
		test_machine_init(&tm, 2, 1000, 0);
		dp_err err;
		if (run(g, &tm.m, NULL, &s)) {
			CHECK_INT(axes_of(g, &s, "mm", cases[c].dim), 1);
			dp_lowered l;
			REQUIRE(!dp_strategy_lower(g, &tm.m, &s, NULL, &l,
						   &err));
			CHECK_INT(test_cross_bytes(&l), (int64_t)best);
			dp_lowered_free(&l);
		}
		dp_strategy_free(&s);
		dp_graph_free(g);
	}
}

/* x -> mm1 {b,h,f} -> mm2 {b,f,h} -> y with weights w1 [h,f], w2 [f,h]. */
static dp_graph *mlp(int b, int h, int f, int64_t wbytes)
{
	char text[4096];
	snprintf(
		text, sizeof text,
		"{\"name\":\"mlp\",\"batch_dim\":\"b\",\"ops\":[\n"
		"{\"name\":\"x\",\"role\":\"input\",\"time_us\":1,\"dims\":{"
		"\"b\":%d,\"h\":%d},\"out\":[\"b\",\"h\"],\"output_bytes\":%d},"
		"\n"
		"{\"name\":\"w1\",\"role\":\"param\",\"dims\":{\"h\":%d,\"f\":%"
		"d},"
		"\"out\":[\"h\",\"f\"],\"param\":[\"h\",\"f\"],\"param_bytes\":"
		"%lld},\n"
		"{\"name\":\"mm1\",\"role\":\"forward\",\"time_us\":50,"
		"\"dims\":{"
		"\"b\":%d,\"h\":%d,\"f\":%d},\"out\":[\"b\",\"f\"],"
		"\"output_bytes\":%d},\n"
		"{\"name\":\"w2\",\"role\":\"param\",\"dims\":{\"f\":%d,\"h\":%"
		"d},"
		"\"out\":[\"f\",\"h\"],\"param\":[\"f\",\"h\"],\"param_bytes\":"
		"%lld},\n"
		"{\"name\":\"mm2\",\"role\":\"forward\",\"time_us\":50,"
		"\"dims\":{"
		"\"b\":%d,\"f\":%d,\"h\":%d},\"out\":[\"b\",\"h\"],"
		"\"output_bytes\":%d},\n"
		"{\"name\":\"y\",\"role\":\"loss\",\"time_us\":1,\"dims\":{"
		"\"b\":%d,\"h\":%d},\"out\":[],\"output_bytes\":4}\n"
		"],\"edges\":[\n"
		"{\"from\":\"x\",\"to\":\"mm1\",\"dims\":[\"b\",\"h\"]},\n"
		"{\"from\":\"w1\",\"to\":\"mm1\",\"dims\":[\"h\",\"f\"],"
		"\"bytes\":%d},\n"
		"{\"from\":\"mm1\",\"to\":\"mm2\",\"dims\":[\"b\",\"f\"]},\n"
		"{\"from\":\"w2\",\"to\":\"mm2\",\"dims\":[\"f\",\"h\"],"
		"\"bytes\":%d},\n"
		"{\"from\":\"mm2\",\"to\":\"y\",\"dims\":[\"b\",\"h\"]}\n"
		"]}\n",
		b, h, b * h * 4, h, f, (long long)wbytes, b, h, f, b * f * 4, f,
		h, (long long)wbytes, b, f, h, b * h * 4, b, h, h * f * 4,
		h * f * 4);
	return test_json_text(text);
}

/* Brute force: every op, at every level, splits one of its dims whose
 * remaining size the level divides (or stays whole when none does, or,
 * for a weight, by choice). */
typedef struct brute {
	const dp_graph *g;
	dp_strategy *s;
	int64_t rem[8][DP_MAX_OP_DIMS];
	double alpha, best;
	long tried;
} brute;

static void brute_rec(brute *b, int l, uint32_t u)
{
	const dp_graph *g = b->g;
	dp_strategy *s = b->s;
	if (u == g->nops) {
		if (l + 1 < s->spmd.naxes)
			brute_rec(b, l + 1, 0);
		else {
			double c = dpi_tofu_cost(g, s, b->alpha, 0);
			b->tried++;
			if (c < b->best)
				b->best = c;
		}
		return;
	}
	dp_dims d;
	dp_op_dims(g, u, &d);
	int f = s->spmd.mesh[l];
	bool any = false;
	for (uint32_t i = 0; i < d.n; i++) {
		if (b->rem[u][i] % f)
			continue;
		any = true;
		uint8_t *ax = &s->spmd.axes[(size_t)u * DP_MAX_OP_DIMS + i];
		*ax |= (uint8_t)(1u << l);
		b->rem[u][i] /= f;
		brute_rec(b, l, u + 1);
		b->rem[u][i] *= f;
		*ax &= (uint8_t) ~(1u << l);
	}
	if (!any || dp_op_role(g, u) == DP_ROLE_PARAM)
		brute_rec(b, l, u + 1);
}

static void check_mlp_brute(int bsz, int h, int f, int k, double lat)
{
	dp_graph *g = mlp(bsz, h, f, (int64_t)h * f * 4);
	REQUIRE(g);
	test_machine tm;
	test_machine_init(&tm, k, 1000, lat);
	dp_strategy s, bs;
	REQUIRE(run(g, &tm.m, NULL, &s));
	dp_err err;
	dp_strategy_init(&bs);
	REQUIRE(!dp_strategy_alloc(&bs, DP_STRAT_SPMD, g, 0, &err));
	bs.k = s.k;
	bs.spmd.naxes = s.spmd.naxes;
	memcpy(bs.spmd.mesh, s.spmd.mesh, sizeof bs.spmd.mesh);
	brute b = {.g = g, .s = &bs, .alpha = lat * 1000, .best = 1e300};
	for (uint32_t u = 0; u < g->nops; u++) {
		dp_dims d;
		dp_op_dims(g, u, &d);
		for (uint32_t i = 0; i < d.n; i++)
			b.rem[u][i] = d.sizes[i];
	}
	brute_rec(&b, 0, 0);
	CHECK(b.tried > 1000);
	if (!(dpi_tofu_cost(g, &s, b.alpha, 0) <= b.best * (1 + 1e-9)))
		test_fail(__FILE__, __LINE__,
			  "batch %d, K=%d, latency %g: tofu costs %.9g, the "
			  "brute force %.9g",
			  bsz, k, lat, dpi_tofu_cost(g, &s, b.alpha, 0),
			  b.best);
	CHECK(!dp_strategy_check(g, &tm.m, &s, &err));
	dp_strategy_free(&s);
	dp_strategy_free(&bs);
	dp_graph_free(g);
}

static void test_mlp_equals_brute_force(void)
{
	check_mlp_brute(8, 16, 32, 4, 0);
	check_mlp_brute(8, 16, 32, 4, 25);
	check_mlp_brute(6, 12, 24, 6, 25); /* levels of 2 and 3 */
	/* a batch of 2: only one level can split it */
	check_mlp_brute(2, 16, 32, 4, 25);
	check_mlp_brute(2, 4, 64, 4, 25);
}

/* The MLP with a batch of 1 (nothing to split along it) on 2 devices,
 * h 16, f 64: X = Y = 64 bytes, the hidden activation A = 256, each
 * weight W = 4096; mm1 and mm2 take 50 us (50,000 bytes of repeated
 * compute at 1000 bytes/us), x and y 1 us. By hand: Megatron's split (mm1
 * on its output f, mm2 on its reduction f) moves x to
 * both halves (X: x split on h and gathered, cheaper than repeating it)
 * and reduce-scatters mm2's partial sums into y split on h (Y): X + Y =
 * 128 (the weights, which no gradient follows here, stay whole: each
 * half reads its block of its copy, a tie with splitting them). Splitting
 * mm1 on its reduction h costs the partial sums A
 * instead; mm2 on its output h gathers A; keeping either MatMul whole
 * repeats 50 us. So tofu picks Megatron's split, and the lowering moves
 * exactly those 128 bytes. */
static void test_mlp_without_batch_splits_like_megatron(void)
{
	dp_graph *g = mlp(1, 16, 64, 16 * 64 * 4);
	REQUIRE(g);
	test_machine tm;
	test_machine_init(&tm, 2, 1000, 0);
	dp_strategy s;
	if (run(g, &tm.m, NULL, &s)) {
		CHECK_INT(axes_of(g, &s, "mm1", "f"), 1);
		CHECK_INT(axes_of(g, &s, "mm2", "f"), 1);
		CHECK_NEAR(dpi_tofu_cost(g, &s, 0, tm.m.bw), 128, 1e-9);
		dp_lowered l;
		dp_err err;
		REQUIRE(!dp_strategy_lower(g, &tm.m, &s, NULL, &l, &err));
		CHECK_INT(test_cross_bytes(&l), 128);
		dp_lowered_free(&l);
	}
	dp_strategy_free(&s);
	dp_graph_free(g);
}

static void test_sample_checks_lowers_and_is_deterministic(void)
{
	dp_graph *g = test_load_ok("sample_graphs/gpt2-small.json");
	REQUIRE(g);
	int ks[] = {6, 8};
	for (int i = 0; i < 2; i++) {
		test_machine tm;
		test_machine_init(&tm, ks[i], 130000, 25);
		dp_strategy a, b;
		REQUIRE(run(g, &tm.m, NULL, &a));
		REQUIRE(run(g, &tm.m, NULL, &b));
		int size = 1;
		for (int x = 0; x < a.spmd.naxes; x++)
			size *= a.spmd.mesh[x];
		CHECK_INT(size, ks[i]);
		CHECK(memcmp(a.spmd.axes, b.spmd.axes,
			     (size_t)g->nops * DP_MAX_OP_DIMS) == 0);
		CHECK_STR(a.algo, "tofu");
		dp_err err;
		CHECK(!dp_strategy_check(g, &tm.m, &a, &err));
		dp_lowered l;
		if (!dp_strategy_lower(g, &tm.m, &a, NULL, &l, &err)) {
			CHECK(l.g->nops >= g->nops);
			dp_lowered_free(&l);
		} else {
			test_fail(__FILE__, __LINE__, "lower: %s", err.msg);
		}
		dp_strategy_free(&a);
		dp_strategy_free(&b);
	}
	dp_graph_free(g);
}

/* Big weights, tiny activations: without a cap tofu keeps the weights
 * whole (nothing to communicate); under a cap that the whole weights
 * overflow it splits them, and the simulated plan fits. */
static void test_caps_split_the_weights(void)
{
	int64_t wb = 3LL * 1024 * 4096 * 4; /* weights, grads, state */
	dp_graph *g = mlp(8, 1024, 4096, wb);
	REQUIRE(g);
	test_machine tm;
	test_machine_init(&tm, 4, 130000, 25);
	dp_strategy s;
	REQUIRE(run(g, &tm.m, NULL, &s));
	CHECK_INT(axes_of(g, &s, "w1", "h") | axes_of(g, &s, "w1", "f"), 0);
	dp_strategy_free(&s);
	dp_err err;
	dp_plan plan;
	memset(&plan, 0, sizeof plan);
	REQUIRE(!dp_plan_run(g, &tm.m, &dpi_algo_tofu, NULL, NULL, &plan,
			     &err));
	CHECK(plan.sim.dev[0].peak_bytes > wb);
	dp_plan_free(&plan);
	for (int d = 0; d < 4; d++)
		tm.m.cap[d] = wb; /* two whole weights do not fit */
	REQUIRE(run(g, &tm.m, NULL, &s));
	CHECK(axes_of(g, &s, "w1", "h") | axes_of(g, &s, "w1", "f"));
	CHECK(axes_of(g, &s, "w2", "h") | axes_of(g, &s, "w2", "f"));
	dp_strategy_free(&s);
	memset(&plan, 0, sizeof plan);
	REQUIRE(!dp_plan_run(g, &tm.m, &dpi_algo_tofu, NULL, NULL, &plan,
			     &err));
	CHECK(plan.feasible);
	dp_plan_free(&plan);
	dp_graph_free(g);
}

static void test_pins_cancel(void)
{
	dp_graph *g = mlp(8, 16, 32, 16 * 32 * 4);
	REQUIRE(g);
	g->ops[dp_graph_find(g, "y")].pin = 2; /* as "pin": 2 would */
	test_machine tm;
	test_machine_init(&tm, 4, 1000, 25);
	dp_strategy s;
	dp_err err;
	if (run(g, &tm.m, NULL, &s)) {
		CHECK_INT(s.spmd.device[dp_graph_find(g, "y")], 2);
		CHECK(!dp_strategy_check(g, &tm.m, &s, &err));
		dp_strategy_free(&s);
	}
	CHECK_STRATEGY_CANCELED(&dpi_algo_tofu, g, &tm.m);
	dp_graph_free(g);
}

TEST_MAIN(TEST(test_single_matmul_picks_the_hand_computed_split),
	  TEST(test_mlp_equals_brute_force),
	  TEST(test_mlp_without_batch_splits_like_megatron),
	  TEST(test_sample_checks_lowers_and_is_deterministic),
	  TEST(test_caps_split_the_weights), TEST(test_pins_cancel))

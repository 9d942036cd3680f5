/* test_spmd_sums.c - partial sums carried through linear ops (docs/spmd.md,
 * "Partial sums"): a weight gradient made in three time steps and summed by
 * a chain of two ops, as lstm-lm sums its steps' gradients, is all-reduced
 * once under dp and zero when the chain is linear (Add, AddN), and where a
 * non-linear op reads partial sums they are reduced there. Bytes are hand
 * computed: the weight is 4 x 8 floats, 128 bytes, and an all-reduce of it
 * on K devices moves 2(K-1)/K x 128 bytes out of each. */
#include <stdio.h>

#include "dnnpart/strategy.h"
#include "lib/fixtures.h"
#include "lib/testlib.h"

extern const dp_algo dpi_algo_dp, dpi_algo_zero;

/* x -> g0, g1, g2 (per-step weight gradients, split on b under dp);
 * acc1 = A(g0, g1), acc2 = B(acc1, g2) without b; acc2 -> update of w,
 * or with update false no update: acc2 is the end of the graph. */
static dp_graph *chain_graph_upd(const char *a, const char *b, bool update)
{
	char t[2048];
	snprintf(
		t, sizeof t,
		"{\"name\":\"acc\",\"batch_dim\":\"b\",\"ops\":["
		"{\"name\":\"x\",\"role\":\"input\",\"time_us\":1,"
		"\"dims\":{\"b\":8,\"k\":4},\"out\":[\"b\",\"k\"],"
		"\"output_bytes\":128},"
		"{\"name\":\"w\",\"role\":\"param\",\"time_us\":1,"
		"\"dims\":{\"k\":4,\"n\":8},\"out\":[\"k\",\"n\"],"
		"\"param\":[\"k\",\"n\"],\"output_bytes\":128,"
		"\"param_bytes\":384},"
#define STEP(i)                                                                \
	"{\"name\":\"g" #i "\",\"type\":\"MatMulGradWeight\","                 \
	"\"role\":\"grad\",\"time_us\":16,"                                    \
	"\"dims\":{\"b\":8,\"k\":4,\"n\":8},\"out\":[\"k\",\"n\"],"            \
	"\"output_bytes\":128},"
		STEP(0) STEP(1) STEP(2)
#undef STEP
			"{\"name\":\"acc1\",\"type\":\"%s\",\"role\":\"grad\","
			"\"time_us\":2,\"dims\":{\"k\":4,\"n\":8},"
			"\"out\":[\"k\",\"n\"],\"output_bytes\":128},"
			"{\"name\":\"acc2\",\"type\":\"%s\",\"role\":\"grad\","
			"\"time_us\":2,\"dims\":{\"k\":4,\"n\":8},"
			"\"out\":[\"k\",\"n\"],\"output_bytes\":128}%s"
			"],\"edges\":["
			"{\"from\":\"x\",\"to\":\"g0\",\"dims\":[\"b\",\"k\"]},"
			"{\"from\":\"x\",\"to\":\"g1\",\"dims\":[\"b\",\"k\"]},"
			"{\"from\":\"x\",\"to\":\"g2\",\"dims\":[\"b\",\"k\"]},"
			"{\"from\":\"g0\",\"to\":\"acc1\",\"dims\":[\"k\","
			"\"n\"]},"
			"{\"from\":\"g1\",\"to\":\"acc1\",\"dims\":[\"k\","
			"\"n\"]},"
			"{\"from\":\"acc1\",\"to\":\"acc2\",\"dims\":[\"k\","
			"\"n\"]},"
			"{\"from\":\"g2\",\"to\":\"acc2\",\"dims\":[\"k\","
			"\"n\"]}%s]}",
		a, b,
		update ? ",{\"name\":\"update\",\"role\":\"update\","
			 "\"time_us\":4,\"dims\":{\"k\":4,\"n\":8},"
			 "\"param\":[\"k\",\"n\"],\"param_bytes\":256}"
		       : "",
		update ? ",{\"from\":\"acc2\",\"to\":\"update\","
			 "\"dims\":[\"k\",\"n\"]},"
			 "{\"from\":\"w\",\"to\":\"update\","
			 "\"control\":true}"
		       : "");
	return test_json_text(t);
}

static dp_graph *chain_graph(const char *a, const char *b)
{
	return chain_graph_upd(a, b, true);
}

/* The strategy of builtin a for g on k devices; false, a recorded failure,
 * when it cannot be made. */
static bool builtin(const dp_algo *a, const dp_graph *g, int k, dp_strategy *s)
{
	dp_machine m;
	dp_err err;
	dp_strategy_init(s);
	bool ok = dp_machine_init(&m, k, &err) == DP_OK &&
		  a->strategize(g, &m, NULL, NULL, s, &err) == DP_OK;
	if (!ok)
		test_fail(__FILE__, __LINE__, "%s: %s", a->name, err.msg);
	dp_machine_free(&m);
	return ok;
}

/* The types of the chain and what it moves, in halves of an all-reduce
 * ((K-1)/K x 128 bytes out of each device), under dp and zero: a linear op
 * carries its inputs' partial sums; a non-linear one (Mul) reduces every
 * partial sum it reads; an Add of its whole output and the partial sums
 * g2 holds a partial sum (one part adds the whole value), reduced once at
 * the update. zero reduce-scatters partial sums into the split update
 * (half) and all-gathers the new weights (half). */
static const struct {
	const char *a, *b;
	int halves[2];	    /* dp, zero */
	const char *reduce; /* a lowered reduce that must exist */
} chains[] = {
	{"Add", "Add", {2, 2}, "acc2/rs#d0"},
	{"AddN", "Identity", {2, 2}, "acc2/rs#d0"},
	{"Add", "Mul", {4, 5}, "acc1/rs#d0"},
	{"Mul", "Add", {6, 6}, "acc2/rs#d0"},
};

static void test_linear_chain_reduces_once_nonlinear_forces_reduce(void)
{
	const dp_algo *algos[] = {&dpi_algo_dp, &dpi_algo_zero};
	for (size_t c = 0; c < sizeof chains / sizeof *chains; c++) {
		dp_graph *g = chain_graph(chains[c].a, chains[c].b);
		REQUIRE(g);
		for (int k = 2; k <= 8; k *= 2)
			for (int i = 0; i < 2; i++) {
				dp_strategy s;
				if (!builtin(algos[i], g, k, &s))
					continue;
				dp_lowered l = {0};
				if (test_lower(g, &s, k, &l)) {
					int64_t per = chains[c].halves[i] *
						      (k - 1) * 128 / k;
					CHECK_INT(test_cross_bytes(&l),
						  per * k);
					CHECK_COMM_EACH(&l, k, per);
					CHECK(dp_graph_find(l.g,
							    chains[c].reduce) !=
					      UINT32_MAX);
					dp_lowered_free(&l);
				}
				dp_strategy_free(&s);
			}
		dp_graph_free(g);
	}
}

static void test_carry_keeps_other_axes_split(void)
{
	dp_graph *g = chain_graph("Add", "AddN");
	REQUIRE(g);
	dp_strategy s;
	REQUIRE(test_spmd_strategy(g, 4, &s));
	s.spmd.naxes = 2;
	s.spmd.mesh[0] = s.spmd.mesh[1] = 2;
	test_spmd_split(g, &s, "x", "b", 1);
	const char *steps[] = {"g0", "g1", "g2"};
	for (int i = 0; i < 3; i++) {
		test_spmd_split(g, &s, steps[i], "b", 1);
		test_spmd_split(g, &s, steps[i], "n", 2);
	}
	const char *rest[] = {"acc1", "acc2", "update", "w"};
	for (int i = 0; i < 4; i++)
		test_spmd_split(g, &s, rest[i], "n", 2);
	dp_lowered l = {0};
	if (test_lower(g, &s, 4, &l)) {
		CHECK_INT(test_cross_bytes(&l), 64 * 4);
		CHECK_COMM_EACH(&l, 4, 64);
		/* the sums read the partial sums on their own device */
		uint32_t a = dp_graph_find(l.g, "acc1#d3");
		REQUIRE(a != UINT32_MAX);
		for (uint32_t i = l.g->pred_off[a]; i < l.g->pred_off[a + 1];
		     i++) {
			const dp_edge *e = &l.g->edges[l.g->pred_edge[i]];
			CHECK_INT(l.placement[e->from], 3);
			CHECK_INT(e->bytes, 64);
		}
		dp_lowered_free(&l);
	}
	dp_strategy_free(&s);
	dp_graph_free(g);
}

/* Ops without dims: grad ops split along the batch hold partial sums, and
 * an Add of two of them (role grad, split too) sums them on each device:
 * the 256-byte gradient is all-reduced once, into the update. */
static void test_whole_grad_ops_carry(void)
{
	dp_graph *g = test_json_text(
		"{\"name\":\"w\",\"ops\":["
		"{\"name\":\"x\",\"role\":\"input\",\"time_us\":1,"
		"\"output_bytes\":64},"
		"{\"name\":\"g0\",\"role\":\"grad\",\"time_us\":8,"
		"\"output_bytes\":256},"
		"{\"name\":\"g1\",\"role\":\"grad\",\"time_us\":8,"
		"\"output_bytes\":256},"
		"{\"name\":\"acc\",\"type\":\"Add\",\"role\":\"grad\","
		"\"time_us\":2,\"output_bytes\":256},"
		"{\"name\":\"update\",\"role\":\"update\",\"time_us\":2,"
		"\"param_bytes\":256}],\"edges\":["
		"{\"from\":\"x\",\"to\":\"g0\"},{\"from\":\"x\",\"to\":\"g1\"},"
		"{\"from\":\"g0\",\"to\":\"acc\"},{\"from\":\"g1\",\"to\":"
		"\"acc\"},"
		"{\"from\":\"acc\",\"to\":\"update\"}]}");
	REQUIRE(g);
	dp_strategy s;
	if (builtin(&dpi_algo_dp, g, 4, &s)) {
		dp_lowered l = {0};
		if (test_lower(g, &s, 4, &l)) {
			CHECK_INT(test_cross_bytes(&l), 2 * 3 * 256 / 4 * 4);
			CHECK_COMM_EACH(&l, 4, 2 * 3 * 256 / 4);
			CHECK(dp_graph_find(l.g, "acc/rs#d0") != UINT32_MAX);
			dp_lowered_free(&l);
		}
		dp_strategy_free(&s);
	}
	dp_graph_free(g);
}

/* Without an update the sums end the graph: acc2 has no consumer to reduce
 * the partial sums it would carry, so it reduces its inputs (acc1's carried
 * sums and g2's), two all-reduces under dp, never none. */
static void test_carry_ends_at_a_sink(void)
{
	dp_graph *g = chain_graph_upd("Add", "AddN", false);
	REQUIRE(g);
	for (int k = 2; k <= 8; k *= 2) {
		dp_strategy s;
		if (!builtin(&dpi_algo_dp, g, k, &s))
			continue;
		dp_lowered l = {0};
		if (test_lower(g, &s, k, &l)) {
			int64_t per = 4 * (k - 1) * 128 / k;
			CHECK_INT(test_cross_bytes(&l), per * k);
			CHECK_COMM_EACH(&l, k, per);
			CHECK(dp_graph_find(l.g, "acc1/rs#d0") != UINT32_MAX);
			CHECK(dp_graph_find(l.g, "g2/rs#d0") != UINT32_MAX);
			dp_lowered_free(&l);
		}
		dp_strategy_free(&s);
	}
	dp_graph_free(g);
}

TEST_MAIN(TEST(test_linear_chain_reduces_once_nonlinear_forces_reduce),
	  TEST(test_carry_ends_at_a_sink),
	  TEST(test_carry_keeps_other_axes_split),
	  TEST(test_whole_grad_ops_carry))

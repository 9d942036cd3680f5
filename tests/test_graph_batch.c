/* test_graph_batch.c - the same step at another batch size
 * (dp_graph_with_batch): what the dims say scales, and nothing else. */
#include <string.h>

#include "dnnpart/graph.h"
#include "dnnpart/load.h"
#include "lib/testlib.h"

static uint32_t edge_of(const dp_graph *g, const char *a, const char *b)
{
	uint32_t u = dp_graph_find(g, a), v = dp_graph_find(g, b);
	for (uint32_t e = 0; e < g->nedges; e++)
		if (g->edges[e].from == u && g->edges[e].to == v)
			return e;
	return UINT32_MAX;
}

/* tests/data/json_dims.json: x {b=256,k} -> fc1 {b,k,n} -> loss (no
 * dims); w1 {k,n} param; batch 256 -> 64 is a factor of 1/4. */
static void test_quarter_batch(void)
{
	dp_graph *g = test_load_ok("tests/data/json_dims.json");
	REQUIRE(g);
	CHECK_INT(dp_graph_batch_size(g), 256);
	dp_graph *h = NULL;
	dp_err err;
	REQUIRE(dp_graph_with_batch(g, 64, &h, &err) == DP_OK);
	CHECK_INT(dp_graph_batch_size(h), 64);
	CHECK_INT(h->nops, g->nops);
	CHECK_INT(h->nedges, g->nedges);
	CHECK_STR(dp_graph_batch_dim(h), "b");
	uint32_t x = dp_graph_find(h, "x"), fc1 = dp_graph_find(h, "fc1"),
		 w1 = dp_graph_find(h, "w1"), loss = dp_graph_find(h, "loss");
	CHECK_INT(h->ops[x].output_bytes, 1 << 20);
	CHECK_NEAR(h->ops[fc1].time_us, 85.5 / 4, 1e-12);
	CHECK_INT(h->ops[fc1].temp_bytes, 256 << 10);
	CHECK_INT(h->ops[fc1].output_bytes, 1 << 20);
	/* params and ops without dims do not change */
	CHECK_INT(h->ops[w1].param_bytes, g->ops[w1].param_bytes);
	CHECK_NEAR(h->ops[loss].time_us, 3, 0);
	CHECK_INT(h->ops[loss].output_bytes, 1024);
	/* edges: with the batch dim, and without dims from a scaled output */
	CHECK_INT(h->edges[edge_of(h, "x", "fc1")].bytes, 1 << 20);
	CHECK_INT(h->edges[edge_of(h, "w1", "fc1")].bytes, 64 << 20);
	CHECK_INT(h->edges[edge_of(h, "fc1", "loss")].bytes, 1 << 20);
	CHECK(h->edges[edge_of(h, "loss", "w1_upd")].control);
	/* what is not about the batch is kept */
	CHECK_INT(h->ops[loss].pin, 0);
	CHECK_INT(h->ngroups, g->ngroups);
	CHECK_INT(dp_op_role(h, fc1), DP_ROLE_FORWARD);
	CHECK_STR(dp_graph_str(h, h->ops[fc1].layer), "fc1");
	CHECK_INT(h->hint.devices, 4);
	/* and back: the same numbers as the file */
	dp_graph *k = NULL;
	REQUIRE(dp_graph_with_batch(h, 256, &k, &err) == DP_OK);
	for (uint32_t u = 0; u < g->nops; u++) {
		CHECK_NEAR(k->ops[u].time_us, g->ops[u].time_us, 1e-9);
		CHECK_INT(k->ops[u].output_bytes, g->ops[u].output_bytes);
		CHECK_INT(k->ops[u].temp_bytes, g->ops[u].temp_bytes);
	}
	for (uint32_t e = 0; e < g->nedges; e++)
		CHECK_INT(k->edges[e].bytes, g->edges[e].bytes);
	dp_graph_free(k);
	dp_graph_free(h);
	dp_graph_free(g);
}

static void test_errors(void)
{
	dp_graph *g = test_load_ok("tests/data/json_dims.json");
	REQUIRE(g);
	dp_graph *h = NULL;
	dp_err err;
	CHECK(dp_graph_with_batch(g, 0, &h, &err) == DP_EINPUT);
	CHECK_CONTAINS(err.msg, "expected 1 .. 2^40");
	CHECK(h == NULL);
	dp_graph_free(g);
	g = dp_graph_new("nobatch");
	REQUIRE(g);
	test_add_op(g, "a", 1, 4, NULL);
	REQUIRE(dp_graph_finalize(g, &err) == DP_OK);
	CHECK_INT(dp_graph_batch_size(g), 0);
	CHECK(dp_graph_with_batch(g, 8, &h, &err) == DP_EINPUT);
	CHECK_CONTAINS(err.msg, "has no batch dim");
	dp_graph_free(g);
}

/* An op with several outputs (tests/data/gpt2_tiny.json, batch 2: the
 * layer norm's normalize gradient, dx and dr) and its edges with
 * from_dims: at batch 6 each edge that the batch indexes carries 3x its
 * bytes, the op's output too, and the graph loads (its edges' bytes agree
 * with their dims). */
static void test_several_outputs_scale(void)
{
	const char *p = "model/ln_f/normalize/grad";
	dp_graph *h = NULL, *g = test_load_ok("tests/data/gpt2_tiny.json");
	dp_err err;
	REQUIRE(g && dp_graph_with_batch(g, 6, &h, &err) == DP_OK);
	uint32_t e = edge_of(g, p, "model/ln_f/rsqrt/grad");
	uint32_t f = edge_of(h, p, "model/ln_f/rsqrt/grad");
	const uint32_t *names;
	REQUIRE(e != UINT32_MAX && f != UINT32_MAX);
	CHECK(dp_edge_from_dims(h, f, &names) >= 0);
	CHECK_INT(h->edges[f].bytes, 3 * g->edges[e].bytes);
	CHECK_INT(h->ops[dp_graph_find(h, p)].output_bytes,
		  3 * g->ops[dp_graph_find(g, p)].output_bytes);
	dp_graph_free(h);
	dp_graph_free(g);
}

TEST_MAIN(TEST(test_quarter_batch), TEST(test_errors),
	  TEST(test_several_outputs_scale))

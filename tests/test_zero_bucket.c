/* test_zero_bucket.c - gradient buckets and ZeRO stages (docs/spmd.md,
 * "Gradient buckets" and "ZeRO stages"), each number computed by hand from
 * the closed form on a three-layer chain:
 *
 *   x -> fc1 -> fc2 -> fc3 -> loss -> b3 -> b2 -> b1, grad_i -> upd_i,
 *   weights w1 4x4, w2 4x8, w3 8x8 fp32 (64, 128, 256 bytes: W = 448),
 *   each variable holding its weights and Adam's two states (3 x), the
 *   update ops nothing; one layer per i.
 *
 * Backward makes grad3 first, then grad2, then grad1. */
#include <stdio.h>
#include <string.h>

#include "dnnpart/sim.h"
#include "dnnpart/strategy.h"
#include "lib/fixtures.h"
#include "lib/testlib.h"

extern const dp_algo dpi_algo_dp, dpi_algo_zero;

#define CHAIN "tests/data/zero_chain.json"
static const int64_t W2 = 128, W = 448; /* w2's bytes, all weights' */

static bool make(const dp_algo *a, const dp_graph *g, int k, int stage,
		 int64_t bucket, dp_strategy *s, dp_lowered *l)
{
	dp_machine m;
	dp_err err;
	dp_algo_opts o;
	dp_algo_opts_default(&o);
	o.zero_stage = stage;
	dp_strategy_init(s);
	if (dp_machine_init(&m, k, &err))
		return false;
	dp_status st = a->strategize(g, &m, &o, NULL, s, &err);
	dp_machine_free(&m);
	if (st) {
		test_fail(__FILE__, __LINE__, "%s: %s", a->name, err.msg);
		return false;
	}
	s->bucket = bucket;
	if (!test_lower(g, s, k, l)) {
		dp_strategy_free(s);
		return false;
	}
	return true;
}

/* The chain, loaded into *g, lowered by make (the caller frees all). */
static bool chain(const dp_algo *a, int k, int stage, int64_t bucket,
		  dp_graph **g, dp_strategy *s, dp_lowered *l)
{
	*g = test_load_ok(CHAIN);
	if (*g && make(a, *g, k, stage, bucket, s, l))
		return true;
	dp_graph_free(*g);
	return false;
}

/* The gradients' collectives: reduce ops on device 0 (one per collective,
 * "SRC/rs#d0" or a bucket's "SRC/bucketB#d0"). */
static int collectives(const dp_lowered *l)
{
	int n = 0;
	for (uint32_t i = 0; i < l->g->nops; i++) {
		const char *nm = dp_graph_op_name(l->g, i);
		n += l->placement[i] == 0 &&
		     (strstr(nm, "/rs#") || strstr(nm, "/bucket"));
	}
	return n;
}

/* Cross-device transfers: distinct (producer, target device) pairs. */
static int transfers(const dp_lowered *l)
{
	int n = 0;
	for (uint32_t u = 0; u < l->g->nops; u++) {
		uint64_t seen = 0;
		for (uint32_t j = l->g->succ_off[u]; j < l->g->succ_off[u + 1];
		     j++) {
			const dp_edge *e = &l->g->edges[l->g->succ_edge[j]];
			int d = l->placement[e->to];
			if (e->control || d == l->placement[u] ||
			    (seen >> d & 1))
				continue;
			seen |= 1ull << d;
			n++;
		}
	}
	return n;
}

static bool has(const dp_lowered *l, const char *name)
{
	return dp_graph_find(l->g, name) != UINT32_MAX;
}

/* Every device of l (K = k) sends and receives per bytes, and the edges
 * that cross devices carry k x per in all; then frees l and s. */
static void check_sends_and_free(dp_lowered *l, dp_strategy *s, int k,
				 int64_t per)
{
	CHECK_INT(test_cross_bytes(l), per * k);
	CHECK_COMM_EACH(l, k, per);
	dp_lowered_free(l);
	dp_strategy_free(s);
}

/* Buckets close once they hold the cap or more (DDP's rule), in backward
 * order: 300 B takes grad3 (256) and grad2 (128, crossing the cap) into
 * bucket 0, named after grad3, and leaves grad1 alone; 100 B, and 0 (one
 * collective per gradient), give three; 1 MiB one. Each collective is a
 * ring all-reduce of 2K(K-1) transfers; the bytes stay 2(K-1)/K x W per
 * device whatever the buckets. */
static void test_buckets_group_in_backward_order(void)
{
	dp_graph *g = test_load_ok(CHAIN);
	REQUIRE(g);
	static const struct {
		int64_t bucket;
		int n;
		const char *merged; /* a bucket's reduce on device 0, or "" */
		const char *alone;  /* a gradient's own reduce, or "" */
	} cases[] = {
		{0, 3, "", "grad2/rs#d0"},
		{100, 3, "", "grad3/rs#d0"},
		{300, 2, "grad3/bucket0#d0", "grad1/rs#d0"},
		{1 << 20, 1, "grad3/bucket0#d0", ""},
	};
	for (int k = 2; k <= 4; k += 2)
		for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
			dp_strategy s;
			dp_lowered l;
			if (!make(&dpi_algo_dp, g, k, 0, cases[c].bucket, &s,
				  &l))
				continue;
			CHECK_INT(collectives(&l), cases[c].n);
			CHECK_INT(transfers(&l), cases[c].n * 2 * k * (k - 1));
			if (cases[c].merged[0])
				CHECK(has(&l, cases[c].merged));
			if (cases[c].alone[0])
				CHECK(has(&l, cases[c].alone));
			if (cases[c].n < 3)
				CHECK(!has(&l, "grad2/rs#d0"));
			check_sends_and_free(&l, &s, k, 2 * (k - 1) * W / k);
		}
	dp_graph_free(g);
}

/* A bucket waits for its last gradient: its pack on device 0 reads
 * grad3's and grad2's shards, and no reduce starts before grad2 ends. */
static void test_a_bucket_waits_for_its_last_gradient(void)
{
	dp_graph *g;
	dp_strategy s;
	dp_lowered l;
	REQUIRE(chain(&dpi_algo_dp, 2, 0, 300, &g, &s, &l));
	uint32_t pack = dp_graph_find(l.g, "grad3/pack0#d0");
	REQUIRE(pack != UINT32_MAX);
	int from3 = 0, from2 = 0;
	for (uint32_t j = l.g->pred_off[pack]; j < l.g->pred_off[pack + 1];
	     j++) {
		const char *nm = dp_graph_op_name(
			l.g, l.g->edges[l.g->pred_edge[j]].from);
		from3 += strcmp(nm, "grad3#d0") == 0;
		from2 += strcmp(nm, "grad2#d0") == 0;
	}
	CHECK_INT(from3, 1);
	CHECK_INT(from2, 1);
	dp_sim_result r;
	if (test_simulate_lowered(&l, 2, &r)) {
		uint32_t g2 = dp_graph_find(l.g, "grad2#d0");
		uint32_t red = dp_graph_find(l.g, "grad3/bucket0#d0");
		REQUIRE(g2 != UINT32_MAX && red != UINT32_MAX);
		CHECK(r.start[red] >= r.end[g2]);
		dp_sim_result_free(&r);
	}
	dp_lowered_free(&l);
	dp_strategy_free(&s);
	dp_graph_free(g);
}

/* Model states per device (params + gradient buffers), with W the weights'
 * bytes (4 Psi): dp 16 Psi = 4W; stage 1 8 Psi + 8 Psi/K = 2W + 2W/K;
 * stage 2 4 Psi + 12 Psi/K = W + 3W/K; stage 3 16 Psi/K = 4W/K. Bytes per
 * device: dp and stages 1 and 2 2(K-1)/K x W (stages 1 and 2: the
 * gradients reduce-scattered, the updated weights all-gathered); stage 3
 * 3(K-1)/K x W: every layer gathered for its forward and again for its
 * backward, the gradients reduce-scattered, and no gather after the
 * update. */
static void test_zero_stages_closed_forms(void)
{
	dp_graph *g = test_load_ok(CHAIN);
	REQUIRE(g);
	for (int k = 2; k <= 4; k += 2)
		for (int stage = 0; stage <= 3; stage++) {
			int64_t want = stage == 0   ? 4 * W
				       : stage == 1 ? 2 * W + 2 * W / k
				       : stage == 2 ? W + 3 * W / k
						    : 4 * W / k;
			dp_strategy s;
			dp_lowered l;
			if (!make(stage ? &dpi_algo_zero : &dpi_algo_dp, g, k,
				  stage, 0, &s, &l))
				continue;
			for (int d = 0; d < k; d++) {
				int64_t got = 0;
				for (uint32_t i = 0; i < l.g->nops; i++)
					if (l.placement[i] == d)
						got += l.g->ops[i].param_bytes;
				if (got != want)
					test_fail(__FILE__, __LINE__,
						  "K=%d stage %d device %d: "
						  "%lld bytes of model states, "
						  "want %lld",
						  k, stage, d, (long long)got,
						  (long long)want);
			}
			CHECK_INT(s.zero_stage, stage);
			CHECK(has(&l, "w2/fsdp_f#d0") == (stage == 3));
			CHECK(has(&l, "w2/fsdp_b#d0") == (stage == 3));
			CHECK(has(&l, "upd2/ag#d0") ==
			      (stage == 1 || stage == 2));
			if (stage == 3) {
				/* a gather holds its layer's whole weights */
				uint32_t f2 =
					dp_graph_find(l.g, "w2/fsdp_f#d1");
				REQUIRE(f2 != UINT32_MAX);
				CHECK_INT(l.g->ops[f2].output_bytes, W2);
			}
			check_sends_and_free(&l, &s, k,
					     (stage == 3 ? 3 : 2) * (k - 1) *
						     W / k);
		}
	dp_graph_free(g);
}

/* Prefetch: layer 2's forward gather is sent once fc1 (layer 1's first
 * forward consumer) ends; layer 1's at once; backward's first layer (3)
 * waits for fc3, the next (2) for b3. */
static void test_stage3_prefetches_the_next_layer(void)
{
	dp_graph *g;
	dp_strategy s;
	dp_lowered l;
	REQUIRE(chain(&dpi_algo_zero, 2, 3, 0, &g, &s, &l));
	static const char *const want[][2] = {
		{"w1/fsdp_fs#d1", ""},	     {"w2/fsdp_fs#d1", "fc1#d1"},
		{"w3/fsdp_fs#d1", "fc2#d1"}, {"w3/fsdp_bs#d1", "fc3#d1"},
		{"w2/fsdp_bs#d1", "b3#d1"},  {"w1/fsdp_bs#d1", "b2#d1"}};
	for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
		uint32_t v = dp_graph_find(l.g, want[i][0]);
		REQUIRE(v != UINT32_MAX);
		const char *trig = "";
		for (uint32_t j = l.g->pred_off[v]; j < l.g->pred_off[v + 1];
		     j++) {
			const dp_edge *e = &l.g->edges[l.g->pred_edge[j]];
			if (e->control)
				trig = dp_graph_op_name(l.g, e->from);
		}
		CHECK_STR(trig, want[i][1]);
	}
	dp_lowered_free(&l);
	dp_strategy_free(&s);
	dp_graph_free(g);
}

TEST_MAIN(TEST(test_buckets_group_in_backward_order),
	  TEST(test_a_bucket_waits_for_its_last_gradient),
	  TEST(test_zero_stages_closed_forms),
	  TEST(test_stage3_prefetches_the_next_layer))

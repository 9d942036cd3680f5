/* test_hybrid.c - pipelines whose stages are data parallel (the 3D
 * lowering, engine/strategy/lower_pipe3d.c) or tensor parallel
 * (lower_pipe_tp.c), and the planners that make them. */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dnnpart/algo.h"
#include "dnnpart/graph.h"
#include "dnnpart/machine.h"
#include "dnnpart/sim.h"
#include "dnnpart/strategy.h"
#include "internal/lower.h"
#include "lib/fixtures.h"
#include "lib/testlib.h"

#define W 1200 /* weight bytes per layer */
#define A 800  /* activation bytes per layer (whole batch) */

/* Two layers: w<i> (param, W) -> f<i> (forward, A) -> ... -> loss ->
 * f<i>/grad (backward) -> f<i>/grad_w (grad, W) -> w<i>/update. */
static dp_graph *two_layers(void)
{
	dp_graph *g = dp_graph_new("two");
	uint32_t w[2], f[2], b[2], gw[2], up[2];
	char n[32];
	for (int i = 0; i < 2; i++) {
		snprintf(n, sizeof n, "w%d", i);
		w[i] = test_add_role_op(g, n, 0, W, DP_ROLE_PARAM);
		snprintf(n, sizeof n, "f%d", i);
		f[i] = test_add_role_op(g, n, 8, A, DP_ROLE_FORWARD);
		test_add_edge(g, w[i], f[i]);
		if (i)
			test_add_edge(g, f[i - 1], f[i]);
	}
	uint32_t loss = test_add_role_op(g, "loss", 0, 0, DP_ROLE_LOSS);
	test_add_edge(g, f[1], loss);
	for (int i = 1; i >= 0; i--) {
		b[i] = test_add_grad(g, f[i], i == 1 ? loss : b[i + 1], 8, A);
		snprintf(n, sizeof n, "f%d/grad_w", i);
		gw[i] = test_add_role_op(g, n, 4, W, DP_ROLE_GRAD);
		test_add_edge(g, b[i], gw[i]);
		snprintf(n, sizeof n, "w%d/update", i);
		up[i] = test_add_role_op(g, n, 1, W, DP_ROLE_UPDATE);
		test_add_edge(g, gw[i], up[i]);
		test_add_edge(g, w[i], up[i]);
	}
	return test_finalized(g);
}

/* Four devices of no cap, links of latency lat and 100 bytes/us. */
static void four_devices(dp_machine *m, double lat)
{
	REQUIRE(dp_machine_init(m, 4, NULL) == DP_OK);
	m->kernel_us = 0; /* exact shares, as the hand computations take */
	m->lat = lat;
	m->bw = 100;
}

/* Stage 0 = layer 0 on devices {0,1}, stage 1 = layer 1 on {2,3}: the
 * lowering moves, per device, 2 (D-1)/D x W of gradient all-reduce inside
 * its group and nothing of it across groups; activations go replica r to
 * replica r. */
static void test_3d_lowering_all_reduces_inside_groups(void)
{
	dp_graph *g = two_layers();
	REQUIRE(g);
	dp_machine m;
	four_devices(&m, 0);
	dp_strategy s;
	dp_err err;
	dp_strategy_init(&s);
	REQUIRE(dp_strategy_alloc(&s, DP_STRAT_PIPELINE, g, 2, &err) == DP_OK);
	for (uint32_t u = 0; u < g->nops; u++) {
		const char *nm = dp_graph_op_name(g, u);
		s.pipe.stage[u] =
			strchr(nm, '1') || !strcmp(nm, "loss") ? 1 : 0;
	}
	s.pipe.microbatches = 2;
	s.pipe.schedule = DP_SCHED_1F1B;
	int32_t *grp = realloc(s.pipe.group, 4 * sizeof *grp);
	REQUIRE(grp);
	s.pipe.group = grp;
	for (int i = 0; i < 4; i++)
		grp[i] = i;
	s.pipe.group_off[0] = 0;
	s.pipe.group_off[1] = 2;
	s.pipe.group_off[2] = 4;
	s.spmd.naxes = 1;
	s.spmd.mesh[0] = 2;
	s.k = 4;
	dp_lowered l;
	memset(&l, 0, sizeof l);
	dp_status lst = dp_strategy_lower(g, &m, &s, NULL, &l, &err);
	if (lst)
		fprintf(stderr, "# %s\n", err.msg);
	REQUIRE(lst == DP_OK);
	int64_t ar[4] = {0}, cross_ar = 0, act_cross = 0;
	int bad_pairs = 0;
	for (uint32_t e = 0; e < l.g->nedges; e++) {
		const dp_edge *ed = &l.g->edges[e];
		int a = l.placement[ed->from], b = l.placement[ed->to];
		if (a == b || ed->control)
			continue;
		bool rs = strstr(dp_graph_op_name(l.g, ed->from), "/rs#") ||
			  strstr(dp_graph_op_name(l.g, ed->to), "/rs#");
		if (rs) {
			ar[a] += ed->bytes;
			cross_ar += a / 2 != b / 2;
		} else {
			act_cross += ed->bytes;
			bad_pairs += a % 2 != b % 2;
		}
	}
	for (int d = 0; d < 4; d++)
		CHECK_INT(ar[d], 2 * (2 - 1) * W / 2);
	CHECK_INT(cross_ar, 0);
	CHECK_INT(bad_pairs, 0);
	/* forward f0 -> f1 and backward f1/grad -> f0/grad: A each way,
	 * split over 2 micro-batches and 2 replicas, all cross a group */
	CHECK_INT(act_cross, 2 * A);
	/* every user's op on both devices of its group */
	uint32_t on[4] = {0};
	for (uint32_t x = 0; x < l.g->nops; x++)
		on[l.placement[x]]++;
	CHECK_INT(on[0], on[1]);
	CHECK_INT(on[2], on[3]);
	dp_sim *sim = dp_sim_new(l.g, &m, &err);
	REQUIRE(sim);
	dp_sim_result r;
	memset(&r, 0, sizeof r);
	REQUIRE(dp_sim_run(sim, l.placement, NULL, &r, &err) == DP_OK);
	CHECK(r.makespan > 0);
	dp_sim_result_free(&r);
	dp_sim_free(sim);
	dp_lowered_free(&l);
	dp_strategy_free(&s);
	dp_machine_free(&m);
	dp_graph_free(g);
}

static double simulate(const dp_graph *g, const dp_machine *m,
		       const dp_strategy *s, bool *fits)
{
	return test_simulate_strategy(g, m, s, DP_CONT_PORT, fits);
}

static dp_status run_algo(const char *name, const dp_graph *g,
			  const dp_machine *m, const dp_progress *p,
			  dp_strategy *s, dp_err *err)
{
	const dp_algo *a = dp_algo_find(name);
	if (!a || !a->strategize)
		return DP_EINTERNAL;
	dp_strategy_init(s);
	return a->strategize(g, m, NULL, p, s, err);
}

/* hybrid's plan on g, m: it fits, and its simulated step is no longer than
 * that of each of the n other algorithms that fits; a cancelled run
 * leaves nothing made. */
static dp_strategy hybrid_vs(const dp_graph *g, const dp_machine *m,
			     const char *const *others, int n)
{
	dp_strategy h, q;
	dp_err err;
	if (run_algo("hybrid", g, m, NULL, &h, &err) != DP_OK) {
		test_fail(__FILE__, __LINE__, "hybrid: %s", err.msg);
		return h;
	}
	bool fh = false, fq = false;
	double th = simulate(g, m, &h, &fh);
	CHECK(th > 0 && fh);
	for (int i = 0; i < n; i++) {
		if (run_algo(others[i], g, m, NULL, &q, &err) != DP_OK)
			continue;
		double tq = simulate(g, m, &q, &fq);
		if (fq)
			CHECK(th <= tq + 1e-9);
		dp_strategy_free(&q);
	}
	dp_strategy c;
	atomic_int flag = 1;
	dp_progress p = {NULL, NULL, &flag};
	CHECK_INT(run_algo("hybrid", g, m, &p, &c, &err), DP_ECANCELED);
	CHECK(c.pipe.stage == NULL && c.spmd.axes == NULL);
	return h;
}

/* hybrid searches a space that holds 1f1b's plan on the same devices and
 * pipedream's: its step is no longer than either that fits; a cancel
 * leaves nothing. (Not gpipe's: hybrid runs the 1F1B order, and with
 * whole backward blocks and slow links GPipe's order can be shorter:
 * 38 us against 1F1B's 39.5 here.) */
static void test_hybrid_no_slower_than_pipelines(void)
{
	dp_graph *g = two_layers();
	REQUIRE(g);
	dp_machine m;
	four_devices(&m, 1);
	const char *others[] = {"1f1b", "pipedream"};
	dp_strategy h = hybrid_vs(g, &m, others, 2);
	CHECK(h.k <= 4);
	dp_strategy_free(&h);
	dp_machine_free(&m);
	dp_graph_free(g);
}

/* Pipeline stages that are tensor parallel (lower_pipe_tp.c) and hybrid's
 * (S, T, D, M) search. The graph: 4 layers, each an MLP pair fc1
 * {b,s,h,f} (split by its output dim f) -> fc2 {b,s,f,h} (split by its
 * reduction dim f: partial sums), then a loss; one layer per stage. */
enum { L = 4, B = 8, SQ = 4, H = 16, F = 64 };
#define T1 40.0		   /* µs of fc1 */
#define T2 20.0		   /* µs of fc2 */
#define TL 2.0		   /* µs of the loss */
#define Y (B * SQ * H * 4) /* bytes of a layer's output */

/* The chain with its width dim named wd, of size fs (chain(): f, F). */
static dp_graph *chain_dim(const char *wd, int fs)
{
	static char text[16384];
	size_t n = 0;
#define P(...) n += (size_t)snprintf(text + n, sizeof text - n, __VA_ARGS__)
	P("{\"name\":\"mlp4\",\"batch_dim\":\"b\",\"ops\":["
	  "{\"name\":\"x\",\"role\":\"input\",\"dims\":{\"b\":%d,\"s\":%d,"
	  "\"h\":%d},\"out\":[\"b\",\"s\",\"h\"],\"output_bytes\":%d}",
	  B, SQ, H, Y);
	for (int l = 0; l < L; l++) {
		P(",{\"name\":\"w1_%d\",\"role\":\"param\",\"dims\":{\"h\":%d,"
		  "\"f\":%d},\"out\":[\"h\",\"f\"],\"param\":[\"h\",\"f\"],"
		  "\"param_bytes\":%d,\"output_bytes\":%d}",
		  l, H, fs, H * fs * 4, H * fs * 4);
		P(",{\"name\":\"w2_%d\",\"role\":\"param\",\"dims\":{\"f\":%d,"
		  "\"h\":%d},\"out\":[\"f\",\"h\"],\"param\":[\"f\",\"h\"],"
		  "\"param_bytes\":%d,\"output_bytes\":%d}",
		  l, fs, H, H * fs * 4, H * fs * 4);
		P(",{\"name\":\"fc1_%d\",\"role\":\"forward\",\"time_us\":%g,"
		  "\"dims\":{\"b\":%d,\"s\":%d,\"h\":%d,\"f\":%d},\"out\":["
		  "\"b\","
		  "\"s\",\"f\"],\"output_bytes\":%d}",
		  l, T1, B, SQ, H, fs, B * SQ * fs * 4);
		P(",{\"name\":\"fc2_%d\",\"role\":\"forward\",\"time_us\":%g,"
		  "\"dims\":{\"b\":%d,\"s\":%d,\"f\":%d,\"h\":%d},\"out\":["
		  "\"b\","
		  "\"s\",\"h\"],\"output_bytes\":%d}",
		  l, T2, B, SQ, fs, H, Y);
	}
	P(",{\"name\":\"loss\",\"role\":\"loss\",\"time_us\":%g,\"dims\":{"
	  "\"b\":%d,\"s\":%d,\"h\":%d},\"out\":[\"b\",\"s\",\"h\"],"
	  "\"output_bytes\":%d}],\"edges\":[",
	  TL, B, SQ, H, Y);
	for (int l = 0; l < L; l++) {
		if (l)
			P(",");
		if (l)
			P("{\"from\":\"fc2_%d\",\"to\":\"fc1_%d\",\"dims\":["
			  "\"b\","
			  "\"s\",\"h\"]},",
			  l - 1, l);
		else
			P("{\"from\":\"x\",\"to\":\"fc1_0\",\"dims\":[\"b\","
			  "\"s\","
			  "\"h\"]},");
		P("{\"from\":\"w1_%d\",\"to\":\"fc1_%d\",\"dims\":[\"h\",\"f\"]"
		  "},"
		  "{\"from\":\"w2_%d\",\"to\":\"fc2_%d\",\"dims\":[\"f\",\"h\"]"
		  "},"
		  "{\"from\":\"fc1_%d\",\"to\":\"fc2_%d\",\"dims\":[\"b\","
		  "\"s\","
		  "\"f\"]}",
		  l, l, l, l, l, l);
	}
	P(",{\"from\":\"fc2_%d\",\"to\":\"loss\",\"dims\":[\"b\",\"s\",\"h\"]}"
	  "]}",
	  L - 1);
#undef P
	/* the width's name: every "f" of the text becomes "wd" */
	static char named[sizeof text + 4096];
	size_t o = 0;
	for (const char *c = text; *c && o + 32 < sizeof named; c++)
		if (!strncmp(c, "\"f\"", 3)) {
			o += (size_t)snprintf(named + o, sizeof named - o,
					      "\"%s\"", wd);
			c += 2;
		} else {
			named[o++] = *c;
		}
	named[o] = '\0';
	return test_json_text(named);
}

static dp_graph *chain(void)
{
	return chain_dim("f", F);
}

/* Layer l on stage l, devices {2l, 2l+1}, T = 2, M = 1. */
static void make_3d(const dp_graph *g, dp_strategy *s, int D, int T, int M)
{
	dp_err err;
	dp_strategy_init(s);
	REQUIRE(dp_strategy_alloc(s, DP_STRAT_PIPELINE, g, L, &err) == DP_OK);
	int width = D * T;
	int32_t *grp = realloc(s->pipe.group, (size_t)L * width * sizeof *grp);
	REQUIRE(grp);
	s->pipe.group = grp;
	for (int i = 0; i < L * width; i++)
		grp[i] = i;
	for (int i = 0; i <= L; i++)
		s->pipe.group_off[i] = i * width;
	for (uint32_t u = 0; u < g->nops; u++) {
		const char *nm = dp_graph_op_name(g, u);
		const char *us = strrchr(nm, '_');
		s->pipe.stage[u] = us			     ? atoi(us + 1)
				   : strcmp(nm, "loss") == 0 ? L - 1
							     : 0;
		int f = dp_op_find_dim(g, u, "f");
		int b = dp_op_find_dim(g, u, "b");
		if (f >= 0 && T > 1)
			s->spmd.axes[(size_t)u * DP_MAX_OP_DIMS + f] = 2;
		if (b >= 0 && D > 1)
			s->spmd.axes[(size_t)u * DP_MAX_OP_DIMS + b] = 1;
	}
	s->pipe.microbatches = M;
	s->pipe.schedule = DP_SCHED_1F1B;
	s->spmd.naxes = 2;
	s->spmd.mesh[0] = D;
	s->spmd.mesh[1] = T;
	s->k = L * width;
}

/* By hand (no latency, no port contention): each layer runs fc1 and fc2
 * on half of f (T1/2 + T2/2), then the all-reduce of fc2's partial sums:
 * a reduce-scatter inside the stage (Y/2 per device) and the all-gather
 * to the consumers (Y/2 from each reduce), Y / bw in all; then the loss.
 * Every all-reduce's reduce-scatter stays inside the stage's two devices. */
static void test_tp_stages_step_by_hand(void)
{
	dp_graph *g = chain();
	REQUIRE(g);
	test_machine tm;
	test_machine_init(&tm, 2 * L, 64, 0);
	dp_machine *m = &tm.m;
	dp_strategy s;
	make_3d(g, &s, 1, 2, 1);
	dp_err err;
	dp_status st = dp_strategy_check(g, m, &s, &err);
	if (st)
		fprintf(stderr, "# %s\n", err.msg);
	REQUIRE(st == DP_OK);
	bool fits = false;
	double t = test_simulate_strategy(g, m, &s, DP_CONT_NONE, &fits);
	double hand = L * (T1 / 2 + T2 / 2 + (double)Y / m->bw) + TL;
	CHECK_NEAR(t, hand, 1e-6);
	CHECK(fits);
	dp_lowered l;
	memset(&l, 0, sizeof l);
	REQUIRE(dp_strategy_lower(g, m, &s, NULL, &l, &err) == DP_OK);
	int into_rs = 0, crossing = 0, shards = 0;
	for (uint32_t e = 0; e < l.g->nedges; e++) {
		const dp_edge *ed = &l.g->edges[e];
		if (ed->control ||
		    !strstr(dp_graph_op_name(l.g, ed->to), "/rs"))
			continue;
		into_rs++;
		crossing +=
			l.placement[ed->from] / 2 != l.placement[ed->to] / 2;
	}
	for (uint32_t x = 0; x < l.g->nops; x++)
		shards += strncmp(dp_graph_op_name(l.g, x), "fc1_0@m0#d", 10) ==
			  0;
	CHECK_INT(into_rs, L * 2 * 2); /* per layer: 2 partial sums x 2 rs */
	CHECK_INT(crossing, 0);
	CHECK_INT(shards, 2);
	dp_lowered_free(&l);
	/* the strategy file keeps the split inside the stages: read back,
	 * it lowers to the same step */
	const char *path = test_tmp_path("tp3d.json");
	REQUIRE(dp_strategy_write(path, g, &s, true, &err) == DP_OK);
	dp_strategy r;
	dp_strategy_init(&r);
	st = dp_strategy_read(path, g, m, &r, &err);
	if (st)
		fprintf(stderr, "# %s\n", err.msg);
	REQUIRE(st == DP_OK);
	CHECK(dpi_pipe_is_tp(g, &r));
	CHECK_NEAR(test_simulate_strategy(g, m, &r, DP_CONT_NONE, &fits), hand,
		   1e-6);
	dp_strategy_free(&r);
	/* a split the spmd rules refuse is refused here too */
	uint32_t fc1 = 0;
	while (strcmp(dp_graph_op_name(g, fc1), "fc1_0"))
		fc1++;
	s.spmd.axes[(size_t)fc1 * DP_MAX_OP_DIMS + 0] = 2; /* b and f */
	CHECK_INT(dp_strategy_check(g, m, &s, &err), DP_EINPUT);
	CHECK(strstr(err.msg, "fc1_0") != NULL);
	dp_strategy_free(&s);
	dp_graph_free(g);
}

/* hybrid on 8 devices: a label with T, a plan no slower than 1f1b's and
 * megatron's where those fit, within caps that the one-device plan
 * exceeds; a cancel leaves nothing made. */
static void test_hybrid_searches_tp(void)
{
	dp_graph *g = chain();
	REQUIRE(g);
	test_machine tm;
	test_machine_init(&tm, 8, 64, 1);
	dp_machine *m = &tm.m;
	int64_t params = (int64_t)L * 2 * H * F * 4;
	for (int d = 0; d < 8; d++)
		m->cap[d] = params; /* all the weights and more: not twice */
	const char *others[] = {"1f1b", "megatron"};
	dp_strategy h = hybrid_vs(g, m, others, 2);
	CHECK(strncmp(h.label, "hybrid S=", 9) == 0 && strstr(h.label, " T=") &&
	      strstr(h.label, " D="));
	dp_strategy_free(&h);
	dp_graph_free(g);
}

/* A --tp setting (0: hybrid's own search) and what it gives: the status
 * and text in the label, or in the error. */
typedef struct tp_case {
	int tp;
	dp_status st;
	const char *want;
} tp_case;

static void check_tp_cases(const dp_graph *g, const dp_machine *m,
			   const tp_case *cases, size_t n)
{
	const dp_algo *a = dp_algo_find("hybrid");
	REQUIRE(a);
	for (size_t i = 0; i < n; i++) {
		dp_algo_opts o;
		dp_algo_opts_default(&o);
		o.tp = cases[i].tp;
		dp_strategy s;
		dp_strategy_init(&s);
		dp_err err;
		dp_err_clear(&err);
		dp_status st = a->strategize(g, m, &o, NULL, &s, &err);
		CHECK_INT(st, cases[i].st);
		const char *text = st ? err.msg : s.label;
		if (!strstr(text, cases[i].want))
			test_fail(__FILE__, __LINE__,
				  "--tp %d: '%s' lacks '%s'", cases[i].tp, text,
				  cases[i].want);
		if (!st)
			dp_strategy_free(&s);
	}
}

/* --tp T restricts hybrid's search to that T (the label names it); a T
 * that does not divide K, or that no `f` dim takes, is refused by name. */
static void test_hybrid_takes_tp(void)
{
	static const tp_case cases[] = {
		{1, DP_OK, " T=1 "},
		{2, DP_OK, " T=2 "},
		{3, DP_EINPUT, "--tp 3 must divide the 8 devices"},
		{128, DP_EINPUT, "--tp 128 must divide"},
	};
	dp_graph *g = chain();
	REQUIRE(g);
	test_machine tm;
	test_machine_init(&tm, 8, 64, 1);
	check_tp_cases(g, &tm.m, cases, sizeof cases / sizeof *cases);
	dp_graph_free(g);
}

/* Megatron-LM splits attention by whole heads, and so does the Megatron
 * export of hybrid's plan: on 5 heads (the width of the chain's MLPs
 * named `heads`) hybrid's own search keeps T = 1 where such a plan fits
 * (no caps), while --tp 2 splits them unevenly (2 and 3), as megatron
 * does, because the user asked for it. Under caps that no plan with whole
 * heads fits, its own search takes the uneven T = 2 that fits: a plan that
 * fits beats one that does not (plan then notes that Megatron-LM refuses
 * it). */
static void test_hybrid_search_divides_heads(void)
{
	static const tp_case free_cases[] = {{0, DP_OK, " T=1 "},
					     {2, DP_OK, " T=2 "}};
	static const tp_case capped[] = {{0, DP_OK, " T=2 "}};
	dp_graph *g = chain_dim("heads", 5);
	REQUIRE(g);
	test_machine tm;
	test_machine_init(&tm, 8, 64, 1);
	check_tp_cases(g, &tm.m, free_cases,
		       sizeof free_cases / sizeof *free_cases);
	for (int d = 0; d < 8; d++)
		tm.cap[d] = (int64_t)L * 2 * H * 5 * 4;
	check_tp_cases(g, &tm.m, capped, sizeof capped / sizeof *capped);
	/* and that plan fits: no whole-heads plan does (--tp 1) */
	const dp_algo *a = dp_algo_find("hybrid");
	dp_algo_opts o;
	dp_algo_opts_default(&o);
	for (int tp = 0; tp <= 1; tp++) {
		o.tp = tp;
		dp_plan p;
		dp_err err;
		dp_err_clear(&err);
		REQUIRE(dp_plan_run(g, &tm.m, a, &o, NULL, &p, &err) == DP_OK);
		CHECK(p.feasible == (tp == 0));
		dp_plan_free(&p);
	}
	dp_graph_free(g);
}

TEST_MAIN(TEST(test_3d_lowering_all_reduces_inside_groups),
	  TEST(test_hybrid_no_slower_than_pipelines),
	  TEST(test_tp_stages_step_by_hand), TEST(test_hybrid_searches_tp),
	  TEST(test_hybrid_takes_tp), TEST(test_hybrid_search_divides_heads))

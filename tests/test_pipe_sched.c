/* test_pipe_sched.c - the pipeline schedules against their closed forms on
 * chains of equal layers (docs/pipeline.md): whole backward blocks under
 * 1F1B and GPipe (Megatron-LM, torch.distributed.pipelining), the price
 * of small work on micro-batch copies. Every expected step is computed
 * here from its formula, not read from the program. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dnnpart/algo.h"
#include "dnnpart/graph.h"
#include "dnnpart/machine.h"
#include "dnnpart/sim.h"
#include "dnnpart/strategy.h"
#include "internal/pipeline.h"
#include "lib/fixtures.h"
#include "lib/pipe_case.h"
#include "lib/testlib.h"

static const double *chain_tbs; /* chain(): layer i's backward time */

/* S layers, one per stage (test_train_chain, layers "layers/<i>"): param
 * p<i> -> forward f<i> (tf us), its input gradient f<i>/grad (backward, tb
 * us, or chain_tbs[i]) and its weight gradient f<i>/grad_w (grad, tw us;
 * reads the layer's input and the gradient that arrives) -> update
 * p<i>/adam (0 us); tw < 0: no weight gradients nor updates. Outputs of
 * out bytes; weight gradients of 0 bytes. */
static dp_graph *chain(int S, double tf, double tb, double tw, int64_t out)
{
	double tbs[16];
	for (int i = 0; i < S && i < 16; i++)
		tbs[i] = chain_tbs ? chain_tbs[i] : tb;
	return test_train_chain(S, tf, tbs, tw, out, 0);
}

/* K devices, free links, a kernel overhead of o us. */
static void machine(dp_machine *m, int k, double o)
{
	REQUIRE(dp_machine_init(m, k, NULL) == DP_OK);
	m->lat = 0;
	m->bw = 1e6;
	m->kernel_us = o;
}

static int64_t last_peak;    /* the largest device peak of step_on's run */
static int want_v;	     /* --virtual-stages of step_on's runs (0: none) */
static dp_strategy last_s;   /* step_on's strategy (its shape and label) */
static double last_busy[16]; /* step_on's busy time per device */
static int64_t last_peaks[16]; /* step_on's peak per device */
static bool last_fits;	       /* step_on's plan fits every cap */
static int32_t last_stage[64]; /* step_on's stage of the first 64 ops */

/* The step of g under algo with M micro-batches on S = K stages
 * (test_pipe_strategize; M = 0: the algorithm's search), in schedule sch, the strategy made for mp and priced on mr; -1 (a test
 * failure) when anything fails. The largest device peak in last_peak. */
static double step_on(const dp_graph *g, const dp_machine *mp,
		      const dp_machine *mr, const char *algo, int M, int sch)
{
	const dp_algo *a = dp_algo_find(algo);
	if (!a || !a->strategize) {
		test_fail(__FILE__, __LINE__, "no algorithm %s", algo);
		return -1;
	}
	dp_algo_opts o;
	dp_algo_opts_default(&o);
	o.microbatches = M;
	o.schedule = sch;
	o.virtual_stages = want_v;
	dp_lowered l = {0};
	dp_sim_result r = {0};
	dp_sim *sim = NULL;
	double step = -1;
	dp_err err;
	dp_err_clear(&err);
	dp_strategy s;
	dp_strategy_init(&s);
	if (test_pipe_strategize(algo, g, mp, &o, &s, &err) ||
	    dp_strategy_lower(g, mr, &s, NULL, &l, &err) ||
	    !(sim = dp_sim_new(l.g, mr, &err)) ||
	    dp_sim_run(sim, l.placement, NULL, &r, &err))
		test_fail(__FILE__, __LINE__, "%s M=%d: %s", algo, M, err.msg);
	else
		step = r.makespan;
	last_peak = 0;
	for (int d = 0; step >= 0 && d < r.k; d++) {
		if (r.dev[d].peak_bytes > last_peak)
			last_peak = r.dev[d].peak_bytes;
		last_busy[d % 16] = r.dev[d].busy_us;
		last_peaks[d % 16] = r.dev[d].peak_bytes;
	}
	last_fits = r.feasible;
	for (uint32_t u = 0; s.kind == DP_STRAT_PIPELINE && s.pipe.stage &&
			     u < g->nops && u < 64;
	     u++)
		last_stage[u] = s.pipe.stage[u];
	last_s.pipe.nstages = s.pipe.nstages;
	last_s.pipe.microbatches = s.pipe.microbatches;
	last_s.pipe.virtual_stages = s.pipe.virtual_stages;
	memcpy(last_s.label, s.label, sizeof s.label);
	dp_sim_free(sim);
	dp_sim_result_free(&r);
	dp_lowered_free(&l);
	dp_strategy_free(&s);
	return step;
}

static double step_of(const dp_graph *g, const dp_machine *m, const char *algo,
		      int M, int sch)
{
	return step_on(g, m, m, algo, M, sch);
}

/* 1F1B and GPipe with whole backward blocks: on S equal stages with F, B
 * and W of f, b, w us per micro-batch and free links, every stage's block
 * of one micro-batch is F or B+W, and the step is the classic
 * (M + S - 1)(f + b + w). S = 4, M = 8, 8 us each per layer (1 us per
 * micro-batch): 11 x 3 = 33 us. Sending the input gradient before the
 * weight gradients (zero-bubble's B/W split) shortens the backward's path
 * through the stages: 32 us and 56 us here; the frameworks do not. */
static void test_whole_backward_blocks(void)
{
	dp_graph *g = chain(4, 8, 8, 8, 0);
	dp_machine m;
	machine(&m, 4, 0);
	const char *algos[] = {"1f1b", "gpipe"};
	for (int i = 0; i < 2; i++) {
		double f = 8.0 / 8, b = 8.0 / 8, w = 8.0 / 8;
		CHECK_NEAR(step_of(g, &m, algos[i], 8, -1),
			   (8 + 4 - 1) * (f + b + w), 1e-9);
		/* M = 2: w = S-s-1 warm-up forwards cover all of them */
		f = b = w = 4;
		CHECK_NEAR(step_of(g, &m, algos[i], 2, -1),
			   (2 + 4 - 1) * (f + b + w), 1e-9);
	}
	dp_machine_free(&m);
	dp_graph_free(g);
}

/* The price of small work: a copy doing a fraction f of an op of t us
 * takes o + (t - o) f, o = min(t, the overhead). The chain above with an
 * overhead of 5 us: each copy of a layer's 8 us op (f = 1/8) takes
 * 5 + 3/8 = 5.375 us, the step (M + S - 1) x 3 x 5.375 = 177.375 us;
 * the default overhead is 5 us. An op of 2 us (less than the overhead)
 * gains nothing from the split: each copy takes 2 us. */
static void test_kernel_overhead_on_micro_batches(void)
{
	dp_graph *g = chain(4, 8, 8, 8, 0);
	dp_machine m;
	REQUIRE(dp_machine_init(&m, 4, NULL) == DP_OK);
	CHECK_NEAR(m.kernel_us, 5, 0);
	dp_machine_free(&m);
	machine(&m, 4, 5);
	double c = 5 + (8 - 5) / 8.0;
	CHECK_NEAR(step_of(g, &m, "1f1b", 8, -1), (8 + 4 - 1) * 3 * c, 1e-9);
	CHECK_NEAR(step_of(g, &m, "gpipe", 8, -1), (8 + 4 - 1) * 3 * c, 1e-9);
	dp_machine_free(&m);
	dp_graph_free(g);
	g = chain(4, 2, 2, 2, 0);
	machine(&m, 4, 5);
	CHECK_NEAR(step_of(g, &m, "1f1b", 8, -1), (8 + 4 - 1) * 3 * 2.0, 1e-9);
	dp_machine_free(&m);
	dp_graph_free(g);
}

/* The same price on data-parallel shards: dp on K = 4 splits each op of
 * the chain 4 ways along the batch; a shard of an 8 us op takes
 * 5 + 3/4 = 5.75 us with the overhead, 2 us without. */
static void test_kernel_overhead_on_shards(void)
{
	dp_graph *g = chain(2, 8, 8, 8, 4096);
	const dp_algo *a = dp_algo_find("dp");
	REQUIRE(a && a->strategize);
	for (int i = 0; i < 2; i++) {
		double o = i ? 5 : 0;
		dp_machine m;
		machine(&m, 4, o);
		dp_strategy s;
		dp_strategy_init(&s);
		dp_lowered l;
		memset(&l, 0, sizeof l);
		dp_err err;
		dp_err_clear(&err);
		uint32_t f0 = dp_graph_find(g, "f0");
		if (a->strategize(g, &m, NULL, NULL, &s, &err) ||
		    dp_strategy_lower(g, &m, &s, NULL, &l, &err)) {
			test_fail(__FILE__, __LINE__, "dp: %s", err.msg);
		} else {
			int shards = 0;
			for (uint32_t v = 0; v < l.g->nops; v++)
				if (l.source[v] == f0 &&
				    l.g->ops[v].time_us > 0) {
					shards++;
					CHECK_NEAR(l.g->ops[v].time_us,
						   o + (8 - o) / 4, 1e-12);
				}
			CHECK_INT(shards, 4);
		}
		dp_lowered_free(&l);
		dp_strategy_free(&s);
		dp_machine_free(&m);
	}
	dp_graph_free(g);
}

/* ZB-H1 (Qi et al. 2023) on S equal stages with F, B and W of one unit
 * each per micro-batch, free links: 1F1B's bubble is (S - 1)(F + B + W)
 * per device, ZB-H1's (S - 1)(F + B - W) (W fills the cool-down's gaps),
 * a third of it. S = 4, M = 8 (8 us per layer each, 1 us per copy): 24
 * us of work per device, 1F1B 24 + 9 = 33, ZB-H1 24 + 3 = 27; M = 16:
 * 57 and 51. Its peak memory is about 1F1B's (stage s defers at most s
 * Ws, so at most S micro-batches are live on any stage, as on 1F1B's
 * stage 0; here one micro-batch's activation more: 10/9 of it). */
static void test_zb_h1_third_of_the_bubble(void)
{
	dp_graph *g = chain(4, 8, 8, 8, 1 << 20);
	dp_machine m;
	machine(&m, 4, 0);
	m.bw = 1e15; /* 1 MiB activations, ~1e-9 us a transfer */
	int Ms[] = {8, 16};
	for (int i = 0; i < 2; i++) {
		int M = Ms[i], S = 4;
		double u = 8.0 / M, work = M * 3 * u;
		double t1 = step_of(g, &m, "1f1b", M, DP_SCHED_1F1B);
		int64_t p1 = last_peak;
		double tz = step_of(g, &m, "1f1b", M, DP_SCHED_ZBH1);
		int64_t pz = last_peak;
		CHECK_NEAR(t1, work + (S - 1) * 3 * u, 1e-6);
		CHECK_NEAR(tz, work + (S - 1) * (u + u - u), 1e-6);
		CHECK((tz - work) <= 0.4 * (t1 - work));
		/* a deferred W keeps its layer's input and the gradient it
		 * got: at most one micro-batch's activation more */
		CHECK(pz > 0 && pz <= p1 + (1 << 20) / M);
	}
	dp_machine_free(&m);
	dp_graph_free(g);
}

/* zb-h1 needs grad ops, and a weight gradient feeding an input gradient
 * would run before it: both refused with what to do. */
static void test_zb_h1_refuses_what_it_cannot_split(void)
{
	dp_graph *g = chain(1, 4, 4, -1, 64); /* no grad ops */
	dp_machine m;
	machine(&m, 1, 0);
	const dp_algo *a = dp_algo_find("1f1b");
	dp_algo_opts o;
	dp_algo_opts_default(&o);
	o.schedule = DP_SCHED_ZBH1;
	dp_strategy s;
	dp_strategy_init(&s);
	dp_err err;
	CHECK_INT(a->strategize(g, &m, &o, NULL, &s, &err), DP_EINPUT);
	CHECK(strstr(err.msg, "1f1b: schedule zb-h1") &&
	      strstr(err.msg, "has no op of role grad"));
	dp_strategy_free(&s);
	dp_graph_free(g);
	/* x -> f -> loss -> f/grad_w (grad) -> f/grad (backward) */
	g = dp_graph_new("wfeedsb");
	uint32_t f = test_add_role_op(g, "f", 4, 64, DP_ROLE_FORWARD);
	uint32_t l = test_add_role_op(g, "loss", 1, 4, DP_ROLE_LOSS);
	uint32_t w = test_add_role_op(g, "f/grad_w", 4, 0, DP_ROLE_GRAD);
	uint32_t b = test_add_role_op(g, "f/grad", 4, 64, DP_ROLE_BACKWARD);
	const uint32_t e[][2] = {{f, l}, {l, w}, {w, b}};
	test_add_edges(g, e, 3);
	g = test_finalized(g);
	REQUIRE(dp_strategy_alloc(&s, DP_STRAT_PIPELINE, g, 1, &err) == DP_OK);
	s.k = 1;
	s.pipe.microbatches = 2;
	s.pipe.schedule = DP_SCHED_ZBH1;
	CHECK_INT(dp_strategy_check(g, &m, &s, &err), DP_EINPUT);
	CHECK_STR(err.msg, "schedule zb-h1: weight-gradient op 'f/grad_w' "
			   "(role grad) feeds backward op 'f/grad', but a "
			   "stage runs its weight gradients (W) after its "
			   "input gradients (B); use 1f1b, or give 'f/grad' "
			   "the role grad");
	s.pipe.schedule = DP_SCHED_1F1B;
	CHECK_INT(dp_strategy_check(g, &m, &s, &err), DP_OK);
	dp_strategy_free(&s);
	dp_machine_free(&m);
	dp_graph_free(g);
}

/* Interleaved 1F1B (Megatron-LM, Narayanan et al. 2021): S devices of V
 * chunks each on a chain of S V equal layers, free links. With a device's
 * forward and backward of tf and tb per micro-batch (all its chunks), the
 * step is M (tf + tb) + (S - 1)(tf + tb) / V: the bubble falls V times.
 * 8 layers of 8 us forward and 8 us backward (no weight gradient time),
 * S = 4, M = 8: V = 2 gives tf = tb = 2 and 8 x 4 + 3 x 4 / 2 = 38 us,
 * against 1F1B's (M + S - 1)(tf + tb) = 44 on the same cut. */
static void test_interleaved_closed_form(void)
{
	dp_graph *g = chain(8, 8, 8, 0, 0);
	dp_machine m;
	machine(&m, 4, 0);
	int M = 8, S = 4, V = 2;
	double tf = V * 8.0 / M, tb = V * 8.0 / M;
	want_v = V;
	double tv = step_of(g, &m, "1f1b", M, -1);
	want_v = 0;
	CHECK_NEAR(tv, M * (tf + tb) + (S - 1) * (tf + tb) / V, 1e-9);
	CHECK_NEAR(step_of(g, &m, "1f1b", M, -1), (M + S - 1) * (tf + tb),
		   1e-9);
	dp_machine_free(&m);
	dp_graph_free(g);
}

/* 1f1b's own search (no -M, no --virtual-stages) tries V on a graph of
 * numbered layers: 8 equal layers "layers/<i>" (8 us forward, 8 us
 * backward), K = 4, free links. It picks an interleaved plan, says V in
 * its label, and its step is the closed form for the P devices, V and M
 * it chose: per micro-batch a device's forward takes tf = 64 / (P M) and
 * its backward as much, the step M (tf + tb) + (P - 1)(tf + tb) / V.
 * --virtual-stages 1 pins V = 1: no V in the label, and a longer step. */
static void test_search_tries_virtual_stages(void)
{
	dp_graph *g = chain(8, 8, 8, 0, 0);
	dp_machine m;
	machine(&m, 4, 0);
	double tv = step_of(g, &m, "1f1b", 0, -1);
	int V = last_s.pipe.virtual_stages, M = last_s.pipe.microbatches;
	int P = V > 0 ? last_s.pipe.nstages / V : 0;
	CHECK(V > 1);
	char want[32];
	snprintf(want, sizeof want, "V=%d", V);
	CHECK(strstr(last_s.label, want) != NULL);
	double tf = 64.0 / (P * M), tb = tf;
	CHECK_NEAR(tv, M * (tf + tb) + (P - 1) * (tf + tb) / V, 1e-9);
	want_v = 1;
	double t1 = step_of(g, &m, "1f1b", 0, -1);
	want_v = 0;
	CHECK(last_s.pipe.virtual_stages <= 1);
	CHECK(strstr(last_s.label, "V=") == NULL);
	CHECK(tv < t1);
	dp_machine_free(&m);
	dp_graph_free(g);
}

/* Interleaved chunks are cut by forward + backward time, then balanced
 * per device: 8 layers of 8 us forward, the backward of layers 0 and 1
 * 40 us, of the others 8 us; K = 2, V = 2, M = 4, free links. Cut by
 * forward time (two layers a chunk), device 0 would hold layers 0, 1, 4,
 * 5 (2 x 48 + 2 x 16 = 128 us) and device 1 64 us; the cut by both gives
 * each device 96 us. */
static void test_chunks_cut_by_forward_and_backward(void)
{
	static const double tbs[8] = {40, 40, 8, 8, 8, 8, 8, 8};
	chain_tbs = tbs;
	dp_graph *g = chain(8, 8, 8, 0, 0);
	chain_tbs = NULL;
	dp_machine m;
	machine(&m, 2, 0);
	want_v = 2;
	CHECK(step_of(g, &m, "1f1b", 4, -1) > 0);
	want_v = 0;
	CHECK_NEAR(last_busy[0], 96, 1e-9);
	CHECK_NEAR(last_busy[1], 96, 1e-9);
	dp_machine_free(&m);
	dp_graph_free(g);
}

/* Backward ops whose names mirror nothing ("bwd3" for f3) find their
 * stage by their `layer` label: 8 layers "layers/<i>", f<i> and bwd<i>
 * in the same layer, K = 4, M = 4. Each bwd<i> runs on f<i>'s stage (by
 * the structural rule alone every one went to the last stage: each is fed
 * by the next one's output). */
static uint32_t layer_op(dp_graph *g, const char *prefix, int i, double t,
			 dp_role role)
{
	char name[32], layer[32];
	snprintf(name, sizeof name, "%s%d", prefix, i);
	snprintf(layer, sizeof layer, "layers/%d", i);
	uint32_t u = test_add_op(g, name, t, 1024, layer);
	CHECK(dp_graph_set_role(g, u, role, NULL) == DP_OK);
	return u;
}

static void test_backward_stage_by_layer_label(void)
{
	dp_graph *g = dp_graph_new("renamed");
	uint32_t f[8], bw[8];
	uint32_t prev = test_add_role_op(g, "x", 0, 1024, DP_ROLE_INPUT);
	for (int i = 0; i < 8; i++) {
		f[i] = layer_op(g, "f", i, 10, DP_ROLE_FORWARD);
		test_add_edge(g, prev, f[i]);
		prev = f[i];
	}
	prev = test_add_role_op(g, "loss", 0, 1024, DP_ROLE_LOSS);
	test_add_edge(g, f[7], prev);
	for (int i = 7; i >= 0; i--) {
		bw[i] = layer_op(g, "bwd", i, 20, DP_ROLE_BACKWARD);
		test_add_edge(g, prev, bw[i]);
		test_add_edge(g, f[i], bw[i]);
		prev = bw[i];
	}
	g = test_finalized(g);
	REQUIRE(g);
	dp_machine m;
	machine(&m, 4, 0);
	dp_algo_opts o;
	dp_algo_opts_default(&o);
	o.microbatches = 4;
	dp_strategy s;
	dp_strategy_init(&s);
	dp_err err;
	REQUIRE(test_pipe_strategize("1f1b", g, &m, &o, &s, &err) == DP_OK);
	for (int i = 0; i < 8; i++)
		CHECK_INT(s.pipe.stage[bw[i]], s.pipe.stage[f[i]]);
	CHECK_INT(s.pipe.stage[f[0]], 0);
	CHECK_INT(s.pipe.stage[f[7]], 3);
	dp_strategy_free(&s);
	dp_machine_free(&m);
	dp_graph_free(g);
}

/* Layers of f0..f7 on stage 0 in last_stage (g: test_train_chain). */
static int layers_on_stage0(const dp_graph *g)
{
	int n = 0;
	for (int i = 0; i < 8; i++) {
		char nm[16];
		snprintf(nm, sizeof nm, "f%d", i);
		uint32_t u = dp_graph_find(g, nm);
		n += u < 64 && last_stage[u] == 0;
	}
	return n;
}

/* The stage search fits memory with time (BPipe's observation: under
 * 1F1B stage 0 keeps the most activations). 8 equal layers (100 us
 * forward, 100 us backward, no weight gradients nor updates), each
 * with 1 MiB of weights and a 64 MiB output, K = 2, plain 1F1B. Without caps the cut is 4 and 4 layers.
 * With M = 16 a layer's activation is 4 MiB a micro-batch, and so is the
 * input's; stage 0 keeps 2 micro-batches, so L layers there take
 * L x (1 + 2 x 4) + 2 x 4 = 9 L + 8 MiB (the model of
 * dpi_pipe_cut_memory): under a cap of 30 MiB on device 0 (1 GiB on
 * device 1) at most 2 layers. The time-balanced cut (36 + 8 = 44 MiB)
 * overflows, and so would pipedream's program, which holds every stage
 * to the smallest cap; the memory cut puts x, f0, f1 on stage 0, and the
 * search's plan fits in the simulator. */
static void test_stage_cut_fits_memory(void)
{
	dp_graph *g = test_train_chain(8, 100, NULL, -1, 64 << 20, 1 << 20);
	REQUIRE(g);
	dp_machine m;
	machine(&m, 2, 0);
	want_v = 1;
	CHECK(step_of(g, &m, "1f1b", 16, -1) > 0);
	CHECK_INT(layers_on_stage0(g), 4);
	m.cap[0] = 30 << 20;
	m.cap[1] = 1 << 30;
	int32_t *fs = NULL;
	REQUIRE(dpi_pipe_cut_memory(g, &m, 2, 16, DP_SCHED_1F1B, &fs, NULL) ==
		DP_OK);
	/* forward ops in order: x, f0 .. f7, loss */
	for (int i = 0; i < 10; i++)
		CHECK_INT(fs[i], i < 3 ? 0 : 1);
	free(fs);
	CHECK(step_of(g, &m, "1f1b", 16, -1) > 0); /* the balanced cut */
	CHECK(!last_fits);
	CHECK(step_of(g, &m, "1f1b", 0, -1) > 0); /* the search */
	CHECK(last_fits);
	CHECK_INT(last_s.pipe.nstages, 2);
	CHECK_INT(layers_on_stage0(g), 2);
	want_v = 0;
	dp_machine_free(&m);
	dp_graph_free(g);
}

/* Stages cut by device speed (HetPipe's balance): 12 equal layers (f 100
 * us, b 200 us, no weight-gradient time), M = 8, speeds 2,2,1,1, free
 * links. Per micro-batch a layer takes 37.5 us (12.5 + 25). The cut by
 * speed gives the fast devices 4 layers and the slow ones 2: every stage
 * takes 75 us a micro-batch (25 forward, 50 backward), the step
 * (M + S - 1) x 75 = 825 us. The equal cut (3 layers each) run on the
 * same devices: the slow stages take 112.5 us a micro-batch, the step
 * M x 112.5 + 56.25 + 56.25 + 112.5 = 1125 us; the cut by speed is 26.7 %
 * shorter. */
static void test_stages_cut_by_device_speed(void)
{
	dp_graph *g = chain(12, 100, 200, 0, 0);
	dp_machine eq, fast;
	machine(&eq, 4, 0);
	machine(&fast, 4, 0);
	REQUIRE(dp_machine_set_speeds(&fast, "2,2,1,1", NULL) == DP_OK);
	CHECK_NEAR(step_of(g, &fast, "1f1b", 8, -1), 11 * 75.0, 1e-9);
	/* the equal cut, priced on the fast machine */
	CHECK_NEAR(step_on(g, &eq, &fast, "1f1b", 8, -1),
		   8 * 112.5 + 56.25 + 56.25 + 112.5, 1e-9);
	CHECK(11 * 75.0 <= 0.85 * (8 * 112.5 + 225));
	dp_machine_free(&eq);
	dp_machine_free(&fast);
	dp_graph_free(g);
}

/* -M M pins M only: gpipe and 1f1b search S (dividing K) and V with it,
 * and the plan of S = K stages cut by forward time (what -M made before)
 * is among the candidates and always simulated, so the search's step is
 * never longer. 4 equal layers (8 us forward, 8 us backward), K = 4,
 * M = 4, a latency of 50 us per transfer: each stage boundary costs
 * 100 us a micro-batch, more than a layer's work, so fewer stages win;
 * the label says what was chosen. Pins that no stage order honours get
 * the S = K plan's message. */
static void test_microbatches_given_search_the_rest(void)
{
	dp_graph *g = chain(4, 8, 8, -1, 0);
	dp_machine m;
	machine(&m, 4, 0);
	m.lat = 50;
	dp_algo_opts o;
	dp_algo_opts_default(&o);
	o.microbatches = 4;
	dp_err err;
	const char *algos[] = {"1f1b", "gpipe"};
	for (int i = 0; i < 2; i++) {
		double fixed = step_of(g, &m, algos[i], 4, -1);
		CHECK_INT(last_s.pipe.nstages, 4);
		dp_plan p;
		if (dp_plan_run(g, &m, dp_algo_find(algos[i]), &o, NULL, &p,
				&err)) {
			FAIL_ERR(algos[i], &err);
			continue;
		}
		int S = p.strat->pipe.nstages;
		CHECK_INT(p.strat->pipe.microbatches, 4);
		CHECK(S < 4 && 4 % S == 0);
		CHECK(p.sim.makespan <= fixed);
		char want[32];
		snprintf(want, sizeof want, "%s S=%d M=4", algos[i], S);
		CHECK_STR(p.strat->label, want);
		dp_plan_free(&p);
	}
	/* pins that no stage order honours: no candidate, and the plan of
	 * S = K says why */
	g->ops[dp_graph_find(g, "f1")].pin = 2;
	g->ops[dp_graph_find(g, "f2")].pin = 1;
	dp_strategy s;
	dp_strategy_init(&s);
	CHECK_INT(dp_algo_find("1f1b")->strategize(g, &m, &o, NULL, &s, &err),
		  DP_EINPUT);
	CHECK_CONTAINS(err.msg, "1f1b: op 'f1' is pinned to device 2, but a "
				"forward op that depends on it is pinned");
	dp_machine_free(&m);
	dp_graph_free(g);
}

TEST_MAIN(TEST(test_interleaved_closed_form),
	  TEST(test_microbatches_given_search_the_rest),
	  TEST(test_search_tries_virtual_stages),
	  TEST(test_chunks_cut_by_forward_and_backward),
	  TEST(test_backward_stage_by_layer_label),
	  TEST(test_stage_cut_fits_memory),
	  TEST(test_stages_cut_by_device_speed),
	  TEST(test_whole_backward_blocks),
	  TEST(test_zb_h1_third_of_the_bubble),
	  TEST(test_zb_h1_refuses_what_it_cannot_split),
	  TEST(test_kernel_overhead_on_micro_batches),
	  TEST(test_kernel_overhead_on_shards))

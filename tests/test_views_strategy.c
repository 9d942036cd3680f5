/* test_views_strategy.c - the explorer's views of a strategy's plan: the
 * plan places the ops of a lowered graph (shards, replicas, micro-batches),
 * and the views show it by the user's ops (docs/tui.md): the header names
 * the strategy, Ops lists each user op once with how many lowered ops ran
 * it, Critical path groups the hops of one op, Memory splits the peak by
 * role, Op detail opens a lowered op. Drawn from real plans (1f1b and dp
 * on a small training graph), on several sizes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "action_result.h"
#include "dnnpart/plan.h"
#include "dnnpart/strategy.h"
#include "grid.h"
#include "lib/screen_text.h"
#include "lib/testlib.h"
#include "screen.h"
#include "settings.h"
#include "state.h"
#include "view.h"

/* A 4-layer training chain with roles: in -> f0..f3 -> loss -> b3..b0
 * (named f3/grad .. f0/grad, so that each mirrors its forward op),
 * each f_i holding weights, each b_i feeding the update u_i of them; times
 * t[] of a forward, the loss, a backward and an update. */
static dp_graph *train_chain_timed(const double t[4])
{
	dp_graph *g = dp_graph_new("chain4");
	dp_err err;
	uint32_t in = test_add_op(g, "in", 0, 1 << 20, "data");
	dp_graph_set_role(g, in, DP_ROLE_INPUT, &err);
	uint32_t prev = in, f[4], b[4];
	char name[32], layer[32];
	for (int i = 0; i < 4; i++) {
		snprintf(name, sizeof name, "f%d", i);
		snprintf(layer, sizeof layer, "layer%d", i);
		f[i] = test_add_op(g, name, t[0], 1 << 20, layer);
		g->ops[f[i]].param_bytes = 4 << 20;
		dp_graph_set_role(g, f[i], DP_ROLE_FORWARD, &err);
		dp_graph_add_edge(g, prev, f[i], -1, false, &err);
		prev = f[i];
	}
	uint32_t loss = test_add_op(g, "loss", t[1], 1024, "head");
	dp_graph_set_role(g, loss, DP_ROLE_LOSS, &err);
	dp_graph_add_edge(g, prev, loss, -1, false, &err);
	prev = loss;
	for (int i = 3; i >= 0; i--) {
		snprintf(name, sizeof name, "f%d/grad", i);
		snprintf(layer, sizeof layer, "layer%d", i);
		b[i] = test_add_op(g, name, t[2], 1 << 20, layer);
		dp_graph_set_role(g, b[i], DP_ROLE_BACKWARD, &err);
		dp_graph_add_edge(g, prev, b[i], -1, false, &err);
		dp_graph_add_edge(g, f[i], b[i], -1, false, &err);
		prev = b[i];
		/* the optimizer step of layer i's weights, from its gradient */
		snprintf(name, sizeof name, "u%d", i);
		uint32_t up = test_add_op(g, name, t[3], 0, layer);
		dp_graph_set_role(g, up, DP_ROLE_UPDATE, &err);
		dp_graph_add_edge(g, b[i], up, 4 << 20, false, &err);
	}
	if (dp_graph_finalize(g, &err) != DP_OK) {
		test_fail(__FILE__, __LINE__, "finalize: %s", err.msg);
		dp_graph_free(g);
		return NULL;
	}
	return g;
}

static dp_graph *train_chain(void)
{
	static const double t[4] = {100, 10, 200, 5};
	return train_chain_timed(t);
}

static char *draw(vstate *st, view_id v, int w, int h)
{
	st->view = v;
	if (state_prepare(st) != DP_OK)
		return NULL;
	return test_screen_text(st, w, h);
}

/* Plans algo with M micro-batches for g (taken over) on a fresh state of
 * k devices, their link free (no latency, 1 EB/s) when free_link; false
 * (a test failure) when it cannot. */
static bool plan_graph(vstate *st, dp_graph *g, const char *algo, int k, int M,
		       bool free_link)
{
	if (!g)
		return false;
	dp_machine m;
	dp_err err;
	if (dp_machine_init(&m, k, &err) != DP_OK) {
		dp_graph_free(g);
		return false;
	}
	if (free_link) {
		m.bw = 1e12; /* bytes per us */
		m.lat = 0;
	}
	const dp_algo *a = dp_algo_find(algo);
	if (!a || state_init(st, g, &m, a, DP_CONT_PORT, &err) != DP_OK) {
		test_fail(__FILE__, __LINE__, "state for %s", algo);
		dp_machine_free(&m);
		dp_graph_free(g);
		return false;
	}
	dp_machine_free(&m);
	dp_algo_opts o;
	state_algo_opts(st, &o);
	o.microbatches = M;
	dp_plan p;
	if (dp_plan_run(st->g, &st->m, a, &o, NULL, &p, &err) != DP_OK) {
		test_fail(__FILE__, __LINE__, "%s: %s", algo, err.msg);
		state_free(st);
		return false;
	}
	state_set_plan(st, &p, st->gen);
	return true;
}

static bool plan_state(vstate *st, const char *algo, int k)
{
	return plan_graph(st, train_chain(), algo, k, 4, false);
}

static void test_pipeline_views_group_by_the_users_ops(void)
{
	vstate st;
	REQUIRE(plan_state(&st, "1f1b", 2));
	const dp_plan *p = st.plan;
	REQUIRE(p->lowered);
	CHECK_STR(p->strategy, "1f1b S=2 M=4");
	/* 4 micro-batches of every forward and backward op */
	CHECK(p->lowered->nops > st.g->nops);
	char *t = draw(&st, VIEW_OPS, 120, 40);
	REQUIRE(t);
	CHECK_CONTAINS(t, "1f1b S=2 M=4"); /* the header */
	/* Ops lists the user's 14 ops, each once, f0 on one GPU x4 */
	CHECK_CONTAINS(t, "14 of 14 ops");
	CHECK_CONTAINS(t, "\xc3\x97"
			  "4");
	CHECK(strstr(t, "f0@m") == NULL);
	free(t);
	CHECK_INT(st.ops_n, st.g->nops);
	/* the aggregate of f0: its 4 micro-batches, earliest to latest */
	uint32_t f0 = dp_graph_find(st.g, "f0");
	CHECK_INT(st.agg_n[f0], 4);
	CHECK(st.agg_dev[f0] >= 0);
	double lo = 1e300, hi = -1;
	for (uint32_t v = 0; v < p->nops; v++)
		if (p->source[v] == f0) {
			lo = p->sim.start[v] < lo ? p->sim.start[v] : lo;
			hi = p->sim.end[v] > hi ? p->sim.end[v] : hi;
		}
	CHECK_NEAR(st.agg_start[f0], lo, 0);
	CHECK_NEAR(st.agg_end[f0], hi, 0);
	/* Critical path: runs of one source op are one row each */
	CHECK(st.cpg_n >= 1 && st.cpg_n <= p->sim.cp_len);
	for (uint32_t i = 0; i + 1 < st.cpg_n; i++)
		CHECK(p->source[p->sim.cp_ops[st.cpg_first[i]]] !=
		      p->source[p->sim.cp_ops[st.cpg_first[i + 1]]]);
	t = draw(&st, VIEW_CRITICAL, 120, 40);
	REQUIRE(t);
	CHECK_CONTAINS(t, "@m");
	free(t);
	/* Timeline: busy cells name their micro-batch (micro-batch 0 is on
	 * the critical path, drawn as such) */
	t = draw(&st, VIEW_TIMELINE, 200, 60);
	REQUIRE(t);
	CHECK_CONTAINS(t, "micro-batch");
	/* the chart's row (the device panel's starts "GPU0 [") */
	const char *row0 = strstr(t, "\nGPU0   ");
	REQUIRE(row0);
	row0++;
	const char *end0 = strchr(row0, '\n');
	for (char c = '1'; c <= '3'; c++) {
		const char *hit = strchr(row0 + 4, c);
		CHECK(hit && hit < end0);
	}
	free(t);
	/* Memory: the peak by role */
	t = draw(&st, VIEW_MEMORY, 120, 40);
	REQUIRE(t);
	CHECK_CONTAINS(t, "by role:");
	CHECK_CONTAINS(t, "activations");
	free(t);
	/* Op detail of a lowered op names it, at the smallest size too */
	st.op = p->sim.cp_ops[0];
	for (int i = 0; i < 2; i++) {
		t = draw(&st, VIEW_OP, i ? 80 : 200, i ? 24 : 60);
		REQUIRE(t);
		CHECK_CONTAINS(t, dp_graph_op_name(p->lowered, st.op));
		free(t);
	}
	state_free(&st);
}

static void test_every_view_draws_a_strategy_at_every_size(void)
{
	static const char *const algos[] = {"dp", "gpipe", "1f1b"};
	static const int sizes[][2] = {{80, 24}, {100, 30}, {200, 60}};
	for (size_t a = 0; a < 3; a++) {
		vstate st;
		REQUIRE(plan_state(&st, algos[a], 2));
		for (int v = 0; v < VIEW_COUNT; v++)
			for (size_t s = 0; s < 3; s++) {
				char *t = draw(&st, (view_id)v, sizes[s][0],
					       sizes[s][1]);
				CHECK(t != NULL);
				free(t);
			}
		state_free(&st);
	}
}

/* The Diff view compares a strategy with a placement by the user's ops: an
 * op a data-parallel plan ran on every device is "split" before. */
static void test_diff_of_a_strategy_counts_the_users_ops(void)
{
	vstate st;
	REQUIRE(plan_state(&st, "dp", 2));
	dp_plan *before = st.plan;
	st.algo = dp_algo_find("heft");
	dp_algo_opts o;
	state_algo_opts(&st, &o);
	dp_plan p;
	dp_err err;
	REQUIRE(dp_plan_run(st.g, &st.m, st.algo, &o, NULL, &p, &err) == DP_OK);
	state_set_plan(&st, &p, st.gen);
	CHECK(st.prev == before);
	char *t = draw(&st, VIEW_DIFF, 120, 40);
	REQUIRE(t);
	CHECK(strstr(t, "Diff: before dp") != NULL);
	CHECK(strstr(t, "split") != NULL);
	/* every op of the user's graph once, on one device now */
	CHECK(st.moved_n > 0 && st.moved_n <= st.g->nops);
	for (uint32_t i = 0; i < st.moved_n; i++)
		CHECK(st.agg_dev[st.moved[i]] >= 0);
	uint32_t split = 0;
	for (uint32_t u = 0; u < st.g->nops; u++)
		split += st.prev_dev[u] < 0;
	CHECK(split > 0);
	free(t);
	state_free(&st);
}

/* The Timeline of a pipeline: on uniform stages (S = 4 of equal forward
 * and backward time, M = 4, a free link) GPipe's devices wait (S-1)/(M+S-1)
 * of the step, 1F1B's too; the legend and the side column say it, empty
 * cells of the step are the bubble, and each micro-batch has a colour. */
static void test_timeline_shows_the_bubble_and_colours_micro_batches(void)
{
	static const double uniform[4] = {100, 0, 200, 0};
	static const char *const scheds[] = {"gpipe", "1f1b"};
	for (int a = 0; a < 2; a++) {
		vstate st;
		REQUIRE(plan_graph(&st, train_chain_timed(uniform), scheds[a],
				   4, 4, true));
		const dp_plan *p = st.plan;
		CHECK_NEAR(dp_plan_bubble(p, -1), 3.0 / 7.0, 1e-6);
		for (int d = 0; d < 4; d++)
			CHECK_NEAR(dp_plan_bubble(p, d), 3.0 / 7.0, 1e-6);
		st.view = VIEW_TIMELINE;
		REQUIRE(state_prepare(&st) == DP_OK);
		vgrid g;
		REQUIRE(grid_init(&g, 120, 40) == 0);
		screen_draw(&st, &g);
		char *t = grid_to_text(&g, false);
		REQUIRE(t);
		CHECK_CONTAINS(t, "bubble 42.9%");
		/* a device's share, at the right */
		CHECK_CONTAINS(t, "  43%\n");
		int bubbles = 0, digits = 0;
		for (int y = 0; y < g.h; y++)
			for (int x = 0; x < g.w; x++) {
				const vcell *c = grid_cell_const(&g, x, y);
				bubbles += c->style == ST_BUBBLE;
				if (c->style >= ST_MB0 && c->style <= ST_MB5) {
					digits++;
					CHECK_INT((int)c->ch - '0',
						  (int)(c->style - ST_MB0));
				}
			}
		CHECK(bubbles > 0);
		CHECK(digits > 0);
		free(t);
		grid_free(&g);
		state_free(&st);
	}
	/* a placement has no bubble: no ░, no column */
	vstate st;
	REQUIRE(plan_state(&st, "heft", 2));
	CHECK(dp_plan_bubble(st.plan, -1) < 0);
	CHECK(dp_plan_bubble(st.plan, 0) < 0);
	char *t = draw(&st, VIEW_TIMELINE, 120, 40);
	REQUIRE(t);
	CHECK(strstr(t, "\xe2\x96\x91") == NULL);
	CHECK(strstr(t, "bubble") == NULL);
	free(t);
	state_free(&st);
}

/* S cycles the schedule of the pipeline on screen (a rerun with it); on
 * a plan that is no pipeline it says why and changes nothing. */
static void test_schedule_key_cycles_a_pipeline_only(void)
{
	vstate st;
	REQUIRE(plan_state(&st, "gpipe", 2));
	CHECK_INT(st.schedule, -1);
	unsigned gen = st.gen;
	unsigned r = settings_schedule(&st);
	CHECK(r & AR_RERUN);
	CHECK_INT(st.schedule, DP_SCHED_1F1B);
	CHECK(st.gen != gen);
	CHECK_CONTAINS(st.status, "schedule 1f1b");
	char *t = draw(&st, VIEW_DEVICES, 120, 40);
	REQUIRE(t);
	CHECK_CONTAINS(t, "sched 1f1b");
	free(t);
	/* the rerun the front end makes: the algorithm's options carry it */
	dp_algo_opts o;
	state_algo_opts(&st, &o);
	CHECK_INT(o.schedule, DP_SCHED_1F1B);
	dp_plan p;
	dp_err err;
	o.microbatches = 4;
	REQUIRE(dp_plan_run(st.g, &st.m, st.algo, &o, NULL, &p, &err) == DP_OK);
	CHECK_STR(p.strategy, "1f1b S=2 M=4");
	CHECK_STR(p.algo, "gpipe");
	state_set_plan(&st, &p, st.gen);
	settings_schedule(&st);
	CHECK_INT(st.schedule, DP_SCHED_ZBH1);
	CHECK_CONTAINS(st.status, "schedule zb-h1");
	settings_schedule(&st);
	CHECK_INT(st.schedule, DP_SCHED_STASH);
	CHECK_CONTAINS(st.status, "schedule stash");
	settings_schedule(&st);
	CHECK_INT(st.schedule, DP_SCHED_2BW);
	CHECK_CONTAINS(st.status, "schedule 2bw");
	/* an asynchronous plan shows its steady step beside the makespan */
	state_algo_opts(&st, &o);
	o.microbatches = 4;
	REQUIRE(dp_plan_run(st.g, &st.m, st.algo, &o, NULL, &p, &err) == DP_OK);
	CHECK(p.steady_us > 0 && p.steady_us < p.sim.makespan);
	state_set_plan(&st, &p, st.gen);
	t = draw(&st, VIEW_DEVICES, 120, 40);
	REQUIRE(t);
	CHECK_CONTAINS(t, "steady ");
	CHECK_CONTAINS(t, "steady step: ");
	CHECK_CONTAINS(t, "(2bw, no flush");
	free(t);
	/* gpipe -> 1f1b -> zb-h1 -> stash -> 2bw -> gpipe */
	settings_schedule(&st);
	CHECK_INT(st.schedule, DP_SCHED_GPIPE);
	state_free(&st);

	REQUIRE(plan_state(&st, "dp", 2));
	gen = st.gen;
	r = settings_schedule(&st);
	CHECK(!(r & AR_RERUN));
	CHECK_INT(st.schedule, -1);
	CHECK(st.gen == gen);
	CHECK(st.status_error);
	CHECK_CONTAINS(st.status, "the schedule is a pipeline's");
	state_free(&st);
}

TEST_MAIN(TEST(test_pipeline_views_group_by_the_users_ops),
	  TEST(test_diff_of_a_strategy_counts_the_users_ops),
	  TEST(test_every_view_draws_a_strategy_at_every_size),
	  TEST(test_timeline_shows_the_bubble_and_colours_micro_batches),
	  TEST(test_schedule_key_cycles_a_pipeline_only))

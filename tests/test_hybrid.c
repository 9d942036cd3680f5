/* test_hybrid.c - pipelines whose stages are data parallel (the 3D
 * lowering, engine/strategy/lower_pipe3d.c) and the planners that make
 * them. */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dnnpart/algo.h"
#include "dnnpart/graph.h"
#include "dnnpart/machine.h"
#include "dnnpart/sim.h"
#include "dnnpart/strategy.h"
#include "lib/testlib.h"

static uint32_t add(dp_graph *g, const char *name, double t, int64_t out,
		    dp_role role)
{
	uint32_t id = test_add_op(g, name, t, out, NULL);
	if (dp_graph_set_role(g, id, role, NULL))
		test_fail(__FILE__, __LINE__, "set_role %s", name);
	return id;
}

static void edge(dp_graph *g, uint32_t a, uint32_t b)
{
	if (dp_graph_add_edge(g, a, b, -1, false, NULL))
		test_fail(__FILE__, __LINE__, "add_edge");
}

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
		w[i] = add(g, n, 0, W, DP_ROLE_PARAM);
		snprintf(n, sizeof n, "f%d", i);
		f[i] = add(g, n, 8, A, DP_ROLE_FORWARD);
		edge(g, w[i], f[i]);
		if (i)
			edge(g, f[i - 1], f[i]);
	}
	uint32_t loss = add(g, "loss", 0, 0, DP_ROLE_LOSS);
	edge(g, f[1], loss);
	for (int i = 1; i >= 0; i--) {
		snprintf(n, sizeof n, "f%d/grad", i);
		b[i] = add(g, n, 8, A, DP_ROLE_BACKWARD);
		edge(g, i == 1 ? loss : b[i + 1], b[i]);
		edge(g, f[i], b[i]);
		snprintf(n, sizeof n, "f%d/grad_w", i);
		gw[i] = add(g, n, 4, W, DP_ROLE_GRAD);
		edge(g, b[i], gw[i]);
		snprintf(n, sizeof n, "w%d/update", i);
		up[i] = add(g, n, 1, W, DP_ROLE_UPDATE);
		edge(g, gw[i], up[i]);
		edge(g, w[i], up[i]);
	}
	if (dp_graph_finalize(g, NULL)) {
		dp_graph_free(g);
		return NULL;
	}
	return g;
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
	REQUIRE(dp_machine_init(&m, 4, NULL) == DP_OK);
	m.lat = 0;
	m.bw = 100;
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
	dp_err err;
	dp_lowered l;
	memset(&l, 0, sizeof l);
	if (dp_strategy_lower(g, m, s, NULL, &l, &err)) {
		test_fail(__FILE__, __LINE__, "lower: %s", err.msg);
		return -1;
	}
	dp_sim *sim = dp_sim_new(l.g, m, &err);
	dp_sim_result r;
	memset(&r, 0, sizeof r);
	double t = -1;
	if (sim && !dp_sim_run(sim, l.placement, NULL, &r, &err)) {
		t = r.makespan;
		*fits = r.feasible;
	}
	dp_sim_result_free(&r);
	dp_sim_free(sim);
	dp_lowered_free(&l);
	return t;
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

/* hybrid searches a space that holds 1f1b's plan on the same devices and
 * pipedream's: its step is no longer than either that fits; a cancel
 * leaves nothing. */
static void test_hybrid_no_slower_than_pipelines(void)
{
	dp_graph *g = two_layers();
	REQUIRE(g);
	dp_machine m;
	REQUIRE(dp_machine_init(&m, 4, NULL) == DP_OK);
	m.lat = 1;
	m.bw = 100;
	dp_strategy h, q;
	dp_err err;
	REQUIRE(run_algo("hybrid", g, &m, NULL, &h, &err) == DP_OK);
	bool fh = false, fq = false;
	double th = simulate(g, &m, &h, &fh);
	CHECK(th > 0 && fh);
	CHECK(h.k <= 4);
	const char *others[] = {"1f1b", "gpipe", "pipedream"};
	for (int i = 0; i < 3; i++) {
		REQUIRE(run_algo(others[i], g, &m, NULL, &q, &err) == DP_OK);
		double tq = simulate(g, &m, &q, &fq);
		if (fq)
			CHECK(th <= tq + 1e-9);
		dp_strategy_free(&q);
	}
	dp_strategy_free(&h);
	atomic_int flag = 1;
	dp_progress p = {NULL, NULL, &flag};
	CHECK_INT(run_algo("hybrid", g, &m, &p, &h, &err), DP_ECANCELED);
	CHECK(h.pipe.stage == NULL);
	dp_machine_free(&m);
	dp_graph_free(g);
}

TEST_MAIN(TEST(test_3d_lowering_all_reduces_inside_groups),
	  TEST(test_hybrid_no_slower_than_pipelines))

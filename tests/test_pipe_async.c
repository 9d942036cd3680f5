/* test_pipe_async.c - the asynchronous pipeline schedules (stash,
 * PipeDream's weight stashing; 2bw, PipeDream-2BW) on chains of equal
 * layers (docs/pipeline.md, "Asynchronous pipelines"): the extra weight
 * versions each stage holds and the steady-state step, against their
 * closed forms computed here from the formulas. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dnnpart/algo.h"
#include "dnnpart/graph.h"
#include "dnnpart/machine.h"
#include "dnnpart/plan.h"
#include "dnnpart/strategy.h"
#include "internal/pipeline.h"
#include "lib/fixtures.h"
#include "lib/testlib.h"

/* K devices, free links (no latency, a huge bandwidth), no kernel
 * overhead. */
static void machine(dp_machine *m, int k)
{
	REQUIRE(dp_machine_init(m, k, NULL) == DP_OK);
	m->lat = 0;
	m->bw = 1e9;
	m->kernel_us = 0;
}

/* g under `1f1b` with M micro-batches on S = K stages in schedule sch,
 * into *p (a test failure and false when anything fails). */
static bool plan_of(const dp_graph *g, const dp_machine *m, int M, int sch,
		    dp_plan *p)
{
	dp_err err;
	dp_err_clear(&err);
	dp_algo_opts o;
	dp_algo_opts_default(&o);
	o.microbatches = M;
	o.schedule = sch;
	o.contention = DP_CONT_NONE;
	if (dp_plan_run(g, m, dp_algo_find("1f1b"), &o, NULL, p, &err)) {
		FAIL_ERR("1f1b", &err);
		return false;
	}
	return true;
}

/* Stage s of S holds (versions - 1) x its weights more than under 1F1B:
 * stash S - s versions, 2bw 2. 8 equal layers of W bytes of weights on 4
 * stages (2 layers each), M = 8: every device's peak rises by exactly
 * (v - 1) 2 W, and the rise is counted as params in the peak by role. */
static void test_weight_versions_memory(void)
{
	const int64_t W = (int64_t)3 << 20;
	const int S = 4, L = 8;
	double tb[16];
	for (int i = 0; i < L; i++)
		tb[i] = 2;
	dp_graph *g = test_train_chain(L, 1, tb, 1, (int64_t)1 << 20, W);
	REQUIRE(g);
	dp_machine m;
	machine(&m, S);
	dp_plan base, as;
	REQUIRE(plan_of(g, &m, 8, DP_SCHED_1F1B, &base));
	const dp_graph *bg = dp_plan_graph(&base, g);
	for (int sch = DP_SCHED_STASH; sch <= DP_SCHED_2BW; sch++) {
		if (!plan_of(g, &m, 8, sch, &as))
			continue;
		const dp_graph *ag = dp_plan_graph(&as, g);
		for (int s = 0; s < S; s++) {
			int v = sch == DP_SCHED_STASH ? S - s : 2;
			int64_t extra = (int64_t)(v - 1) * (L / S) * W;
			CHECK_INT(as.sim.dev[s].peak_bytes -
					  base.sim.dev[s].peak_bytes,
				  extra);
			int64_t rb[DP_MEMR_COUNT], ra[DP_MEMR_COUNT];
			dp_plan_peak_by_role(bg, &base, s, rb);
			dp_plan_peak_by_role(ag, &as, s, ra);
			CHECK_INT(ra[DP_MEMR_PARAMS] - rb[DP_MEMR_PARAMS],
				  extra);
		}
		dp_plan_free(&as);
	}
	dp_plan_free(&base);
	dp_machine_free(&m);
	dp_graph_free(g);
}

/* An op's weights are its param tensor when its dims say so: a variable
 * of [v, h] floats whose param_bytes also hold Adam's two moments (3 x)
 * has v h 4 bytes of weights; an update op has none. */
static void test_weight_bytes_by_param_dims(void)
{
	/* wte: [100, 8] floats, 3 x that in param_bytes; its update's 100
	 * bytes of optimizer state; f: 77 bytes and no dims */
	static const struct {
		const char *name;
		dp_role role;
		int64_t bytes, weights;
	} op[] = {{"wte", DP_ROLE_PARAM, 3 * 100 * 8 * 4, 100 * 8 * 4},
		  {"wte/adam", DP_ROLE_UPDATE, 100, 0},
		  {"f", DP_ROLE_FORWARD, 77, 77}};
	dp_graph *g = dp_graph_new("w");
	for (int i = 0; i < 3; i++)
		test_add_role_op(g, op[i].name, i == 2, 0, op[i].role);
	const char *names[] = {"v", "h"};
	int64_t sizes[] = {100, 8};
	dp_dims_spec d = {.n = 2, .names = names, .sizes = sizes, .nout = -1,
			  .nparam = 2, .param = names, .elem_bytes = 4};
	dp_err err;
	REQUIRE(dp_graph_set_op_dims(g, 0, &d, &err) == DP_OK);
	for (uint32_t i = 0; i < 3; i++) {
		g->ops[i].param_bytes = op[i].bytes;
		CHECK_INT(dpi_pipe_weight_bytes(g, i), op[i].weights);
	}
	dp_graph_free(g);
}

/* The steady step on S equal stages with forward f, backward b (input and
 * weight gradients) and update u per stage, free links: 1F1B's simulated
 * step is (M + S - 1)(f + b) + u (the fill and drain every step, then the
 * update); without a flush a step is the busiest device's work, M (f + b)
 * + u under 2bw (one update per M micro-batches) and M (f + b) + u +
 * (M - 1) u under stash (an update after every micro-batch). S = 4, M = 8
 * and 16, f = 1, b = 2 (1 + 1), u = 2 us: exact; the simulated makespan
 * of the asynchronous plans stays 1F1B's. */
static void test_steady_step_closed_form(void)
{
	const int S = 4;
	const double u = 2;
	dp_machine m;
	machine(&m, S);
	for (int M = 8; M <= 16; M += 8) {
		double tbs[16];
		for (int i = 0; i < S; i++)
			tbs[i] = 1.0 * M;
		/* per micro-batch: forward 1, input gradient 1, weight
		 * gradient 1 */
		dp_graph *g = test_train_chain(S, 1.0 * M, tbs, 1.0 * M, 0, 0);
		REQUIRE(g);
		for (int i = 0; i < S; i++) {
			char name[32];
			snprintf(name, sizeof name, "p%d/adam", i);
			uint32_t x = dp_graph_find(g, name);
			REQUIRE(x != UINT32_MAX);
			g->ops[x].time_us = u;
		}
		double f = 1, b = 2;
		dp_plan p;
		if (plan_of(g, &m, M, DP_SCHED_1F1B, &p)) {
			CHECK_NEAR(p.sim.makespan, (M + S - 1) * (f + b) + u,
				   1e-6);
			CHECK_NEAR(p.steady_us, 0, 0);
			dp_plan_free(&p);
		}
		if (plan_of(g, &m, M, DP_SCHED_2BW, &p)) {
			double want = M * (f + b) + u;
			CHECK_NEAR(p.steady_us, want, 1e-6);
			CHECK_NEAR(p.sim.makespan, (M + S - 1) * (f + b) + u,
				   1e-6);
			dp_plan_free(&p);
		}
		if (plan_of(g, &m, M, DP_SCHED_STASH, &p)) {
			double want = M * (f + b) + u + (M - 1) * u;
			CHECK_NEAR(p.steady_us, want, 1e-6);
			dp_plan_free(&p);
		}
		dp_graph_free(g);
	}
	dp_machine_free(&m);
}

/* Without -M the search ranks an asynchronous plan by its steady step,
 * which a fill does not lengthen, so with a per-kernel overhead fewer
 * micro-batches win: both take the least M >= S (2bw: PipeDream-2BW's
 * rule; stash: the S - s micro-batches stage s holds in flight), where
 * 1F1B takes more to shrink its fill. Each
 * chosen plan's steady step is at most that of the plan with 1F1B's M. */
static void test_search_takes_few_microbatches(void)
{
	const int S = 4;
	double tbs[16];
	for (int i = 0; i < S; i++)
		tbs[i] = 400;
	dp_graph *g = test_train_chain(S, 200, tbs, 200, 0, 0);
	REQUIRE(g);
	dp_machine m;
	machine(&m, S);
	m.kernel_us = 5;
	dp_plan p, q;
	REQUIRE(plan_of(g, &m, 0, DP_SCHED_1F1B, &p));
	int M1 = p.strat->pipe.microbatches;
	CHECK(M1 > S);
	dp_plan_free(&p);
	int want[2] = {S, S};
	for (int sch = DP_SCHED_STASH; sch <= DP_SCHED_2BW; sch++) {
		if (!plan_of(g, &m, 0, sch, &p))
			continue;
		CHECK_INT(p.strat->pipe.nstages, S);
		CHECK_INT(p.strat->pipe.microbatches,
			  want[sch - DP_SCHED_STASH]);
		if (plan_of(g, &m, M1, sch, &q)) {
			CHECK(p.steady_us <= q.steady_us);
			dp_plan_free(&q);
		}
		dp_plan_free(&p);
	}
	dp_machine_free(&m);
	dp_graph_free(g);
}

TEST_MAIN(TEST(test_weight_versions_memory),
	  TEST(test_weight_bytes_by_param_dims),
	  TEST(test_steady_step_closed_form),
	  TEST(test_search_takes_few_microbatches))

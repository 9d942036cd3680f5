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
#include "lib/pipe_case.h"
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

/* g under `1f1b` in schedule sch into *p: with M > 0 micro-batches on
 * S = K stages cut by forward time (test_pipe_strategize), with M = 0
 * searched. A test failure and false when anything fails. */
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
	dp_strategy s;
	dp_status st = test_pipe_strategize("1f1b", g, m, &o, &s, &err);
	if (!st)
		st = dp_plan_evaluate_strategy(g, m, &s, DP_CONT_NONE, NULL, p,
					       &err);
	dp_strategy_free(&s);
	if (st) {
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

/* Forward ops on stage 0 of fs (x, f0 .. f7, loss in order: the layers
 * f<i> there). */
static int layers_on_stage0(const int32_t *fs, int L)
{
	int n = 0;
	for (int i = 1; i <= L; i++)
		n += fs[i] == 0;
	return n;
}

/* The memory-fitted cut and pipedream's program count stash's weight
 * versions. 8 layers of W = 8 MiB of weights (no dims: all their
 * param_bytes) and 2 MiB outputs, K = 2, M = 2: a layer's activation is
 * 1 MiB a micro-batch, and so is the input x's. Stage 0 keeps 2
 * micro-batches, so L layers there take 8 L + 2 (L + 1) = 10 L + 2 MiB
 * under 1F1B, and under stash (2 versions on stage 0 of 2) 8 L more,
 * 18 L + 2. Under a cap of 50 MiB on device 0 (1 GiB on device 1) 1F1B
 * keeps the time-balanced 4 | 4 (42 MiB), stash must take L = 2 (38 MiB;
 * 3 layers take 56): x, f0, f1 on stage 0. The search's stash plan then
 * fits in the simulator, with fewer than 4 layers on stage 0. */
static void test_memory_cut_counts_versions(void)
{
	const int L = 8;
	const int64_t MiB = (int64_t)1 << 20;
	dp_graph *g = test_train_chain(L, 1, NULL, 1, 2 * MiB, 8 * MiB);
	REQUIRE(g);
	dp_machine m;
	machine(&m, 2);
	m.cap[0] = 50 * MiB;
	m.cap[1] = 1024 * MiB;
	int32_t *fs = NULL;
	REQUIRE(dpi_pipe_cut_memory(g, &m, 2, 2, DP_SCHED_1F1B, &fs, NULL) ==
		DP_OK);
	CHECK_INT(layers_on_stage0(fs, L), 4);
	free(fs);
	REQUIRE(dpi_pipe_cut_memory(g, &m, 2, 2, DP_SCHED_STASH, &fs, NULL) ==
		DP_OK);
	CHECK_INT(fs[0], 0);
	CHECK_INT(layers_on_stage0(fs, L), 2);
	free(fs);
	dp_plan p;
	if (plan_of(g, &m, 2, DP_SCHED_1F1B, &p)) { /* 4 | 4 fits 1F1B */
		CHECK(p.sim.feasible);
		dp_plan_free(&p);
	}
	if (plan_of(g, &m, 0, DP_SCHED_STASH, &p)) {
		CHECK(p.sim.feasible);
		CHECK_INT(p.strat->pipe.nstages, 2);
		int n0 = 0;
		for (int i = 0; i < L; i++) {
			char nm[16];
			snprintf(nm, sizeof nm, "f%d", i);
			n0 += p.strat->pipe.stage[dp_graph_find(g, nm)] == 0;
		}
		CHECK(n0 < 4);
		dp_plan_free(&p);
	}
	dp_machine_free(&m);
	dp_graph_free(g);
}

/* An asynchronous schedule on one stage is no pipeline, so the searches
 * take none: 4 layers (8 us forward, 16 us backward) with 500 us per
 * transfer, where one stage would be the fastest, still get S >= 2 under
 * stash and 2bw from 1f1b and hybrid, and hybrid's label names the
 * schedule; on one device nothing is made, and the message says why. */
static void test_async_needs_two_stages(void)
{
	dp_graph *g = test_train_chain(4, 8, NULL, 8, 0, 0);
	REQUIRE(g);
	dp_machine m;
	machine(&m, 4);
	m.lat = 500;
	dp_algo_opts o;
	dp_algo_opts_default(&o);
	dp_plan p;
	dp_err err;
	for (int sch = DP_SCHED_STASH; sch <= DP_SCHED_2BW; sch++)
		for (int a = 0; a < 2; a++) {
			const char *algo = a ? "hybrid" : "1f1b";
			o.schedule = sch;
			if (dp_plan_run(g, &m, dp_algo_find(algo), &o, NULL, &p,
					&err)) {
				FAIL_ERR(algo, &err);
				continue;
			}
			CHECK(p.strat->pipe.nstages >= 2);
			const char *l = p.strat->label;
			const char *nm = dp_schedule_name((dp_schedule)sch);
			CHECK(a ? strlen(l) > strlen(nm) &&
					  !strcmp(l + strlen(l) - strlen(nm), nm)
				: !strncmp(l, nm, strlen(nm)));
			dp_plan_free(&p);
		}
	dp_machine one;
	machine(&one, 1);
	dp_strategy s;
	dp_strategy_init(&s);
	CHECK_INT(dp_algo_find("1f1b")->strategize(g, &one, &o, NULL, &s, &err),
		  DP_EINPUT);
	CHECK_CONTAINS(err.msg, "schedule 2bw needs a pipeline of at least 2");
	dp_machine_free(&one);
	dp_machine_free(&m);
	dp_graph_free(g);
}

/* takes_schedule marks exactly the algorithms that make a pipeline in the
 * schedule asked for (the command line refuses an asynchronous schedule
 * with any other): every strategy algorithm of the registry, asked for
 * 2bw on a chain of 8 layers and 4 devices, makes a 2bw pipeline when it
 * takes the schedule and no pipeline otherwise; a placement algorithm
 * never takes it. */
static void test_takes_schedule_is_the_pipelines(void)
{
	double tbs[8];
	for (int i = 0; i < 8; i++)
		tbs[i] = 400;
	dp_graph *g = test_train_chain(8, 200, tbs, 200, 0, 0);
	REQUIRE(g);
	dp_machine m;
	machine(&m, 4);
	int npipes = 0;
	for (size_t i = 0; i < dp_algo_count(); i++) {
		const dp_algo *a = dp_algo_at(i);
		if (!a->strategize) {
			CHECK(!a->takes_schedule);
			continue;
		}
		dp_algo_opts o;
		dp_algo_opts_default(&o);
		o.schedule = DP_SCHED_2BW;
		dp_strategy s;
		dp_err err;
		dp_err_clear(&err);
		if (a->strategize(g, &m, &o, NULL, &s, &err) != DP_OK) {
			FAIL_ERR(a->name, &err);
			continue;
		}
		bool pipe2bw = s.kind == DP_STRAT_PIPELINE &&
			       s.pipe.schedule == DP_SCHED_2BW;
		if (pipe2bw != a->takes_schedule)
			printf("# %s: takes_schedule %d, made %s\n", a->name,
			       a->takes_schedule, s.label);
		CHECK(pipe2bw == a->takes_schedule);
		npipes += a->takes_schedule;
		dp_strategy_free(&s);
	}
	CHECK_INT(npipes, 4); /* gpipe, 1f1b, pipedream, hybrid */
	dp_machine_free(&m);
	dp_graph_free(g);
}

TEST_MAIN(TEST(test_weight_versions_memory),
	  TEST(test_async_needs_two_stages),
	  TEST(test_memory_cut_counts_versions),
	  TEST(test_weight_bytes_by_param_dims),
	  TEST(test_steady_step_closed_form),
	  TEST(test_search_takes_few_microbatches),
	  TEST(test_takes_schedule_is_the_pipelines))

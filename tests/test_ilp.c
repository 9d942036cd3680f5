/* test_ilp.c - ilp, the exact MILP (engine/algo/ilp/algo_ilp.c, ilp_model.c,
 * ilp_solve.c), against brute force on tiny graphs.
 *
 * For every placement of a tiny graph (3-7 ops, K = 2-3) the test computes
 * the MILP's own model value independently: the best schedule of that
 * placement over every order of the ops (each op starts when its inputs
 * have arrived, latency + bytes / bandwidth across devices, and its device
 * is free), subject to the model's memory rule (params + outputs + temps
 * of a device's ops + the copies it receives <= cap). ilp must prove
 * optimality and its objective must equal the smallest model value; and
 * since every simulated schedule is a schedule of the model, no placement
 * simulates faster than that optimum (contention none, caps that hold).
 */
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dnnpart/algo.h"
#include "dnnpart/plan.h"
#include "dnnpart/sim.h"
#include "lib/testlib.h"

static const dp_algo *ilp(void)
{
	return dp_algo_find("ilp");
}

/* ---- brute force of the model ---- */

typedef struct bf {
	const dp_graph *g;
	const dp_machine *m;
	const int32_t *pl;
	double *end;
	double dev_free[4];
	bool *done;
	double best;
} bf;

static double comm(const dp_graph *g, const dp_machine *m, uint32_t e)
{
	const dp_edge *ed = &g->edges[e];
	return m->lat + (ed->control ? 0.0 : (double)ed->bytes / m->bw);
}

/* Depth-first over every topological order: each op starts as early as its
 * inputs and its device allow (the induced order on each device). */
static void bf_dfs(bf *b, uint32_t placed, double span)
{
	const dp_graph *g = b->g;
	if (span >= b->best)
		return;
	if (placed == g->nops) {
		b->best = span;
		return;
	}
	for (uint32_t v = 0; v < g->nops; v++) {
		if (b->done[v])
			continue;
		double ready = 0;
		bool ok = true;
		for (uint32_t i = g->pred_off[v]; i < g->pred_off[v + 1] && ok;
		     i++) {
			uint32_t e = g->pred_edge[i], u = g->edges[e].from;
			if (!b->done[u]) {
				ok = false;
				break;
			}
			double t =
				b->end[u] +
				(b->pl[u] != b->pl[v] ? comm(g, b->m, e) : 0);
			if (t > ready)
				ready = t;
		}
		if (!ok)
			continue;
		int d = b->pl[v];
		double s = ready > b->dev_free[d] ? ready : b->dev_free[d];
		double f = s + g->ops[v].time_us / b->m->speed[d];
		double keep = b->dev_free[d];
		b->done[v] = true;
		b->end[v] = f;
		b->dev_free[d] = f;
		bf_dfs(b, placed + 1, f > span ? f : span);
		b->dev_free[d] = keep;
		b->done[v] = false;
	}
}

/* The model's makespan of placement pl (its best schedule). */
static double model_value(const dp_graph *g, const dp_machine *m,
			  const int32_t *pl)
{
	double end[16];
	bool done[16] = {false};
	bf b = {.g = g,
		.m = m,
		.pl = pl,
		.end = end,
		.done = done,
		.best = INFINITY};
	bf_dfs(&b, 0, 0);
	return b.best;
}

/* The model's memory rule, written out again. */
static bool model_mem_ok(const dp_graph *g, const dp_machine *m,
			 const int32_t *pl)
{
	for (int d = 0; d < m->k; d++) {
		int64_t sum = 0;
		for (uint32_t u = 0; u < g->nops; u++) {
			int64_t big = 0;
			bool to_d = false;
			for (uint32_t i = g->succ_off[u];
			     i < g->succ_off[u + 1]; i++) {
				const dp_edge *e = &g->edges[g->succ_edge[i]];
				if (e->control)
					continue;
				if (e->bytes > big)
					big = e->bytes;
				to_d = to_d || pl[e->to] == d;
			}
			int64_t out = g->ops[u].output_bytes > big
					      ? g->ops[u].output_bytes
					      : big;
			if (pl[u] == d)
				sum += g->ops[u].param_bytes + out +
				       g->ops[u].temp_bytes;
			else if (to_d)
				sum += big;
		}
		if (m->cap[d] != DP_CAP_UNLIMITED && sum > m->cap[d])
			return false;
	}
	return true;
}

static bool honours(const dp_graph *g, const int32_t *pl)
{
	for (uint32_t u = 0; u < g->nops; u++) {
		if (g->ops[u].pin >= 0 && pl[u] != g->ops[u].pin)
			return false;
		for (uint32_t v = 0; v < u; v++)
			if (g->ops[u].colocate >= 0 &&
			    g->ops[u].colocate == g->ops[v].colocate &&
			    pl[u] != pl[v])
				return false;
	}
	return true;
}

typedef struct brute {
	double model_opt; /* best model value over allowed placements */
	double sim_best;  /* best simulated makespan (none) over them */
	uint32_t allowed; /* placements that honour pins, groups, memory */
} brute;

static void brute_force(const dp_graph *g, const dp_machine *m, brute *out)
{
	uint32_t n = g->nops, total = 1;
	for (uint32_t i = 0; i < n; i++)
		total *= (uint32_t)m->k;
	int32_t pl[16];
	dp_err err;
	dp_sim *s = dp_sim_new(g, m, &err);
	dp_sim_result r;
	memset(&r, 0, sizeof r);
	dp_sim_opts so = {.contention = DP_CONT_NONE};
	out->model_opt = out->sim_best = INFINITY;
	out->allowed = 0;
	for (uint32_t code = 0; code < total; code++) {
		uint32_t c = code;
		for (uint32_t i = 0; i < n; i++) {
			pl[i] = (int32_t)(c % (uint32_t)m->k);
			c /= (uint32_t)m->k;
		}
		if (!honours(g, pl) || !model_mem_ok(g, m, pl))
			continue;
		out->allowed++;
		double v = model_value(g, m, pl);
		if (v < out->model_opt)
			out->model_opt = v;
		if (s && dp_sim_run(s, pl, &so, &r, &err) == DP_OK &&
		    r.makespan < out->sim_best)
			out->sim_best = r.makespan;
	}
	dp_sim_result_free(&r);
	dp_sim_free(s);
}

/* ---- running ilp ---- */

static dp_status run_ilp(const dp_graph *g, const dp_machine *m, double limit_s,
			 const dp_progress *p, int32_t *pl, dp_algo_bound *b,
			 dp_err *err)
{
	dp_algo_opts o;
	dp_algo_opts_default(&o);
	o.contention = DP_CONT_NONE;
	o.time_limit_s = limit_s;
	o.bound = b;
	dp_err_clear(err);
	return dp_algo_place(ilp(), g, m, &o, p, pl, err);
}

static dp_graph *tiny(uint64_t seed, uint32_t n, uint32_t group_every,
		      uint32_t pin_every, int pin_k)
{
	test_dag_opts d = test_dag_spec(
		n, "window=3 inputs=2 time=5..80 out=100000..2000000 "
		   "params=3:1000000 temps=4:500000 control=6 bytes=4:3000000");
	d.group_every = group_every;
	d.pin_every = pin_every;
	d.pin_k = pin_k;
	return test_random_dag_with(seed, &d, "tiny");
}

static bool machine(dp_machine *m, int k)
{
	dp_err err;
	if (dp_machine_init(m, k, &err))
		return false;
	m->bw = 20000; /* 20 GB/s: transfers of tens of µs, like the ops */
	m->lat = 10;
	return true;
}

/* ilp proves optimality and its objective is the brute-force optimum of
 * its model; its placement's model value is that objective; nothing
 * simulates faster than it. */
static void check_case(const dp_graph *g, const dp_machine *m, const char *what)
{
	brute bt;
	brute_force(g, m, &bt);
	int32_t pl[16];
	dp_algo_bound b;
	dp_err err;
	dp_status st = run_ilp(g, m, 60, NULL, pl, &b, &err);
	if (st != DP_OK) {
		test_fail(__FILE__, __LINE__, "%s: ilp failed: %s", what,
			  err.msg);
		return;
	}
	double eps = 1e-5 * (bt.model_opt > 1 ? bt.model_opt : 1);
	if (!b.has_bound || !b.optimal || fabs(b.gap) > 1e-6)
		test_fail(__FILE__, __LINE__,
			  "%s: not proven optimal (has_bound %d optimal %d "
			  "gap %g)",
			  what, b.has_bound, b.optimal, b.gap);
	if (fabs(b.objective_us - bt.model_opt) > eps)
		test_fail(__FILE__, __LINE__,
			  "%s: MILP objective %.9g, brute-force optimum of its "
			  "model %.9g",
			  what, b.objective_us, bt.model_opt);
	if (!(b.bound_us <= bt.model_opt + eps))
		test_fail(__FILE__, __LINE__, "%s: bound %.9g above %.9g", what,
			  b.bound_us, bt.model_opt);
	if (!honours(g, pl) || !model_mem_ok(g, m, pl))
		test_fail(__FILE__, __LINE__,
			  "%s: placement breaks a pin, group or cap", what);
	double mine = model_value(g, m, pl);
	if (fabs(mine - bt.model_opt) > eps)
		test_fail(__FILE__, __LINE__,
			  "%s: the placement's model value %.9g, optimum %.9g",
			  what, mine, bt.model_opt);
	if (bt.sim_best < bt.model_opt - eps)
		test_fail(__FILE__, __LINE__,
			  "%s: a placement simulates in %.9g, below the "
			  "model's optimum %.9g",
			  what, bt.sim_best, bt.model_opt);
}

static void test_ilp_matches_brute_force_uncapped(void)
{
	for (uint64_t seed = 1; seed <= 10; seed++) {
		uint32_t n = 3 + (uint32_t)(seed % 5); /* 3..7 */
		int k = n <= 5 ? 3 : 2;
		dp_graph *g = tiny(seed, n, 0, 0, 0);
		dp_machine m;
		REQUIRE(g && machine(&m, k));
		char what[64];
		snprintf(what, sizeof what, "seed %llu, %u ops, K=%d",
			 (unsigned long long)seed, n, k);
		check_case(g, &m, what);
		dp_machine_free(&m);
		dp_graph_free(g);
	}
}

static void test_ilp_matches_brute_force_mixed_speeds(void)
{
	for (uint64_t seed = 20; seed < 24; seed++) {
		dp_graph *g = tiny(seed, 6, 0, 0, 0);
		dp_machine m;
		REQUIRE(g && machine(&m, 2));
		m.speed[1] = 0.5;
		char what[64];
		snprintf(what, sizeof what, "seed %llu, speeds 1 and 0.5",
			 (unsigned long long)seed);
		check_case(g, &m, what);
		dp_machine_free(&m);
		dp_graph_free(g);
	}
}

static void test_ilp_honours_caps_pins_and_groups(void)
{
	for (uint64_t seed = 40; seed < 46; seed++) {
		dp_graph *g = tiny(seed, 7, 3, 4, 2);
		dp_machine m;
		REQUIRE(g && machine(&m, 2));
		/* a cap that some placements meet and others do not */
		int64_t all = 0;
		for (uint32_t u = 0; u < g->nops; u++)
			all += g->ops[u].param_bytes + g->ops[u].output_bytes +
			       g->ops[u].temp_bytes;
		for (int d = 0; d < m.k; d++)
			m.cap[d] = all * 3 / 4;
		brute bt;
		brute_force(g, &m, &bt);
		char what[64];
		snprintf(what, sizeof what, "seed %llu with caps, pins, groups",
			 (unsigned long long)seed);
		if (bt.allowed == 0) {
			/* nothing fits: an honest error, not a plan */
			int32_t pl[16];
			dp_algo_bound b;
			dp_err err;
			CHECK_INT(run_ilp(g, &m, 60, NULL, pl, &b, &err),
				  DP_EINPUT);
			CHECK_CONTAINS(err.msg, "memory caps");
		} else {
			check_case(g, &m, what);
		}
		dp_machine_free(&m);
		dp_graph_free(g);
	}
}

static void test_ilp_infeasible_caps_are_an_error(void)
{
	dp_graph *g = tiny(7, 5, 0, 0, 0);
	dp_machine m;
	REQUIRE(g && machine(&m, 2));
	for (int d = 0; d < m.k; d++)
		m.cap[d] = 1000; /* below any op's output */
	int32_t pl[16];
	for (int i = 0; i < 16; i++)
		pl[i] = -7;
	dp_algo_bound b;
	dp_err err;
	CHECK_INT(run_ilp(g, &m, 60, NULL, pl, &b, &err), DP_EINPUT);
	CHECK_CONTAINS(err.msg, "ilp: no placement meets the memory caps");
	CHECK(!b.has_bound);
	/* and through the plan layer: no plan */
	dp_plan plan;
	memset(&plan, 0, sizeof plan);
	CHECK_INT(dp_plan_run(g, &m, ilp(), NULL, NULL, &plan, &err),
		  DP_EINPUT);
	CHECK(plan.placement == NULL);
	dp_machine_free(&m);
	dp_graph_free(g);
}

static void test_ilp_is_deterministic(void)
{
	dp_graph *g = tiny(99, 7, 0, 0, 0);
	dp_machine m;
	REQUIRE(g && machine(&m, 3));
	int32_t a[16], b2[16];
	dp_algo_bound ba, bb;
	dp_err err;
	REQUIRE(run_ilp(g, &m, 60, NULL, a, &ba, &err) == DP_OK);
	REQUIRE(run_ilp(g, &m, 60, NULL, b2, &bb, &err) == DP_OK);
	CHECK(memcmp(a, b2, g->nops * sizeof *a) == 0);
	CHECK(ba.objective_us == bb.objective_us);
	CHECK(ba.optimal && bb.optimal);
	dp_machine_free(&m);
	dp_graph_free(g);
}

/* Raises the cancel flag once the solver is running. */
static void cancel_when_solving(void *ud, const char *phase, double f)
{
	(void)f;
	if (!strcmp(phase, "ilp: solving"))
		atomic_store((atomic_int *)ud, 1);
}

static void test_ilp_cancel_leaves_nothing(void)
{
	test_dag_opts d = test_dag_spec(
		60, "window=30 inputs=2 time=10..100 out=1000..100000");
	dp_graph *g = test_random_dag_with(5, &d, "wide");
	dp_machine m;
	REQUIRE(g && machine(&m, 4));
	int32_t *pl = malloc(g->nops * sizeof *pl);
	REQUIRE(pl);
	for (uint32_t u = 0; u < g->nops; u++)
		pl[u] = -7;
	/* raised before it starts */
	atomic_int flag = 1;
	dp_progress p = {NULL, NULL, &flag};
	dp_algo_bound b;
	dp_err err;
	CHECK_INT(run_ilp(g, &m, 60, &p, pl, &b, &err), DP_ECANCELED);
	CHECK_STR(err.msg, "ilp: canceled");
	/* raised while CBC runs: the child is killed, nothing written */
	atomic_store(&flag, 0);
	dp_progress p2 = {cancel_when_solving, &flag, &flag};
	CHECK_INT(run_ilp(g, &m, 60, &p2, pl, &b, &err), DP_ECANCELED);
	CHECK_STR(err.msg, "ilp: canceled");
	CHECK(!b.has_bound);
	bool untouched = true;
	for (uint32_t u = 0; u < g->nops; u++)
		untouched = untouched && pl[u] == -7;
	CHECK(untouched);
	free(pl);
	dp_machine_free(&m);
	dp_graph_free(g);
}

/* CBC prints some messages to stdout whatever its log level; the explorer
 * draws on stdout. A solve must leave the caller's stdout and stderr
 * untouched. */
static void test_ilp_prints_nothing(void)
{
	dp_graph *g = tiny(3, 7, 0, 0, 0);
	dp_machine m;
	REQUIRE(g && machine(&m, 2));
	const char *path = test_tmp_path("ilp-stdout");
	REQUIRE(path);
	FILE *cap = fopen(path, "w+");
	REQUIRE(cap);
	fflush(stdout);
	fflush(stderr);
	int keep_out = dup(1), keep_err = dup(2);
	REQUIRE(keep_out >= 0 && keep_err >= 0);
	dup2(fileno(cap), 1);
	dup2(fileno(cap), 2);
	int32_t pl[16];
	dp_algo_bound b;
	dp_err err;
	dp_status st = run_ilp(g, &m, 60, NULL, pl, &b, &err);
	fflush(stdout);
	fflush(stderr);
	dup2(keep_out, 1);
	dup2(keep_err, 2);
	close(keep_out);
	close(keep_err);
	CHECK_INT(st, DP_OK);
	fseek(cap, 0, SEEK_END);
	CHECK_INT(ftell(cap), 0);
	fclose(cap);
	dp_machine_free(&m);
	dp_graph_free(g);
}

static void test_ilp_refuses_large_graphs(void)
{
	test_dag_opts d =
		test_dag_spec(401, "window=5 inputs=2 time=1..10 out=10..100");
	dp_graph *g = test_random_dag_with(1, &d, "big");
	dp_machine m;
	REQUIRE(g && machine(&m, 2));
	int32_t *pl = malloc(g->nops * sizeof *pl);
	REQUIRE(pl);
	dp_algo_bound b;
	dp_err err;
	CHECK_INT(run_ilp(g, &m, 10, NULL, pl, &b, &err), DP_EINPUT);
	CHECK_CONTAINS(err.msg, "401 ops");
	CHECK_CONTAINS(err.msg, "at most 400");
	free(pl);
	dp_machine_free(&m);
	dp_graph_free(g);
}

/* A short time limit still gives a placement (the warm start at worst),
 * and what it says about it is consistent. */
static void test_ilp_time_limit_returns_a_placement(void)
{
	test_dag_opts d = test_dag_spec(
		80, "window=40 inputs=2 time=10..100 out=1000..100000");
	dp_graph *g = test_random_dag_with(8, &d, "wide");
	dp_machine m;
	REQUIRE(g && machine(&m, 4));
	dp_plan plan;
	memset(&plan, 0, sizeof plan);
	dp_algo_opts o;
	dp_algo_opts_default(&o);
	o.time_limit_s = 0.2;
	dp_err err;
	dp_err_clear(&err);
	dp_status st = dp_plan_run(g, &m, ilp(), &o, NULL, &plan, &err);
	if (st != DP_OK) {
		test_fail(__FILE__, __LINE__, "ilp with a 0.2 s limit: %s",
			  err.msg);
		dp_machine_free(&m);
		dp_graph_free(g);
		return;
	}
	CHECK(plan.proof.has_bound);
	if (plan.proof.optimal)
		CHECK(plan.proof.gap == 0);
	else
		CHECK(isnan(plan.proof.gap) || plan.proof.gap > 0);
	CHECK(!(plan.proof.bound_us > plan.proof.objective_us * (1 + 1e-6)));
	/* the bound holds for every placement: the simulator agrees */
	if (isfinite(plan.proof.bound_us))
		CHECK(plan.sim.makespan >= plan.proof.bound_us * (1 - 1e-6));
	dp_plan_free(&plan);
	dp_machine_free(&m);
	dp_graph_free(g);
}

/* The yardstick's promise: without caps, ilp's bound is below the
 * simulated makespan of every algorithm's placement, under either
 * contention model (every simulated schedule is a schedule of the model). */
static void test_ilp_bound_is_below_every_algorithm(void)
{
	size_t n;
	const dp_algo *const *every = dp_algo_compared(&n);
	for (uint64_t seed = 60; seed < 66; seed++) {
		dp_graph *g = tiny(seed, 7, 0, 0, 0);
		dp_machine m;
		REQUIRE(g && machine(&m, 2 + (int)(seed % 2)));
		int32_t pl[16];
		dp_algo_bound b;
		dp_err err;
		REQUIRE(run_ilp(g, &m, 60, NULL, pl, &b, &err) == DP_OK);
		REQUIRE(b.has_bound && isfinite(b.bound_us));
		for (int c = 0; c < 2; c++) {
			dp_algo_opts o;
			dp_algo_opts_default(&o);
			o.contention = c ? DP_CONT_PORT : DP_CONT_NONE;
			for (size_t i = 0; i < n; i++) {
				/* the bound is on placements of these ops;
				 * a strategy splits them (it may beat it) */
				if (every[i]->strategize)
					continue;
				dp_plan plan;
				memset(&plan, 0, sizeof plan);
				if (dp_plan_run(g, &m, every[i], &o, NULL,
						&plan, &err) != DP_OK) {
					test_fail(__FILE__, __LINE__, "%s: %s",
						  every[i]->name, err.msg);
					continue;
				}
				if (plan.sim.makespan < b.bound_us * (1 - 1e-9))
					test_fail(
						__FILE__, __LINE__,
						"seed %llu: %s simulates in "
						"%.9g, below ilp's bound %.9g",
						(unsigned long long)seed,
						every[i]->name,
						plan.sim.makespan, b.bound_us);
				CHECK(!plan.proof.has_bound);
				dp_plan_free(&plan);
			}
		}
		dp_machine_free(&m);
		dp_graph_free(g);
	}
}

static void test_ilp_one_device_and_registry(void)
{
	REQUIRE(ilp());
	CHECK(ilp()->on_request);
	size_t n;
	const dp_algo *const *every = dp_algo_compared(&n);
	/* every entry but ilp, the one run only on request (best is in it,
	 * last: its row reuses the others) */
	CHECK_INT(n, dp_algo_count() - 1);
	for (size_t i = 0; i < n; i++)
		CHECK(every[i] != ilp());
	dp_graph *g = tiny(4, 5, 0, 0, 0);
	dp_machine m;
	REQUIRE(g && machine(&m, 1));
	int32_t pl[16];
	dp_algo_bound b;
	dp_err err;
	REQUIRE(run_ilp(g, &m, 10, NULL, pl, &b, &err) == DP_OK);
	CHECK(b.optimal);
	CHECK_NEAR(b.objective_us, g->total_time_us, 1e-9);
	dp_machine_free(&m);
	dp_graph_free(g);
}

TEST_MAIN(TEST(test_ilp_matches_brute_force_uncapped),
	  TEST(test_ilp_matches_brute_force_mixed_speeds),
	  TEST(test_ilp_honours_caps_pins_and_groups),
	  TEST(test_ilp_infeasible_caps_are_an_error),
	  TEST(test_ilp_is_deterministic), TEST(test_ilp_cancel_leaves_nothing),
	  TEST(test_ilp_prints_nothing), TEST(test_ilp_refuses_large_graphs),
	  TEST(test_ilp_time_limit_returns_a_placement),
	  TEST(test_ilp_bound_is_below_every_algorithm),
	  TEST(test_ilp_one_device_and_registry))

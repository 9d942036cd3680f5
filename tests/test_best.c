/* test_best.c - best: never worse than any single placement algorithm
 * (same machine, same contention; on random graphs and a real one, with
 * and without caps), runs every one but those listed in not_run, more
 * devices never hurt (its plan for K is
 * never worse than its plan for K-1 priced on the same K devices), pins and
 * groups kept, deterministic, the budget cut-off reported, cancel; the
 * lanes and METIS placements its candidate runs share give the plan that
 * making them afresh gives. */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "dnnpart/algo.h"
#include "dnnpart/plan.h"
#include "internal/algo_int.h"
#include "internal/best.h"
#include "lib/fixtures.h"
#include "lib/pardnn_fixtures.h"
#include "lib/testlib.h"

/* best's order (docs/algorithms.md): feasible first, then makespan;
 * infeasible ones by overflow, then makespan. */
typedef struct score {
	bool feasible;
	int64_t over;
	double makespan;
} score;

static score score_of(const dp_plan *p)
{
	score s = {p->feasible, 0, p->sim.makespan};
	for (int d = 0; d < p->k; d++) {
		const dp_device_stats *ds = &p->sim.dev[d];
		if (ds->cap_bytes != DP_CAP_UNLIMITED &&
		    ds->peak_bytes > ds->cap_bytes)
			s.over += ds->peak_bytes - ds->cap_bytes;
	}
	return s;
}

static bool better(const score *a, const score *b)
{
	if (a->feasible != b->feasible)
		return a->feasible;
	if (!a->feasible && a->over != b->over)
		return a->over < b->over;
	return a->makespan < b->makespan;
}

static dp_graph *graph_for(uint64_t seed, uint32_t n, int k)
{
	rand_opts ro = {n, seed, k, seed % 2 == 0, seed % 3 == 0};
	return random_dag(&ro);
}

/* The cap of case seed: none, or a share of the one-device peak. */
static int64_t cap_for(uint64_t seed, const dp_graph *g, int k)
{
	if (seed % 2)
		return DP_CAP_UNLIMITED;
	return one_device_peak(g) * 3 / (2 * k);
}

/* What best_of may name: an algorithm, best's own candidates (METIS in
 * windows, lanes), or its own searches from random restarts and of every
 * placement (docs/algorithms.md, "best"). */
static bool known_origin(const char *name)
{
	static const char *const own[] = {"metis-w8", "metis-w12", "lanes",
					  "restarts", "exhaustive"};
	for (size_t i = 0; i < sizeof own / sizeof *own; i++)
		if (strcmp(name, own[i]) == 0)
			return true;
	return dp_algo_find(name) != NULL;
}

static dp_status plan_best(const dp_graph *g, const dp_machine *m, dp_plan *p,
			   dp_err *err)
{
	return test_best_placements(g, m, NULL, p, err);
}

/* The placement algorithms of dp_algo_compared() that best does not run
 * (docs/algorithms.md, "best", step 1); the checks below compare best with
 * them all the same. */
static const char *const not_run[] = {"msr-dp"};

static bool listed_not_run(const char *name)
{
	for (size_t i = 0; i < sizeof not_run / sizeof *not_run; i++)
		if (strcmp(name, not_run[i]) == 0)
			return true;
	return false;
}

/* Plans g on m with best and with every placement algorithm of
 * dp_algo_compared() (those best runs, and those it lists as not run);
 * fails where one beats best. How many of best's candidates gave a plan
 * (run directly) into *ran. */
static void check_best_against_peers(const char *what, const dp_graph *g,
				     const dp_machine *m, const dp_algo_opts *o,
				     size_t *ran)
{
	dp_plan b;
	dp_err err;
	*ran = 0;
	REQUIRE(test_best_placements(g, m, o, &b, &err) ==
		DP_OK);
	CHECK(placement_valid(g, m, b.placement));
	CHECK(b.origin.has_origin);
	CHECK(known_origin(b.origin.best_of));
	CHECK(b.origin.devices >= 1 && b.origin.devices <= m->k);
	score sb = score_of(&b);
	size_t n;
	const dp_algo *const *all = dp_algo_compared(&n);
	for (size_t i = 0; i < n; i++) {
		if (!all[i]->run || all[i] == dp_algo_find("best"))
			continue;
		dp_plan a;
		if (dp_plan_run(g, m, all[i], o, NULL, &a, &err))
			continue;
		*ran += !listed_not_run(all[i]->name);
		score sa = score_of(&a);
		if (better(&sa, &sb))
			test_fail(
				__FILE__, __LINE__,
				"%s K=%d: %s%s (%.3f us, %s) beats best "
				"(%.3f us, %s)",
				what, m->k, all[i]->name,
				listed_not_run(all[i]->name)
					? " (not run by best)"
					: "",
				sa.makespan, sa.feasible ? "feasible" : "over",
				sb.makespan, sb.feasible ? "feasible" : "over");
		CHECK(!a.origin.has_origin);
		dp_plan_free(&a);
	}
	dp_plan_free(&b);
}

static void test_best_never_worse_than_any_algorithm_it_ran(void)
{
	for (uint64_t seed = 1; seed <= 8; seed++) {
		int k = 2 + (int)(seed % 3) * 2; /* 2, 4, 6 */
		dp_graph *g = graph_for(seed, 120 + 10 * (uint32_t)seed, k);
		REQUIRE(g);
		dp_machine m;
		machine_with(&m, k, cap_for(seed, g, k));
		dp_algo_opts o;
		dp_algo_opts_default(&o);
		o.contention = seed % 4 == 3 ? DP_CONT_NONE : DP_CONT_PORT;
		char what[32];
		snprintf(what, sizeof what, "seed %llu",
			 (unsigned long long)seed);
		size_t ran;
		check_best_against_peers(what, g, &m, &o, &ran);
		CHECK(ran >= 5);
		dp_machine_free(&m);
		dp_graph_free(g);
	}
}

/* The same on a real graph (a sample), without caps and with the bench's
 * tight caps (1.1 x the one-device peak / K). */
static void test_best_never_worse_on_a_real_graph(void)
{
	dp_graph *g = test_load_ok("sample_graphs/resnet50.json");
	REQUIRE(g);
	for (int tight = 0; tight <= 1; tight++) {
		int k = 4;
		dp_machine m;
		machine_with(&m, k,
			     tight ? one_device_peak(g) * 11 / (10 * k)
				   : DP_CAP_UNLIMITED);
		size_t ran;
		check_best_against_peers(tight ? "resnet50 tight" : "resnet50",
					 g, &m, NULL, &ran);
		CHECK(ran >= 5);
		dp_machine_free(&m);
	}
	dp_graph_free(g);
}

/* best runs every placement algorithm of the registry but the listed ones,
 * for each device count K..1 on a small graph (its own METIS candidates
 * run only on large ones): its origin counts exactly those runs, so a
 * candidate added to or dropped from best without updating not_run fails
 * here. */
static void test_best_runs_every_algorithm_not_listed(void)
{
	for (size_t i = 0; i < sizeof not_run / sizeof *not_run; i++) {
		const dp_algo *a = dp_algo_find(not_run[i]);
		CHECK(a && a->run); /* a placement algorithm of the registry */
		printf("# best does not run %s (compared all the same)\n",
		       not_run[i]);
	}
	dp_graph *g = graph_for(11, 150, 3);
	REQUIRE(g);
	dp_machine m;
	machine_with(&m, 3, DP_CAP_UNLIMITED);
	size_t ran;
	check_best_against_peers("seed 11", g, &m, NULL, &ran);
	dp_plan b;
	dp_err err;
	REQUIRE(test_best_placements(g, &m, NULL, &b,
			    &err) == DP_OK);
	/* every candidate gave a plan here (checked directly above), for
	 * each of 3, 2 and 1 devices */
	CHECK_INT((long long)b.origin.ran, (long long)(3 * ran));
	CHECK_INT((long long)b.origin.skipped, 0);
	dp_plan_free(&b);
	dp_machine_free(&m);
	dp_graph_free(g);
}

/* best's lanes candidate for g on k devices without caps, checked valid
 * (pins kept, groups whole); NULL, a recorded failure, when it fails. The
 * caller frees the placement. */
static int32_t *lanes_of(const dp_graph *g, int k)
{
	dp_machine m;
	machine_with(&m, k, DP_CAP_UNLIMITED);
	int32_t *pl = malloc(g->nops * sizeof *pl);
	dp_err err;
	if (!pl || dpi_lanes(g, &m, pl, &err) != DP_OK) {
		test_fail(__FILE__, __LINE__, "lanes on %d devices failed", k);
		free(pl);
		pl = NULL;
	} else {
		CHECK(placement_valid(g, &m, pl));
	}
	dp_machine_free(&m);
	return pl;
}

/* best's lanes candidate on K parallel chains (towers) from one stem to
 * one join, each chain's op i+1 also reading a small projection of the
 * next chain's op i (a ring, as the generated graphs' towers): one chain
 * per device, the K chains on K devices. */
static void test_best_lanes_one_chain_per_device(void)
{
	enum { K = 4, L = 40 };
	dp_graph *g = dp_graph_new("chains");
	REQUIRE(g);
	uint32_t data = test_add_op(g, "data", 1, 1 << 20, NULL);
	uint32_t stem = test_add_op(g, "stem", 5, 1 << 20, NULL);
	test_add_edge(g, data, stem);
	uint32_t chain[K][L];
	char name[32];
	for (int c = 0; c < K; c++)
		for (int i = 0; i < L; i++) {
			snprintf(name, sizeof name, "c%d/%d", c, i);
			chain[c][i] = test_add_op(g, name, 10, 1 << 20, NULL);
			test_add_edge(g, i ? chain[c][i - 1] : stem,
				      chain[c][i]);
		}
	for (int c = 0; c < K; c++)
		for (int i = 5; i + 1 < L; i += 10) {
			snprintf(name, sizeof name, "p%d/%d", c, i);
			uint32_t p = test_add_op(g, name, 1, 1024, NULL);
			test_add_edge(g, chain[(c + 1) % K][i], p);
			test_add_edge(g, p, chain[c][i + 1]);
		}
	uint32_t join = test_add_op(g, "join", 5, 1024, NULL);
	for (int c = 0; c < K; c++)
		test_add_edge(g, chain[c][L - 1], join);
	REQUIRE(test_finalized(g));
	int32_t *pl = lanes_of(g, K);
	REQUIRE(pl);
	bool used[K] = {false};
	for (int c = 0; c < K; c++) {
		int32_t d = pl[chain[c][0]];
		for (int i = 1; i < L; i++)
			if (pl[chain[c][i]] != d)
				test_fail(__FILE__, __LINE__,
					  "chain %d: op %d on device %d, op 0 "
					  "on %d",
					  c, i, pl[chain[c][i]], d);
		CHECK(d >= 0 && d < K && !used[d]);
		if (d >= 0 && d < K)
			used[d] = true;
	}
	free(pl);
	dp_graph_free(g);
}

/* lanes on random DAGs with pins (devices 0..2) and colocation groups:
 * every pin kept, each group on one device, K from 3 to 8. */
static void test_best_lanes_keeps_pins_and_groups(void)
{
	for (uint64_t seed = 1; seed <= 4; seed++) {
		dp_graph *g = test_algo_graph(300, seed, "lanes-pins");
		REQUIRE(g);
		for (int k = 3; k <= 8; k++)
			free(lanes_of(g, k));
		dp_graph_free(g);
	}
}

/* best(K) against best(K-1)'s placement on the same K devices (device K-1
 * left empty), same graph, caps equal. */
static void test_best_more_devices_never_hurt(void)
{
	int cases = 0, direct_worse = 0;
	for (uint64_t seed = 11; seed <= 22; seed++) {
		int k = 2 + (int)(seed % 4); /* 2..5 */
		dp_graph *g = graph_for(seed, 80 + 7 * (uint32_t)seed, k - 1);
		REQUIRE(g);
		int64_t cap = cap_for(seed, g, k);
		dp_machine mk, mf;
		machine_with(&mk, k, cap);
		machine_with(&mf, k - 1, cap);
		dp_plan pk, pf, ef;
		dp_err err;
		REQUIRE(plan_best(g, &mk, &pk, &err) == DP_OK);
		REQUIRE(plan_best(g, &mf, &pf, &err) == DP_OK);
		REQUIRE(dp_plan_evaluate(g, &mk, pf.placement, DP_CONT_PORT,
					 &ef, &err) == DP_OK);
		score sk = score_of(&pk), se = score_of(&ef);
		if (better(&se, &sk))
			test_fail(__FILE__, __LINE__,
				  "seed %llu: best for K=%d (%.3f us) is worse "
				  "than best for K=%d (%.3f us on K devices)",
				  (unsigned long long)seed, k, sk.makespan,
				  k - 1, se.makespan);
		/* priced on K-1 devices the number may differ slightly (the
		 * scheduler's priorities depend on K): counted, not checked */
		if (pk.sim.makespan > pf.sim.makespan * (1 + 1e-9))
			direct_worse++;
		cases++;
		dp_plan_free(&pk);
		dp_plan_free(&pf);
		dp_plan_free(&ef);
		dp_machine_free(&mk);
		dp_machine_free(&mf);
		dp_graph_free(g);
	}
	CHECK_INT(cases, 12);
	if (direct_worse)
		printf("# %d of %d cases: best(K) above best(K-1) priced on "
		       "K-1 devices\n",
		       direct_worse, cases);
}

/* One device more that nobody should use: a chain gains nothing from a
 * second device, and best must not get slower with more of them. */
static void test_best_chain_stays_on_one_device(void)
{
	dp_graph *g = test_chain("chain", 30, 100, 1 << 20);
	REQUIRE(g);
	REQUIRE(dp_graph_finalize(g, NULL) == DP_OK);
	dp_machine m1, m4;
	machine_with(&m1, 1, DP_CAP_UNLIMITED);
	machine_with(&m4, 4, DP_CAP_UNLIMITED);
	dp_plan p1, p4;
	dp_err err;
	REQUIRE(plan_best(g, &m1, &p1, &err) == DP_OK);
	REQUIRE(plan_best(g, &m4, &p4, &err) == DP_OK);
	CHECK(p4.sim.makespan <= p1.sim.makespan);
	CHECK_NEAR(p4.sim.makespan, 3000.0, 1e-6);
	dp_plan_free(&p1);
	dp_plan_free(&p4);
	dp_machine_free(&m1);
	dp_machine_free(&m4);
	dp_graph_free(g);
}

static void test_best_is_deterministic(void)
{
	dp_graph *g = graph_for(6, 300, 4);
	REQUIRE(g);
	dp_machine m;
	machine_with(&m, 4, cap_for(6, g, 4));
	dp_plan a, b;
	dp_err err;
	REQUIRE(plan_best(g, &m, &a, &err) == DP_OK);
	REQUIRE(plan_best(g, &m, &b, &err) == DP_OK);
	CHECK(memcmp(a.placement, b.placement, g->nops * sizeof *a.placement) ==
	      0);
	CHECK(a.sim.makespan == b.sim.makespan);
	CHECK_STR(a.origin.best_of, b.origin.best_of);
	CHECK_INT(a.origin.devices, b.origin.devices);
	CHECK_INT(a.origin.ran, b.origin.ran);
	CHECK_INT(a.origin.skipped, 0);
	dp_plan_free(&a);
	dp_plan_free(&b);
	dp_machine_free(&m);
	dp_graph_free(g);
}

/* A budget already spent: the first candidate still runs, every other is
 * counted as skipped, and the plan is still valid. */
static void test_best_budget_reports_the_cutoff(void)
{
	dp_graph *g = graph_for(5, 200, 4);
	REQUIRE(g);
	dp_machine m;
	machine_with(&m, 4, DP_CAP_UNLIMITED);
	dp_algo_opts o;
	dp_algo_opts_default(&o);
	o.budget_s = 1e-12;
	dp_plan p, full;
	dp_err err;
	REQUIRE(test_best_placements(g, &m, &o, &p, &err) ==
		DP_OK);
	REQUIRE(plan_best(g, &m, &full, &err) == DP_OK);
	CHECK(placement_valid(g, &m, p.placement));
	CHECK_INT(p.origin.ran, 1);
	CHECK(p.origin.skipped > 0);
	CHECK_INT(p.origin.ran + p.origin.skipped, full.origin.ran);
	CHECK_STR(p.origin.best_of, "pardnn"); /* the first in the order */
	dp_plan_free(&p);
	dp_plan_free(&full);
	dp_machine_free(&m);
	dp_graph_free(g);
}

static void cancel_after_first(void *ud, const char *phase, double f)
{
	(void)phase;
	(void)f;
	atomic_store((atomic_int *)ud, 1);
}

static void test_best_cancel(void)
{
	dp_graph *g = graph_for(7, 400, 4);
	REQUIRE(g);
	dp_machine m;
	machine_with(&m, 4, DP_CAP_UNLIMITED);
	int32_t *pl = malloc(g->nops * sizeof *pl);
	REQUIRE(pl);
	const dp_algo *best = dp_algo_find("best");
	atomic_int flag = 1;
	dp_progress p = {NULL, NULL, &flag};
	dp_err err;
	dp_err_clear(&err);
	CHECK_INT(dp_algo_place(best, g, &m, NULL, &p, pl, &err), DP_ECANCELED);
	CHECK_STR(err.msg, "best: canceled");
	/* raised while it runs: at the first progress report */
	atomic_int later = 0;
	dp_progress q = {cancel_after_first, &later, &later};
	dp_err_clear(&err);
	CHECK_INT(dp_algo_place(best, g, &m, NULL, &q, pl, &err), DP_ECANCELED);
	CHECK_STR(err.msg, "best: canceled");
	free(pl);
	dp_machine_free(&m);
	dp_graph_free(g);
}

/* Anytime: each interim placement beats the one before on the whole
 * machine, and the final plan is at least as good as the last. */
typedef struct interim_log {
	const dp_graph *g;
	const dp_machine *m;
	int calls;
	bool valid, improving;
	score last;
} interim_log;

static void on_interim(void *ud, const int32_t *pl, const dp_algo_origin *f)
{
	interim_log *lg = ud;
	dp_plan p;
	dp_err err;
	if (dp_plan_evaluate(lg->g, lg->m, pl, DP_CONT_PORT, &p, &err)) {
		lg->valid = false;
		return;
	}
	score s = score_of(&p);
	if (lg->calls && !better(&s, &lg->last))
		lg->improving = false;
	if (!f->has_origin || !known_origin(f->best_of))
		lg->valid = false;
	lg->last = s;
	lg->calls++;
	dp_plan_free(&p);
}

static void test_best_anytime_plans_improve(void)
{
	dp_graph *g = graph_for(9, 300, 4);
	REQUIRE(g);
	dp_machine m;
	machine_with(&m, 4, DP_CAP_UNLIMITED);
	interim_log lg = {g, &m, 0, true, true, {0}};
	dp_algo_opts o;
	dp_algo_opts_default(&o);
	o.interim = on_interim;
	o.interim_ud = &lg;
	dp_plan p;
	dp_err err;
	REQUIRE(test_best_placements(g, &m, &o, &p, &err) ==
		DP_OK);
	CHECK(lg.calls >= 1);
	CHECK(lg.valid);
	CHECK(lg.improving);
	score fin = score_of(&p);
	CHECK(!better(&lg.last, &fin));
	dp_plan_free(&p);
	dp_machine_free(&m);
	dp_graph_free(g);
}

/* The registry: best is the default, pardnn stays first, and "every
 * algorithm" ends with best (its row reuses the others: best_all.c). */
static void test_best_is_the_default(void)
{
	CHECK_STR(dp_algo_default()->name, "best");
	CHECK_STR(dp_algo_at(0)->name, "pardnn");
	size_t n;
	const dp_algo *const *all = dp_algo_compared(&n);
	CHECK_STR(all[n - 1]->name, "best");
	/* the explorer's `a` cycles: from best (last) to pardnn */
	CHECK_STR(dp_algo_at(dp_algo_count() - 1)->name, "best");
}

/* Where ops x K > DPI_LANES_MIN_WORK, pardnn makes lanes and METIS as
 * seeds and best's lanes and metis candidates copy them
 * (dp_algo_opts.shared): best's plan and what it started from are the same
 * as with every run making them afresh; what pardnn keeps is what lanes
 * and metis make on their own; a shared struct for another machine is
 * neither read nor written. */
static void test_best_shared_seeds_same_plan(void)
{
	dp_graph *g = gen_towers(26000);
	dp_machine m, other;
	machine_with(&m, 4, DP_CAP_UNLIMITED);
	machine_with(&other, 4, DP_CAP_UNLIMITED);
	REQUIRE((double)g->nops * m.k > DPI_LANES_MIN_WORK);
	size_t bytes = g->nops * sizeof(int32_t);
	int32_t *a = malloc(bytes), *b = malloc(bytes);
	int32_t *lanes = malloc(bytes), *metis = malloc(bytes);
	REQUIRE(a && b && lanes && metis);
	dp_algo_opts o;
	dp_algo_opts_default(&o);
	dp_algo_origin oa, ob;
	dp_err err;
	o.origin = &oa;
	REQUIRE(dpi_best_place(g, &m, &o, NULL, true, a, &err) == DP_OK);
	o.origin = &ob;
	REQUIRE(dpi_best_place(g, &m, &o, NULL, false, b, &err) == DP_OK);
	CHECK(memcmp(a, b, bytes) == 0);
	CHECK_STR(oa.best_of, ob.best_of);
	CHECK(oa.ran == ob.ran);
	dp_algo_shared sh = {g, &m, {lanes, metis}, {false, false}};
	dp_algo_shared elsewhere = {g, &other, {b, b}, {false, false}};
	o.origin = NULL;
	o.shared = &elsewhere;
	REQUIRE(run_algo("pardnn", g, &m, &o, a, NULL) == DP_OK);
	CHECK(!elsewhere.has[DPI_SHARED_LANES] &&
	      !elsewhere.has[DPI_SHARED_METIS]);
	o.shared = &sh;
	REQUIRE(run_algo("pardnn", g, &m, &o, a, NULL) == DP_OK);
	CHECK(sh.has[DPI_SHARED_LANES] && sh.has[DPI_SHARED_METIS]);
	REQUIRE(dpi_lanes(g, &m, b, &err) == DP_OK);
	CHECK(memcmp(lanes, b, bytes) == 0);
	REQUIRE(run_algo("metis", g, &m, NULL, b, NULL) == DP_OK);
	CHECK(memcmp(metis, b, bytes) == 0);
	free(a);
	free(b);
	free(lanes);
	free(metis);
	dp_machine_free(&other);
	test_free(g, &m, NULL);
}

TEST_MAIN(TEST(test_best_never_worse_than_any_algorithm_it_ran),
	  TEST(test_best_never_worse_on_a_real_graph),
	  TEST(test_best_runs_every_algorithm_not_listed),
	  TEST(test_best_lanes_one_chain_per_device),
	  TEST(test_best_lanes_keeps_pins_and_groups),
	  TEST(test_best_more_devices_never_hurt),
	  TEST(test_best_chain_stays_on_one_device),
	  TEST(test_best_is_deterministic),
	  TEST(test_best_budget_reports_the_cutoff), TEST(test_best_cancel),
	  TEST(test_best_anytime_plans_improve), TEST(test_best_is_the_default),
	  TEST(test_best_shared_seeds_same_plan))

/* test_pardnn_invariants.c - pardnn over many graphs: valid placements,
 * pins and colocation, feasibility, determinism, never worse than one
 * device; termination on adversarial inputs; what the plan reports; quality
 * on the ParDNN authors' ResNet graph. */
#include <stdlib.h>
#include <string.h>

#include "dnnpart/algo.h"
#include "dnnpart/gen.h"
#include "dnnpart/graph.h"
#include "dnnpart/load.h"
#include "dnnpart/machine.h"
#include "dnnpart/placement.h"
#include "dnnpart/plan.h"
#include "dnnpart/sim.h"
#include "lib/fixtures.h"
#include "lib/pardnn_fixtures.h"
#include "lib/testlib.h"

/* ---- invariants over many graphs ---- */

static void check_one(const dp_graph *g, int k, int64_t cap, dp_contention cont,
		      bool expect_feasible)
{
	dp_machine m;
	machine_with(&m, k, cap);
	dp_algo_opts o;
	dp_algo_opts_default(&o);
	o.contention = cont;
	int32_t *pl = malloc(g->nops * sizeof *pl);
	int32_t *pl2 = malloc(g->nops * sizeof *pl2);
	int32_t *one = malloc(g->nops * sizeof *one);
	dp_err err;
	REQUIRE(run_algo("pardnn", g, &m, &o, pl, &err) == DP_OK);
	if (!placement_valid(g, &m, pl))
		goto out;
	/* deterministic: the same input gives the same placement */
	REQUIRE(run_algo("pardnn", g, &m, &o, pl2, &err) == DP_OK);
	CHECK(memcmp(pl, pl2, g->nops * sizeof *pl) == 0);
	sim_out so = {0}, s1 = {0};
	REQUIRE(simulate(g, &m, pl, cont, &so) == DP_OK);
	/* feasible means every peak under its cap */
	CHECK(so.feasible == (so.over == 0));
	if (expect_feasible && !so.feasible)
		test_fail(__FILE__, __LINE__,
			  "k=%d cap=%lld: pardnn infeasible, overflow %lld", k,
			  (long long)cap, (long long)so.over);
	/* never worse than one device when one device fits */
	REQUIRE(run_algo("single", g, &m, &o, one, &err) == DP_OK);
	REQUIRE(simulate(g, &m, one, cont, &s1) == DP_OK);
	if (s1.feasible) {
		CHECK(so.feasible);
		if (so.makespan > s1.makespan)
			test_fail(__FILE__, __LINE__,
				  "k=%d: pardnn %.1f us > single %.1f us", k,
				  so.makespan, s1.makespan);
	}
out:
	free(pl);
	free(pl2);
	free(one);
	dp_machine_free(&m);
}

/* Peak of all ops (pins ignored) on one device, the scale for caps. */
static void test_pardnn_random_graphs_invariants(void)
{
	for (uint64_t seed = 1; seed <= 6; seed++) {
		int k = 2 + (int)(seed % 3) * 2; /* 2, 4, 6 */
		rand_opts ro = {200 + 150 * (uint32_t)seed, seed, k,
				seed % 2 == 0, seed % 3 != 0};
		dp_graph *g = random_dag(&ro);
		REQUIRE(g != NULL);
		int64_t peak = one_device_peak(g);
		check_one(g, k, DP_CAP_UNLIMITED, DP_CONT_PORT, true);
		check_one(g, k, DP_CAP_UNLIMITED, DP_CONT_NONE, true);
		check_one(g, k, peak, DP_CONT_PORT, true);
		/* half the memory of one device per device: still room */
		check_one(g, k, peak / 2 + peak / 8, DP_CONT_PORT, true);
		dp_graph_free(g);
	}
}

static void test_pardnn_training_graphs_invariants(void)
{
	static const uint32_t sizes[] = {300, 1200, 4000};
	for (int i = 0; i < 3; i++) {
		dp_graph *g = training_graph(sizes[i], 11 + (uint64_t)i);
		REQUIRE(g != NULL);
		int64_t peak = one_device_peak(g);
		for (int k = 2; k <= 8; k *= 2) {
			check_one(g, k, DP_CAP_UNLIMITED, DP_CONT_PORT, true);
			check_one(g, k, peak / 2 + peak / 8, DP_CONT_PORT,
				  true);
			check_one(g, k, peak / 2 + peak / 8, DP_CONT_NONE,
				  true);
		}
		dp_graph_free(g);
	}
}

/* ---- adversarial termination ---- */

/* The params of the op that holds the most. */
static int64_t largest_params(const dp_graph *g)
{
	int64_t largest = 0;
	for (uint32_t u = 0; u < g->nops; u++)
		if (g->ops[u].param_bytes > largest)
			largest = g->ops[u].param_bytes;
	return largest;
}

static void test_pardnn_cap_below_largest_op_terminates(void)
{
	rand_opts ro = {300, 21, 4, true, true};
	dp_graph *g = random_dag(&ro);
	REQUIRE(g != NULL);
	int64_t largest = largest_params(g);
	dp_machine m;
	machine_with(&m, 4, largest / 2);
	int32_t *pl = malloc(g->nops * sizeof *pl);
	dp_err err;
	REQUIRE(run_algo("pardnn", g, &m, NULL, pl, &err) == DP_OK);
	CHECK(placement_valid(g, &m, pl));
	sim_out so = {0};
	REQUIRE(simulate(g, &m, pl, DP_CONT_PORT, &so) == DP_OK);
	CHECK(!so.feasible);
	CHECK(so.over > 0);
	free(pl);
	test_free(g, &m, NULL);
}

static void test_pardnn_every_op_colocated_terminates(void)
{
	rand_opts ro = {200, 4, 3, false, false};
	dp_graph *g0 = random_dag(&ro);
	REQUIRE(g0 != NULL);
	/* rebuild with every op in one group */
	dp_graph *g = dp_graph_new("all-colocated");
	for (uint32_t u = 0; u < g0->nops; u++) {
		uint32_t id;
		dp_graph_add_op(g, dp_graph_op_name(g0, u), &id, NULL);
		g->ops[id].time_us = g0->ops[u].time_us;
		g->ops[id].output_bytes = g0->ops[u].output_bytes;
		g->ops[id].param_bytes = g0->ops[u].param_bytes;
		dp_graph_set_colocate(g, id, "all", NULL);
	}
	for (uint32_t e = 0; e < g0->nedges; e++)
		dp_graph_add_edge(g, g0->edges[e].from, g0->edges[e].to,
				  g0->edges[e].bytes, g0->edges[e].control,
				  NULL);
	REQUIRE(dp_graph_finalize(g, NULL) == DP_OK);
	int64_t peak = one_device_peak(g);
	/* caps: fits nowhere, then fits on device 2 only */
	for (int pass = 0; pass < 2; pass++) {
		dp_machine m;
		machine_with(&m, 3, peak / 3);
		if (pass)
			m.cap[2] = peak;
		int32_t *pl = malloc(g->nops * sizeof *pl);
		REQUIRE(run_algo("pardnn", g, &m, NULL, pl, NULL) == DP_OK);
		CHECK(placement_valid(g, &m, pl));
		if (pass)
			CHECK_INT(pl[0], 2);
		free(pl);
		dp_machine_free(&m);
	}
	dp_graph_free(g);
	dp_graph_free(g0);
}

static void test_pardnn_one_device(void)
{
	rand_opts ro = {150, 8, 1, true, true};
	dp_graph *g = random_dag(&ro);
	REQUIRE(g != NULL);
	dp_machine m;
	machine_with(&m, 1, 1024);
	int32_t *pl = malloc(g->nops * sizeof *pl);
	REQUIRE(run_algo("pardnn", g, &m, NULL, pl, NULL) == DP_OK);
	for (uint32_t u = 0; u < g->nops; u++)
		CHECK_INT(pl[u], 0);
	free(pl);
	test_free(g, &m, NULL);
}

static void test_pardnn_more_devices_than_ops(void)
{
	rand_opts ro = {5, 2, 16, false, false};
	dp_graph *g = random_dag(&ro);
	REQUIRE(g != NULL);
	dp_machine m;
	machine_with(&m, 16, DP_CAP_UNLIMITED);
	int32_t pl[5];
	REQUIRE(run_algo("pardnn", g, &m, NULL, pl, NULL) == DP_OK);
	CHECK(placement_valid(g, &m, pl));
	/* and with a cap that nothing fits under */
	for (int d = 0; d < 16; d++)
		m.cap[d] = 1;
	REQUIRE(run_algo("pardnn", g, &m, NULL, pl, NULL) == DP_OK);
	CHECK(placement_valid(g, &m, pl));
	test_free(g, &m, NULL);
}

static void test_pardnn_empty_graph(void)
{
	dp_graph *g = dp_graph_new("empty");
	REQUIRE(dp_graph_finalize(g, NULL) == DP_OK);
	dp_machine m;
	machine_with(&m, 4, DP_CAP_UNLIMITED);
	int32_t pl[1] = {-7};
	CHECK_INT(run_algo("pardnn", g, &m, NULL, pl, NULL), DP_OK);
	CHECK_INT(pl[0], -7);
	test_free(g, &m, NULL);
}

static void test_pardnn_rejects_pin_beyond_k(void)
{
	rand_opts ro = {300, 3, 8, false, true}; /* pins below device 8 */
	dp_graph *g = random_dag(&ro);
	REQUIRE(g != NULL);
	dp_machine m;
	machine_with(&m, 2, DP_CAP_UNLIMITED);
	int32_t *pl = malloc(g->nops * sizeof *pl);
	dp_err err;
	dp_err_clear(&err);
	dp_status st = run_algo("pardnn", g, &m, NULL, pl, &err);
	/* pins below 2 are fine on this machine; the graph has one beyond */
	bool has_big_pin = false;
	for (uint32_t u = 0; u < g->nops; u++)
		has_big_pin |= g->ops[u].pin >= 2;
	REQUIRE(has_big_pin);
	CHECK_INT(st, DP_EINPUT);
	CHECK_CONTAINS(err.msg, "pinned to device");
	free(pl);
	test_free(g, &m, NULL);
}

/* ---- the plan layer reports what pardnn could not meet ---- */

static void test_pardnn_infeasible_caps_reported_by_plan(void)
{
	rand_opts ro = {300, 13, 3, true, false};
	dp_graph *g = random_dag(&ro);
	REQUIRE(g != NULL);
	int64_t largest = largest_params(g);
	dp_machine m;
	machine_with(&m, 3, largest / 2);
	dp_plan plan;
	memset(&plan, 0, sizeof plan);
	dp_err err;
	REQUIRE(dp_plan_run(g, &m, dp_algo_find("pardnn"), NULL, NULL, &plan,
			    &err) == DP_OK);
	CHECK(!plan.feasible);
	int d = dp_plan_worst_device(&plan);
	REQUIRE(d >= 0 && d < 3);
	/* the numbers a user sees: the peak over the cap on that device */
	CHECK(plan.sim.dev[d].peak_bytes > plan.sim.dev[d].cap_bytes);
	CHECK_INT(plan.sim.dev[d].cap_bytes, largest / 2);
	CHECK_STR(plan.algo, "pardnn");
	test_free(g, &m, &plan);
}

/* ---- quality on the ParDNN authors' ResNet graph ---- */

static double plan_makespan(const dp_graph *g, const dp_machine *m,
			    const int32_t *pl, dp_contention cont)
{
	dp_plan plan;
	memset(&plan, 0, sizeof plan);
	if (dp_plan_evaluate(g, m, pl, cont, &plan, NULL))
		return -1;
	double ms = plan.feasible ? plan.sim.makespan : -1;
	dp_plan_free(&plan);
	return ms;
}

/* pardnn on the ParDNN folder dir with --link pardnn, in both contention
 * models: never slower than one device (K = 2, 4, 8) and, at K = 4, not
 * slower than any of the placements refs (files of dir/reference). */
static void check_beats(const char *dir, const char *const *refs, int nrefs)
{
	char ref[1200];
	dp_err err;
	dp_graph *g = test_load_ok(dir);
	REQUIRE(g);
	int32_t *pl = malloc(g->nops * sizeof *pl);
	int32_t *one = calloc(g->nops, sizeof *one);
	for (int ci = 0; ci < 2; ci++) {
		dp_contention cont = ci ? DP_CONT_NONE : DP_CONT_PORT;
		for (int k = 2; k <= 8; k *= 2) {
			dp_machine m;
			machine_with(&m, k, DP_CAP_UNLIMITED);
			REQUIRE(dp_machine_set_link(&m, "pardnn", NULL) ==
				DP_OK);
			dp_algo_opts o;
			dp_algo_opts_default(&o);
			o.contention = cont;
			REQUIRE(run_algo("pardnn", g, &m, &o, pl, &err) ==
				DP_OK);
			double ours = plan_makespan(g, &m, pl, cont);
			double single = plan_makespan(g, &m, one, cont);
			REQUIRE(ours > 0 && single > 0);
			if (ours > single)
				test_fail(__FILE__, __LINE__,
					  "%s K=%d: pardnn %.0f us > one "
					  "device %.0f us",
					  dp_sim_contention_name(cont), k, ours,
					  single);
			for (int r = 0; k == 4 && r < nrefs; r++) {
				snprintf(ref, sizeof ref, "%s/reference/%s",
					 dir, refs[r]);
				dp_placement_info info;
				int32_t *rp = malloc(g->nops * sizeof *rp);
				REQUIRE(dp_placement_read(ref, g, rp, &info,
							  &err) == DP_OK);
				double theirs = plan_makespan(g, &m, rp, cont);
				free(rp);
				if (ours > theirs)
					test_fail(__FILE__, __LINE__,
						  "%s K=4: pardnn %.0f us > "
						  "%s %.0f us",
						  dp_sim_contention_name(cont),
						  ours, refs[r], theirs);
			}
			dp_machine_free(&m);
		}
	}
	free(pl);
	free(one);
	dp_graph_free(g);
}

/* Our own folder (tests/data/pardnn-resnet50): its reference/ placement is
 * a split into 4 blocks of equal work, not ParDNN's output. */
static void test_pardnn_own_folder_beats_one_device_and_blocks(void)
{
	static const char *const refs[] = {"layers-K4.place"};
	check_beats("tests/data/pardnn-resnet50", refs, 1);
}

/* The ParDNN authors' ResNet with their C++ and Python placements, where
 * present. */
static void test_pardnn_resnet_beats_reference_placements(void)
{
	static const char *const refs[] = {"pardnn-cpp-K4.place",
					   "pardnn-python-K4.place"};
	const char *dir = test_pardnn_resnet();
	if (dir)
		check_beats(dir, refs, 2);
}

TEST_MAIN(TEST(test_pardnn_random_graphs_invariants),
	  TEST(test_pardnn_training_graphs_invariants),
	  TEST(test_pardnn_cap_below_largest_op_terminates),
	  TEST(test_pardnn_every_op_colocated_terminates),
	  TEST(test_pardnn_one_device), TEST(test_pardnn_more_devices_than_ops),
	  TEST(test_pardnn_empty_graph), TEST(test_pardnn_rejects_pin_beyond_k),
	  TEST(test_pardnn_infeasible_caps_reported_by_plan),
	  TEST(test_pardnn_own_folder_beats_one_device_and_blocks),
	  TEST(test_pardnn_resnet_beats_reference_placements))

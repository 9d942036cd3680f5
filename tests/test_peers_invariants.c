/* test_peers_invariants.c - metf, heft, metis, contig and mincut on many
 * random DAGs made here, generated training graphs (gen.h) and the real
 * graphs in tests/data (msr-fiddle, PipeDream, our ParDNN folder). For each
 * plan: every op on a valid device, pins and colocation groups respected, a
 * plan called feasible is under every cap in the simulator (and one called
 * infeasible is over one),
 * evaluating the placement again reproduces the makespan and peaks, and a
 * second run gives the same placement bit for bit. */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "dnnpart/algo.h"
#include "dnnpart/gen.h"
#include "dnnpart/graph.h"
#include "dnnpart/load.h"
#include "dnnpart/machine.h"
#include "dnnpart/plan.h"
#include "lib/fixtures.h"
#include "lib/testlib.h"

static const char *const peers[] = {"metf", "heft", "metis", "contig",
				    "mincut"};
#define NPEERS (sizeof peers / sizeof peers[0])

/* ---- random DAGs ---- */

/* n ops (tests/lib's one generator); each op takes 1..3 inputs from the 40
 * ops before it (some control, some with explicit bytes, now and then a
 * parallel edge); one op in 8 takes no time. With constraints, one op in 20
 * joins a colocation group and one in 30 is pinned to device 0 or 1 (so the
 * machine needs k >= 2). */
static dp_graph *random_dag(uint64_t seed, uint32_t n, bool constraints)
{
	test_dag_opts d = test_dag_mixed(n, constraints);
	return test_random_dag_with(seed, &d, "random");
}

/* ---- checks ---- */

static int64_t single_device_peak(const dp_graph *g, const dp_machine *m)
{
	int32_t *zero = calloc(g->nops + 1, sizeof *zero);
	dp_plan p;
	memset(&p, 0, sizeof p);
	int64_t peak = -1;
	if (zero &&
	    dp_plan_evaluate(g, m, zero, DP_CONT_PORT, &p, NULL) == DP_OK)
		peak = p.sim.dev[0].peak_bytes;
	dp_plan_free(&p);
	free(zero);
	return peak;
}

static bool placement_ok(const dp_graph *g, const dp_machine *m,
			 const int32_t *pl, const char *what)
{
	for (uint32_t u = 0; u < g->nops; u++) {
		if (pl[u] < 0 || pl[u] >= m->k) {
			test_fail(__FILE__, __LINE__, "%s: op %u on device %d",
				  what, u, pl[u]);
			return false;
		}
		if (g->ops[u].pin >= 0 && pl[u] != g->ops[u].pin) {
			test_fail(__FILE__, __LINE__, "%s: pinned op %u moved",
				  what, u);
			return false;
		}
	}
	for (uint32_t c = 0; c < g->ngroups; c++)
		for (uint32_t i = g->group_off[c] + 1; i < g->group_off[c + 1];
		     i++)
			if (pl[g->group_ops[i]] !=
			    pl[g->group_ops[g->group_off[c]]]) {
				test_fail(__FILE__, __LINE__,
					  "%s: group %u split", what, c);
				return false;
			}
	return true;
}

/* Plans g on m with algo and checks every invariant. Returns the plan's
 * feasibility (false also when the run failed). */
static bool check_algo(const dp_graph *g, const dp_machine *m, const char *name,
		       const char *what)
{
	const dp_algo *a = dp_algo_find(name);
	if (!a) {
		test_fail(__FILE__, __LINE__, "algorithm %s not registered",
			  name);
		return false;
	}
	dp_algo_opts o;
	dp_algo_opts_default(&o);
	dp_plan p1, p2, ev;
	memset(&p1, 0, sizeof p1);
	memset(&p2, 0, sizeof p2);
	memset(&ev, 0, sizeof ev);
	dp_err err;
	char tag[256];
	snprintf(tag, sizeof tag, "%s %s k=%d", name, what, m->k);
	if (dp_plan_run(g, m, a, &o, NULL, &p1, &err) != DP_OK) {
		test_fail(__FILE__, __LINE__, "%s: plan failed: %s", tag,
			  err.msg);
		return false;
	}
	bool feasible = p1.feasible;
	placement_ok(g, m, p1.placement, tag);
	bool any_over = false;
	for (int d = 0; d < m->k; d++)
		if (p1.sim.dev[d].peak_bytes > m->cap[d])
			any_over = true;
	if (p1.feasible == any_over)
		test_fail(__FILE__, __LINE__,
			  "%s: feasible=%d but a device over its cap=%d", tag,
			  p1.feasible, any_over);
	/* eval of the returned placement reproduces the plan */
	if (dp_plan_evaluate(g, m, p1.placement, o.contention, &ev, &err) !=
	    DP_OK) {
		test_fail(__FILE__, __LINE__, "%s: eval failed: %s", tag,
			  err.msg);
	} else {
		if (ev.sim.makespan != p1.sim.makespan)
			test_fail(__FILE__, __LINE__,
				  "%s: eval makespan %.9g, plan %.9g", tag,
				  ev.sim.makespan, p1.sim.makespan);
		for (int d = 0; d < m->k; d++)
			if (ev.sim.dev[d].peak_bytes !=
			    p1.sim.dev[d].peak_bytes)
				test_fail(__FILE__, __LINE__,
					  "%s: eval peak differs on %d", tag,
					  d);
		if (p1.sim.makespan + 1e-6 < p1.bounds.lb_us)
			test_fail(__FILE__, __LINE__,
				  "%s: makespan %.9g below LB %.9g", tag,
				  p1.sim.makespan, p1.bounds.lb_us);
	}
	/* determinism */
	if (dp_plan_run(g, m, a, &o, NULL, &p2, &err) != DP_OK) {
		test_fail(__FILE__, __LINE__, "%s: second plan failed", tag);
	} else if (memcmp(p1.placement, p2.placement,
			  g->nops * sizeof *p1.placement) != 0 ||
		   p1.sim.makespan != p2.sim.makespan) {
		test_fail(__FILE__, __LINE__, "%s: not deterministic", tag);
	}
	dp_plan_free(&p1);
	dp_plan_free(&p2);
	dp_plan_free(&ev);
	return feasible;
}

static void set_caps(dp_machine *m, int64_t cap)
{
	for (int d = 0; d < m->k; d++)
		m->cap[d] = cap;
}

/* ---- tests ---- */

static void test_peers_are_registered_in_order(void)
{
	size_t at[NPEERS];
	for (size_t i = 0; i < NPEERS; i++) {
		at[i] = SIZE_MAX;
		for (size_t j = 0; j < dp_algo_count(); j++)
			if (strcmp(dp_algo_at(j)->name, peers[i]) == 0)
				at[i] = j;
		CHECK(at[i] != SIZE_MAX);
		if (i)
			CHECK(at[i] == at[i - 1] + 1);
	}
	CHECK(dp_algo_find("mtopo") && at[0] != SIZE_MAX &&
	      strcmp(dp_algo_at(at[0] - 1)->name, "mtopo") == 0);
}

static void test_peers_on_random_dags(void)
{
	static const uint32_t sizes[] = {1, 2, 3, 7, 20, 64, 150, 400};
	int feasible_when_roomy = 0, roomy_runs = 0;
	for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
		for (int cons = 0; cons < 2; cons++) {
			dp_graph *g = random_dag(si * 7 + (uint64_t)cons,
						 sizes[si], cons);
			REQUIRE(g);
			for (int k = cons ? 2 : 1; k <= 5; k += 2) {
				dp_machine m;
				REQUIRE(test_machine_make(&m, k, NULL, NULL));
				if (k == 3)
					dp_machine_set_speeds(&m, "1,0.5,2",
							      NULL);
				int64_t one = single_device_peak(g, &m);
				REQUIRE(one >= 0);
				/* unlimited, room for everything on each
				 * device, a tight share, and impossible */
				int64_t caps[4] = {DP_CAP_UNLIMITED, one,
						   one / k + one / 8 + 1, 1};
				for (int c = 0; c < 4; c++) {
					set_caps(&m, caps[c]);
					char what[64];
					snprintf(what, sizeof what,
						 "dag%u/%d cap%d", sizes[si],
						 cons, c);
					for (size_t a = 0; a < NPEERS; a++) {
						bool f = check_algo(
							g, &m, peers[a], what);
						if (c == 0 && !f)
							test_fail(
								__FILE__,
								__LINE__,
								"%s: %s "
								"infeasible "
								"without caps",
								peers[a], what);
						if (c == 1 && a < 2) {
							roomy_runs++;
							feasible_when_roomy +=
								f;
						}
					}
				}
				dp_machine_free(&m);
			}
			dp_graph_free(g);
		}
	}
	/* m-ETF and HEFT check memory as they place: with room for the whole
	 * graph on every device, they must stay feasible */
	CHECK_INT(feasible_when_roomy, roomy_runs);
}

static void test_peers_on_generated_graphs(void)
{
	static const uint32_t sizes[] = {200, 2000};
	for (size_t si = 0; si < 2; si++) {
		dp_gen_opts go;
		dp_gen_opts_default(&go);
		go.ops = sizes[si];
		go.seed = 3 + si;
		dp_graph *g = NULL;
		REQUIRE(dp_gen_graph(&go, &g, NULL) == DP_OK);
		dp_machine m;
		REQUIRE(test_machine_make(&m, 4, NULL, NULL));
		int64_t one = single_device_peak(g, &m);
		int64_t caps[2] = {DP_CAP_UNLIMITED, one / 3};
		for (int c = 0; c < 2; c++) {
			set_caps(&m, caps[c]);
			char what[64];
			snprintf(what, sizeof what, "gen%u cap%d", sizes[si],
				 c);
			for (size_t a = 0; a < NPEERS; a++)
				check_algo(g, &m, peers[a], what);
		}
		dp_machine_free(&m);
		dp_graph_free(g);
	}
}

/* One real graph of tests/data. */
static void run_real(const char *path, int *loaded)
{
	dp_graph *g = test_load_ok(path);
	REQUIRE(g);
	(*loaded)++;
	dp_machine m;
	if (dp_machine_init_from_hint(&m, &g->hint, NULL) != DP_OK) {
		dp_graph_free(g);
		return;
	}
	if (m.k < 2)
		dp_machine_resize(&m, 4, NULL);
	/* the file's caps when it has them; else a third of one device's peak
	 * (tight, may be infeasible: that must then be reported honestly) */
	if (g->hint.memory_bytes <= 0)
		set_caps(&m, single_device_peak(g, &m) / 3 + 1);
	for (size_t a = 0; a < NPEERS; a++)
		check_algo(g, &m, peers[a], path);
	test_free(g, &m, NULL);
}

static void test_peers_on_real_graphs(void)
{
	char path[1600];
	const char *base = test_data_dir();
	struct stat sb;
	snprintf(path, sizeof path, "%s/pardnn-resnet50", base);
	int loaded = 0;
	run_real(path, &loaded);
	static const char *const dirs[] = {
		"msr-fiddle/throughput-inputs/LayerGraphs",
		"msr-fiddle/throughput-inputs/OperatorGraphs", "pipedream"};
	for (size_t i = 0; i < 3; i++) {
		char dir[1024];
		snprintf(dir, sizeof dir, "%s/%s", base, dirs[i]);
		struct dirent **ents = NULL;
		int ne = scandir(dir, &ents, NULL, alphasort);
		for (int j = 0; j < ne; j++) {
			const char *nm = ents[j]->d_name;
			if (nm[0] != '.') {
				if (i == 2)
					snprintf(path, sizeof path,
						 "%s/%s/graph.txt", dir, nm);
				else
					snprintf(path, sizeof path, "%s/%s",
						 dir, nm);
				if (stat(path, &sb) == 0 && S_ISREG(sb.st_mode))
					run_real(path, &loaded);
			}
			free(ents[j]);
		}
		free(ents);
	}
	/* 1 ParDNN folder (our own) + 16 msr-fiddle files + 8 PipeDream
	 * profiles */
	CHECK_INT(loaded, 25);
}

TEST_MAIN(TEST(test_peers_are_registered_in_order),
	  TEST(test_peers_on_random_dags), TEST(test_peers_on_generated_graphs),
	  TEST(test_peers_on_real_graphs))

/* test_pardnn.c - the pardnn algorithm: phases, invariants, termination. */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "algo.h"
#include "gen.h"
#include "graph.h"
#include "internal/pardnn.h"
#include "lib/testlib.h"
#include "load.h"
#include "machine.h"
#include "placement.h"
#include "plan.h"
#include "sim.h"

/* ---- fixtures ---- */

static uint64_t rng(uint64_t *s)
{
	*s = *s * 6364136223846793005ull + 1442695040888963407ull;
	return *s >> 33;
}

typedef struct rand_opts {
	uint32_t n;
	uint64_t seed;
	int k;           /* pins go to devices < k */
	bool groups;     /* colocation groups of a few ops */
	bool pins;       /* a few pinned ops */
} rand_opts;

/* A random DAG: each op takes 1-3 inputs from the 24 ops before it; times
 * 1-200 µs, outputs 1 KiB-4 MiB, a quarter of the ops hold parameters. */
static dp_graph *random_dag(const rand_opts *o)
{
	dp_graph *g = graph_new("random");
	uint64_t s = o->seed * 7919 + 17;
	char nm[48];
	for (uint32_t i = 0; i < o->n; i++) {
		uint32_t id;
		snprintf(nm, sizeof nm, "op%u", i);
		if (graph_add_op(g, nm, &id, NULL)) {
			graph_free(g);
			return NULL;
		}
		dp_op *op = &g->ops[id];
		op->time_us = 1 + (double)(rng(&s) % 200);
		op->output_bytes = 1024 + (int64_t)(rng(&s) % (4u << 20));
		if (rng(&s) % 4 == 0)
			op->param_bytes = (int64_t)(rng(&s) % (8u << 20));
		if (rng(&s) % 8 == 0)
			op->temp_bytes = (int64_t)(rng(&s) % (1u << 20));
		if (o->groups && i % 10 == 3) {
			snprintf(nm, sizeof nm, "grp%u", i / 50);
			graph_set_colocate(g, id, nm, NULL);
		} else if (o->pins && i % 97 == 5) {
			op->pin = (int32_t)((i / 97) % (uint32_t)o->k);
		}
		uint32_t nin = i ? 1 + (uint32_t)(rng(&s) % 3) : 0;
		for (uint32_t j = 0; j < nin; j++) {
			uint32_t back = 1 + (uint32_t)(rng(&s) % (i < 24 ? i : 24));
			graph_add_edge(g, id - back, id, -1, rng(&s) % 16 == 0,
				       NULL);
		}
	}
	if (graph_finalize(g, NULL)) {
		graph_free(g);
		return NULL;
	}
	return g;
}

static dp_graph *training_graph(uint32_t ops, uint64_t seed)
{
	dp_gen_opts o;
	gen_opts_default(&o);
	o.ops = ops;
	o.seed = seed;
	dp_graph *g = NULL;
	if (gen_graph(&o, &g, NULL))
		return NULL;
	return g;
}

static void machine_with(dp_machine *m, int k, int64_t cap)
{
	machine_init(m, k, NULL);
	for (int d = 0; d < k; d++)
		m->cap[d] = cap;
}

typedef struct sim_out {
	double makespan;
	bool feasible;
	int64_t over;     /* recomputed from the peaks and caps */
	int64_t max_peak;
} sim_out;

static dp_status simulate(const dp_graph *g, const dp_machine *m,
			  const int32_t *pl, dp_contention cont, sim_out *out)
{
	dp_err err;
	dp_sim *s = sim_new(g, m, &err);
	if (!s)
		return err.code;
	dp_sim_result r;
	memset(&r, 0, sizeof r);
	dp_sim_opts so = {cont, false};
	dp_status st = sim_run(s, pl, &so, &r, &err);
	if (!st) {
		out->makespan = r.makespan;
		out->feasible = r.feasible;
		out->over = 0;
		out->max_peak = 0;
		for (int d = 0; d < m->k; d++) {
			if (r.dev[d].peak_bytes > m->cap[d])
				out->over += r.dev[d].peak_bytes - m->cap[d];
			if (r.dev[d].peak_bytes > out->max_peak)
				out->max_peak = r.dev[d].peak_bytes;
		}
	}
	sim_result_free(&r);
	sim_free(s);
	return st;
}

static dp_status run_algo(const char *name, const dp_graph *g,
			  const dp_machine *m, const dp_algo_opts *o,
			  int32_t *pl, dp_err *err)
{
	const dp_algo *a = algo_find(name);
	if (!a)
		return DP_EINTERNAL;
	dp_algo_opts def;
	algo_opts_default(&def);
	return a->run(g, m, o ? o : &def, NULL, pl, err);
}

/* Every op on a device of m, pins kept, each colocation group on one
 * device. Returns false (after recording failures) when not. */
static bool placement_valid(const dp_graph *g, const dp_machine *m,
			    const int32_t *pl)
{
	bool ok = true;
	for (uint32_t u = 0; u < g->nops; u++) {
		if (pl[u] < 0 || pl[u] >= m->k) {
			test_fail(__FILE__, __LINE__, "op %u on device %d", u,
				  pl[u]);
			return false;
		}
		if (g->ops[u].pin >= 0 && pl[u] != g->ops[u].pin) {
			test_fail(__FILE__, __LINE__,
				  "op %u pinned to %d placed on %d", u,
				  g->ops[u].pin, pl[u]);
			ok = false;
		}
	}
	for (uint32_t c = 0; c < g->ngroups; c++)
		for (uint32_t i = g->group_off[c] + 1; i < g->group_off[c + 1];
		     i++)
			if (pl[g->group_ops[i]] != pl[g->group_ops[i - 1]]) {
				test_fail(__FILE__, __LINE__,
					  "colocation group %u split", c);
				return false;
			}
	return ok;
}

/* ---- registry ---- */

static void test_pardnn_is_the_default_algorithm(void)
{
	const dp_algo *a = algo_default();
	REQUIRE(a != NULL);
	CHECK_STR(a->name, "pardnn");
	CHECK(algo_find("pardnn") == a);
	CHECK(strstr(algo_names(), "pardnn") == algo_names());
}

/* ---- slicing ---- */

static void test_pardnn_slicing_covers_every_op_with_chains(void)
{
	rand_opts ro = {400, 3, 4, false, true};
	dp_graph *g = random_dag(&ro);
	REQUIRE(g != NULL);
	dp_machine m;
	machine_with(&m, 4, DP_CAP_UNLIMITED);
	dp_algo_opts o;
	algo_opts_default(&o);
	pd_ctx c;
	dp_err err;
	REQUIRE(pd_ctx_init(&c, g, &m, &o, NULL, &err) == DP_OK);
	REQUIRE(pd_slice(&c) == DP_OK);
	CHECK(c.npaths >= 4);
	uint32_t covered = 0;
	for (uint32_t p = 0; p < c.npaths; p++) {
		for (uint32_t i = c.path_off[p]; i < c.path_off[p + 1]; i++) {
			uint32_t u = c.path_ops[i];
			covered++;
			CHECK_INT(c.path_of[u], p);
			CHECK(c.fix[u] < 0);
			if (i == c.path_off[p])
				continue;
			/* consecutive ops of a path are joined by an edge */
			uint32_t prev = c.path_ops[i - 1];
			bool edge = false;
			for (uint32_t j = g->succ_off[prev];
			     j < g->succ_off[prev + 1]; j++)
				edge |= g->edges[g->succ_edge[j]].to == u;
			CHECK(edge);
		}
	}
	uint32_t fixed = 0;
	for (uint32_t u = 0; u < g->nops; u++)
		fixed += c.fix[u] >= 0;
	CHECK(fixed > 0);
	CHECK_INT(covered + fixed, g->nops);
	pd_ctx_free(&c);
	machine_free(&m);
	graph_free(g);
}

/* With a free link the first primary is the graph's critical path. */
static void test_pardnn_first_primary_is_the_critical_path(void)
{
	rand_opts ro = {300, 5, 2, false, false};
	dp_graph *g = random_dag(&ro);
	REQUIRE(g != NULL);
	dp_machine m;
	machine_with(&m, 2, DP_CAP_UNLIMITED);
	m.lat = 0;
	m.bw = 1e30;
	pd_ctx c;
	dp_algo_opts o;
	algo_opts_default(&o);
	REQUIRE(pd_ctx_init(&c, g, &m, &o, NULL, NULL) == DP_OK);
	REQUIRE(pd_slice(&c) == DP_OK);
	uint32_t *cp = malloc(g->nops * sizeof *cp), len = 0;
	double cpl = graph_critical_path(g, 1.0, cp, &len);
	double sum = 0;
	for (uint32_t i = c.path_off[0]; i < c.path_off[1]; i++)
		sum += g->ops[c.path_ops[i]].time_us;
	CHECK_NEAR(sum, cpl, 1e-6);
	/* and the second primary is no longer than the first */
	double sum2 = 0;
	for (uint32_t i = c.path_off[1]; i < c.path_off[2]; i++)
		sum2 += g->ops[c.path_ops[i]].time_us;
	CHECK(sum2 <= sum);
	CHECK(c.path_off[2] > c.path_off[1]);
	free(cp);
	pd_ctx_free(&c);
	machine_free(&m);
	graph_free(g);
}

/* ---- mapping ---- */

static void test_pardnn_mapping_places_every_op_and_keeps_groups(void)
{
	rand_opts ro = {500, 9, 3, true, true};
	dp_graph *g = random_dag(&ro);
	REQUIRE(g != NULL);
	dp_machine m;
	machine_with(&m, 3, DP_CAP_UNLIMITED);
	pd_ctx c;
	dp_algo_opts o;
	algo_opts_default(&o);
	REQUIRE(pd_ctx_init(&c, g, &m, &o, NULL, NULL) == DP_OK);
	REQUIRE(pd_slice(&c) == DP_OK);
	REQUIRE(pd_map(&c) == DP_OK);
	CHECK(placement_valid(g, &m, c.place));
	/* every device got work: the primaries seed all three */
	int used[3] = {0, 0, 0};
	for (uint32_t u = 0; u < g->nops; u++)
		used[c.place[u]]++;
	CHECK(used[0] > 0 && used[1] > 0 && used[2] > 0);
	pd_ctx_free(&c);
	machine_free(&m);
	graph_free(g);
}

/* ---- the hand-made graph ---- */

/* A chain c0..c9 of 100 µs ops (the critical path) and three side branches
 * of two 100 µs ops each, from c0 to c9. Splitting the branches off the
 * chain's device is the only way to run faster than one device. */
static dp_graph *chain_with_branches(void)
{
	dp_graph *g = graph_new("branches");
	uint32_t ch[10], br[3][2], id;
	char nm[32];
	for (int i = 0; i < 10; i++) {
		snprintf(nm, sizeof nm, "c%d", i);
		graph_add_op(g, nm, &id, NULL);
		g->ops[id].time_us = 100;
		g->ops[id].output_bytes = 4096;
		ch[i] = id;
		if (i)
			graph_add_edge(g, ch[i - 1], id, -1, false, NULL);
	}
	for (int b = 0; b < 3; b++)
		for (int j = 0; j < 2; j++) {
			snprintf(nm, sizeof nm, "b%d_%d", b, j);
			graph_add_op(g, nm, &id, NULL);
			g->ops[id].time_us = 100;
			g->ops[id].output_bytes = 4096;
			br[b][j] = id;
			graph_add_edge(g, j ? br[b][0] : ch[0], id, -1, false,
				       NULL);
			if (j)
				graph_add_edge(g, id, ch[9], -1, false, NULL);
		}
	if (graph_finalize(g, NULL)) {
		graph_free(g);
		return NULL;
	}
	return g;
}

static void check_branches_moved(int k)
{
	dp_graph *g = chain_with_branches();
	REQUIRE(g != NULL);
	dp_machine m;
	machine_with(&m, k, DP_CAP_UNLIMITED);
	REQUIRE(machine_set_link(&m, "pardnn", NULL) == DP_OK);
	int32_t pl[16];
	dp_err err;
	REQUIRE(run_algo("pardnn", g, &m, NULL, pl, &err) == DP_OK);
	REQUIRE(placement_valid(g, &m, pl));
	int32_t cd = pl[graph_find(g, "c0")];
	char nm[32];
	for (int i = 1; i < 10; i++) {
		snprintf(nm, sizeof nm, "c%d", i);
		CHECK_INT(pl[graph_find(g, nm)], cd);
	}
	for (int b = 0; b < 3; b++)
		for (int j = 0; j < 2; j++) {
			snprintf(nm, sizeof nm, "b%d_%d", b, j);
			CHECK(pl[graph_find(g, nm)] != cd);
		}
	sim_out so;
	REQUIRE(simulate(g, &m, pl, DP_CONT_PORT, &so) == DP_OK);
	/* the chain alone takes 1000 µs; one device would take 1600 µs */
	CHECK(so.makespan < 1100);
	machine_free(&m);
	graph_free(g);
}

static void test_pardnn_critical_path_stays_side_branches_move_k2(void)
{
	check_branches_moved(2);
}

static void test_pardnn_critical_path_stays_side_branches_move_k4(void)
{
	check_branches_moved(4);
}


/* The critical path goes to the fastest device. */
static void test_pardnn_critical_path_on_fastest_device(void)
{
	dp_graph *g = chain_with_branches();
	REQUIRE(g != NULL);
	dp_machine m;
	machine_with(&m, 4, DP_CAP_UNLIMITED);
	REQUIRE(machine_set_link(&m, "pardnn", NULL) == DP_OK);
	REQUIRE(machine_set_speeds(&m, "1,1,3,1", NULL) == DP_OK);
	int32_t pl[16];
	REQUIRE(run_algo("pardnn", g, &m, NULL, pl, NULL) == DP_OK);
	char nm[32];
	for (int i = 0; i < 10; i++) {
		snprintf(nm, sizeof nm, "c%d", i);
		CHECK_INT(pl[graph_find(g, nm)], 2);
	}
	machine_free(&m);
	graph_free(g);
}

/* Every op pinned: nothing is free to move, pins are the placement. */
static void test_pardnn_every_op_pinned(void)
{
	rand_opts ro = {120, 6, 3, false, false};
	dp_graph *g = random_dag(&ro);
	REQUIRE(g != NULL);
	for (uint32_t u = 0; u < g->nops; u++)
		g->ops[u].pin = (int32_t)(u % 3);
	dp_machine m;
	machine_with(&m, 3, 1);
	int32_t *pl = malloc(g->nops * sizeof *pl);
	REQUIRE(run_algo("pardnn", g, &m, NULL, pl, NULL) == DP_OK);
	for (uint32_t u = 0; u < g->nops; u++)
		CHECK_INT(pl[u], (int32_t)(u % 3));
	free(pl);
	machine_free(&m);
	graph_free(g);
}

/* ---- invariants over many graphs ---- */

static void check_one(const dp_graph *g, int k, int64_t cap,
		      dp_contention cont, bool expect_feasible)
{
	dp_machine m;
	machine_with(&m, k, cap);
	dp_algo_opts o;
	algo_opts_default(&o);
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
	sim_out so, s1;
	REQUIRE(simulate(g, &m, pl, cont, &so) == DP_OK);
	/* feasible means every peak under its cap */
	CHECK(so.feasible == (so.over == 0));
	if (expect_feasible && !so.feasible)
		test_fail(__FILE__, __LINE__,
			  "k=%d cap=%lld: pardnn infeasible, overflow %lld",
			  k, (long long)cap, (long long)so.over);
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
	machine_free(&m);
}

/* Peak of all ops (pins ignored) on one device, the scale for caps. */
static int64_t one_device_peak(const dp_graph *g)
{
	dp_machine m;
	machine_with(&m, 1, DP_CAP_UNLIMITED);
	int32_t *pl = calloc(g->nops, sizeof *pl);
	sim_out so = {0};
	simulate(g, &m, pl, DP_CONT_PORT, &so);
	free(pl);
	machine_free(&m);
	return so.max_peak;
}

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
		graph_free(g);
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
		graph_free(g);
	}
}

/* ---- adversarial termination ---- */

static void test_pardnn_cap_below_largest_op_terminates(void)
{
	rand_opts ro = {300, 21, 4, true, true};
	dp_graph *g = random_dag(&ro);
	REQUIRE(g != NULL);
	int64_t largest = 0;
	for (uint32_t u = 0; u < g->nops; u++)
		if (g->ops[u].param_bytes > largest)
			largest = g->ops[u].param_bytes;
	dp_machine m;
	machine_with(&m, 4, largest / 2);
	int32_t *pl = malloc(g->nops * sizeof *pl);
	dp_err err;
	REQUIRE(run_algo("pardnn", g, &m, NULL, pl, &err) == DP_OK);
	CHECK(placement_valid(g, &m, pl));
	sim_out so;
	REQUIRE(simulate(g, &m, pl, DP_CONT_PORT, &so) == DP_OK);
	CHECK(!so.feasible);
	CHECK(so.over > 0);
	free(pl);
	machine_free(&m);
	graph_free(g);
}

static void test_pardnn_every_op_colocated_terminates(void)
{
	rand_opts ro = {200, 4, 3, false, false};
	dp_graph *g0 = random_dag(&ro);
	REQUIRE(g0 != NULL);
	/* rebuild with every op in one group */
	dp_graph *g = graph_new("all-colocated");
	for (uint32_t u = 0; u < g0->nops; u++) {
		uint32_t id;
		graph_add_op(g, graph_op_name(g0, u), &id, NULL);
		g->ops[id].time_us = g0->ops[u].time_us;
		g->ops[id].output_bytes = g0->ops[u].output_bytes;
		g->ops[id].param_bytes = g0->ops[u].param_bytes;
		graph_set_colocate(g, id, "all", NULL);
	}
	for (uint32_t e = 0; e < g0->nedges; e++)
		graph_add_edge(g, g0->edges[e].from, g0->edges[e].to,
			       g0->edges[e].bytes, g0->edges[e].control, NULL);
	REQUIRE(graph_finalize(g, NULL) == DP_OK);
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
		machine_free(&m);
	}
	graph_free(g);
	graph_free(g0);
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
	machine_free(&m);
	graph_free(g);
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
	machine_free(&m);
	graph_free(g);
}

static void test_pardnn_empty_graph(void)
{
	dp_graph *g = graph_new("empty");
	REQUIRE(graph_finalize(g, NULL) == DP_OK);
	dp_machine m;
	machine_with(&m, 4, DP_CAP_UNLIMITED);
	int32_t pl[1] = {-7};
	CHECK_INT(run_algo("pardnn", g, &m, NULL, pl, NULL), DP_OK);
	CHECK_INT(pl[0], -7);
	machine_free(&m);
	graph_free(g);
}

static void test_pardnn_rejects_pin_beyond_k(void)
{
	rand_opts ro = {300, 3, 8, false, true}; /* pins up to device 3 */
	dp_graph *g = random_dag(&ro);
	REQUIRE(g != NULL);
	dp_machine m;
	machine_with(&m, 2, DP_CAP_UNLIMITED);
	int32_t *pl = malloc(g->nops * sizeof *pl);
	dp_err err;
	dp_err_clear(&err);
	dp_status st = run_algo("pardnn", g, &m, NULL, pl, &err);
	/* op5 (pinned to 0) is fine, op102 is pinned to 1, op199 to 2 */
	bool has_big_pin = false;
	for (uint32_t u = 0; u < g->nops; u++)
		has_big_pin |= g->ops[u].pin >= 2;
	if (has_big_pin) {
		CHECK_INT(st, DP_EINPUT);
		CHECK_CONTAINS(err.msg, "pinned to device");
	} else {
		CHECK_INT(st, DP_OK);
	}
	free(pl);
	machine_free(&m);
	graph_free(g);
}

/* ---- options, progress, cancellation ---- */

static void test_pardnn_polish_never_hurts(void)
{
	dp_graph *g = training_graph(2000, 5);
	REQUIRE(g != NULL);
	int64_t peak = one_device_peak(g);
	for (int k = 2; k <= 4; k += 2) {
		dp_machine m;
		machine_with(&m, k, peak * 2 / 3);
		dp_algo_opts on, off;
		algo_opts_default(&on);
		algo_opts_default(&off);
		off.polish = false;
		int32_t *a = malloc(g->nops * sizeof *a);
		int32_t *b = malloc(g->nops * sizeof *b);
		REQUIRE(run_algo("pardnn", g, &m, &on, a, NULL) == DP_OK);
		REQUIRE(run_algo("pardnn", g, &m, &off, b, NULL) == DP_OK);
		sim_out sa, sb;
		REQUIRE(simulate(g, &m, a, DP_CONT_PORT, &sa) == DP_OK);
		REQUIRE(simulate(g, &m, b, DP_CONT_PORT, &sb) == DP_OK);
		CHECK(sa.over <= sb.over);
		if (sa.over == sb.over)
			CHECK(sa.makespan <= sb.makespan);
		free(a);
		free(b);
		machine_free(&m);
	}
	graph_free(g);
}

typedef struct prog_log {
	int calls;
	double last;
	bool monotonic;
	char phases[8][16];
	int nphases;
	atomic_int *cancel_at_mapping;
} prog_log;

static void log_progress(void *ud, const char *phase, double f)
{
	prog_log *l = ud;
	l->calls++;
	if (f < l->last || f < 0 || f > 1)
		l->monotonic = false;
	l->last = f;
	if (l->nphases == 0 || strcmp(l->phases[l->nphases - 1], phase)) {
		if (l->nphases < 8)
			snprintf(l->phases[l->nphases++], 16, "%s", phase);
	}
	if (l->cancel_at_mapping && strcmp(phase, "mapping") == 0)
		atomic_store(l->cancel_at_mapping, 1);
}

static void test_pardnn_reports_phases_in_order(void)
{
	dp_graph *g = training_graph(1500, 3);
	REQUIRE(g != NULL);
	int64_t peak = one_device_peak(g);
	dp_machine m;
	machine_with(&m, 4, peak / 3);
	prog_log l = {0, 0, true, {{0}}, 0, NULL};
	dp_progress p = {log_progress, &l, NULL};
	dp_algo_opts o;
	algo_opts_default(&o);
	int32_t *pl = malloc(g->nops * sizeof *pl);
	REQUIRE(algo_find("pardnn")->run(g, &m, &o, &p, pl, NULL) == DP_OK);
	CHECK(l.monotonic);
	CHECK_NEAR(l.last, 1.0, 1e-12);
	static const char *want[] = {"slicing", "mapping", "refinement",
				     "memory", "polish"};
	int w = 0;
	for (int i = 0; i < l.nphases && w < 5; i++)
		if (strcmp(l.phases[i], want[w]) == 0)
			w++;
	CHECK_INT(w, 5);
	CHECK_STR(l.phases[0], "slicing");
	free(pl);
	machine_free(&m);
	graph_free(g);
}

static void test_pardnn_cancel_returns_canceled(void)
{
	dp_graph *g = training_graph(3000, 4);
	REQUIRE(g != NULL);
	dp_machine m;
	machine_with(&m, 4, DP_CAP_UNLIMITED);
	atomic_int cancel = 0;
	prog_log l = {0, 0, true, {{0}}, 0, &cancel};
	dp_progress p = {log_progress, &l, &cancel};
	dp_algo_opts o;
	algo_opts_default(&o);
	int32_t *pl = malloc(g->nops * sizeof *pl);
	dp_err err;
	dp_err_clear(&err);
	CHECK_INT(algo_find("pardnn")->run(g, &m, &o, &p, pl, &err),
		  DP_ECANCELED);
	CHECK_INT(err.code, DP_ECANCELED);
	/* it stopped in mapping, before the refinement phase */
	for (int i = 0; i < l.nphases; i++)
		CHECK(strcmp(l.phases[i], "refinement") != 0);
	/* a flag raised before the start stops it at once */
	REQUIRE(algo_find("pardnn")->run(g, &m, &o, &p, pl, &err) ==
		DP_ECANCELED);
	free(pl);
	machine_free(&m);
	graph_free(g);
}


/* ---- the plan layer reports what pardnn could not meet ---- */

static void test_pardnn_infeasible_caps_reported_by_plan(void)
{
	rand_opts ro = {300, 13, 3, true, false};
	dp_graph *g = random_dag(&ro);
	REQUIRE(g != NULL);
	int64_t largest = 0;
	for (uint32_t u = 0; u < g->nops; u++)
		if (g->ops[u].param_bytes > largest)
			largest = g->ops[u].param_bytes;
	dp_machine m;
	machine_with(&m, 3, largest / 2);
	dp_plan plan;
	memset(&plan, 0, sizeof plan);
	dp_err err;
	REQUIRE(plan_run(g, &m, algo_find("pardnn"), NULL, NULL, &plan,
			 &err) == DP_OK);
	CHECK(!plan.feasible);
	int d = plan_worst_device(&plan);
	REQUIRE(d >= 0 && d < 3);
	/* the numbers a user sees: the peak over the cap on that device */
	CHECK(plan.sim.dev[d].peak_bytes > plan.sim.dev[d].cap_bytes);
	CHECK_INT(plan.sim.dev[d].cap_bytes, largest / 2);
	CHECK_STR(plan.algo, "pardnn");
	plan_free(&plan);
	machine_free(&m);
	graph_free(g);
}

/* ---- quality on the ParDNN authors' ResNet graph ---- */

static double plan_makespan(const dp_graph *g, const dp_machine *m,
			    const int32_t *pl, dp_contention cont)
{
	dp_plan plan;
	memset(&plan, 0, sizeof plan);
	if (plan_evaluate(g, m, pl, cont, &plan, NULL))
		return -1;
	double ms = plan.feasible ? plan.sim.makespan : -1;
	plan_free(&plan);
	return ms;
}

/* With --link pardnn, in both contention models: never slower than one
 * device (K = 2, 4, 8) and, at K = 4, not slower than either reference
 * placement (the authors' C++ and Python implementations). */
static void test_pardnn_resnet_beats_reference_placements(void)
{
	char dir[512], ref[600];
	snprintf(dir, sizeof dir, "%s/pardnn-resnet", test_shared_dir());
	dp_graph *g = NULL;
	dp_err err;
	if (graph_load(dir, DP_FMT_AUTO, &g, &err) != DP_OK) {
		test_fail(__FILE__, __LINE__, "cannot load %s: %s", dir,
			  err.msg);
		return;
	}
	int32_t *pl = malloc(g->nops * sizeof *pl);
	int32_t *one = calloc(g->nops, sizeof *one);
	for (int ci = 0; ci < 2; ci++) {
		dp_contention cont = ci ? DP_CONT_NONE : DP_CONT_PORT;
		for (int k = 2; k <= 8; k *= 2) {
			dp_machine m;
			machine_with(&m, k, DP_CAP_UNLIMITED);
			REQUIRE(machine_set_link(&m, "pardnn", NULL) == DP_OK);
			dp_algo_opts o;
			algo_opts_default(&o);
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
					  sim_contention_name(cont), k, ours,
					  single);
			static const char *refs[] = {"pardnn-cpp-K4.place",
						     "pardnn-python-K4.place"};
			for (int r = 0; k == 4 && r < 2; r++) {
				snprintf(ref, sizeof ref, "%s/reference/%s",
					 dir, refs[r]);
				dp_placement_info info;
				int32_t *rp = malloc(g->nops * sizeof *rp);
				REQUIRE(placement_read(ref, g, rp, &info,
						       &err) == DP_OK);
				double theirs = plan_makespan(g, &m, rp, cont);
				free(rp);
				if (ours > theirs)
					test_fail(__FILE__, __LINE__,
						  "%s K=4: pardnn %.0f us > "
						  "%s %.0f us",
						  sim_contention_name(cont),
						  ours, refs[r], theirs);
			}
			machine_free(&m);
		}
	}
	free(pl);
	free(one);
	graph_free(g);
}

TEST_MAIN(TEST(test_pardnn_is_the_default_algorithm),
	  TEST(test_pardnn_slicing_covers_every_op_with_chains),
	  TEST(test_pardnn_first_primary_is_the_critical_path),
	  TEST(test_pardnn_mapping_places_every_op_and_keeps_groups),
	  TEST(test_pardnn_critical_path_stays_side_branches_move_k2),
	  TEST(test_pardnn_critical_path_stays_side_branches_move_k4),
	  TEST(test_pardnn_critical_path_on_fastest_device),
	  TEST(test_pardnn_every_op_pinned),
	  TEST(test_pardnn_random_graphs_invariants),
	  TEST(test_pardnn_training_graphs_invariants),
	  TEST(test_pardnn_cap_below_largest_op_terminates),
	  TEST(test_pardnn_every_op_colocated_terminates),
	  TEST(test_pardnn_one_device),
	  TEST(test_pardnn_more_devices_than_ops),
	  TEST(test_pardnn_empty_graph),
	  TEST(test_pardnn_rejects_pin_beyond_k),
	  TEST(test_pardnn_polish_never_hurts),
	  TEST(test_pardnn_reports_phases_in_order),
	  TEST(test_pardnn_cancel_returns_canceled),
	  TEST(test_pardnn_infeasible_caps_reported_by_plan),
	  TEST(test_pardnn_resnet_beats_reference_placements))
